package bridge

import (
	"fmt"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/demoapp"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// workLabel is the location of DemoApp's work-label line (hit by the main
// thread every 50 ms).
func workLabel(t *testing.T, c *jdwp.Conn) jdwp.Location {
	t.Helper()
	ctx := t.Context()
	cls := classID(t, c, "LDemoApp;")
	ms, err := c.Methods(ctx, cls)
	if err != nil {
		t.Fatal(err)
	}
	for _, mi := range ms {
		if mi.Name != "work" {
			continue
		}
		lt, err := c.LineTable(ctx, cls, mi.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lt.Lines {
			if l.Line == int32(demoapp.Line("work-label")) {
				return jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: cls, Method: mi.ID, Index: l.CodeIndex}
			}
		}
	}
	t.Fatal("DemoApp.work has no code at its work-label line")
	return jdwp.Location{}
}

// nextSet waits for c's next event set that holds an event of request id.
func nextSet(t *testing.T, sub *jdwp.Subscription, id int32, who string) *jdwp.EventSet {
	t.Helper()
	timeout := time.After(passDeadline)
	for {
		select {
		case es := <-sub.C:
			if es == nil || es.Packet == nil {
				t.Fatalf("%s's connection ended waiting for request %d", who, id)
			}
			for _, e := range es.Events {
				if e.RequestID == id {
					return es
				}
			}
		case <-timeout:
			t.Fatalf("%s: no event of request %d in %v", who, id, passDeadline)
		}
	}
}

// Two debuggers through the monitor with breakpoints at one location: each
// receives the hits with its own request's suspend policy, as if it were
// alone on the VM, and the VM's suspensions are what JDI expects of each
// (issue 24: a debugger whose breakpoints suspend nothing got suspending
// events when another's breakpoint fired at the same place, and a client
// that did not resume left the thread suspended).
func TestTwoDebuggersOwnSuspendPolicy(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	vm := startDemo(t, lo, false)
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, vm.Addr, passDeadline)
	port := fmt.Sprintf("127.0.0.1:%d", info.DebugPort)
	ctx := t.Context()
	a, b := debugSession(t, port), debugSession(t, port)
	at := workLabel(t, a)
	subA, subB := a.Subscribe(), b.Subscribe()
	defer subA.Close()
	defer subB.Close()
	suspendCount := func(th jdwp.ThreadID) int32 {
		t.Helper()
		n, err := b.SuspendCount(ctx, th)
		if err != nil {
			t.Fatalf("ThreadReference.SuspendCount: %v", err)
		}
		return n
	}

	// a suspends the event thread at each hit and resumes it; b's
	// breakpoint suspends nothing and b never resumes.
	none, err := b.SetRequest(ctx, jdwp.EventBreakpoint, jdwp.SuspendNone, jdwp.LocationOnly(at))
	if err != nil {
		t.Fatal(err)
	}
	own, err := a.SetRequest(ctx, jdwp.EventBreakpoint, jdwp.SuspendEventThread, jdwp.LocationOnly(at))
	if err != nil {
		t.Fatal(err)
	}
	const hits = 5
	var thread jdwp.ThreadID
	for i := range hits {
		es := nextSet(t, subA, own, "a")
		if es.SuspendPolicy != jdwp.SuspendEventThread {
			t.Errorf("a's breakpoint hit came with suspend policy %d, want %d (its request's)", es.SuspendPolicy, jdwp.SuspendEventThread)
		}
		thread = es.Events[0].Thread
		if i == hits-1 {
			// Cleared while the only thread that runs work is stopped
			// here: no hit of a's comes after the last resume.
			if err := a.ClearRequest(ctx, jdwp.EventBreakpoint, own); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.ResumeThread(ctx, thread); err != nil {
			t.Fatal(err)
		}
	}
	// b saw the same hits, each with its own request's policy: none.
	for range hits {
		if es := nextSet(t, subB, none, "b"); es.SuspendPolicy != jdwp.SuspendNone {
			t.Errorf("b's suspend-none breakpoint hit came with suspend policy %d", es.SuspendPolicy)
		}
	}
	waitTicking(t, vm, passDeadline)
	if n := suspendCount(thread); n != 0 {
		t.Errorf("the main thread is suspended %d times after a resumed every hit and b's breakpoint suspends nothing", n)
	}
	if err := b.ClearRequest(ctx, jdwp.EventBreakpoint, none); err != nil {
		t.Fatal(err)
	}

	// a suspends the VM, b the event thread, at the same location: a's
	// resume of the VM leaves only b's thread suspended, b's resume frees it.
	// Both requests are made while a holds the VM suspended, so that the
	// first hit is one event for both.
	if err := a.Suspend(ctx); err != nil {
		t.Fatal(err)
	}
	all, err := a.SetRequest(ctx, jdwp.EventBreakpoint, jdwp.SuspendAll, jdwp.LocationOnly(at))
	if err != nil {
		t.Fatal(err)
	}
	one, err := b.SetRequest(ctx, jdwp.EventBreakpoint, jdwp.SuspendEventThread, jdwp.LocationOnly(at))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	esA := nextSet(t, subA, all, "a")
	esB := nextSet(t, subB, one, "b")
	if esA.SuspendPolicy != jdwp.SuspendAll || esB.SuspendPolicy != jdwp.SuspendEventThread {
		t.Errorf("suspend policies: a %d (want %d), b %d (want %d)", esA.SuspendPolicy, jdwp.SuspendAll, esB.SuspendPolicy, jdwp.SuspendEventThread)
	}
	thread = esB.Events[0].Thread
	if esA.Events[0].Thread != thread {
		t.Fatalf("a's hit on thread %d, b's on %d: not one event", esA.Events[0].Thread, thread)
	}
	for _, id := range []int32{all, one} {
		c := a
		if id == one {
			c = b
		}
		if err := c.ClearRequest(ctx, jdwp.EventBreakpoint, id); err != nil {
			t.Fatal(err)
		}
	}
	if n := suspendCount(thread); n != 2 {
		t.Errorf("the event thread is suspended %d times, want 2 (a's VM-wide suspension and b's)", n)
	}
	if err := a.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if n := suspendCount(thread); n != 1 {
		t.Errorf("after a resumed the VM the event thread is suspended %d times, want 1 (b's)", n)
	}
	threads, err := b.AllThreads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range threads {
		if n, err := b.SuspendCount(ctx, th); err == nil && th != thread && n != 0 {
			name, _ := b.ThreadName(ctx, th)
			t.Errorf("after a resumed the VM thread %q is suspended %d times, want 0 (b suspended only the event thread)", name, n)
		}
	}
	if err := b.ResumeThread(ctx, thread); err != nil {
		t.Fatal(err)
	}
	if n := suspendCount(thread); n != 0 {
		t.Errorf("after b resumed its thread it is suspended %d times, want 0", n)
	}
	waitTicking(t, vm, passDeadline)
	leave(t, a)
	leave(t, b)
}
