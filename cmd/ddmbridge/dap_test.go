package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"
)

// TestDAPListen runs 'ddmbridge dap --listen' and completes an initialize
// handshake over TCP; nothing is written to stdout.
func TestDAPListen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"dap", "--listen", addr, "--log-level", "disabled"}, &stdout, &stderr) }()
	var nc net.Conn
	for i := 0; i < 100; i++ {
		if nc, err = net.Dial("tcp", addr); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if nc == nil {
		t.Fatalf("no DAP listener at %s: %v", addr, err)
	}
	defer nc.Close()
	godap.WriteBaseMessage(nc, []byte(`{"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"x"}}`))
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	m, err := godap.ReadProtocolMessage(bufio.NewReader(nc))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := m.(*godap.InitializeResponse); !ok || !r.Body.SupportsConditionalBreakpoints {
		t.Fatalf("initialize answered with %T %+v", m, m)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout: %q", stdout.String())
	}
	if err := run([]string{"dap", "--listen", "0.0.0.0:0"}, &stdout, &stderr); err != 2 || !strings.Contains(stderr.String(), "only loopback") {
		t.Errorf("non-loopback --listen: exit %d, stderr %q", err, stderr.String())
	}
	_ = fmt.Sprint
}
