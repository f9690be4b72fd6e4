// Package bridge is the monitor: it discovers VMs (workstation port ranges and
// adb devices), owns the single JDWP connection each VM accepts, keeps DDM
// flowing on it, and re-exports it to debuggers on per-VM and current-VM
// ports through each VM's multiplexer (package bridge/mux). The JSON-RPC
// control API over it is package bridge/rpc; who may reach its listeners,
// package bridge/access.
//
// It is the only package that knows several VMs exist. Wire formats belong to
// jdwp and ddm; editor concerns belong to dap.
//
// # Discovery and ownership
//
// A [Monitor] probes every port of its scan ranges (default
// 127.0.0.1:8000-8040, the seed's) that no VM of its own holds, every
// ScanInterval (1 s), so a VM is found about a second after its agent
// listens. Probing a JDWP port is attaching to it — HotSpot serves one
// debugger, and a suspend=y VM runs off when its first debugger leaves — so a
// probe that completes the handshake is never closed: it becomes the VM's
// owning connection. A monitored VM's death is seen at once from that
// connection. Other transports hand their connection to [Monitor.Connect].
//
// With Options.ADB the monitor also follows an adb server (starting a local
// one when none runs, reconnecting with backoff when it goes away): its
// devices (Monitor.Devices, devices/* events) and, per online device, the
// debuggable processes of track-jdwp. Each process gets a follower that opens
// its jdwp:PID stream and monitors the VM at address SERIAL/PID like any
// other, names it from /proc/PID/cmdline until the VM names itself, retries
// while another tool holds the VM, and removes it when the process leaves
// the list or the device goes offline or away.
//
// DDM (command set 0xC7) goes only to a VM known to be Android's, never to
// one that has not shown it speaks DDM: HotSpot's agent reads before its
// command table for a set byte of 0x80 and up and crashes (JDK-8382537;
// Debian's 17.0.21 included). The rule, in setupVMAs: an adb device's VMs
// are ART, so they get HELO at once and nothing else (the device's JDWP
// agent stays unloaded); a VM on a workstation port is asked
// VirtualMachine.Version first and gets HELO only if it names itself
// Android's (jdwp.VersionInfo.Android: ART and Dalvik answer vmName
// "Dalvik"). The connection itself enforces it: jdwp.Conn refuses a vendor
// command until AllowVendorCommands, and a debugger's vendor command to a
// plain VM is answered NOT_IMPLEMENTED by the monitor. A VM that answers
// HELO is DDM-aware and from then on gets only DDM traffic until a debugger
// attaches (a VM switches to its slow debugger path on the first non-DDM
// packet). Any other VM (HotSpot, or an Android VM that answered HELO with
// a JDWP error or not at all)
// is a plain JDWP VM: no more DDM; its identity comes from
// VirtualMachine.Version and, for local VMs, /proc (package hostproc); its threads from
// AllThreads, ThreadReference.Name and Status (nothing is ever suspended). A
// VM that sent VM_START with SUSPEND_ALL (suspend=y) or WAIT is shown as
// waiting and is not resumed by the monitor. The monitor makes no event
// requests of its own.
//
// # Debugger pass-through
//
// Each VM gets a debugger port, the lowest free one from DebugPortBase (8600;
// a VM that comes back at the same address gets its old port). The port
// belongs to the address: it stays open for RestartHold after the VM there
// is gone, and a debugger connecting meanwhile is held until a VM is back
// (a restart) instead of refused. CurrentPort (8700) leads to the current
// VM: automatic (the oldest VM) until one is selected (by id, name or
// address), then the selected app through its restarts until
// [Monitor.SelectAuto]. A debugger arriving on 8700 while no VM is current
// makes the monitor scan at once and is held up to HoldTimeout.
// The debugger is handed to the VM's multiplexer (package bridge/mux),
// which shares the VM's one connection among the debuggers attached, as if
// each were alone, and cleans up after each (see its documentation); the
// monitor is its [mux.Host]: it announces what changed, resets a plain
// VM's agent by reconnecting after the last debugger (the VM keeps its id
// and port; a debugger arriving meanwhile is held), and tells a DDM VM
// that a debugger came or went. [Monitor.OpenDebugger] gives an in-process
// debugger (the DAP server) the same service over a pipe.
//
// # Control API
//
// Package bridge/rpc serves the monitor's JSON-RPC control API through
// the monitor's exported methods (its Monitor interface) and those of
// [VM]: the VM list and its events ([Monitor.Subscribe]), selection,
// devices, thread and heap data, heap dumps, logs.
//
// # Logging
//
// zerolog with component "bridge" ("adb" for device tracking); trace kind
// "bridge.scan" (every probe); the multiplexer's "bridge.proxy".
//
// It must not touch: JDWP or DDM wire formats (jdwp, ddm), DAP (dap), the
// adb host protocol (bridge/adb, whose Client it uses), the sessions of a
// VM's debuggers (bridge/mux, whose Mux it owns, one per VM), or the
// control API's protocol (bridge/rpc, which sits above it: the monitor
// never imports it).
package bridge
