// Package kotlintest is the Kotlin test peer of ddmbridge's tests. It owns
// the Kotlin toolchain of the tests and the Kotlin fixture: it fetches
// the Kotlin 2 compiler (kotlin-compiler-embeddable, run as a plain java main)
// and kotlinx-coroutines (core and debug) from Maven Central with mvn into a
// cache (~/.cache/ddmbridge-kotlin, offline once there), compiles Kotlin
// sources with it once per distinct set of sources and options (cached by a
// hash of their contents), and carries the fixture: a multi-file Kotlin
// program (fixture/app) with the constructs the debugger must handle, whose
// lines tests find by their marker comments (Line).
//
// Tests that need Kotlin call Require or CompileFixtureT, which fail the test
// (never skip it) when the compiler cannot be had: the README's test command
// installs mvn, and CI reaches Maven Central.
//
// It must not be imported by non-test code, and knows nothing of JDWP or DAP.
package kotlintest
