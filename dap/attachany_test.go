package dap

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
)

// TestAttachErrorsSayWhy: attaching to a VM another debugger holds fails at
// once saying so; attaching where nothing listens says what to start.
func TestAttachErrorsSayWhy(t *testing.T) {
	vm := startLoop(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", vm.Addr)
	if err != nil {
		t.Fatal(err)
	}
	other, err := jdwp.Handshake(ctx, nc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := localjvm.WaitRefused(ctx, vm.Addr); err == nil {
		t.Fatal("the VM with a debugger still accepts connections")
	}

	c := startSession(t, Config{})
	c.initialize()
	c.send("attach", map[string]any{"port": vm.Port, "timeout": 60000})
	c.expectError(ErrFailedToAttach, "already has a debugger: process")

	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	free := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	c.send("attach", map[string]any{"port": free, "timeout": 1000})
	c.expectError(ErrFailedToAttach, "nothing is listening at 127.0.0.1:")
}
