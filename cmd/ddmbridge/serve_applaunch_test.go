package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// TestServeAndroidLaunch: a DAP launch with packageName and launchActivity,
// through serve and the real adb server, starts the app on a simulated device
// waiting for the debugger, reports progress while it waits, attaches to its
// VM through the monitor and lists its threads.
func TestServeAndroidLaunch(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	dev := simdevice.New(simdevice.Options{Model: "Launch", Packages: []string{"com.example.app"},
		VM: simvm.Options{Tick: 50 * time.Millisecond, GCInterval: time.Hour}})
	serial := srv.Connect(t, dev)

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	sock := filepath.Join(dir, "dap.sock")
	cmd := child(ctx, "serve", "--rpc", "unix:"+filepath.Join(dir, "rpc.sock"), "--adb", "tcp:"+strconv.Itoa(srv.Port),
		"--scan", "", "--current-port", "0", "--debug-port-base", "0", "--dap", "unix:"+sock)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("serve's log:\n%s", stderr.String())
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		var out, errb bytes.Buffer
		if run([]string{"devices", "--json", "--rpc", "unix:" + filepath.Join(dir, "rpc.sock")}, &out, &errb) == 0 && strings.Contains(out.String(), serial) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve never saw the device %s", serial)
		}
		time.Sleep(100 * time.Millisecond)
	}

	d := dialDAP(t, sock, &stderr)
	d.send(&godap.InitializeRequest{Request: d.req("initialize"), Arguments: godap.InitializeRequestArguments{
		AdapterID: "ddmbridge", LinesStartAt1: true, ColumnsStartAt1: true, SupportsProgressReporting: true}})
	d.await("initialize")
	d.send(&godap.LaunchRequest{Request: d.req("launch"), Arguments: json.RawMessage(
		`{"packageName":"com.example.app","launchActivity":".MainActivity","targetDevice":"` + serial + `"}`)})
	d.await("launch")
	d.send(&godap.ConfigurationDoneRequest{Request: d.req("configurationDone")})
	d.await("configurationDone")
	d.send(&godap.ThreadsRequest{Request: d.req("threads")})
	th := d.await("threads").(*godap.ThreadsResponse)
	if len(th.Body.Threads) == 0 {
		t.Errorf("no threads in the launched app")
	}
	var progress []string
	for _, e := range d.bodies {
		switch e := e.(type) {
		case *godap.ProgressStartEvent:
			progress = append(progress, e.Body.Title+": "+e.Body.Message)
		case *godap.ProgressUpdateEvent:
			progress = append(progress, e.Body.Message)
		}
	}
	joined := strings.Join(progress, "\n")
	if !strings.Contains(joined, "Waiting for com.example.app") {
		t.Errorf("progress while launching: %q", progress)
	}
	if !contains(d.events, "initialized") {
		t.Errorf("events: %v", d.events)
	}
	// The app runs on the device under the monitor, now with our debugger.
	var out, errb bytes.Buffer
	var vms []map[string]any
	if run([]string{"vms", "--json", "--rpc", "unix:" + filepath.Join(dir, "rpc.sock")}, &out, &errb) != 0 ||
		json.Unmarshal(out.Bytes(), &vms) != nil || len(vms) != 1 || vms[0]["name"] != "com.example.app" || vms[0]["debugger"] != true {
		t.Errorf("vms after the launch: %s %s", out.String(), errb.String())
	}
	// The simulated VM answers NOT_IMPLEMENTED to most of JDWP: each such
	// request is answered in words and not raised as a toast (showUser false).
	refused := 0
	for _, r := range []struct {
		cmd  string
		args any
	}{
		{"setExceptionBreakpoints", map[string]any{"filters": []string{"uncaught", "caught"}}},
		{"setBreakpoints", map[string]any{"source": map[string]any{"path": "/x/Main.java"}, "breakpoints": []map[string]any{{"line": 3}}}},
		{"setFunctionBreakpoints", map[string]any{"breakpoints": []map[string]any{{"name": "a.B.c"}}}},
		{"pause", map[string]any{"threadId": th.Body.Threads[0].Id}},
		{"stackTrace", map[string]any{"threadId": th.Body.Threads[0].Id}},
		{"loadedSources", map[string]any{}},
		{"evaluate", map[string]any{"expression": "1+1", "context": "repl"}},
		{"continue", map[string]any{"threadId": th.Body.Threads[0].Id}},
	} {
		resp := d.custom(r.cmd, r.args)
		if resp["success"] == true {
			continue
		}
		refused++
		var e struct {
			Body struct {
				Error struct {
					Format   string `json:"format"`
					ShowUser bool   `json:"showUser"`
				} `json:"error"`
			} `json:"body"`
		}
		b, _ := json.Marshal(resp)
		if json.Unmarshal(b, &e) != nil || e.Body.Error.ShowUser || e.Body.Error.Format == "" {
			t.Errorf("%s on the simulated VM: %s", r.cmd, b)
		}
	}
	// The simulated VM answers JDWP as a VM without code (ddm/simvm's
	// bare.go): evaluate finds no frame. NOT_IMPLEMENTED's wording is
	// TestQuietErrors' (dap).
	if refused == 0 {
		t.Error("the simulated VM refused none of the requests: the check above checked nothing")
	}
	// Stop (terminate) ends the app the session launched as Android Studio
	// does: am force-stop, and the device's process is gone.
	d.send(&godap.TerminateRequest{Request: d.req("terminate")})
	d.await("terminate")
	deadline = time.Now().Add(30 * time.Second)
	for running(dev, "com.example.app") {
		if time.Now().After(deadline) {
			t.Fatalf("com.example.app still runs on the device after terminate")
		}
		time.Sleep(50 * time.Millisecond)
	}
	d.send(&godap.DisconnectRequest{Request: d.req("disconnect")})
	d.await("disconnect")
}

// running reports whether the device runs a process named name.
func running(dev *simdevice.Device, name string) bool {
	for _, p := range dev.Processes() {
		if p.Name == name {
			return true
		}
	}
	return false
}
