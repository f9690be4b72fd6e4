// Package adb is a client of the adb server, the way Android tools talk to
// devices: the host protocol on 127.0.0.1:5037 (or what ADB_SERVER_SOCKET /
// ANDROID_ADB_SERVER_PORT select), server version, device lists and live
// device tracking, transport selection by serial, live track-jdwp per
// device, live track-app per device (Android 12+: a protobuf per debuggable
// or profileable process, decoded by a small hand-written protobuf reader,
// with the app_info details when the device has them), device and server
// features, jdwp:PID streams to a VM, port forwards, shell commands (process
// names, whether a process is frozen, am start, pm install) and sync push.
// Protocol facts: shared/reference/adb.md, and docs/android-today.md where
// that reference is dated.
//
// A Client opens one server connection per call, starts the server
// (`adb -P PORT start-server`) when none answers on a loopback address, and
// takes a context on every call that waits on the network. Live lists come
// as Trackers that keep only the newest list for a slow reader:
// TrackDevices, TrackJDWP and TrackApp per device, and TrackAllJDWP, which
// merges them into one list of (device, pid, track-app details) — track-app
// where the device announces track_app, track-jdwp elsewhere — that loses a
// device's processes as soon as the device goes offline or away. WaitForProcess is the launch step after
// `am start -D`.
//
// It owns the host protocol and nothing else: JDWP beyond the raw stream
// belongs to package jdwp, DDM to ddm, which VMs to attach to the bridge.
// The simulated device for tests lives in adb/simdevice; adb/adbtest
// runs private adb servers for tests.
//
//	c := &adb.Client{}
//	tr, err := c.TrackAllJDWP(ctx)
//	…
//	for list := range tr.Updates() {
//		for _, p := range list {
//			nc, err := c.DialJDWP(ctx, p.Device.Serial, p.PID) // then jdwp.Handshake
//			…
//		}
//	}
//
// What it owns: the adb host protocol as a client (devices, tracking,
// streams to a device's services). What it must not touch: JDWP beyond
// handing out a stream (jdwp:PID), DDM, DAP, the monitor's policy.
package adb
