package main

import (
	"bufio"
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

// TestServeDAPSession: a DAP session on serve's DAP socket attaches to a
// monitored HotSpot VM through the monitor, sees its threads, disconnects,
// and the VM stays monitored with no debugger.
func TestServeDAPSession(t *testing.T) {
	jvmtest.RequireJava(t)
	vm := jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: []string{"-Dthreads=3", "-Ddepth=2", "-Dobjects=10"}})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	dapSock := filepath.Join(dir, "dap.sock")
	cmd := child(ctx, "serve", "--stdio", "--no-adb", "--scan", "127.0.0.1:"+fmt.Sprint(vm.Port), "--scan-interval", "100ms",
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
	res := call(1, "dap/address", nil)
	if got, _ := res["result"].(map[string]any); got["address"] != "unix:"+dapSock {
		t.Fatalf("dap/address: %v", res)
	}
	var vmID string
	deadline := time.Now().Add(15 * time.Second)
	for vmID == "" {
		if l, _ := call(2, "vms/list", nil)["result"].([]any); len(l) == 1 {
			vmID = fmt.Sprint(l[0].(map[string]any)["id"])
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the VM was not found\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}

	d := dialDAP(t, dapSock, &stderr)
	send, req, await := d.send, d.req, d.await
	send(&godap.InitializeRequest{Request: req("initialize"), Arguments: godap.InitializeRequestArguments{AdapterID: "ddmbridge", LinesStartAt1: true, ColumnsStartAt1: true}})
	await("initialize")
	send(&godap.AttachRequest{Request: req("attach"), Arguments: json.RawMessage(`{"vm":"` + vmID + `"}`)})
	await("attach")
	send(&godap.ConfigurationDoneRequest{Request: req("configurationDone")})
	await("configurationDone")
	send(&godap.ThreadsRequest{Request: req("threads")})
	th := await("threads").(*godap.ThreadsResponse)
	names := []string{}
	for _, x := range th.Body.Threads {
		names = append(names, x.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "worker-0") {
		t.Errorf("threads through the monitor: %v", names)
	}
	if !contains(d.events, "initialized") {
		t.Errorf("no initialized event: %v", d.events)
	}
	// While the session is on, the monitor shows the VM with a debugger.
	if l, _ := call(3, "vms/list", nil)["result"].([]any); len(l) != 1 || l[0].(map[string]any)["debugger"] != true {
		t.Errorf("vms/list during the session: %v", l)
	}
	send(&godap.DisconnectRequest{Request: req("disconnect")})
	await("disconnect")
	d.nc.Close()
	deadline = time.Now().Add(10 * time.Second)
	for {
		l, _ := call(4, "vms/list", nil)["result"].([]any)
		if len(l) == 1 && l[0].(map[string]any)["debugger"] == false {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after disconnect the VM should stay monitored with no debugger: %v", l)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// dapClient is a small synchronous DAP client for serve's DAP socket.
type dapClient struct {
	t      *testing.T
	nc     net.Conn
	r      *bufio.Reader
	seq    int
	events []string
	bodies []godap.EventMessage
	logs   *bytes.Buffer
}

func dialDAP(t *testing.T, sock string, logs *bytes.Buffer) *dapClient {
	t.Helper()
	nc, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(40 * time.Second))
	return &dapClient{t: t, nc: nc, r: bufio.NewReader(nc), logs: logs}
}

func (d *dapClient) send(m godap.Message) {
	d.t.Helper()
	if err := godap.WriteProtocolMessage(d.nc, m); err != nil {
		d.t.Fatal(err)
	}
}

func (d *dapClient) req(command string) godap.Request {
	d.seq++
	return godap.Request{ProtocolMessage: godap.ProtocolMessage{Seq: d.seq, Type: "request"}, Command: command}
}

// await reads until the response to command (failing on an error response),
// collecting the events seen on the way.
func (d *dapClient) await(command string) godap.ResponseMessage {
	d.t.Helper()
	for {
		m, err := godap.ReadProtocolMessage(d.r)
		if err != nil {
			d.t.Fatalf("reading DAP: %v (events so far %v)\n%s", err, d.events, d.logs.String())
		}
		switch m := m.(type) {
		case godap.ResponseMessage:
			if m.GetResponse().Command != command {
				continue
			}
			if !m.GetResponse().Success {
				d.t.Fatalf("%s failed: %s", command, m.GetResponse().Message)
			}
			return m
		case godap.EventMessage:
			d.events = append(d.events, m.GetEvent().Event)
			d.bodies = append(d.bodies, m)
		}
	}
}
