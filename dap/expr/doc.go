// Package expr is the debugger's Java expression engine: a lexer and parser
// for a subset of Java expressions, and an evaluator that runs them in Go
// against an [Env] — no JDK on the debugger side.
//
// What it owns: the grammar (literals, names, this, field selection, array
// indexing, unary/binary/conditional operators with Java's precedence,
// primitive casts, and — parsed now, evaluated by a later engine — method
// calls and instanceof), Java's numeric promotion and overflow rules, string
// concatenation, and {expr} templates for logpoints ([ParseTemplate]).
//
// What it must not touch: JDWP, DAP or any VM. Everything the evaluator needs
// from a VM — locals, this, fields, array elements, string contents — comes
// through [Env]; package dap implements it over a jdwp.Conn. That keeps the
// engine testable with a fake Env and its parser fuzzable ([FuzzParse]).
//
// String equality: == and != between two strings compare their contents, not
// their identities (what a user typing name == "main" in a condition means);
// every other object compares by identity as in Java.
package expr
