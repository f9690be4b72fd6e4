// Package kotlintest is the Kotlin test peer of ddmbridge's tests. It owns
// the tests' side of the Kotlin toolchain and the Kotlin fixture: through
// package jdwp/kotlinrun (the runner, which the binary's `bench kotlin`
// shares) it fetches the Kotlin 2 compiler (kotlin-compiler-embeddable, run as
// a plain java main) and kotlinx-coroutines (core and debug) from Maven
// Central with mvn into a cache (~/.cache/ddmbridge-kotlin, offline once
// there) and compiles Kotlin sources once per distinct set of sources and
// options (cached by a hash of their contents); it carries the fixture: a multi-file Kotlin
// program (fixture/app) with the constructs the debugger must handle, whose
// lines tests find by their marker comments (Line).
//
// Tests that need Kotlin call Require or CompileFixtureT, which fail the test
// (never skip it) when the compiler cannot be had: the README's test command
// installs mvn, and CI reaches Maven Central.
//
// It must not be imported by non-test code, and knows nothing of JDWP or DAP.
package kotlintest
