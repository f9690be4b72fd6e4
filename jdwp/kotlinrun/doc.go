// Package kotlinrun runs the real Kotlin 2 compiler, for the commands that
// need compiled Kotlin (`ddmbridge bench kotlin`) and, through package
// jdwp/lang/kotlin/kotlintest, for tests.
//
// It owns: fetching the Kotlin test peers named in pom.xml (the Kotlin 2
// compiler, kotlin-compiler-embeddable, run as a plain java main; kotlin-stdlib;
// kotlinx-coroutines core and debug) from Maven Central with mvn into a cache
// (~/.cache/ddmbridge-kotlin, or $XDG_CACHE_HOME/ddmbridge-kotlin; offline once
// there; other processes wait on a file lock); compiling Kotlin sources in
// either lambda mode once per distinct set of sources (cached under the temp
// directory by a hash of their contents, the compiler version and the mode);
// and packing the classes of a compilation into a jar.
//
// It must not touch: JDWP, DAP, the debugger or any language's floor (it
// only makes class files), nor the testing package (test conveniences such
// as Require and the Kotlin fixture live in kotlintest, so the binary links
// no test harness). Like jdwp/jvmrun it is a runner: only cmd and tests (and
// test harnesses) import it. Nothing here prints to stdout.
package kotlinrun
