// Package lang is the source-language seam: what the debugger must know of
// the language a program was written in, behind one interface (Language)
// that each language's floor implements — Java's (jdwp/lang/java) today,
// Kotlin's (jdwp/lang/kotlin) next — and a Set that picks the language of a
// source file by its extension, or of a class by its SourceFile attribute.
//
// What a language says:
//
//   - the package a source file declares (zero-config source lookup
//     indexes a workspace by it);
//   - which loaded classes can hold a source file's lines (Classes: the
//     class-prepare patterns to watch and, per class, whether it was
//     compiled from the file; Java: the file's package declaration and base
//     name, nested classes after '$');
//   - which source file and line a location is (Locate: from the class's
//     signature, SourceFile attribute and the line its line table gives; a
//     language with strata, JSR-45's SMAP in SourceDebugExtension, maps the
//     line through them: Located.SMAP is the hook);
//   - whether a source line holds no code (a breakpoint there moves on),
//     and where the lambdas of a line are (inline breakpoints);
//   - how a frame's variables are named and whether they are shown
//     (Variable: compiler-made locals hidden or renamed), and how a frame
//     names its class (FrameNamer, optional: Kotlin's Shop.Companion for
//     Shop$Companion);
//   - its expressions (Engine): conditions, log messages and the console's
//     expressions, parsed once and evaluated in a frame's environment. Values
//     and environments are the JVM's, as package jdwp/lang/java/expr defines
//     them (expr.Value, expr.Env, which jdwp/eval implements over the
//     mirror): every language on the JVM evaluates into the same values;
//   - for a language whose functions suspend (Suspending, Kotlin's
//     coroutines): the names of the runtime's continuations and their
//     fields, a continuation class's suspension points from its class file
//     (lines, spilled variables), a coroutine registry's dump decoded — the
//     debugger follows a coroutine's continuations with them.
//
// What it owns: the interface, the Set and its choice by file name. What it
// must not touch: JDWP and the mirror (a language knows source, not the
// wire; the debugger layer reads the VM and hands a language what it
// found), any one language's rules (they live in its floor), DAP.
package lang
