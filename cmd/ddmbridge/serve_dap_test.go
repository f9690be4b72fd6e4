package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
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
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	s := startServeDAP(t, ctx, "--no-adb", "--scan", "127.0.0.1:"+fmt.Sprint(vm.Port), "--scan-interval", "100ms",
		"--current-port", "0", "--debug-port-base", "0")
	vmID := fmt.Sprint(s.waitVMs("the VM", func(l []map[string]any) bool { return len(l) == 1 })[0]["id"])

	d := s.session()
	d.attach(`{"vm":"` + vmID + `"}`)
	if names := d.threadNames(); !strings.Contains(strings.Join(names, ","), "worker-0") {
		t.Errorf("threads through the monitor: %v", names)
	}
	if !contains(d.events, "initialized") {
		t.Errorf("no initialized event: %v", d.events)
	}
	// While the session is on, the monitor shows the VM with a debugger.
	if l := s.vms(); len(l) != 1 || l[0]["debugger"] != true {
		t.Errorf("vms/list during the session: %v", l)
	}
	// dumpHeap through the monitor: HotSpot's attach mechanism on the VM.
	path := filepath.Join(t.TempDir(), "session.hprof")
	dump := d.custom("dumpHeap", map[string]any{"path": path})
	if dump["success"] != true {
		t.Fatalf("dumpHeap through the monitor: %v", dump)
	}
	body, _ := dump["body"].(map[string]any)
	if st, err := os.Stat(path); err != nil || body["format"] != "JAVA PROFILE 1.0.2" || float64(st.Size()) != body["bytes"] || st.Size() < 1<<20 {
		t.Errorf("dumpHeap through the monitor: %v (file: %v, %v)", body, st, err)
	}
	d.disconnect()
	s.waitVMs("the VM monitored with no debugger after disconnect", func(l []map[string]any) bool {
		return len(l) == 1 && l[0]["debugger"] == false
	})
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
				if e, ok := m.(*godap.ErrorResponse); ok && e.Body.Error != nil {
					d.t.Fatalf("%s failed: %s: %s", command, e.Message, e.Body.Error.Format)
				}
				d.t.Fatalf("%s failed: %s", command, m.GetResponse().Message)
			}
			return m
		case godap.EventMessage:
			d.events = append(d.events, m.GetEvent().Event)
			d.bodies = append(d.bodies, m)
		}
	}
}

// TestServeCheckConfig: dap/checkConfig answers as launch and attach will —
// the one validation of debug configurations, which the extension asks
// before it starts a session.
func TestServeCheckConfig(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	s := startServeDAP(t, ctx, "--no-adb", "--scan", "", "--current-port", "0", "--debug-port-base", "0")
	for _, tc := range []struct {
		request, config, want string // want "" for a valid configuration
	}{
		{"launch", `{"mainClass": "com.example.App"}`, ""},
		{"launch", `{"packageName": "com.example.app"}`, ""},
		{"attach", `{"vm": "current"}`, ""},
		{"attach", `{"hostName": "127.0.0.1", "port": 5005}`, ""},
		{"launch", `{}`, `field "mainClass" is required`},
		{"launch", `{"mainClass": "src/App.java"}`, "is not a class name"},
		{"attach", `{}`, "name the VM with"},
		{"attach", `{"vm": "1", "port": 5005}`, "give only one of"},
		{"attach", `{"port": 70000}`, "is not a TCP port"},
		{"attach", `{"port": true}`, `field "port"`},
		{"restart", `{}`, `must be "launch" or "attach"`},
	} {
		res := s.rpc("dap/checkConfig", map[string]any{"request": tc.request, "config": json.RawMessage(tc.config)})
		e, _ := res["error"].(map[string]any)
		switch {
		case tc.want == "" && res["error"] != nil:
			t.Errorf("%s %s: %v", tc.request, tc.config, e)
		case tc.want != "" && !strings.Contains(fmt.Sprint(e["message"]), tc.want):
			t.Errorf("%s %s: %v, want an error containing %q", tc.request, tc.config, res, tc.want)
		}
	}
}
