package jvmtest

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmrun"
	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
)

// The types and values of jvmrun, under the names tests use.
type (
	// Options describe a JVM to start (jvmrun.Options).
	Options = jvmrun.Options
	// JVM is a started JVM (jvmrun.JVM).
	JVM = jvmrun.JVM
	// BenchResult is one benchmark run (jvmrun.BenchResult).
	BenchResult = jvmrun.BenchResult
)

const (
	DefaultTimeout = jvmrun.DefaultTimeout
	Handshake      = jvmrun.Handshake
	InstallHint    = jvmrun.InstallHint
)

var (
	ErrNoJDK          = jvmrun.ErrNoJDK
	BenchTargetSource = jvmrun.BenchTargetSource
	BenchWorkloads    = jvmrun.BenchWorkloads
)

// Start is jvmrun.Start.
func Start(ctx context.Context, opts Options) (*JVM, error) { return jvmrun.Start(ctx, opts) }

// StartBenchTarget is jvmrun.StartBenchTarget.
func StartBenchTarget(ctx context.Context, opts Options) (*JVM, error) {
	return jvmrun.StartBenchTarget(ctx, opts)
}

// BenchTargetClasses is jvmrun.BenchTargetClasses.
func BenchTargetClasses(ctx context.Context) (string, error) { return jvmrun.BenchTargetClasses(ctx) }

// RunJDI is jvmrun.RunJDI.
func RunJDI(ctx context.Context, addr, workload string) (BenchResult, error) {
	return jvmrun.RunJDI(ctx, addr, workload)
}

// Compile is jvmrun.Compile.
func Compile(ctx context.Context, outDir string, sources ...string) error {
	return jvmrun.Compile(ctx, outDir, sources...)
}

// CompileCached is jvmrun.CompileCached.
func CompileCached(ctx context.Context, sources ...string) (string, error) {
	return jvmrun.CompileCached(ctx, sources...)
}

// CompileFiles is jvmrun.CompileFiles.
func CompileFiles(ctx context.Context, files map[string][]byte) (string, error) {
	return jvmrun.CompileFiles(ctx, files)
}

// DialHandshake is jvmrun.DialHandshake.
func DialHandshake(ctx context.Context, addr string) (net.Conn, error) {
	return jvmrun.DialHandshake(ctx, addr)
}

// FindTool is jvmrun.FindTool.
func FindTool(name string) (string, error) { return jvmrun.FindTool(name) }

// RequireJava stops the test unless both java and javac can be found. Without
// a JDK the test is skipped, except when the environment variable CI is
// "true": there a missing JDK is a broken CI image and the test fails.
func RequireJava(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"java", "javac"} {
		if _, err := FindTool(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI=true but %v", err)
			}
			t.Skip(err)
		}
	}
}

// ModernJDK returns the home of a JDK 21 or later for the tests of
// virtual threads and newer class files (jvmrun.ModernJDKHome). Without
// one the test is skipped, except when CI is "true" or DDMBRIDGE_JDK21 is
// set: there the JDK is expected, and its absence fails the test.
func ModernJDK(t testing.TB) string {
	t.Helper()
	home := jvmrun.ModernJDKHome()
	if home != "" {
		j, ok := localjvm.ReadJDK(home)
		if ok && j.Version >= 21 && j.Compiler {
			return home
		}
		t.Fatalf("the JDK 21+ of the tests, %s, is not a JDK 21 or later with javac (release file: %+v)", home, j)
	}
	msg := "no JDK 21 or later (looked in $DDMBRIDGE_JDK21, /usr/lib/jvm, $JAVA_HOME, ~/.sdkman/candidates/java): install Temurin 25 into /usr/lib/jvm/temurin-25-jdk-amd64 or set DDMBRIDGE_JDK21"
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true but " + msg)
	}
	t.Skip(msg)
	return ""
}

// CompileWith compiles in-memory sources with the javac of the JDK at
// home (jvmrun.CompileFilesWith).
func CompileWith(ctx context.Context, home string, files map[string][]byte) (string, error) {
	return jvmrun.CompileFilesWith(ctx, filepath.Join(home, "bin", "javac"), files)
}

// StartT is Start for tests: it skips or fails like RequireJava when there is
// no JDK, fails the test if the JVM does not start, and registers Close with
// t.Cleanup. If the test failed, the JVM's output is logged at cleanup.
func StartT(t testing.TB, opts Options) *JVM {
	t.Helper()
	RequireJava(t)
	vm, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	cleanup(t, vm)
	return vm
}

// StartBenchTargetT is StartBenchTarget for tests, with StartT's handling of
// a missing JDK, errors and cleanup.
func StartBenchTargetT(t testing.TB, opts Options) *JVM {
	t.Helper()
	RequireJava(t)
	vm, err := StartBenchTarget(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	cleanup(t, vm)
	return vm
}

func cleanup(t testing.TB, vm *JVM) {
	t.Cleanup(func() {
		vm.Close()
		if t.Failed() {
			t.Logf("output of JVM pid %d (%s):%s", vm.Pid, vm.Addr, vm.OutputTail())
		}
	})
}
