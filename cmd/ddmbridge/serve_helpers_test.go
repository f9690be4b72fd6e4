package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	godap "github.com/google/go-dap"
)

// serveDAP is a `serve --stdio` child with a DAP socket: JSON-RPC on its
// pipes, DAP sessions on the socket, and its log for failure messages.
type serveDAP struct {
	t      *testing.T
	sock   string
	stderr *bytes.Buffer
	call   func(id int, method string, params any) map[string]any
	id     int
}

// startServeDAP starts serve with flags plus --stdio and a DAP socket in a
// temporary directory. The child dies with ctx; the test waits for it.
func startServeDAP(t *testing.T, ctx context.Context, flags ...string) *serveDAP {
	t.Helper()
	s := &serveDAP{t: t, sock: filepath.Join(t.TempDir(), "dap.sock"), stderr: &bytes.Buffer{}}
	args := append([]string{"serve", "--stdio"}, flags...)
	cmd := child(ctx, append(args, "--dap", "unix:"+s.sock)...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	s.call = stdioRPC(t, stdin, stdout, s.stderr)
	// dap/address answers once the DAP socket listens.
	if got, _ := s.rpc("dap/address", nil)["result"].(map[string]any); got["address"] != "unix:"+s.sock {
		t.Fatalf("dap/address: %v\n%s", got, s.stderr.String())
	}
	return s
}

// rpc calls method on serve's JSON-RPC API and returns the whole response.
func (s *serveDAP) rpc(method string, params any) map[string]any {
	s.t.Helper()
	s.id++
	return s.call(s.id, method, params)
}

// vms returns vms/list's entries.
func (s *serveDAP) vms() []map[string]any {
	s.t.Helper()
	l, _ := s.rpc("vms/list", nil)["result"].([]any)
	out := make([]map[string]any, 0, len(l))
	for _, v := range l {
		out = append(out, v.(map[string]any))
	}
	return out
}

// waitVMs polls vms/list until ok accepts it, for up to a minute.
func (s *serveDAP) waitVMs(what string, ok func([]map[string]any) bool) []map[string]any {
	s.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		l := s.vms()
		if ok(l) {
			return l
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("vms/list never showed %s: %v\n%s", what, l, s.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// session dials the DAP socket and initializes a session.
func (s *serveDAP) session() *dapClient {
	s.t.Helper()
	d := dialDAP(s.t, s.sock, s.stderr)
	d.send(&godap.InitializeRequest{Request: d.req("initialize"), Arguments: godap.InitializeRequestArguments{
		AdapterID: "ddmbridge", LinesStartAt1: true, ColumnsStartAt1: true, SupportsProgressReporting: true}})
	d.await("initialize")
	return d
}

// attach attaches with the given JSON arguments and finishes configuration.
func (d *dapClient) attach(args string) {
	d.t.Helper()
	d.send(&godap.AttachRequest{Request: d.req("attach"), Arguments: json.RawMessage(args)})
	d.await("attach")
	d.send(&godap.ConfigurationDoneRequest{Request: d.req("configurationDone")})
	d.await("configurationDone")
}

// threadNames asks for the threads and returns their names.
func (d *dapClient) threadNames() []string {
	d.t.Helper()
	d.send(&godap.ThreadsRequest{Request: d.req("threads")})
	var names []string
	for _, x := range d.await("threads").(*godap.ThreadsResponse).Body.Threads {
		names = append(names, x.Name)
	}
	return names
}

// disconnect ends the session and closes its socket.
func (d *dapClient) disconnect() {
	d.t.Helper()
	d.send(&godap.DisconnectRequest{Request: d.req("disconnect")})
	d.await("disconnect")
	d.nc.Close()
}

// awaitError reads until the error response to command and returns its message.
func (d *dapClient) awaitError(command string) string {
	d.t.Helper()
	for {
		m, err := godap.ReadProtocolMessage(d.r)
		if err != nil {
			d.t.Fatalf("reading DAP: %v\n%s", err, d.logs.String())
		}
		if e, ok := m.(*godap.ErrorResponse); ok && e.Command == command {
			if e.Body.Error != nil {
				return e.Body.Error.Format
			}
			return e.Message
		}
		if r, ok := m.(godap.ResponseMessage); ok && r.GetResponse().Command == command {
			d.t.Fatalf("%s succeeded, want an error", command)
		}
	}
}

// custom sends a request the go-dap codec does not know and returns its
// response as JSON, collecting the events seen on the way.
func (d *dapClient) custom(command string, args any) map[string]any {
	d.t.Helper()
	req := struct {
		godap.Request
		Arguments any `json:"arguments"`
	}{d.req(command), args}
	d.send(&req)
	for {
		raw, err := godap.ReadBaseMessage(d.r)
		if err != nil {
			d.t.Fatalf("reading DAP: %v\n%s", err, d.logs.String())
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			d.t.Fatalf("DAP message %s: %v", raw, err)
		}
		switch {
		case m["type"] == "event":
			d.events = append(d.events, fmt.Sprint(m["event"]))
		case m["type"] == "response" && m["command"] == command:
			return m
		}
	}
}
