package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestServeDAPAttachOutsideScan: a DAP session attaches by host:port to a
// JVM on a port the monitor does not scan; the monitor adopts it (listed,
// with the debugger on) and keeps it after the session. Attaching where
// nothing listens says so.
func TestServeDAPAttachOutsideScan(t *testing.T) {
	jvmtest.RequireJava(t)
	vm := jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: []string{"-Dthreads=3", "-Ddepth=2", "-Dobjects=10"}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unused := ln.Addr().(*net.TCPAddr).Port // scanned, and nothing there
	ln.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dapSock := filepath.Join(t.TempDir(), "dap.sock")
	cmd := child(ctx, "serve", "--stdio", "--no-adb", "--scan", fmt.Sprintf("127.0.0.1:%d", unused), "--scan-interval", "100ms",
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
	call(1, "dap/address", nil)

	d := dialDAP(t, dapSock, &stderr)
	send, req, await := d.send, d.req, d.await
	send(&godap.InitializeRequest{Request: req("initialize"), Arguments: godap.InitializeRequestArguments{AdapterID: "ddmbridge", LinesStartAt1: true, ColumnsStartAt1: true}})
	await("initialize")
	send(&godap.AttachRequest{Request: req("attach"), Arguments: json.RawMessage(fmt.Sprintf(`{"hostName":"127.0.0.1","port":%d,"timeout":1000}`, unused))})
	if msg := awaitError(t, d, "attach"); !strings.Contains(msg, "nothing is listening at 127.0.0.1:") {
		t.Errorf("attach where nothing listens: %q", msg)
	}

	d = dialDAP(t, dapSock, &stderr)
	send, req, await = d.send, d.req, d.await
	send(&godap.InitializeRequest{Request: req("initialize"), Arguments: godap.InitializeRequestArguments{AdapterID: "ddmbridge", LinesStartAt1: true, ColumnsStartAt1: true}})
	await("initialize")
	send(&godap.AttachRequest{Request: req("attach"), Arguments: json.RawMessage(fmt.Sprintf(`{"hostName":"127.0.0.1","port":%d}`, vm.Port))})
	await("attach")
	send(&godap.ConfigurationDoneRequest{Request: req("configurationDone")})
	await("configurationDone")
	send(&godap.ThreadsRequest{Request: req("threads")})
	if th := await("threads").(*godap.ThreadsResponse); len(th.Body.Threads) < 3 {
		t.Errorf("threads of the adopted VM: %+v", th.Body.Threads)
	}
	listed := func() map[string]any {
		l, _ := call(3, "vms/list", nil)["result"].([]any)
		for _, v := range l {
			if m := v.(map[string]any); m["address"] == vm.Addr {
				return m
			}
		}
		return nil
	}
	if v := listed(); v == nil || v["debugger"] != true {
		t.Errorf("the adopted VM in vms/list during the session: %v", v)
	}
	send(&godap.DisconnectRequest{Request: req("disconnect")})
	await("disconnect")
	d.nc.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if v := listed(); v != nil && v["debugger"] == false {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after disconnect the adopted VM should stay monitored with no debugger: %v\n%s", listed(), stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// awaitError reads until the error response to command and returns its message.
func awaitError(t *testing.T, d *dapClient, command string) string {
	t.Helper()
	for {
		m, err := godap.ReadProtocolMessage(d.r)
		if err != nil {
			t.Fatalf("reading DAP: %v\n%s", err, d.logs.String())
		}
		if e, ok := m.(*godap.ErrorResponse); ok && e.Command == command {
			if e.Body.Error != nil {
				return e.Body.Error.Format
			}
			return e.Message
		}
		if r, ok := m.(godap.ResponseMessage); ok && r.GetResponse().Command == command {
			t.Fatalf("%s succeeded, want an error", command)
		}
	}
}
