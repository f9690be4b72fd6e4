// Package jvmrun runs real HotSpot JVMs with the JDWP agent: for the commands
// that start one (`ddmbridge demo`, `bench jdwp`, `simdevice --jvm`) and,
// through package jvmtest, for tests.
//
// It owns: compiling Java sources with `javac -g` into a content-addressed cache shared
// by every caller in one process and across processes; starting a JVM with
// `-agentlib:jdwp=transport=dt_socket,...`, learning its JDWP address,
// collecting its output and killing its whole process group; the shared
// benchmark debuggee (BenchTarget, embedded verbatim from shared/bench); and
// the JDI reference client (jdi/JdiBench.java) that runs the benchmark
// workloads through com.sun.jdi for comparison. The JDK's tools are found,
// and process groups made and killed, by package localjvm (production code
// shares them: a launching debug session starts its JVM there, and no
// production package imports jvmrun).
//
// It must not touch: the JDWP protocol beyond the 14-byte handshake
// (DialHandshake; packets belong to package jdwp, which it must not import,
// since jdwp's tests start VMs through it), DAP, DDM or the bridge; nor the
// testing package — test conveniences (StartT, RequireJava) live in jvmtest,
// so the shipped binary links no test harness (jvmrun's own tests live there,
// beside StartT). Nothing here prints to stdout.
//
// A server=y agent serves one debugger at a time and listens again, on the
// same port, after that debugger detaches; connections made in the moment
// before it listens again are refused or reset, which is why DialHandshake
// and the JDI harness retry.
package jvmrun
