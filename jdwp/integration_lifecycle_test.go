package jdwp_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestIntegrationReattach disposes a session and attaches again to the same
// VM: Dispose resumes the VM and drops the session's requests, and a server=y
// agent then accepts the next debugger.
func TestIntegrationReattach(t *testing.T) {
	t.Parallel()
	d := startTarget(t)
	ctx, c := d.ctx, d.c
	sub := c.Subscribe()
	loc := d.locationOf(t, d.target, "compute", "compute", d.lines)
	must(c.SetRequest(ctx, jdwp.EventBreakpoint, jdwp.SuspendAll, jdwp.LocationOnly(loc)))(t)
	check(t, c.Suspend(ctx))
	check(t, c.Dispose(ctx))

	if _, err := c.Version(ctx); !errors.Is(err, jdwp.ErrClosed) {
		t.Errorf("Version after Dispose: %v, want ErrClosed", err)
	}
	select {
	case es := <-sub.C:
		if len(es.Events) != 1 || es.Events[0].Kind != jdwp.EventVMDisconnected {
			t.Errorf("after Dispose got %+v, want VM_DISCONNECTED", es.Events)
		}
	case <-time.After(eventTimeout):
		t.Fatal("no VM_DISCONNECTED after Dispose")
	}
	if _, ok := <-sub.C; ok {
		t.Error("subscription still open after VM_DISCONNECTED")
	}

	nc, err := jvmtest.DialHandshake(ctx, d.vm.Addr)
	check(t, err)
	c2 := jdwp.NewConn(nc, connOptions(t))
	t.Cleanup(func() { c2.Close() })
	d2 := attachTarget(t, d.vm, c2)
	if n := must(c2.SuspendCount(ctx, d2.threadByName(t, "main")))(t); n != 0 {
		t.Errorf("SuspendCount(main) after Dispose and re-attach = %d, want 0", n)
	}
	s2 := d2.subscribe(t)
	d2.run(t, scEarly)
	d2.waitLine(t, "EARLY r=50 calls=1") // the disposed session's breakpoint is gone
	s2.none(t, 0)

	// The agent serves one debugger at a time.
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if c3, err := jdwp.Dial(dctx, d.vm.Addr, nil); err == nil {
		c3.Close()
		t.Error("a second debugger attached while one is connected")
	}
	check(t, c2.Dispose(ctx))
}

// TestIntegrationAttachMode has the VM attach to the debugger (server=n):
// the test listens, starts the VM suspended and accepts it.
func TestIntegrationAttachMode(t *testing.T) {
	t.Parallel()
	cp := compiled(t, "target")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(t, err)
	defer ln.Close()
	// The VM sends VM_START right after the handshake, and a Conn hands
	// events only to existing subscribers: hold the connection's reads until
	// the test has subscribed.
	gl := &gatedListener{Listener: ln, gate: make(chan struct{})}
	t.Cleanup(gl.open)
	type accepted struct {
		c   *jdwp.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := jdwp.Accept(t.Context(), gl, connOptions(t))
		ch <- accepted{c, err}
	}()
	vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{cp}, MainClass: "Target",
		AttachToDebugger: true, Address: ln.Addr().String(), Suspend: true})
	a := <-ch
	check(t, a.err)
	c := a.c
	t.Cleanup(func() { c.Close() })
	ctx := t.Context()
	sub := c.Subscribe()
	defer sub.Close()
	gl.open()

	next := func(kind jdwp.EventKind) (jdwp.Event, jdwp.SuspendPolicy) {
		t.Helper()
		var es *jdwp.EventSet
		select {
		case es = <-sub.C:
		case <-time.After(eventTimeout):
			t.Fatalf("no %s", kind)
		}
		if len(es.Events) != 1 || es.Events[0].Kind != kind {
			t.Fatalf("got %+v, want one %s", es.Events, kind)
		}
		return es.Events[0], es.SuspendPolicy
	}
	start, policy := next(jdwp.EventVMStart)
	if policy != jdwp.SuspendAll || start.RequestID != 0 || must(c.ThreadName(ctx, start.Thread))(t) != "main" {
		t.Errorf("VM_START = %+v, policy %d; want main, request 0, all suspended", start, policy)
	}
	if cs := must(c.ClassesBySignature(ctx, "LTarget;"))(t); len(cs) != 0 {
		t.Errorf("Target loaded before VM_START was resumed: %v", cs)
	}
	prepare := must(c.SetRequest(ctx, jdwp.EventClassPrepare, jdwp.SuspendAll, jdwp.ClassMatch("Target")))(t)
	check(t, c.Resume(ctx))
	e, _ := next(jdwp.EventClassPrepare)
	if e.RequestID != prepare || e.Signature != "LTarget;" {
		t.Errorf("CLASS_PREPARE = %+v", e)
	}
	check(t, c.ClearRequest(ctx, jdwp.EventClassPrepare, prepare))
	check(t, c.Resume(ctx))
	rctx, cancel := context.WithTimeout(ctx, eventTimeout)
	defer cancel()
	must(vm.WaitForLine(rctx, "READY"))(t)

	d := attachTarget(t, vm, c)
	d.run(t, scEarly)
	d.waitLine(t, "EARLY r=50 calls=1")
}

// gatedListener's connections pass the 14 handshake bytes, then block reads
// until the gate opens.
type gatedListener struct {
	net.Listener
	once sync.Once
	gate chan struct{}
}

func (l *gatedListener) open() { l.once.Do(func() { close(l.gate) }) }

func (l *gatedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &gatedConn{Conn: c, gate: l.gate}, nil
}

type gatedConn struct {
	net.Conn
	gate chan struct{}
	n    int // bytes read so far, up to the handshake's length
}

func (c *gatedConn) Read(b []byte) (int, error) {
	hs := len(jdwp.HandshakeString)
	if c.n >= hs {
		<-c.gate
		return c.Conn.Read(b)
	}
	n, err := c.Conn.Read(b[:min(len(b), hs-c.n)])
	c.n += n
	return n, err
}

// TestIntegrationVMDeath lets Target exit: subscribers get VM_DEATH, then
// VM_DISCONNECTED, then the channel closes, and calls fail with a ConnError.
func TestIntegrationVMDeath(t *testing.T) {
	t.Parallel()
	d := startTarget(t)
	ctx, c := d.ctx, d.c
	sub := c.Subscribe()
	id := must(c.SetRequest(ctx, jdwp.EventVMDeath, jdwp.SuspendNone))(t)
	d.run(t, scExit)

	var deaths []int32
	disconnected := false
	timeout := time.After(eventTimeout)
loop:
	for {
		select {
		case es, ok := <-sub.C:
			if !ok {
				break loop
			}
			for _, e := range es.Events {
				switch {
				case disconnected:
					t.Errorf("%s after VM_DISCONNECTED", e.Kind)
				case e.Kind == jdwp.EventVMDeath:
					deaths = append(deaths, e.RequestID)
				case e.Kind == jdwp.EventVMDisconnected:
					disconnected = true
				default:
					t.Errorf("unexpected %s", e.Kind)
				}
			}
		case <-timeout:
			t.Fatalf("subscription not closed; VM_DEATH from requests %v, disconnected %v", deaths, disconnected)
		}
	}
	if !slices.Contains(deaths, id) || !disconnected {
		t.Errorf("VM_DEATH from requests %v (want %d among them), disconnected %v", deaths, id, disconnected)
	}
	t.Logf("VM_DEATH events from requests %v", deaths)
	d.waitLine(t, "BYE")
	select {
	case <-d.vm.Exited():
		check(t, d.vm.Wait())
	case <-time.After(eventTimeout):
		t.Fatal("JVM did not exit")
	}

	<-c.Done()
	var ce *jdwp.ConnError
	if !errors.As(c.Err(), &ce) {
		t.Errorf("Err() = %v, want a *ConnError", c.Err())
	}
	if _, err := c.Version(ctx); !errors.As(err, &ce) {
		t.Errorf("Version after VM death: %v, want a *ConnError", err)
	}
	late := c.Subscribe()
	if es := <-late.C; len(es.Events) != 1 || es.Events[0].Kind != jdwp.EventVMDisconnected {
		t.Errorf("Subscribe after the end delivered %+v, want VM_DISCONNECTED", es.Events)
	}
	if _, ok := <-late.C; ok {
		t.Error("late subscription not closed")
	}
}

// TestIntegrationKilledMidRequest kills -9 a suspended VM while many calls
// are in flight: every call returns a *ConnError. The calls carry no
// deadline, so only the connection's end can release them.
func TestIntegrationKilledMidRequest(t *testing.T) {
	t.Parallel()
	vm := startTargetVM(t)
	c, err := jdwp.Dial(t.Context(), vm.Addr, nil)
	check(t, err)
	defer c.Close()
	ctx := context.Background()
	check(t, c.Suspend(ctx))
	threads := must(c.AllThreads(ctx))(t)
	target := must(c.ClassesBySignature(ctx, "LTarget;"))(t)[0].ID

	const workers = 32
	var calls atomic.Int64
	errs := make(chan error, workers)
	for i := range workers {
		go func() {
			th := threads[i%len(threads)]
			for {
				var err error
				switch i % 4 {
				case 0:
					_, err = c.Frames(ctx, th, 0, -1)
				case 1:
					_, err = c.AllThreads(ctx)
				case 2:
					_, err = c.Methods(ctx, target)
				case 3:
					_, err = c.ThreadName(ctx, th)
				}
				if err != nil {
					errs <- err
					return
				}
				calls.Add(1)
			}
		}()
	}
	deadline := time.After(eventTimeout)
	for calls.Load() < 10*workers {
		select {
		case err := <-errs:
			t.Fatalf("call failed before the kill: %v", err)
		case <-deadline:
			t.Fatalf("only %d calls done", calls.Load())
		case <-time.After(time.Millisecond):
		}
	}
	vm.Kill()
	for range workers {
		select {
		case err := <-errs:
			var ce *jdwp.ConnError
			if !errors.As(err, &ce) {
				t.Errorf("call after kill: %v, want a *ConnError", err)
			}
		case <-deadline:
			t.Fatal("calls still pending after the VM was killed")
		}
	}
	select {
	case <-c.Done():
	default:
		t.Error("Done not closed after the VM was killed")
	}
	t.Logf("%d calls before the kill; connection error: %v", calls.Load(), c.Err())
}
