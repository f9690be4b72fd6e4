// Package mirror is the start of ddmbridge's mirror layer over package jdwp
// (JDI's idea, Go's shape): how a Java developer reads the values of a
// suspended VM.
//
// It owns the value presentation every front end shares — DAP variables,
// hovers, the REPL, watches and logpoints: which logical view a type gets
// (Collection, Map, Map.Entry, Optional, atomics, string builders, enums,
// records, Class, Thread, Throwable), the one-line summary of a value
// (ArrayList (size=3), "k" -> 1, Status.NEW, Point[x=1, y=2], toString()
// when a class overrides it), and how a collection's elements are gathered
// (toArray() run in the stopped thread, or fields read where that is safe).
// Views are chosen by subtype tests against the java.util interfaces, never
// by implementation class names.
//
// It knows JDWP, not DAP: it reads the VM through the small [VM] interface
// (fields, strings, subtype tests, bounded method invocation), which the dap
// package implements over its jdwp connection and caches. It must not touch
// the JDWP wire (package jdwp), DAP messages, or decide when methods may run:
// the VM implementation refuses invocations that are not allowed (hovers)
// or could deadlock, and presentation then falls back to reading fields.
package mirror
