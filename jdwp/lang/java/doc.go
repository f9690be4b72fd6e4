// Package java is Java's floor under the source-language seam (package
// jdwp/lang): Lang implements lang.Language with Java's rules — a file's
// classes from its package declaration and base name (nested and anonymous
// classes after '$'), the source path of a class from its package and
// SourceFile attribute, which lines hold no code, variables shown as javac
// names them, and expressions through the Java engine (jdwp/lang/java/expr).
//
// Its subpackages are the rest of the Java language engine: expr (parser
// and evaluator, no JDK needed), fngen (lambdas and method references
// compiled into classes defined in the debuggee), classgen (the class-file
// writer fngen uses), outline (a class without source rendered as source
// would show it). Java's type-name conversions, which the JVM's own names
// share, stay in jdwp/javalang below the mirror.
//
// What it owns: Java's answers to the seam. What it must not touch: the
// JDWP wire and the mirror (the debugger layer reads the VM and hands it
// what it found), other languages, DAP.
package java
