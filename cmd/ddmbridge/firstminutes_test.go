package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	godap "github.com/google/go-dap"
)

// freePort returns a loopback port nothing listens on (a moment ago).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startChild starts `ddmbridge args...` as a child process that dies with
// the test (killed at cleanup, bounded by ctx) and returns it with its
// combined output so far.
func startChild(t *testing.T, ctx context.Context, args ...string) (*exec.Cmd, *lockedbuf.Buffer) {
	t.Helper()
	cmd := child(ctx, args...)
	out := &lockedbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, out
}

// waitUntil polls ok every 100 ms for up to a minute (a loaded machine
// only makes things slower).
func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !ok(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within a minute", what)
		}
	}
}

// cliVMs is `vms --json` against rpc.
func cliVMs(t *testing.T, rpcAddr string) []map[string]any {
	t.Helper()
	rc, out, errs := runBounded(t, "vms", "--json", "--rpc", rpcAddr)
	if rc != 0 {
		return nil // the monitor may not listen yet
	}
	var vms []map[string]any
	if err := json.Unmarshal([]byte(out), &vms); err != nil {
		t.Fatalf("vms --json: %v\n%s%s", err, out, errs)
	}
	return vms
}

// With two simulated VMs (processes) under a `serve` process: heap names
// the VM it shows; when the selected VM dies, the commands naming the
// current VM say that the selection is gone and which VMs are monitored,
// and vms says no VM is current, until select --auto picks the other; heap
// --hprof refuses an existing file, which keeps its content (issue 30).
func TestGoneSelectionHeapIDAndExistingDump(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	pa, pb := freePort(t), freePort(t)
	startChild(t, ctx, "simvm", "--listen", fmt.Sprintf("127.0.0.1:%d", pa), "--app", "com.example.a", "--gc", "200ms")
	simB, _ := startChild(t, ctx, "simvm", "--listen", fmt.Sprintf("127.0.0.1:%d", pb), "--app", "com.example.b", "--gc", "200ms")
	rpcAddr := "unix:" + filepath.Join(t.TempDir(), "c.sock")
	_, serveOut := startChild(t, ctx, "serve", "--no-adb", "--rpc", rpcAddr, "--dap", "",
		"--scan", fmt.Sprintf("127.0.0.1:%d,127.0.0.1:%d", pa, pb), "--scan-interval", "100ms",
		"--current-port", "0", "--debug-port-base", "0")
	ids := map[string]string{}
	waitUntil(t, "two VMs in vms --json", func() bool {
		for _, v := range cliVMs(t, rpcAddr) {
			if n, _ := v["name"].(string); n != "" {
				ids[n], _ = v["id"].(string)
			}
		}
		return ids["com.example.a"] != "" && ids["com.example.b"] != ""
	})
	a, b := ids["com.example.a"], ids["com.example.b"]

	// heap ID prints the VM's id, not only the heap's.
	waitUntil(t, "a heap summary of VM "+b, func() bool {
		rc, out, _ := runBounded(t, "heap", b, "--rpc", rpcAddr)
		return rc == 0 && strings.Contains(out, "VM "+b+", heap 1: ")
	})

	if rc, out, errs := runBounded(t, "select", "com.example.b", "--rpc", rpcAddr); rc != 0 || !strings.Contains(out, "current VM: "+b) {
		t.Fatalf("select: exit %d %s%s", rc, out, errs)
	}
	simB.Process.Kill()
	waitUntil(t, "VM "+b+" gone from vms", func() bool {
		vms := cliVMs(t, rpcAddr)
		return len(vms) == 1 && vms[0]["id"] == a
	})
	rc, _, errs := runBounded(t, "threads", "current", "--rpc", rpcAddr)
	if rc != 1 || !strings.Contains(errs, "the selected VM, com.example.b, is gone") ||
		!strings.Contains(errs, "monitored now: "+a+" (com.example.a)") || strings.Contains(errs, "none found yet") {
		t.Errorf("threads current after the selected VM died: exit %d: %s", rc, errs)
	}
	if rc, out, _ := runBounded(t, "vms", "--rpc", rpcAddr); rc != 0 || !strings.Contains(out, "no VM is current: the selected VM is gone") {
		t.Errorf("vms after the selected VM died: exit %d:\n%s", rc, out)
	}
	if rc, out, errs := runBounded(t, "select", "--auto", "--rpc", rpcAddr); rc != 0 || !strings.Contains(out, "now "+a) {
		t.Errorf("select --auto: exit %d %s%s", rc, out, errs)
	}
	if rc, out, errs := runBounded(t, "threads", "current", "--rpc", rpcAddr); rc != 0 || !strings.Contains(out, "main") {
		t.Errorf("threads current after select --auto: exit %d %s%s", rc, out, errs)
	}

	// heap --hprof never replaces a file silently.
	file := filepath.Join(t.TempDir(), "kept.hprof")
	if err := os.WriteFile(file, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	rc, out, errs := runBounded(t, "heap", a, "--hprof", file, "--rpc", rpcAddr)
	if rc != 1 || out != "" || !strings.Contains(errs, file+" exists") || !strings.Contains(errs, "--force") {
		t.Errorf("heap --hprof onto an existing file: exit %d, stdout %q, stderr %q", rc, out, errs)
	}
	if b, _ := os.ReadFile(file); string(b) != "keep me" {
		t.Errorf("the existing file now holds %d bytes, want it untouched", len(b))
	}
	if t.Failed() {
		t.Logf("serve's log:\n%s", serveOut.String())
	}
}

// demo --duration 1s shows the view for a second once it is up and exits
// 0, however long start-up takes (the duration bounded start-up and the
// demo failed with "context deadline exceeded").
func TestDemoDurationCountsFromTheFirstFrame(t *testing.T) {
	jvmtest.RequireJava(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := child(ctx, "demo", "--duration", "1s", "--scan", fmt.Sprintf("127.0.0.1:%d", freePort(t)),
		"--scan-interval", "100ms", "--current-port", "0", "--debug-port-base", "0")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("demo --duration 1s still running after 5 minutes:\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "THREADS") || strings.Contains(string(out), "deadline exceeded") {
		t.Errorf("demo --duration 1s: %v\n%s", err, out)
	}
}

// jdbSession is a real jdb (the JDK's) driven through its stdin; it is
// killed with its process group at cleanup or by kill.
type jdbSession struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.Writer
	out *lockedbuf.Buffer
	pos int // output consumed by expect
}

func startJDBSession(t *testing.T, ctx context.Context, addr string) *jdbSession {
	t.Helper()
	path, err := jvmtest.FindTool("jdb")
	if err != nil {
		t.Fatal(err)
	}
	j := &jdbSession{t: t, out: &lockedbuf.Buffer{}}
	j.cmd = exec.CommandContext(ctx, path, "-attach", addr)
	j.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	j.cmd.Stdout, j.cmd.Stderr = j.out, j.out
	if j.in, err = j.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := j.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.kill)
	return j
}

func (j *jdbSession) kill() {
	if j.cmd.Process != nil {
		syscall.Kill(-j.cmd.Process.Pid, syscall.SIGKILL)
		j.cmd.Wait()
	}
}

func (j *jdbSession) send(line string) { fmt.Fprintln(j.in, line) }

// expect waits up to a minute for pattern in the output not yet consumed.
func (j *jdbSession) expect(pattern string) string {
	j.t.Helper()
	re := regexp.MustCompile(pattern)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		s := j.out.String()[j.pos:]
		if loc := re.FindStringIndex(s); loc != nil {
			j.pos += loc[1]
			return s[:loc[1]]
		}
		if time.Now().After(deadline) {
			j.t.Fatalf("jdb: no %q within a minute; output:\n%s", pattern, j.out.String())
		}
	}
}

// lastFrame is the demo's last complete frame in its plain output.
func lastFrame(s string) string {
	frames := strings.Split(s, "\n--- ")
	if len(frames) < 3 {
		return ""
	}
	return frames[len(frames)-2] // the last one may still be being written
}

// A simulated VM without --jvm, under a `serve` process: vms lists it as
// not debuggable and says why; jdb through its debugger port attaches and
// reports cleanly (no Java stack trace; its version says why there is
// nothing to debug); a DAP attach is refused with the same words (issue 30).
func TestBareSimVMSaysItCannotBeDebugged(t *testing.T) {
	jvmtest.RequireJava(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	port := freePort(t)
	startChild(t, ctx, "simvm", "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--app", "com.example.bare")
	dir := t.TempDir()
	rpcAddr, dapSock := "unix:"+filepath.Join(dir, "c.sock"), filepath.Join(dir, "dap.sock")
	_, serveOut := startChild(t, ctx, "serve", "--no-adb", "--rpc", rpcAddr, "--dap", "unix:"+dapSock,
		"--scan", fmt.Sprintf("127.0.0.1:%d", port), "--scan-interval", "100ms", "--current-port", "0", "--debug-port-base", "0")
	var vm map[string]any
	waitUntil(t, "the simulated VM in vms --json", func() bool {
		vms := cliVMs(t, rpcAddr)
		if len(vms) == 1 {
			vm = vms[0]
		}
		return vm != nil
	})
	const why = "a simulated VM without --jvm answers DDM only: it runs no code and cannot be debugged"
	if vm["debuggable"] != false || !strings.Contains(fmt.Sprint(vm["note"]), why) {
		t.Errorf("vms --json: debuggable %v, note %q", vm["debuggable"], vm["note"])
	}
	id := vm["id"].(string)
	if rc, out, _ := runBounded(t, "vms", "--rpc", rpcAddr); rc != 0 || !strings.Contains(out, "not debuggable") ||
		!strings.Contains(out, id+" com.example.bare: "+why) {
		t.Errorf("vms: exit %d\n%s", rc, out)
	}

	j := startJDBSession(t, ctx, fmt.Sprintf("127.0.0.1:%v", vm["debugPort"]))
	j.expect(`Initializing jdb \.\.\.\s*> $`)
	j.send("threads")
	j.expect(`\(java\.lang\.Thread\)\d+\s+main\s`)
	j.send("version")
	j.expect(regexp.QuoteMeta(why))
	j.send("quit")
	done := make(chan error, 1)
	go func() { done <- j.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("jdb quit: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("jdb did not quit:\n%s", j.out.String())
	}
	if s := j.out.String(); strings.Contains(s, "Exception") || strings.Contains(s, "\tat ") {
		t.Errorf("jdb printed a Java exception:\n%s", s)
	}

	d := dialDAP(t, dapSock, &bytes.Buffer{})
	d.send(&godap.InitializeRequest{Request: d.req("initialize"), Arguments: godap.InitializeRequestArguments{AdapterID: "ddmbridge", LinesStartAt1: true, ColumnsStartAt1: true}})
	d.await("initialize")
	d.send(&godap.AttachRequest{Request: d.req("attach"), Arguments: json.RawMessage(`{"vm":"` + id + `"}`)})
	if msg := d.awaitError("attach"); !strings.Contains(msg, "cannot be debugged") || !strings.Contains(msg, "--jvm") {
		t.Errorf("DAP attach to the bare VM: %q", msg)
	}
	if t.Failed() {
		t.Logf("serve's log:\n%s", serveOut.String())
	}
}
