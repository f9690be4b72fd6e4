// Package bench runs the shared JDWP client workloads (classes, threaddump,
// locals, objects, step; see shared/bench/README.md) with the jdwp client
// against a VM running BenchTarget, and reports one Result per run. It is the
// engine of `ddmbridge bench jdwp`.
//
// The workloads do exactly the work the JDI reference harness does; they are
// fast because they keep many requests in flight (JDWP allows it) and batch
// commands whose order the VM preserves, never because they skip work.
// Caches live for one run only.
package bench
