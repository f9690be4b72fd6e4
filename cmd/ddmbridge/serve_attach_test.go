package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
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
	s := startServeDAP(t, ctx, "--no-adb", "--scan", fmt.Sprintf("127.0.0.1:%d", unused), "--scan-interval", "100ms",
		"--current-port", "0", "--debug-port-base", "0")

	d := s.session()
	d.send(&godap.AttachRequest{Request: d.req("attach"), Arguments: json.RawMessage(fmt.Sprintf(`{"hostName":"127.0.0.1","port":%d,"timeout":1000}`, unused))})
	if msg := d.awaitError("attach"); !strings.Contains(msg, "nothing is listening at 127.0.0.1:") {
		t.Errorf("attach where nothing listens: %q", msg)
	}

	d = s.session()
	d.attach(fmt.Sprintf(`{"hostName":"127.0.0.1","port":%d}`, vm.Port))
	if names := d.threadNames(); len(names) < 3 {
		t.Errorf("threads of the adopted VM: %v", names)
	}
	adopted := func(l []map[string]any) map[string]any {
		for _, v := range l {
			if v["address"] == vm.Addr {
				return v
			}
		}
		return nil
	}
	if v := adopted(s.vms()); v == nil || v["debugger"] != true {
		t.Errorf("the adopted VM in vms/list during the session: %v", v)
	}
	d.disconnect()
	s.waitVMs("the adopted VM monitored with no debugger after disconnect", func(l []map[string]any) bool {
		v := adopted(l)
		return v != nil && v["debugger"] == false
	})
}
