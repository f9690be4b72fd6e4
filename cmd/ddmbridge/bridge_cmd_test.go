package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/access"
	"github.com/ddmbridge/ddmbridge/bridge/demoapp"
	"github.com/ddmbridge/ddmbridge/bridge/rpc"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/sourcegraph/jsonrpc2"
)

// TestMain lets tests run the binary's main as a child process.
func TestMain(m *testing.M) {
	if os.Getenv("DDMBRIDGE_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// child returns a command running `ddmbridge args...`.
func child(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "DDMBRIDGE_TEST_MAIN=1")
	return cmd
}

// startSim runs a standalone simulated DDM VM on a free loopback port.
func startSim(t *testing.T) string {
	t.Helper()
	sv, err := simvm.New(simvm.Options{AppName: "com.example.cli", GCInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go sv.Serve(ln)
	t.Cleanup(func() { sv.Close() })
	return ln.Addr().String()
}

func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if rc := run(args, &out, &errb); rc != 0 {
		t.Fatalf("ddmbridge %s: exit %d\n%s", strings.Join(args, " "), rc, errb.String())
	}
	return out.String()
}

func TestCLICommands(t *testing.T) {
	simAddr := startSim(t)
	m, err := bridge.New(bridge.Options{CurrentPort: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	nc, err := net.Dial("tcp", simAddr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Connect(t.Context(), nc, simAddr); err != nil {
		t.Fatal(err)
	}
	rpcAddr := "unix:" + filepath.Join(t.TempDir(), "c.sock")
	ln, err := access.ListenRPC(rpcAddr, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go rpc.NewServer(m, rpc.ServerOptions{}).Serve(ctx, ln)

	var vms []map[string]any
	if err := json.Unmarshal([]byte(runCLI(t, "vms", "--json", "--rpc", rpcAddr)), &vms); err != nil || len(vms) != 1 {
		t.Fatalf("vms --json: %v %v", vms, err)
	}
	for _, k := range []string{"id", "address", "pid", "name", "vm", "ddm", "waiting", "debugger", "debugPort"} {
		if _, ok := vms[0][k]; !ok {
			t.Errorf("vms --json lacks %q: %v", k, vms[0])
		}
	}
	if vms[0]["name"] != "com.example.cli" || vms[0]["ddm"] != true {
		t.Errorf("vms --json: %v", vms[0])
	}
	id := vms[0]["id"].(string)
	if out := runCLI(t, "vms", "--rpc", rpcAddr); !strings.Contains(out, "com.example.cli") {
		t.Errorf("vms: %s", out)
	}
	if out := runCLI(t, "select", id, "--rpc", rpcAddr); !strings.Contains(out, "current VM: "+id) {
		t.Errorf("select: %s", out)
	}
	if out := runCLI(t, "select", "com.example.cli", "--rpc", rpcAddr); !strings.Contains(out, "current VM: "+id) {
		t.Errorf("select by name: %s", out)
	}
	if out := runCLI(t, "select", "--auto", "--rpc", rpcAddr); !strings.Contains(out, "current VM: automatic, now "+id) {
		t.Errorf("select --auto: %s", out)
	}
	var th rpc.VMThreads
	if err := json.Unmarshal([]byte(runCLI(t, "threads", id, "--json", "--rpc", rpcAddr)), &th); err != nil || len(th.Threads) == 0 {
		t.Errorf("threads --json: %v %+v", err, th)
	}
	if out := runCLI(t, "threads", id, "--rpc", rpcAddr); !strings.Contains(out, "main") {
		t.Errorf("threads: %s", out)
	}
	pngFile := filepath.Join(t.TempDir(), "heap.png")
	if out := runCLI(t, "heap", id, "--png", pngFile, "--rpc", rpcAddr); !strings.Contains(out, "heap 1:") {
		t.Errorf("heap: %s", out)
	}
	f, err := os.Open(pngFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("heap --png: %v", err)
	}
	if out := runCLI(t, "heap", id, "--json", "--rpc", rpcAddr); !strings.Contains(out, `"pieces"`) {
		t.Errorf("heap --json: %s", out)
	}
	var errb bytes.Buffer
	if rc := run([]string{"threads", "nope", "--rpc", rpcAddr}, io.Discard, &errb); rc != 1 || !strings.Contains(errb.String(), "no such VM") {
		t.Errorf("threads of an unknown VM: rc %d, %s", rc, errb.String())
	}
	if rc := run([]string{"vms", "--rpc", "unix:" + filepath.Join(t.TempDir(), "none.sock")}, io.Discard, &errb); rc != 1 || !strings.Contains(errb.String(), "is `ddmbridge serve` running") {
		t.Errorf("vms without a monitor: rc %d, %s", rc, errb.String())
	}
}

// serve --stdio speaks JSON-RPC on stdin/stdout and nothing else on stdout.
// stdioRPC returns a synchronous JSON-RPC caller over a `serve --stdio`
// child's pipes: it sends a request and returns the response with its id,
// skipping notifications.
func stdioRPC(t *testing.T, stdin io.Writer, stdout io.Reader, stderr *bytes.Buffer) func(id int, method string, params any) map[string]any {
	r := bufio.NewReader(stdout)
	return func(id int, method string, params any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(b), b)
		for {
			var msg map[string]any
			if err := (jsonrpc2.VSCodeObjectCodec{}).ReadObject(r, &msg); err != nil {
				t.Fatalf("stdout is not JSON-RPC: %v\nstderr:\n%s", err, stderr.String())
			}
			if msg["id"] == float64(id) {
				return msg
			}
		}
	}
}

func TestServeStdio(t *testing.T) {
	simAddr := startSim(t)
	_, port, _ := net.SplitHostPort(simAddr)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := child(ctx, "serve", "--stdio", "--no-adb", "--scan", "127.0.0.1:"+port, "--scan-interval", "100ms",
		"--current-port", "0", "--debug-port-base", "0", "--log-level", "debug")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	call := stdioRPC(t, stdin, stdout, &stderr)
	deadline := time.Now().Add(10 * time.Second)
	for {
		res := call(1, "vms/list", nil)
		if l, _ := res["result"].([]any); len(l) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no VM via --stdio: %v", res)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if res := call(2, "monitor/status", nil); res["result"] == nil {
		t.Errorf("monitor/status: %v", res)
	}
	stdin.Close() // the client leaves: serve exits
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve --stdio exit: %v\n%s", err, stderr.String())
	}
}

// demo runs with no VM of its own around, prints plain snapshots when stdout
// is not a terminal until Ctrl-C, shows the threads a debugger holds as
// suspended, and kills its JVM when done. The test
// waits for what it wants to see (a loaded machine makes the first dump
// slow), then interrupts.
func TestDemo(t *testing.T) {
	jvmtest.RequireJava(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := child(ctx, "demo", "--scan", fmt.Sprintf("127.0.0.1:%d", port),
		"--scan-interval", "100ms", "--current-port", "0", "--debug-port-base", "0")
	var out, stderr lockedbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	wants := []string{"THREADS", "cruncher", "REAL JVM HEAP", "SIMULATED DDM HEAP", "a real HotSpot JVM", "are simulated", "jdb -attach 127.0.0.1:", "map: "}
	missing := func() []string {
		s := out.String()
		var m []string
		for _, w := range wants {
			if !strings.Contains(s, w) {
				m = append(m, w)
			}
		}
		return m
	}
	deadline := time.Now().Add(3 * time.Minute)
	for len(missing()) > 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	if m := missing(); len(m) > 0 {
		t.Fatalf("demo output lacks %q after 3 minutes:\n%s\n%s", m, out.String(), stderr.String())
	}
	// A debugger holding the VM at a breakpoint: the thread table shows the
	// threads suspended, as the threads command does (issue 30: "running
	// 0%"), and running again once the debugger is gone.
	attach := regexp.MustCompile(`jdb -attach (127\.0\.0\.1:\d+)`).FindStringSubmatch(out.String())
	j := startJDBSession(t, ctx, attach[1])
	j.expect(`Initializing jdb`)
	j.send(fmt.Sprintf("stop at DemoApp:%d", demoapp.Line("work-first")))
	j.expect(`\w+\[\d+\] $`) // a thread prompt: jdb has a thread stopped
	held := regexp.MustCompile(`(?m)^\s+\d+\s+main\s+\S+\s+yes\s`)
	free := regexp.MustCompile(`(?m)^\s+\d+\s+main\s+\S+\s+no\s`)
	waitUntil(t, "a frame showing main suspended", func() bool {
		f := lastFrame(out.String())
		return held.MatchString(f) && strings.Contains(f, "debugger attached from")
	})
	j.kill()
	waitUntil(t, "a frame showing main running again", func() bool { return free.MatchString(lastFrame(out.String())) })
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("demo after Ctrl-C: %v\n%s", err, stderr.String())
	}
	s := out.String()
	if strings.Contains(s, "\x1b[") {
		t.Error("ANSI escapes when stdout is not a terminal")
	}
	// The JVM the demo started is gone with it.
	var pid int
	if i := strings.Index(s, "(pid "); i >= 0 {
		fmt.Sscanf(s[i:], "(pid %d", &pid)
	}
	if pid <= 0 {
		t.Fatalf("no JVM pid in the demo's output:\n%s", s)
	}
	for deadline := time.Now().Add(time.Minute); syscall.Kill(pid, 0) == nil; {
		if time.Now().After(deadline) {
			t.Fatalf("the demo's JVM (pid %d) outlived the demo", pid)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
