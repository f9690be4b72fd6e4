// Package localjvm knows the JVMs running on this machine and the JDWP
// agents they were started with: it lists Java processes from /proc (for an
// "attach to process" picker), reads the address an agent listens on from a
// process's command line, and explains why a JDWP address cannot be
// attached — nothing listening, a VM that already has a debugger (HotSpot
// serves one debugger and stops listening meanwhile), or a peer that is not
// a JDWP agent.
//
// It reads /proc and dials nothing but what it is asked to; it knows neither
// the JDWP wire beyond the handshake string (package jdwp) nor DAP.
package localjvm
