// Package jdwp is a client for the Java Debug Wire Protocol: what a debugger
// speaks to a Java VM's JDWP agent.
//
// It owns the wire: the handshake, 11-byte packet framing with a bound on
// packet size, one connection owner (Conn) with a single reader goroutine that
// routes replies to callers by id (or, for a proxy's Forward, passes a
// large reply on part by part as it arrives), a coalescing writer
// (PacketWriter, which proxies use too) so many calls can be in flight at once, typed ids sized by VirtualMachine.IDSizes,
// tagged values, locations, and a typed method for every command of every
// command set a debugger uses. A Pipeline sends the commands a debugger asks
// in bulk (every thread's frames, every element's fields) without waiting,
// encoded straight into the writer's output and sent in large writes, and a
// Future per command decodes its reply: one stage of questions costs the
// VM's time, not a round trip each. Conn.RoundTrip estimates the link's round
// trip from the replies (loopback or adb: what a client prefetches may
// depend on it). Events (Event.Composite) are decoded and handed
// to subscribers; every other VM-initiated command set — notably the vendor set
// 0xC7 that Android's DDM uses — goes to a handler registered with
// HandleCommandSet, or is answered NOT_IMPLEMENTED and logged, never dropped.
//
// It knows nothing of DAP, DDM chunk contents, or how many VMs exist: those
// belong to the dap, ddm and bridge packages, which build on it.
package jdwp
