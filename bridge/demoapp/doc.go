// Package demoapp is the bundled sample Java app of `ddmbridge demo` and the
// debuggee of the bridge tests: a few daemon threads that compute, sleep,
// wait, contend for a lock and allocate, and a main loop that calls
// DemoApp.work(int) every 50 ms and prints "TICK n" every tenth call.
//
// It owns the Java source and nothing else; starting JVMs is jvmrun's job.
// It ships in the binary, so it is no test harness: it must not import
// testing or jvmtest.
package demoapp
