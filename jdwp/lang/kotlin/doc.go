// Package kotlin is Kotlin's floor under the language seam (jdwp/lang):
// what the debugger must know of Kotlin source, with no JDWP and no DAP.
//
// It owns:
//
//   - which classes hold a .kt file's lines (Files, Lang.Classes): the
//     package (with or without ';'), the file facade (NameKt, or
//     @file:JvmName's name; with @JvmMultifileClass the part Name__FileKt),
//     every top-level class, object and interface of the file, and whatever
//     the compiler nests under them ($Inner, $Companion, lambdas and
//     continuations such as MainKt$main$1, local functions' classes), each
//     confirmed by its SourceFile attribute as it loads;
//   - which source file and line a location is: a class's JVM line mapped
//     through the Kotlin stratum of its source map (JSR-45, decoded by
//     jdwp/smap), so an inlined body's lines past the file's end read as
//     the inline function's own file and line;
//   - how a frame's variables are shown ($this$apply as this@apply, the
//     $i$f$/$i$a$ inline markers hidden, the $iv suffix of inlined
//     variables dropped, x$delegate as x, a suspend function's
//     $completion/$result hidden);
//   - its coroutines (lang.Suspending, coroutines.go): the standard
//     library's continuation names (BaseContinuationImpl, completion,
//     label, invokeSuspend), a continuation class's @DebugMetadata
//     decoded from its class file (each suspension point's line, the
//     spilled variables' fields and names), kotlinx-coroutines' debug
//     probes (DebugProbesImpl's dump, its JSON decoded) and its context
//     elements and dispatchers' names;
//   - its expressions: until Kotlin has an engine of its own, the Java
//     engine evaluates what Java and Kotlin read alike, and what Java would
//     read otherwise — string templates, ?., ?:, postfix !!, ===, == between
//     two values (equals() in Kotlin) — is refused by name, never
//     mis-evaluated.
//
// It must not touch the VM (the debugger layer reads it and hands this
// package what it found), DAP, or another language's rules.
package kotlin
