package mux

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/bridge/demoapp"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jdwptest"
)

// client attaches a JDWP client to m over loopback TCP, as a debugger on
// the monitor's port would be.
func client(t *testing.T, m *Mux) *jdwp.Conn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if nc, err := ln.Accept(); err == nil {
			accepted <- nc
		}
		close(accepted)
	}()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server := <-accepted
	s, err := m.Attach(server, nc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	go s.ServeHandshake()
	c, err := jdwp.Handshake(ctx, nc, &jdwp.Options{RequestTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.IDSizes(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// workLine is the location of DemoApp's line tagged tag in work().
func workLine(t *testing.T, c *jdwp.Conn, tag string) jdwp.Location {
	t.Helper()
	ctx := t.Context()
	cs, err := c.ClassesBySignature(ctx, "LDemoApp;")
	if err != nil || len(cs) == 0 {
		t.Fatalf("ClassesBySignature LDemoApp;: %v %v", cs, err)
	}
	ms, err := c.Methods(ctx, cs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, mi := range ms {
		if mi.Name != "work" {
			continue
		}
		lt, err := c.LineTable(ctx, cs[0].ID, mi.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lt.Lines {
			if l.Line == int32(demoapp.Line(tag)) {
				return jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: cs[0].ID, Method: mi.ID, Index: l.CodeIndex}
			}
		}
	}
	t.Fatalf("no code at %s in DemoApp.work", tag)
	return jdwp.Location{}
}

// hits waits for n breakpoint events on sub, each of request req (any
// other is an error), resuming the event thread of those that suspend it.
func hits(ctx context.Context, c *jdwp.Conn, sub *jdwp.Subscription, req int32, n int) error {
	timeout := time.After(2 * time.Minute)
	for got := 0; got < n; {
		select {
		case es := <-sub.C:
			if es == nil || es.Packet == nil {
				return fmt.Errorf("the session's events ended after %d of %d hits", got, n)
			}
			for _, e := range es.Events {
				if e.Kind != jdwp.EventBreakpoint || e.RequestID != req {
					return fmt.Errorf("event %v of request %d, want only breakpoints of request %d", e.Kind, e.RequestID, req)
				}
				got++
			}
			if es.SuspendPolicy == jdwp.SuspendEventThread {
				if err := c.ResumeThread(ctx, es.Events[0].Thread); err != nil {
					return err
				}
			}
		case <-timeout:
			return fmt.Errorf("%d of %d hits of request %d in 2 minutes", got, n, req)
		}
	}
	return nil
}

// TestSessionsKeepTheirOwn: two debuggers on one multiplexer, with no
// monitor: each gets the events of its own requests only, with its own
// suspend policy; when one disposes, what it held goes (its breakpoint,
// the thread it had suspended) and the other goes on, seeing the VM run.
func TestSessionsKeepTheirOwn(t *testing.T) {
	t.Parallel()
	m, _, vm := startMux(t, testOptions(t))
	a, b := client(t, m), client(t, m)
	if n := m.Attached(); n != 2 {
		t.Fatalf("Attached = %d, want 2", n)
	}
	ctx := t.Context()
	subA, subB := a.Subscribe(), b.Subscribe()
	defer subA.Close()
	defer subB.Close()
	reqA, err := a.SetRequest(ctx, jdwp.EventBreakpoint, jdwp.SuspendEventThread, jdwp.LocationOnly(workLine(t, a, "work-label")))
	if err != nil {
		t.Fatal(err)
	}
	reqB, err := b.SetRequest(ctx, jdwp.EventBreakpoint, jdwp.SuspendNone, jdwp.LocationOnly(workLine(t, b, "work-first")))
	if err != nil {
		t.Fatal(err)
	}
	errA := make(chan error, 1)
	go func() { errA <- hits(ctx, a, subA, reqA, 3) }()
	if err := hits(ctx, b, subB, reqB, 3); err != nil {
		t.Fatalf("b: %v", err)
	}
	if err := <-errA; err != nil {
		t.Fatalf("a: %v", err)
	}

	// a leaves holding main at its breakpoint.
	select {
	case es := <-subA.C:
		if es == nil || len(es.Events) == 0 || es.Events[0].RequestID != reqA {
			t.Fatalf("a's next event: %+v", es)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("a's breakpoint was not hit again")
	}
	if err := a.Dispose(ctx); err != nil && !errors.Is(err, jdwp.ErrClosed) {
		t.Fatalf("Dispose: %v", err)
	}
	bridgetest.WaitFor(t, time.Minute, "the cleanup after a", func() bool { return m.Sessions() == 1 })
	if err := hits(ctx, b, subB, reqB, 3); err != nil { // main runs work() again: a's hold and breakpoint are gone
		t.Fatalf("b after a left: %v", err)
	}
	bridgetest.WaitTicking(t, vm, time.Minute)
	if _, err := b.Version(ctx); err != nil {
		t.Fatalf("b after a left: %v", err)
	}
}

// TestGoneDebuggersBreakpointStopsNobody: two debuggers; a sets a
// breakpoint that suspends the VM on DemoApp's hot line and leaves, its
// cleanup held back (the host runs it late), so the breakpoint stays in the
// VM a while. Its hits are no one's: b, alone now, never sees them (it
// would stop at a breakpoint it never set, holding the VM: how a gone
// debugger's invocation that returned during its cleanup left main
// suspended), and the VM runs on past each one.
func TestGoneDebuggersBreakpointStopsNobody(t *testing.T) {
	t.Parallel()
	h := &testHost{gate: make(chan struct{})}
	var open sync.Once
	release := func() { open.Do(func() { close(h.gate) }) }
	m, _, vm := startMuxHost(t, testOptions(t), h)
	t.Cleanup(release) // runs before the multiplexer's own cleanup, which waits for h
	a, b := client(t, m), client(t, m)
	ctx := t.Context()
	subA, subB := a.Subscribe(), b.Subscribe()
	defer subA.Close()
	defer subB.Close()
	reqA, err := a.SetRequest(ctx, jdwp.EventBreakpoint, jdwp.SuspendAll, jdwp.LocationOnly(workLine(t, a, "work-first")))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case es := <-subA.C:
		if es == nil || len(es.Events) == 0 || es.Events[0].RequestID != reqA {
			t.Fatalf("a's event: %+v", es)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("a's breakpoint was not hit")
	}
	if err := a.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	a.Close()
	bridgetest.WaitFor(t, time.Minute, "a to leave", func() bool { return m.Attached() == 1 })
	bridgetest.WaitTicking(t, vm, 2*time.Minute) // ten calls of work() at least, each a hit of a's breakpoint
	select {
	case es := <-subB.C:
		t.Fatalf("b got an event of a request it never set: %+v", es)
	default:
	}
	release()
	bridgetest.WaitFor(t, time.Minute, "the cleanup after a", func() bool { return m.Sessions() == 1 })
	bridgetest.WaitTicking(t, vm, time.Minute)
}

// TestHostCommandSetNeverForwarded: a debugger's command in the host's own
// set (DDM's 0xC7) is answered NOT_IMPLEMENTED by the multiplexer even when
// the VM's connection allows vendor commands (a DDM VM): it never reaches
// the VM, a stand-in that would answer it.
func TestHostCommandSetNeverForwarded(t *testing.T) {
	t.Parallel()
	var reached atomic.Int32
	vm := jdwptest.Start(t, jdwptest.Config{Handlers: map[jdwp.Cmd]jdwptest.Handler{
		{Set: 0xC7, Cmd: 1}: func(vm *jdwptest.VM, p *jdwp.Packet) { reached.Add(1); vm.Reply(p.ID, jdwp.ErrNone, nil) },
		{Set: 0xC8, Cmd: 1}: func(vm *jdwptest.VM, p *jdwp.Packet) { vm.Reply(p.ID, jdwp.ErrNone, nil) },
	}})
	conn := vm.Dial(t, nil)
	conn.AllowVendorCommands()
	opts := testOptions(t)
	opts.HostCommandSet = 0xC7
	nc, _ := debugger(t, muxOf(t, conn, opts))
	r := bufio.NewReader(nc)
	nc.SetDeadline(time.Now().Add(time.Minute))
	if p := bridgetest.Command(t, nc, r, 1, 0xC7, 1, []byte("HELO\x00\x00\x00\x04\x00\x00\x00\x01")); p.Error != jdwp.ErrNotImplemented || reached.Load() != 0 {
		t.Errorf("a DDM command from the debugger: %v, reached the VM %d times; want NOT_IMPLEMENTED from the multiplexer", p.Error, reached.Load())
	}
	// Another vendor set is the debugger's to use on such a VM.
	if p := bridgetest.Command(t, nc, r, 2, 0xC8, 1, nil); p.Error != jdwp.ErrNone {
		t.Errorf("a vendor command of another set: %v, want the VM's answer", p.Error)
	}
}
