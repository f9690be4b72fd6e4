// Command ddmbridge is a debugger backend for Java and Android VMs: a Debug Adapter
// Protocol server, a DDM monitor and a JDWP multiplexer in one process.
//
// This package owns the command line: flags, wiring the packages together,
// and the text and JSON the commands print. It must not hold protocol logic: JDWP
// is jdwp's, DDM ddm's, the monitor bridge's and DAP dap's.
package main
