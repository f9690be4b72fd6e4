package debugger

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jdwptest"
	"github.com/ddmbridge/ddmbridge/jdwp/linkproxy"
	"github.com/rs/zerolog"
)

// falseAfterMethod is a condition that runs a method in the hit's thread
// (as methodCondition) and is false whatever it returns.
type falseAfterMethod struct{ methodCondition }

func (c falseAfterMethod) Truth(ctx context.Context, at Hit) (bool, error) {
	_, err := c.methodCondition.Truth(ctx, at)
	return false, err
}

// suspendOnce is a false condition that, at its first hit, suspends the
// hit's thread once more behind the session's back (as another debugger
// through the monitor would): a count the ledger does not know.
type suspendOnce struct {
	t      *Target
	once   sync.Once
	thread chan jdwp.ThreadID
}

func (c *suspendOnce) Truth(ctx context.Context, at Hit) (bool, error) {
	var err error
	c.once.Do(func() {
		if err = c.t.Conn.SuspendThread(ctx, at.Thread); err == nil {
			c.thread <- at.Thread
		}
	})
	return false, err
}

// TestReleaseWithoutAsking: four workers hit a line 24 times, its
// breakpoint's condition false every time, through a counting proxy. A hit
// decided without running a method in its thread (a hit condition never
// met) is released with the thread's resume alone — no SuspendCount asked
// before it (the ledger knows the count is the event's 1; the first such
// release asks, and the count it reads is the one the ledger knew, which
// trusts the VM's counts) — one sequential round trip, not two. A hit whose
// condition ran a method in the thread is released as before, its count
// asked first: the ledger no longer knows it. A thread suspended once more
// behind the session's back (as another debugger through the monitor
// would) stays suspended once its hit is released: the release is the
// event's own resume, not one down to what the session owes. Either way no stop is
// shown, every worker runs to its end and the ledger holds nothing.
func TestReleaseWithoutAsking(t *testing.T) {
	for _, name := range []string{"hitCondition", "methodCondition", "anotherSuspension"} {
		t.Run(name, func(t *testing.T) {
			var proxy *linkproxy.Proxy
			p := startPoolVia(t, 6, Options{}, func(addr string) string {
				var err error
				if proxy, err = linkproxy.Start(addr, 0); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { proxy.Close() })
				return proxy.Addr()
			})
			ctx := p.ctx
			spec := BreakpointSpec{Line: p.hit, Hit: ">= 1000000"}
			if name == "methodCondition" {
				class, err := p.t.VM.ClassBySignature(ctx, "LPool;")
				if err != nil {
					t.Fatal(err)
				}
				chosen, err := p.t.VM.MethodsNamed(ctx, class, "chosen")
				if err != nil || len(chosen) != 1 {
					t.Fatalf("Pool.chosen: %v, %v", chosen, err)
				}
				spec = BreakpointSpec{Line: p.hit, Cond: falseAfterMethod{methodCondition{p.t, chosen[0]}}}
			}
			polled := 0 // the test's own SuspendCount commands
			other := &suspendOnce{t: p.t, thread: make(chan jdwp.ThreadID, 1)}
			if name == "anotherSuspension" {
				spec = BreakpointSpec{Line: p.hit, Cond: other}
			}
			infos, err := p.t.SetBreakpoints(ctx, p.path, []BreakpointSpec{spec})
			if err != nil || len(infos) != 1 || !infos[0].Verified {
				t.Fatalf("breakpoints: %+v, %v", infos, err)
			}
			proxy.Mark()
			if err := p.t.ConfigurationDone(ctx, ""); err != nil {
				t.Fatal(err)
			}
			if name == "anotherSuspension" {
				var th jdwp.ThreadID
				select {
				case th = <-other.thread:
				case <-ctx.Done():
					t.Fatal("no hit")
				}
				// Once its hit is released (the ledger owes it nothing), the
				// thread keeps the other suspension; then that one goes too.
				for {
					polled++
					n, err := p.t.Conn.SuspendCount(ctx, th)
					if err != nil {
						t.Fatal(err)
					}
					if n == 1 && !strings.Contains(p.t.Sus.String(), "thread "+strconv.FormatUint(uint64(th), 10)+" ") {
						break
					}
					if n == 0 {
						t.Fatal("the release resumed a suspension the session did not make")
					}
					select {
					case <-ctx.Done():
						t.Fatalf("the thread's count stays %d; ledger %s", n, p.t.Sus.String())
					case <-time.After(10 * time.Millisecond):
					}
				}
				if err := p.t.Conn.ResumeThread(ctx, th); err != nil {
					t.Fatal(err)
				}
			}
			p.waitDone()
			select {
			case s := <-p.fe.stops:
				t.Fatalf("a stop at a hit whose condition is false: %+v", s)
			default:
			}
			p.checkLedgerEmpty()
			st, cmds := proxy.Stats(), map[string]int{}
			for _, c := range proxy.Trace() {
				cmds[c.Cmd.String()]++
			}
			hits := 24
			asked, resumed := cmds[jdwp.CmdThreadSuspendCount.String()]-polled, cmds[jdwp.CmdThreadResume.String()]
			t.Logf("the run from configurationDone to its end: %d events, %d commands (%d ThreadReference.SuspendCount, %d ThreadReference.Resume, %d InvokeMethod), %d sequential round trips",
				st.Events, st.Commands, asked, resumed, cmds[jdwp.CmdClassTypeInvokeMethod.String()], st.Sequential)
			if resumed < hits {
				t.Errorf("%d thread resumes for %d hits released", resumed, hits)
			}
			switch name {
			case "hitCondition", "anotherSuspension":
				if asked > 1 {
					t.Errorf("%d counts asked for %d hits decided without running a method: want at most the first (it trusts the VM's counts)", asked, hits)
				}
			case "methodCondition":
				if asked < hits {
					t.Errorf("%d counts asked for %d hits whose condition ran a method in the thread: want each asked", asked, hits)
				}
			}
			n := -1
			for _, l := range p.vm.Stdout() {
				if c, ok := strings.CutPrefix(strings.TrimSpace(l), "COUNTED "); ok {
					n, _ = strconv.Atoi(c)
				}
			}
			if n != hits {
				t.Errorf("the program reached the line %d times, want %d", n, hits)
			}
		})
	}
}

// TestLedgerReleaseTrust: against a VM that keeps suspend counts as
// HotSpot's agent does, the ledger asks a released event's count until one
// read where it knew it was 1 trusts the VM's counts, then releases such
// events with the resume alone; where it does not know (the session holds
// the thread) it asks still; and a count that was not the one it knew
// makes it ask for good. Each release leaves the count the ledger owes.
func TestLedgerReleaseTrust(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ledger := func() (*Suspensions, *jdwptest.Threads, *atomic.Int32) {
		vm := jdwptest.Start(t, jdwptest.Config{})
		th := jdwptest.NewThreads(3, 1, 2)
		th.Install(vm)
		asked := new(atomic.Int32)
		vm.Handle(jdwp.CmdThreadSuspendCount, jdwptest.Answer(func(r *jdwp.Reader, w *jdwp.Writer) jdwp.ErrorCode {
			asked.Add(1)
			w.Int32(int32(th.Count(jdwp.ThreadID(r.ObjectID()))))
			return jdwp.ErrNone
		}))
		return NewSuspensions(vm.Dial(t, nil), zerolog.Nop(), 10*time.Second), th, asked
	}
	release := func(s *Suspensions, th *jdwptest.Threads, id jdwp.ThreadID, behind int) {
		t.Helper()
		for range 1 + behind {
			th.Suspend(id)
		}
		s.EventArrived(id)
		if err := s.ReleaseEvent(ctx, id); err != nil {
			t.Fatal(err)
		}
	}

	s, th, asked := ledger()
	release(s, th, 1, 0)
	release(s, th, 1, 0)
	release(s, th, 2, 0)
	if n := asked.Load(); n != 1 || th.Count(1) != 0 || th.Count(2) != 0 {
		t.Errorf("three releases the ledger knew: %d counts asked (want the first only), counts %d, %d (want 0)", n, th.Count(1), th.Count(2))
	}
	if err := s.SuspendThread(ctx, 2); err != nil { // a pause of thread 2
		t.Fatal(err)
	}
	release(s, th, 2, 0)
	if n := asked.Load(); n != 2 || th.Count(2) != 1 {
		t.Errorf("a release in a paused thread: %d counts asked in all (want 2), count %d (want 1)", n, th.Count(2))
	}
	if err := s.ResumeThread(ctx, 2); err != nil || th.Count(2) != 0 {
		t.Errorf("resume of the pause: %v, count %d", err, th.Count(2))
	}

	s, th, asked = ledger()
	release(s, th, 1, 1) // a count the ledger did not know, at its first read
	release(s, th, 1, 0)
	if n := asked.Load(); n != 2 || th.Count(1) != 0 {
		t.Errorf("after a count that was not the ledger's: %d counts asked for 2 releases (want 2), count %d (want 0)", n, th.Count(1))
	}
}
