// Package simdevice is a simulated Android device for tests and demos: it
// speaks the device side of the adb transport protocol
// (shared/reference/adb.md) well enough that the real adb server accepts it
// with `adb connect HOST:PORT`, lists it in `adb devices`, and opens its
// services: track-jdwp and jdwp (the debuggable pids), jdwp:PID (a stream
// to a process's VM, so `adb forward tcp:N jdwp:PID` works), shell (v1 and
// v2), exec and sync (push). With track_app in Options.Features (as in
// CurrentFeatures) it also serves track-app, with the app_info fields when
// app_info is there too, and can hold non-debuggable (profileable) and
// frozen processes: adbd's refusals of jdwp:PID are imitated, and a frozen
// process's /proc/PID/wchan reads do_freezer_trap.
//
// Processes are simulated DDM VMs (package simvm, ART profile, in process)
// or, with ProcessOptions.JVM, simvm in passthrough mode in front of a real
// HotSpot JVM. They come and go while the device runs (AddProcess,
// RemoveProcess, `am start -D` of an installed package, `am force-stop`);
// track-jdwp streams follow. Like ART's adbconnection, a VM takes one
// jdwp:PID stream at a time and refuses a second.
//
// Shell commands are answered from a table (getprop, cat /proc/PID/cmdline,
// ps, pidof, am start/force-stop/dumpheap, pm install/uninstall/list/path,
// rm, echo, id): nothing the peer sends is ever executed, and shell syntax
// beyond simple quoted words is refused. Files pushed with sync: (or written
// by am dumpheap: the process's simulated heap as HPROF) live in memory and
// are pulled with sync: RECV; `logcat` (plain, or as `adb logcat` sends it)
// streams the device's log buffer as adbd's logcat does: threadtime lines,
// --pid, -T COUNT or -T TIME, -t and -d (Device.Log appends a line;
// ActivityManager logs process starts and deaths; Options.LogInterval makes
// every process log a line each interval);
// `pm install` of /data/local/tmp/PACKAGE.apk installs PACKAGE (the
// simulation does not read manifests).
//
// It owns its listening socket and its simulated processes; it must not
// touch the adb server's own state (it is only ever the server's peer), the
// bridge, or DAP.
package simdevice
