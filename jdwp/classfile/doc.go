// Package classfile decodes the parts of Java class files a debugger needs
// without a JDK: a constant pool (as JDWP's ReferenceType.ConstantPool
// returns it, or inside a class file), method bytecodes into instructions
// with resolved member names, a class file's own name (this_class) for
// hot code replace, and a class's RuntimeVisibleAnnotations (Kotlin's
// @DebugMetadata of a continuation class: its suspension points' lines and
// spilled variables).
//
// What it owns: the class-file formats of JVMS chapter 4 (constant pool tags
// 1–20) and chapter 6 (opcodes 0x00–0xc9). What it must not touch: JDWP,
// DAP or any VM — it works on bytes, so it is fuzzed (FuzzPool,
// FuzzDisassemble, FuzzThisClass, FuzzClassAnnotations) and every decoder fails with an error,
// never a panic, on malformed input.
package classfile
