// Package jvmtest runs real HotSpot JVMs with the JDWP agent, for tests and for
// the `ddmbridge bench` command.
//
// It owns: finding the JDK tools (java, javac) through $JAVA_HOME or $PATH;
// compiling Java sources with `javac -g` into a content-addressed cache shared by
// every test in one process and across processes; starting a JVM with
// `-agentlib:jdwp=transport=dt_socket,...`, learning its JDWP address, collecting
// its output and killing its whole process group; the shared benchmark debuggee
// (BenchTarget, embedded verbatim from shared/bench); and the JDI reference
// client (jdi/JdiBench.java) that runs the benchmark workloads through
// com.sun.jdi for comparison.
//
// It must not touch: the JDWP protocol beyond the 14-byte handshake
// (DialHandshake; packets belong to package jdwp), DAP, DDM or the bridge.
// Nothing here prints to stdout.
//
// A server=y agent serves one debugger at a time and listens again, on the
// same port, after that debugger detaches; connections made in the moment
// before it listens again are refused or reset, which is why DialHandshake
// and the JDI harness retry.
//
// Typical test use:
//
//	func TestSomething(t *testing.T) {
//		jvmtest.RequireJava(t)
//		vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{dir}, MainClass: "Hello", ReadyLine: "READY"})
//		conn, err := jdwp.Dial(ctx, vm.Addr, nil)
//		...
//	}
package jvmtest
