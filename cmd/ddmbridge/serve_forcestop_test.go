package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
	godap "github.com/google/go-dap"
	"github.com/sourcegraph/jsonrpc2"
)

// TestServeForceStopRemovesTheApp: Stop on an Android launch, as the
// extension's session does it (terminate: am force-stop; then disconnect),
// takes the app out of the monitor's VM list for good — in vms/list, and in
// the list a client keeps from one vms/list and the vms/added, vms/removed
// and vms/changed notifications after it (the extension's VM explorer) —
// and closes its debugger port. `simdevice` runs as its own process behind
// the real adb server, as in the code-server e2e test.
//
// A vms/changed sent after a VM's vms/removed put the dead app back into a
// client's list (the explorer kept its row): the debugger's leaving and the
// DDM model's last change were announced after the removal.
func TestServeForceStopRemovesTheApp(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	const pkg = "com.example.launched"
	sim := child(ctx, "simdevice", "--listen", "127.0.0.1:0", "--procs", "0", "--packages", pkg, "--model", "Launcher")
	simOut, err := sim.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sim.WaitDelay = 5 * time.Second
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); sim.Wait() })
	lines := bufio.NewScanner(simOut)
	addr := ""
	for addr == "" && lines.Scan() {
		addr, _ = strings.CutPrefix(lines.Text(), "listening on ")
	}
	if addr == "" {
		t.Fatalf("simdevice printed no address: %v", lines.Err())
	}
	go func() { // keep draining the child's stdout
		for lines.Scan() {
		}
	}()
	srv.ADBCommand(t, "connect", addr)
	adbtest.WaitFor(t, ctx, "the simulated device online", func() bool {
		return strings.Contains(srv.ADBCommand(t, "devices"), addr+"\tdevice")
	})
	pidof := func() string { // pidof exits 1 when nothing runs
		pctx, pcancel := context.WithTimeout(ctx, 20*time.Second)
		defer pcancel()
		cmd := exec.CommandContext(pctx, srv.ADB, "-P", strconv.Itoa(srv.Port), "-s", addr, "shell", "pidof", pkg)
		cmd.Env = srv.Env()
		cmd.WaitDelay = time.Second
		out, _ := cmd.Output()
		return strings.TrimSpace(string(out))
	}

	sock := filepath.Join(t.TempDir(), "dap.sock")
	serve := child(ctx, "serve", "--stdio", "--adb", "tcp:"+strconv.Itoa(srv.Port), "--scan", "",
		"--current-port", "0", "--debug-port-base", "0", "--dap", "unix:"+sock)
	stdin, _ := serve.StdinPipe()
	stdout, _ := serve.StdoutPipe()
	var stderr lockedbuf.Buffer
	serve.Stderr = &stderr
	serve.WaitDelay = 5 * time.Second
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cancel()
		serve.Wait()
		if t.Failed() {
			t.Logf("serve's log:\n%s", stderr.String())
		}
	})
	ex := watchVMs(t, stdin, stdout)
	// The explorer's first list, before the app runs.
	if l := ex.list(); len(l) != 0 {
		t.Fatalf("vms/list before the launch: %v", l)
	}
	deadline := time.Now().Add(time.Minute)
	for ex.call("dap/address", nil) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("serve's DAP socket never listened\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}

	d := dialDAP(t, sock, &bytes.Buffer{})
	d.nc.SetDeadline(time.Now().Add(3 * time.Minute))
	d.send(&godap.InitializeRequest{Request: d.req("initialize"), Arguments: godap.InitializeRequestArguments{
		AdapterID: "ddmbridge", LinesStartAt1: true, ColumnsStartAt1: true, SupportsProgressReporting: true}})
	d.await("initialize")
	d.send(&godap.LaunchRequest{Request: d.req("launch"), Arguments: json.RawMessage(
		`{"packageName":"` + pkg + `","launchActivity":".Main","targetDevice":"` + addr + `"}`)})
	d.await("launch")
	d.send(&godap.ConfigurationDoneRequest{Request: d.req("configurationDone")})
	d.await("configurationDone")
	d.send(&godap.ThreadsRequest{Request: d.req("threads")})
	d.await("threads")

	// The explorer shows the app with the session's debugger.
	var row map[string]any
	adbtest.WaitFor(t, ctx, "the app with a debugger in the explorer's list", func() bool {
		row = nil
		for _, r := range ex.rows() {
			if r["name"] == pkg && r["debugger"] == true {
				row = r
			}
		}
		return row != nil
	})
	id, port := fmt.Sprint(row["id"]), int(row["debugPort"].(float64))
	if port == 0 || !slices.Contains(adbtest.ListenerPIDs(port), serve.Process.Pid) {
		t.Fatalf("the app's debugger port %d is not serve's: %v", port, row)
	}
	pid := pidof()
	if pid == "" || fmt.Sprint(row["pid"]) != pid {
		t.Fatalf("pidof %s: %q; the explorer's row: %v", pkg, pid, row)
	}

	// Stop: terminate force-stops the app, then the session disconnects.
	d.send(&godap.TerminateRequest{Request: d.req("terminate")})
	d.await("terminate")
	d.send(&godap.DisconnectRequest{Request: d.req("disconnect")})
	d.await("disconnect")
	d.nc.Close()

	listed := func(l []map[string]any) bool {
		return slices.ContainsFunc(l, func(r map[string]any) bool { return fmt.Sprint(r["id"]) == id || fmt.Sprint(r["pid"]) == pid })
	}
	deadline = time.Now().Add(2 * time.Minute)
	for {
		why := ""
		switch {
		case pidof() != "":
			why = "still running on the device"
		case listed(ex.list()):
			why = "still in vms/list"
		case listed(ex.rows()):
			why = "still in the explorer's list after " + ex.history(id)
		case slices.Contains(adbtest.ListenerPIDs(port), serve.Process.Pid):
			why = fmt.Sprintf("serve still listens on its debugger port %d", port)
		}
		if why == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("two minutes after Stop, the force-stopped app (pid %s, VM %s) is %s", pid, id, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Nothing about the VM comes after its vms/removed: a later vms/changed
	// would bring the row back. A vms/list answers after every notification
	// sent before it; the session's end was announced before disconnect's
	// answer.
	ex.list()
	if h := ex.history(id); listed(ex.rows()) || !strings.HasSuffix(h, "removed") {
		t.Errorf("the VM's notifications do not end with its removal: %s", h)
	}
}

// vmWatcher is a JSON-RPC client of `serve --stdio` that keeps the VM list
// as the extension's VMStore does: a vms/list answer, then every vms/added,
// vms/removed and vms/changed applied by id in the order received.
type vmWatcher struct {
	t     *testing.T
	stdin io.Writer

	mu      sync.Mutex
	id      int
	replies map[int]chan map[string]any
	byID    map[string]map[string]any // the explorer's rows
	events  map[string][]string       // by VM id: the notifications' kinds
	err     error                     // why reading stopped
}

func watchVMs(t *testing.T, stdin io.Writer, stdout io.Reader) *vmWatcher {
	w := &vmWatcher{t: t, stdin: stdin, replies: map[int]chan map[string]any{}, byID: map[string]map[string]any{}, events: map[string][]string{}}
	go w.read(bufio.NewReader(stdout))
	return w
}

func (w *vmWatcher) read(r *bufio.Reader) {
	for {
		var msg map[string]any
		if err := (jsonrpc2.VSCodeObjectCodec{}).ReadObject(r, &msg); err != nil {
			w.mu.Lock()
			w.err = err
			for _, c := range w.replies {
				close(c)
			}
			w.replies = nil
			w.mu.Unlock()
			return
		}
		w.mu.Lock()
		if method, _ := msg["method"].(string); method != "" {
			if kind, ok := strings.CutPrefix(method, "vms/"); ok {
				vm, _ := msg["params"].(map[string]any)
				id := fmt.Sprint(vm["id"])
				w.events[id] = append(w.events[id], kind)
				if kind == "removed" {
					delete(w.byID, id)
				} else {
					w.byID[id] = vm
				}
			}
		} else if n, ok := msg["id"].(float64); ok && w.replies[int(n)] != nil {
			w.replies[int(n)] <- msg
			delete(w.replies, int(n))
		}
		w.mu.Unlock()
	}
}

// call sends a request and returns its result; nil on an error answer.
func (w *vmWatcher) call(method string, params any) any {
	w.t.Helper()
	w.mu.Lock()
	if w.replies == nil {
		err := w.err
		w.mu.Unlock()
		w.t.Fatalf("serve's JSON-RPC ended: %v", err)
	}
	w.id++
	id := w.id
	c := make(chan map[string]any, 1)
	w.replies[id] = c
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	_, err := fmt.Fprintf(w.stdin, "Content-Length: %d\r\n\r\n%s", len(b), b)
	w.mu.Unlock()
	if err != nil {
		w.t.Fatalf("%s: %v", method, err)
	}
	select {
	case msg, ok := <-c:
		if !ok {
			w.t.Fatalf("%s: serve's JSON-RPC ended: %v", method, w.readErr())
		}
		return msg["result"]
	case <-time.After(time.Minute):
		w.t.Fatalf("%s: no answer within a minute", method)
	}
	return nil
}

func (w *vmWatcher) readErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		return errors.New("no error")
	}
	return w.err
}

// list returns vms/list's answer.
func (w *vmWatcher) list() []map[string]any {
	w.t.Helper()
	l, _ := w.call("vms/list", nil).([]any)
	out := make([]map[string]any, 0, len(l))
	for _, v := range l {
		out = append(out, v.(map[string]any))
	}
	return out
}

// rows returns the list kept from the notifications.
func (w *vmWatcher) rows() []map[string]any {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]map[string]any, 0, len(w.byID))
	for _, r := range w.byID {
		out = append(out, r)
	}
	return out
}

// history says which notifications named the VM id, in order.
func (w *vmWatcher) history(id string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return "vms/" + strings.Join(w.events[id], ", vms/")
}
