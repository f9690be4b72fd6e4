package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestDAPOnWaitingAppOfCurrentDevice is what VS Code's picker does on a
// current device behind Debian's real adb server: from vms/list it takes the
// app that waits for a debugger (track-app says so before any JDWP
// connection), attaches a DAP session to it and sees its threads; the app
// got no non-DDM packet before that. Attaching to the frozen app fails in
// words that say what to do.
func TestDAPOnWaitingAppOfCurrentDevice(t *testing.T) {
	jvmtest.RequireJava(t)
	t.Parallel()
	srv := adbtest.StartServer(t)
	jvm := jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: []string{"-Dthreads=3", "-Ddepth=2", "-Dobjects=10"}})
	dev := simdevice.New(simdevice.Options{Model: "Current", Features: simdevice.CurrentFeatures,
		VM: simvm.Options{Profile: simvm.ProfileCurrent, Tick: time.Hour, GCInterval: time.Hour}})
	waitPID, err := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.waiting", WaitingForDebugger: true, JVM: jvm.Addr})
	if err != nil {
		t.Fatal(err)
	}
	dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.cached", Frozen: true})
	srv.Connect(t, dev)

	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	dapSock := filepath.Join(t.TempDir(), "dap.sock")
	cmd := child(ctx, "serve", "--stdio", "--adb", "tcp:"+strconv.Itoa(srv.Port), "--scan", "",
		"--current-port", "0", "--debug-port-base", "0", "--dap", "unix:"+dapSock)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	call := stdioRPC(t, stdin, stdout, &stderr)

	// The picker's choice: the attachable app waiting for a debugger.
	var waitingID, frozenID string
	deadline := time.Now().Add(60 * time.Second)
	for id := 1; waitingID == "" || frozenID == ""; id++ {
		l, _ := call(id, "vms/list", nil)["result"].([]any)
		for _, e := range l {
			v := e.(map[string]any)
			switch {
			case v["waitingForDebugger"] == true && v["ddm"] == true && v["listedOnly"] == nil:
				waitingID = fmt.Sprint(v["id"])
			case v["frozen"] == true:
				frozenID = fmt.Sprint(v["id"])
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no waiting and frozen apps in vms/list: %v\n%s", l, stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := dev.VM(waitPID).NonDDMPackets(); n != 0 {
		t.Errorf("%d non-DDM packets reached the waiting app before any debugger", n)
	}

	d := dialDAP(t, dapSock, &stderr)
	send, req, await := d.send, d.req, d.await
	send(&godap.InitializeRequest{Request: req("initialize"), Arguments: godap.InitializeRequestArguments{AdapterID: "ddmbridge", LinesStartAt1: true, ColumnsStartAt1: true}})
	await("initialize")
	send(&godap.AttachRequest{Request: req("attach"), Arguments: json.RawMessage(`{"vm":"` + waitingID + `"}`)})
	await("attach")
	send(&godap.ConfigurationDoneRequest{Request: req("configurationDone")})
	await("configurationDone")
	send(&godap.ThreadsRequest{Request: req("threads")})
	th := await("threads").(*godap.ThreadsResponse)
	var names []string
	for _, x := range th.Body.Threads {
		names = append(names, x.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "worker-0") {
		t.Errorf("threads of the waiting app: %v", names)
	}
	if dev.VM(waitPID).NonDDMPackets() == 0 {
		t.Error("the debug session's packets did not reach the app")
	}
	send(&godap.DisconnectRequest{Request: req("disconnect")})
	await("disconnect")
	d.nc.Close()

	// The frozen app: the session is refused with what to do.
	f := dialDAP(t, dapSock, &stderr)
	f.send(&godap.InitializeRequest{Request: f.req("initialize"), Arguments: godap.InitializeRequestArguments{AdapterID: "ddmbridge", LinesStartAt1: true, ColumnsStartAt1: true}})
	f.await("initialize")
	f.send(&godap.AttachRequest{Request: f.req("attach"), Arguments: json.RawMessage(`{"vm":"` + frozenID + `"}`)})
	for {
		m, err := godap.ReadProtocolMessage(f.r)
		if err != nil {
			t.Fatalf("reading DAP: %v", err)
		}
		if r, ok := m.(godap.ResponseMessage); ok && r.GetResponse().Command == "attach" {
			msg := r.GetResponse().Message
			if e, ok := m.(*godap.ErrorResponse); ok && e.Body.Error != nil {
				msg += " " + e.Body.Error.Format
			}
			if r.GetResponse().Success || !strings.Contains(msg, "frozen") || !strings.Contains(msg, "foreground") {
				t.Errorf("attach to the frozen app: success=%v %q", r.GetResponse().Success, msg)
			}
			break
		}
	}
}
