// Package bench runs the shared JDWP client workloads (classes, threaddump,
// locals, objects, step; see shared/bench/README.md) with the jdwp client
// against a VM running BenchTarget, and reports one Result per run. It is the
// engine of `ddmbridge bench jdwp`. It also holds each workload's floor
// (classesfloor, threaddumpfloor, localsfloor, objectsfloor): the minimum
// command sequence for the same result, each stage sent at once and read
// undecoded where nothing depends on it.
//
// The workloads do exactly the work the JDI reference harness does; they are
// fast because they ask each stage's questions at once on a jdwp.Pipeline
// (JDWP allows it, and the VM answers in order) and ask a follow-up as soon
// as a reply names it, never because they skip work. Caches live for one run
// only.
//
// It owns the workloads and their floors. It must not touch: the wire beyond the jdwp package's API, DAP, DDM or the
// bridge; nor assert timings — it measures and prints.
package bench
