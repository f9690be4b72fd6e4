package simvm

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// The real jdb attached to a simulated VM without a JVM attaches and
// reports cleanly (it died with UnsupportedOperationException in JDI's
// attach, issue 30): it lists the threads with their group and class,
// suspends and resumes them, defers breakpoints (no class ever loads), and
// its `version` says the VM cannot be debugged; no Java stack trace.
func TestJDBOnAVMWithoutJVM(t *testing.T) {
	jdbPath, err := jvmtest.FindTool("jdb")
	if err != nil {
		jvmtest.RequireJava(t) // skips without a JDK, fails in CI
		t.Fatal(err)
	}
	vm, err := New(Options{AppName: "com.example.bare", Threads: 4, Tick: time.Hour, GCInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go vm.Serve(ln)
	t.Cleanup(func() { vm.Close() })

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, jdbPath, "-attach", ln.Addr().String())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out lockedbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	pos := 0
	expect := func(pattern string) {
		t.Helper()
		re := regexp.MustCompile(pattern)
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			s := out.String()[pos:]
			if loc := re.FindStringIndex(s); loc != nil {
				pos += loc[1]
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("jdb: no %q within a minute; output:\n%s", pattern, out.String())
			}
		}
	}
	prompt := `\n?> $`
	expect(`Initializing jdb \.\.\.\s*> $`)
	for _, step := range []struct{ cmd, want string }{
		{"threads", `Group main:\s+\(java\.lang\.Thread\)\d+\s+main\s`},
		{"version", regexp.QuoteMeta(DDMOnlyNote)},
		{"classes", `\*\* classes list \*\*\s+java\.lang\.Thread\s`},
		{"suspend", `All threads suspended\.`},
		{"where all", `main:`},
		{"resume", `All threads resumed\.`},
		{"stop at com.example.Foo:10", `Deferring breakpoint com\.example\.Foo:10\.`},
		{"stop in java.lang.Thread.run", `No method run in java\.lang\.Thread`},
	} {
		fmt.Fprintln(in, step.cmd)
		expect(step.want)
		expect(prompt)
	}
	fmt.Fprintln(in, "quit")
	if err := cmd.Wait(); err != nil {
		t.Errorf("jdb quit: %v\n%s", err, out.String())
	}
	if s := out.String(); strings.Contains(s, "Exception") || strings.Contains(s, "\tat ") {
		t.Errorf("jdb printed a Java exception:\n%s", s)
	}
}

// TestSimulatedMark: every profile's Version description carries the mark a
// front end tells a simulated VM by; HotSpot's does not.
func TestSimulatedMark(t *testing.T) {
	for _, p := range []Profile{ProfileART, ProfileDraft, ProfileCurrent} {
		_, conn := serve(t, Options{Profile: p, Tick: time.Hour, GCInterval: time.Hour})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		v, err := conn.Version(ctx)
		cancel()
		if err != nil || !ddm.Simulated(v.Description) {
			t.Errorf("profile %s: Version %q, %v: no %q in it", p, v.Description, err, SimulatedMark)
		}
	}
	if ddm.Simulated("Java Debug Wire Protocol (Reference Implementation) version 17.0\nJVM Debug Interface version 17.0\nJVM version 17.0.21 (OpenJDK 64-Bit Server VM, mixed mode, sharing)") {
		t.Error("HotSpot's Version description taken for a simulated VM's")
	}
}
