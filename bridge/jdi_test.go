package bridge

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/demoapp"
	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

//go:embed testdata/jdi/JdiClient.java
var jdiClientSource []byte

// runJDI runs JdiClient against addr for rounds breakpoint hits and returns
// its output lines.
func runJDI(t testing.TB, addr string, rounds int) []string {
	t.Helper()
	return runJDIHolding(t, addr, rounds, nil)
}

// runJDIHolding is runJDI whose session, once its rounds are done, stays
// attached until hold returns (hold nil: no hold).
func runJDIHolding(t testing.TB, addr string, rounds int, hold func()) []string {
	t.Helper()
	dir, err := jvmtest.CompileFiles(t.Context(), map[string][]byte{"JdiClient.java": jdiClientSource})
	if err != nil {
		t.Fatal(err)
	}
	java, err := jvmtest.FindTool("java")
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(addr)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	args := []string{"-cp", dir, "JdiClient", host, port, fmt.Sprint(demoapp.Line("work-first")), fmt.Sprint(rounds)}
	if hold != nil {
		args = append(args, "hold")
	}
	cmd := exec.CommandContext(ctx, java, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedbuf.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		l := sc.Text()
		if l == "HOLDING" && hold != nil {
			hold()
			stdin.Write([]byte("\n"))
			continue
		}
		lines = append(lines, l)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("JdiClient %s: %v\n%s\n%s", addr, err, strings.Join(lines, "\n"), stderr.String())
	}
	if len(lines) == 0 {
		t.Fatalf("JdiClient %s printed nothing\n%s", addr, stderr.String())
	}
	return lines
}

// A JDI program through a VM's own debugger port sets a breakpoint, steps
// and reads locals; the VM runs on afterwards.
func TestJDIThroughVMPort(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	vm := startDemo(t, lo, false)
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, vm.Addr, 5*time.Second)
	lines := runJDI(t, fmt.Sprintf("127.0.0.1:%d", info.DebugPort), 3)
	first, next := demoapp.Line("work-first"), demoapp.Line("work-first")+1
	var bps, steps int
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "BP "):
			bps++
			if !strings.HasPrefix(l, fmt.Sprintf("BP line=%d n=", first)) {
				t.Errorf("breakpoint line %q", l)
			}
		case strings.HasPrefix(l, "STEP "):
			steps++
			if l != fmt.Sprintf("STEP line=%d sum=0", next) {
				t.Errorf("step line %q, want line=%d sum=0", l, next)
			}
		}
	}
	if bps != 3 || steps != 3 || lines[len(lines)-1] != "OK" {
		t.Errorf("JdiClient output:\n%s", strings.Join(lines, "\n"))
	}
	waitTicking(t, vm, 5*time.Second)
	// A second session on the same port works too.
	if l := runJDI(t, fmt.Sprintf("127.0.0.1:%d", info.DebugPort), 1); l[len(l)-1] != "OK" {
		t.Errorf("second JDI session: %q", l)
	}
	waitTicking(t, vm, 5*time.Second)
}
