// Package localjvm knows the JVMs running on this machine and the JDWP
// agents they were started with: it lists Java processes from /proc (for an
// "attach to process" picker), reads the address an agent listens on from a
// process's command line, and explains why a JDWP address cannot be
// attached — nothing listening, a VM that already has a debugger (HotSpot
// serves one debugger and stops listening meanwhile), or a peer that is not
// a JDWP agent. It also starts the JVM a launching debug session runs
// (Debuggee: in a process group of its own, its output forwarded, its exit
// and stderr kept for errors, its agent's connection accepted) and finds
// the JDK's tools (FindTool), for the session and for package jvmrun, and
// the JDKs installed here (InstalledJDKs: /usr/lib/jvm, $JAVA_HOME,
// SDKMAN's folder, read from their release files) for a launch's javaHome.
//
// It reads /proc and dials nothing but what it is asked to; it must not
// touch the JDWP wire beyond the handshake (package jdwp's AcceptConn) or
// DAP, nor import a test harness (jvmrun and jvmtest build on it).
package localjvm
