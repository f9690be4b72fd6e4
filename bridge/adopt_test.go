package bridge

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestOpenDebuggerAdoptsAddress: an in-process debugger (the DAP server)
// attaching to host:port outside the scan ranges gets the VM adopted into
// the monitor — listed, with its pass-through port — and it stays
// monitored after the debugger leaves. Nothing listening is a refused
// dial; a peer that is not JDWP says so.
func TestOpenDebuggerAdoptsAddress(t *testing.T) {
	jvmtest.RequireJava(t)
	vm := startIdle(t, "")
	m := startMonitor(t, testOptions(t, 0, 0)) // scans nothing
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	nc, err := m.OpenDebugger(ctx, vm.Addr)
	if err != nil {
		t.Fatalf("open %s: %v", vm.Addr, err)
	}
	conn, err := jdwp.Handshake(ctx, nc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := conn.Version(ctx); err != nil || !strings.Contains(v.Description, "Java Debug Wire Protocol") {
		t.Errorf("version through the adopted VM: %+v %v", v, err)
	}
	info := waitVM(t, m, vm.Addr, time.Minute)
	if info.DebugPort == 0 {
		t.Errorf("adopted VM has no pass-through port: %+v", info)
	}
	conn.Close()
	waitFor(t, time.Minute, "the debugger to leave", func() bool {
		for _, v := range m.VMs() {
			if v.Address == vm.Addr {
				return !v.Debugger
			}
		}
		return false
	})

	// Nothing listening: the refused dial comes back as it is.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	free := ln.Addr().String()
	ln.Close()
	if _, err := m.OpenDebugger(ctx, free); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("open %s (nothing listening): %v, want connection refused", free, err)
	}

	// Not JDWP: a server that answers something else.
	http, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer http.Close()
	go func() {
		for {
			c, err := http.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, "HTTP/1.1 400 Bad Request\r\n\r\n")
			c.Close()
		}
	}()
	if _, err := m.OpenDebugger(ctx, http.Addr().String()); err == nil || !strings.Contains(err.Error(), "not a JDWP agent") {
		t.Errorf("open an HTTP server: %v, want not a JDWP agent", err)
	}
}
