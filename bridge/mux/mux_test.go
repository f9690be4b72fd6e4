package mux

import (
	"context"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

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
	go func() { defer h.wg.Done(); f() }()
}

// testLogger logs to the test at info level (BRIDGE_TEST_LOG=debug|trace for more).
func testLogger(t testing.TB) zerolog.Logger {
	lvl := zerolog.InfoLevel
	if s := os.Getenv("BRIDGE_TEST_LOG"); s != "" {
		if l, err := zerolog.ParseLevel(s); err == nil {
			lvl = l
		}
	}
	return zerolog.New(zerolog.NewTestWriter(t)).Level(lvl).With().Timestamp().Logger()
}

// testOptions are the monitor's defaults.
func testOptions(t testing.TB) Options {
	return Options{
		ID: "1", Logger: testLogger(t), RequestTimeout: 5 * time.Second, CleanupTimeout: 10 * time.Second,
		DebuggerWriteTimeout: 30 * time.Second, MaxRequestsPerDebugger: 20000,
		TraceProxy: os.Getenv("BRIDGE_TEST_LOG") == "trace",
	}
}

// startMux starts DemoApp and a multiplexer of a connection to it, as
// the monitor makes one for a plain JDWP VM, for the test's lifetime.
func startMux(t testing.TB, opts Options) (*Mux, *jdwp.Conn, *jvmtest.JVM) {
	t.Helper()
	jvmtest.RequireJava(t)
	vm, err := demoapp.Start(t.Context(), jvmtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		vm.Close()
		if t.Failed() {
			t.Logf("DemoApp stderr tail: %s", tail(vm.Stderr(), 20))
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	conn, err := jdwp.Dial(ctx, vm.Addr, &jdwp.Options{Logger: opts.Logger})
	if err != nil {
		t.Fatal(err)
	}
	sub := conn.Subscribe()
	if _, err := conn.IDSizes(ctx); err != nil {
		t.Fatal(err)
	}
	h := &testHost{}
	m := New(conn, h, opts)
	pumped := make(chan struct{})
	go func() { m.Pump(sub); close(pumped) }()
	t.Cleanup(func() {
		m.Close()
		h.wg.Wait()
		conn.Close()
		<-pumped
	})
	return m, conn, vm
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

// waitFor polls cond until it holds or the timeout passes. The timeout says
// how long the wait normally takes; it is raised to a minute so that a loaded
// machine only makes the test slower, never red.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	timeout = max(timeout, time.Minute)
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func tail(lines []string, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
