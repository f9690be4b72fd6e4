// Command kotlinfixture compiles the Kotlin fixture (package kotlintest's
// fixture/app) with the real Kotlin 2 compiler, fetching and caching it as
// the Go tests do, and prints where it is as one JSON object:
//
//	{"mainClass":"app.MainKt","classes":DIR,"sources":DIR,"classPath":[DIR,STDLIB,COROUTINES]}
//
// It is the VS Code extension's e2e test's way to the fixture
// (`go run ./jdwp/lang/kotlin/kotlintest/kotlinfixture --lambdas indy`), so the
// extension's tests debug the very program the Go tests do.
//
// It owns nothing else: it must not be imported, and knows nothing of JDWP
// or DAP. A test harness: never linked into the binary.
package main
