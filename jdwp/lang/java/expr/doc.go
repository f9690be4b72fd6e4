// Package expr is the debugger's Java expression engine: a lexer and parser
// for a subset of Java expressions, and an evaluator that runs them in Go
// against an [Env] — no JDK on the debugger side.
//
// What it owns: the grammar (literals: decimal, hex, octal and binary
// integers with underscores, floats, chars, strings; names, this,
// field selection, qualified class names, array indexing,
// unary/binary/conditional operators with Java's precedence, casts,
// instanceof with patterns (x instanceof T t), method calls, new objects
// (type arguments ignored) and arrays (new int[n], new T[]{...}), class
// literals, assignment and compound assignment (=, +=, ++, through an Env
// that implements [Assigner])), Java's numeric promotion and overflow
// rules, string concatenation (with toString() of objects), method overload
// resolution by the arguments' runtime types (JLS 15.12.2: strict, loose,
// variable arity, then the most specific), the conversions of arguments and
// of assigned values ([Convert]: widening, narrowing of values that fit,
// boxing, unboxing), and {expr} templates for logpoints ([ParseTemplate]).
// Errors name the sub-expression that failed ([EvalError]); exceptions
// thrown by invoked methods are [Thrown].
//
// Other languages on the JVM evaluate into the same values and
// environments (the seam, package jdwp/lang, names them).
//
// What it must not touch: JDWP, DAP or any VM. Everything the evaluator needs
// from a VM — locals, this, fields, array elements, string contents,
// classes, methods, subtyping, invocation, new strings and arrays — comes
// through [Env]; package jdwp/eval implements it over the mirror. That keeps the
// engine testable with a fake Env and its parser fuzzable ([FuzzParse]).
//
// Lambdas with an expression body (x -> x.total() > 100, (a, b) -> a + b)
// and method references (String::length, System.out::println, Type::new)
// passed to a method: the evaluator resolves the body's names where it is
// written — a parameter, a value captured from the frame, a class — into a
// [Func], and an Env that implements [Functions] makes it an object of the
// functional interface the chosen parameter names (package jdwp/eval
// defines a class in the VM for it). Block-bodied lambdas, lambdas nested in lambdas,
// switch expressions, statements and blocks are refused by name ("lambdas
// with a block body are not supported here"), not as syntax errors.
//
// String equality: == and != between two strings compare their contents, not
// their identities (what a user typing name == "main" in a condition means);
// every other object compares by identity as in Java.
package expr
