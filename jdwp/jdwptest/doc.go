// Package jdwptest is an in-process stand-in for the VM side of a JDWP
// connection, for tests of the layers over package jdwp: VM serves one
// debugger connection (handshake, IDSizes, command handlers the test
// installs, events and VM-initiated commands it sends), and Threads models
// the VM's thread suspension as HotSpot's agent keeps it (counted suspends
// per thread, VM-wide and per thread, SuspendCount, the implicit resume of
// an invocation and the suspend when it returns), so the debugger layer's
// suspension ledger can be checked against the counts a VM would hold.
//
// It owns no behaviour of a real VM beyond what a test installs: no classes,
// no code. Tests against a real HotSpot VM use package jvmtest. It must not
// be imported by non-test code.
package jdwptest
