// Package classgen writes Java class files: a constant pool, fields, and
// methods whose bytecode is emitted through a [Code] builder that tracks the
// operand stack and resolves branch labels. The debugger uses it to define
// classes in a target VM (lambdas and method references evaluated in the
// Debug Console) with no JDK on its side.
//
// Classes are written as version 49 (Java 5), so the VM verifies them by
// type inference and no StackMapTable is needed; ldc of a class constant is
// allowed from that version on.
//
// What it owns: the class-file layout of JVMS chapter 4 for writing, and the
// stack effect of the opcodes it emits. What it must not touch: JDWP, DAP,
// the expression language or any VM — it produces bytes; package
// jdwp/classfile reads them back in its tests.
package classgen
