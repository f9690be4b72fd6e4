// Package eval is the evaluation environment of a debug session: it binds
// the expression engine (package jdwp/lang/java/expr) to a frame of a suspended
// thread of a VM read through package jdwp/mirror.
//
// What it owns: a frame's names as Java resolves them (locals from the
// method's variable table, this, fields, statics; type names as javac reads
// them in the frame's source file — member types, single-type imports, the
// package, imports on demand — found among the loaded classes or loaded
// through the frame's class loader; ParseImports, a tolerant scanner of a
// file's package and import declarations), method and constructor
// invocation in the frame's thread, values converted between the wire and
// the engine, assignment (locals, fields, array elements; setVariable's and
// setExpression's lvalues), class literals, the functions of lambdas and
// method references (classes from package jdwp/lang/java/fngen defined in the VM
// through the frame class's loader), an exception's name and message, and
// the names completions offer.
//
// What it must not touch: DAP (it knows no request, handle or DAP type:
// package dap translates), the JDWP wire (package jdwp: it reaches the VM
// through the mirror alone, and names only package jdwp's ids, values and
// error codes, as internal/layering holds it), suspension and invocation
// policy (package jdwp/debugger: its methods run through the [Invoker] it is
// given, the debugger layer's one invocation road), source lookup (package
// jdwp/srclookup, through
// the session). What it needs of the session — which exception a thread
// stopped on, the text of a class's source file — comes through the
// [Session] interface.
package eval
