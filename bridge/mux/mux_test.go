package mux

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/bridge/demoapp"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// The multiplexer's own tests run it over a real HotSpot VM (DemoApp),
// with no monitor: testHost stands where the monitor would. The monitor's
// tests (package bridge) drive it through the monitor's debugger ports.

// testHost records what the multiplexer asks of its host.
type testHost struct {
	mu      sync.Mutex
	changed int
	dropped []string
	wg      sync.WaitGroup
	gate    chan struct{} // if set, what the multiplexer runs (a cleanup) waits for it to close
}

func (h *testHost) Changed()   { h.mu.Lock(); h.changed++; h.mu.Unlock() }
func (h *testHost) Attached()  { h.Changed() }
func (h *testHost) Detached()  { h.Changed() }
func (h *testHost) CleanedUp() {}
func (h *testHost) ResetAgent() {
	panic("ResetAgent on a multiplexer that is not resettable")
}
func (h *testHost) Drop(why string) { h.mu.Lock(); h.dropped = append(h.dropped, why); h.mu.Unlock() }
func (h *testHost) Go(f func()) {
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		if h.gate != nil {
			<-h.gate
		}
		f()
	}()
}

// testOptions are the monitor's defaults.
func testOptions(t testing.TB) Options {
	return Options{
		ID: "1", Logger: bridgetest.Logger(t), RequestTimeout: 5 * time.Second, CleanupTimeout: 10 * time.Second,
		DebuggerWriteTimeout: 30 * time.Second, MaxRequestsPerDebugger: 20000,
		TraceProxy: bridgetest.TraceProxy(),
	}
}

// startMux starts DemoApp and a multiplexer of a connection to it, as
// the monitor makes one for a plain JDWP VM, for the test's lifetime.
func startMux(t testing.TB, opts Options) (*Mux, *jdwp.Conn, *jvmtest.JVM) {
	t.Helper()
	return startMuxHost(t, opts, &testHost{})
}

// startMuxHost is startMux with the host h.
func startMuxHost(t testing.TB, opts Options, h *testHost) (*Mux, *jdwp.Conn, *jvmtest.JVM) {
	t.Helper()
	jvmtest.RequireJava(t)
	vm, err := demoapp.Start(t.Context(), jvmtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		vm.Close()
		if t.Failed() {
			t.Logf("DemoApp stderr tail: %s", bridgetest.Tail(vm.Stderr(), 20))
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	conn, err := jdwp.Dial(ctx, vm.Addr, &jdwp.Options{Logger: opts.Logger})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.IDSizes(ctx); err != nil {
		t.Fatal(err)
	}
	return muxOfHost(t, conn, opts, h), conn, vm
}

// muxOf serves conn through a multiplexer for the test's lifetime.
func muxOf(t testing.TB, conn *jdwp.Conn, opts Options) *Mux {
	return muxOfHost(t, conn, opts, &testHost{})
}

// muxOfHost is muxOf with the host h.
func muxOfHost(t testing.TB, conn *jdwp.Conn, opts Options, h *testHost) *Mux {
	sub := conn.Subscribe()
	m := New(conn, h, opts)
	pumped := make(chan struct{})
	go func() { m.Pump(sub); close(pumped) }()
	t.Cleanup(func() {
		m.Close()
		h.wg.Wait()
		conn.Close()
		<-pumped
	})
	return m
}

// debugger attaches a debugger to m over loopback TCP and does its
// handshake; the session is served until the test ends.
func debugger(t testing.TB, m *Mux) (net.Conn, *Session) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	nc, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.Attach(server, nc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	go s.ServeHandshake()
	nc.SetDeadline(time.Now().Add(time.Minute))
	if _, err := io.WriteString(nc, jdwp.HandshakeString); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(jdwp.HandshakeString))
	if _, err := io.ReadFull(nc, buf); err != nil || string(buf) != jdwp.HandshakeString {
		t.Fatalf("handshake through the multiplexer: %q %v", buf, err)
	}
	nc.SetDeadline(time.Time{})
	return nc, s
}
