// Package jvmtest is the test harness over package jvmrun: StartT and
// StartBenchTargetT start a JVM for a test and kill it at cleanup (logging its
// output if the test failed), RequireJava skips a test without a JDK (fails it
// under CI=true). The rest of jvmrun's API is re-exported under the same names
// so tests need one import.
//
// It owns those test conveniences. It must not be imported by non-test
// code (internal/layering's harness rule): the shipped binary uses jvmrun.
//
// Typical test use:
//
//	func TestSomething(t *testing.T) {
//		jvmtest.RequireJava(t)
//		vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{dir}, MainClass: "Hello", ReadyLine: "READY"})
//		conn, err := jdwp.Dial(ctx, vm.Addr, nil)
//		...
//	}
package jvmtest
