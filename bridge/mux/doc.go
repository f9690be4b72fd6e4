// Package mux is the JDWP multiplexer: it shares the one connection a VM
// accepts among the debuggers attached to it, as if each were alone. A
// [Mux] serves one VM's connection: [Mux.Attach] adds a debugger, whose
// [Session] answers its handshake, forwards its commands under fresh ids
// (mapping replies back), forwards the VM's events after any reply the VM
// sent before them (Mux.Pump), and keeps DDM (command set 0xC7) away from
// it. VirtualMachine.Dispose is answered here, never forwarded.
//
// # Sessions
//
// Each debugger session is a fresh attach, as directly. When the last
// debugger of a VM the host can dial again (Options.Resettable: a plain
// JDWP VM the monitor found by scanning) leaves — Dispose, close, crash,
// garbage — after sending a command (or while the VM waits since
// suspend=y), the host resets the agent by reconnecting (Host.ResetAgent):
// ids the debugger learnt answer INVALID_OBJECT, its collection pins,
// HoldEvents and event requests are gone, a suspend=y VM runs on, and the
// next debugger gets no VM_START. On the new connection nothing that hands
// out ids is asked, and the host moves the new agent's id counter past the
// old one's when it will ask such things (IDHighWater, PassIDs:
// staleids.go).
//
// Other VMs (DDM VMs, whose DDM state a reconnect would lose, and VMs the
// host cannot dial) are cleaned up command by command: the debugger's
// event requests are cleared (and all breakpoints if it made any), threads
// are resumed until none is suspended beyond what a still-waiting suspend=y
// VM had before, and the host is told (Host.CleanedUp: a draft-protocol VM
// gets DBGD). Should that fail with the VM alive, the host drops the VM
// (Host.Drop) so its agent resets.
//
// Several debuggers may share a VM (a second one joins after a one-second
// grace in case the first one just closed): each gets the events of its
// own requests (VM_START and VM_DEATH go to all), its resumes release only
// its own suspensions, ClearAllBreakpoints clears only its breakpoints,
// and Dispose ends only its session; collection pins are counted per
// debugger; when it leaves, its requests, suspensions, collection pins and
// HoldEvents are released, and the last one to leave resets the agent as
// above. A method a departed debugger invoked that returns late has what
// its return suspended again resumed (invokes.go). Ids have one lifetime
// for the debuggers attached at once. See sessions.go.
//
// Output to a debugger is coalesced by a [jdwp.PacketWriter]: a burst of
// commands is forwarded in one write, and a burst of replies is written
// when the VM connection's reader has handled all it read. A large reply
// (from [jdwp.StreamMin] bytes) goes to the debugger as it arrives, without
// being read whole first; while the debugger takes one larger than 8 MiB
// slower than the VM sends it, the VM connection's reader waits for the
// debugger, so memory does not grow with the reply; a debugger that takes
// nothing for Options.DebuggerWriteTimeout is dropped. A debugger's next
// command is not read while too many of its commands await replies or too
// much output awaits it (backpressure).
//
// # What it owns and must not touch
//
// It owns the sessions of one VM connection: routing, suspension holds,
// collection pins, the cleanup after a debugger, stale ids after a reset.
// It knows nothing of the monitor (discovery, VM lists, ports, the control
// API): what it needs of its owner is [Host]. It must not touch JDWP's or
// DDM's wire formats (jdwp, ddm) beyond using them, nor open connections
// of its own.
//
// Logging: the VM's logger; trace kind "bridge.proxy" (every debugger
// packet with its id mapping).
package mux
