// Package kexpr is Kotlin's expression engine: a lexer and parser for the
// Kotlin expressions a user types in a Kotlin frame (the Debug Console,
// conditions, log messages, hovers), and an evaluator that runs them in Go
// against the Java engine's environment ([expr.Env]), lowering each
// Kotlin construct onto the Java engine where Java means the same
// (arithmetic, comparisons, fields, calls with overload resolution, casts)
// and doing the rest itself: properties read through their getters,
// ?., ?:, !!, string templates, == as equals (null-safe) and ===,
// is/!is/as/as?, in/!in with ranges (.., ..<, until, downTo), list[i] and
// map[key] through get, this@label, calls of top-level functions (file
// facades), extension functions (their static form, receiver first) and
// companion members, if and when as expressions, Kotlin's numeric literals.
//
// What it refuses by name (never mis-evaluates): lambdas, callable
// references, object expressions, named and default arguments, assignment,
// unsigned literals, try, throw, return, super.
//
// What it must not touch: JDWP, DAP or any VM except through expr.Env; the
// Java engine's internals (it builds Java syntax trees and hands them to
// expr.Eval).
package kexpr
