package jvmrun

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"
)

// Handshake is the 14 bytes each side of a JDWP connection sends first.
const Handshake = "JDWP-Handshake"

// DialHandshake connects to a JDWP agent listening at addr and does the
// handshake as the debugger, retrying every 50 ms until it succeeds or ctx
// ends. The retries matter: a server=y agent stops listening while a debugger
// is attached and needs a moment after that debugger detaches before it
// accepts the next one (meanwhile connections are refused or reset). The
// returned connection is ready for JDWP packets.
func DialHandshake(ctx context.Context, addr string) (net.Conn, error) {
	var last error
	for {
		c, err := dialHandshakeOnce(ctx, addr)
		if err == nil {
			return c, nil
		}
		last = err
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("JDWP handshake with %s: %w (last attempt: %v) — is the VM started with -agentlib:jdwp=...,server=y and no other debugger attached?", addr, ctx.Err(), last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func dialHandshakeOnce(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(5 * time.Second)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	c.SetDeadline(deadline)
	buf := make([]byte, len(Handshake))
	_, err = io.WriteString(c, Handshake)
	if err == nil {
		_, err = io.ReadFull(c, buf)
	}
	if err == nil && string(buf) != Handshake {
		err = fmt.Errorf("handshake reply %q, want %q", buf, Handshake)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return c, nil
}
