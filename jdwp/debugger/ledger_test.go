package debugger

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jdwptest"
	"github.com/rs/zerolog"
)

// The suspension ledger's invariants, against a VM that keeps suspend
// counts as HotSpot's agent does (jdwptest.Threads):
//
//  1. a thread not running a method for the debugger has the count the
//     ledger owes it: the VM-wide holds, its own holds, its event sets
//     still deciding;
//  2. a thread running a method for the debugger runs (count 0);
//  3. an invocation starts with its thread's count exactly 1;
//  4. a method returning late resumes and suspends nothing the session
//     does not hold: after the user let everything go, every count is 0.

// ledgerVM is a ledger over a stand-in VM of n threads (ids 1..n).
func ledgerVM(t *testing.T, n int) (*Suspensions, *jdwptest.Threads) {
	t.Helper()
	vm := jdwptest.Start(t, jdwptest.Config{})
	ids := make([]jdwp.ThreadID, n)
	for i := range ids {
		ids[i] = jdwp.ThreadID(i + 1)
	}
	th := jdwptest.NewThreads(3, ids...)
	th.Install(vm)
	conn := vm.Dial(t, nil)
	return NewSuspensions(conn, zerolog.Nop(), 10*time.Second), th
}

// checkOwed checks invariants 1 and 2 for every thread.
func checkOwed(t *testing.T, s *Suspensions, th *jdwptest.Threads, after string) {
	t.Helper()
	for _, id := range th.IDs() {
		s.mu.Lock()
		want, invoking := s.owedLocked(id), s.invoking[id] != nil
		s.mu.Unlock()
		if invoking {
			want = s.during[id]
		}
		if got := th.Count(id); got != want {
			t.Fatalf("after %s: thread %d has suspend count %d, the ledger owes %d (invoking %v; ledger: %s)", after, id, got, want, invoking, s)
		}
	}
}

// invoke starts an invocation in thread as the mirror does (Enter, the
// command sent, the agent's implicit resume), checking invariant 3.
func invoke(t *testing.T, ctx context.Context, s *Suspensions, th *jdwptest.Threads, thread jdwp.ThreadID) {
	t.Helper()
	sent, err := s.Enter(ctx, thread)
	if err != nil {
		t.Fatalf("Enter thread %d: %v", thread, err)
	}
	err = th.StartInvoke(thread)
	sent()
	if err != nil {
		t.Fatalf("the invocation could not start: %v", err)
	}
}

// TestLedgerLateReturnAfterContinue: a method still running when the user
// continues returns later: the thread runs on (count 0), nothing is held.
func TestLedgerLateReturnAfterContinue(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, all := range []bool{true, false} {
		s, th := ledgerVM(t, 4)
		// Thread 1 stops at an event; the stop holds the VM (or it alone).
		th.Suspend(1)
		s.EventArrived(1)
		if all {
			if err := s.HoldEventAsVM(ctx, 1, nil); err != nil {
				t.Fatal(err)
			}
		} else {
			s.HoldEventAsThread(1)
		}
		checkOwed(t, s, th, "the stop")
		invoke(t, ctx, s, th, 1)
		checkOwed(t, s, th, "the invocation's start")
		if err := s.ResumeAll(ctx); err != nil { // the user continues; the method runs on
			t.Fatal(err)
		}
		checkOwed(t, s, th, "the continue")
		th.Return(1)
		s.Exit(1)
		checkOwed(t, s, th, "the late return")
		for _, id := range th.IDs() {
			if n := th.Count(id); n != 0 {
				t.Errorf("all=%v: thread %d left with suspend count %d after the late return", all, id, n)
			}
		}
		if got := s.String(); got != "nothing held" {
			t.Errorf("all=%v: ledger after the late return: %s", all, got)
		}
	}
}

// TestLedgerLateReturnIntoAnotherStop: the method returns while a later
// stop of another thread holds the VM: the thread is held as that stop
// holds every thread, and the next continue lets it go.
func TestLedgerLateReturnIntoAnotherStop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, th := ledgerVM(t, 4)
	th.Suspend(1)
	s.EventArrived(1)
	if err := s.HoldEventAsVM(ctx, 1, nil); err != nil {
		t.Fatal(err)
	}
	invoke(t, ctx, s, th, 1)
	if err := s.ResumeAll(ctx); err != nil {
		t.Fatal(err)
	}
	th.Suspend(2) // thread 2 stops: the VM is held again, thread 1 runs its method on
	s.EventArrived(2)
	if err := s.HoldEventAsVM(ctx, 2, nil); err != nil {
		t.Fatal(err)
	}
	checkOwed(t, s, th, "the second stop")
	th.Return(1)
	s.Exit(1)
	checkOwed(t, s, th, "the return into the second stop")
	if n := th.Count(1); n != 1 {
		t.Errorf("thread 1 has count %d in the second stop, want 1 (held with the VM)", n)
	}
	if err := s.ResumeAll(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range th.IDs() {
		if n := th.Count(id); n != 0 {
			t.Errorf("thread %d left with suspend count %d", id, n)
		}
	}
}

// TestLedgerInvariants drives the ledger through random sequences of what
// a session does — events decided every way, pauses, continues of all or
// one thread, invocations started and returning at any time — and checks
// the invariants after every step; at the end, with everything let go and
// every method returned, no thread is suspended.
func TestLedgerInvariants(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for seed := int64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewSource(seed))
		s, th := ledgerVM(t, 4)
		ids := th.IDs()
		stopped := map[jdwp.ThreadID]bool{} // stopped at an event: may invoke
		invoking := map[jdwp.ThreadID]bool{}
		inside := map[jdwp.ThreadID]bool{} // an event raised inside its method is not released yet
		for step := 0; step < 200; step++ {
			id := ids[rng.Intn(len(ids))]
			var what string
			switch op := rng.Intn(9); {
			case op == 0 && th.Count(id) == 0 && !invoking[id]:
				what = "an event decided"
				th.Suspend(id)
				s.EventArrived(id)
				switch rng.Intn(3) {
				case 0:
					if err := s.ReleaseEvent(ctx, id); err != nil {
						t.Fatal(err)
					}
				case 1:
					s.HoldEventAsThread(id)
					stopped[id] = true
				case 2:
					if err := s.HoldEventAsVM(ctx, id, nil); err != nil {
						t.Fatal(err)
					}
					stopped[id] = true
				}
			case op == 1:
				what = "a pause"
				if _, err := s.SuspendVM(ctx); err != nil {
					t.Fatal(err)
				}
			case op == 2:
				what = "a continue of all threads"
				if err := s.ResumeAll(ctx); err != nil {
					t.Fatal(err)
				}
				stopped = map[jdwp.ThreadID]bool{}
			case op == 3:
				what = "a continue of one thread"
				if err := s.ResumeThread(ctx, id); err != nil {
					t.Fatal(err)
				}
				if !s.VMHeld() {
					delete(stopped, id)
				}
			case op == 4 && stopped[id] && !invoking[id]:
				what = "an invocation's start"
				invoke(t, ctx, s, th, id)
				invoking[id] = true
			case op == 5 && invoking[id] && !inside[id]:
				what = "an event inside a method" // a class it loads, say
				th.Suspend(id)
				s.DuringArrived(id)
				inside[id] = true
			case op == 6 && inside[id]:
				what = "the release of an event inside a method"
				if err := s.ReleaseDuring(ctx, id); err != nil {
					t.Fatal(err)
				}
				delete(inside, id)
			case op == 7 && invoking[id] && !inside[id]: // held by its event, it cannot return
				what = "a method's return"
				th.Return(id)
				s.Exit(id)
				delete(invoking, id)
			default:
				continue
			}
			checkOwed(t, s, th, what)
		}
		for id := range inside {
			if err := s.ReleaseDuring(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		for id := range invoking {
			th.Return(id)
			s.Exit(id)
		}
		if err := s.ResumeAll(ctx); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if n := th.Count(id); n != 0 {
				t.Fatalf("seed %d: thread %d left with suspend count %d at the end (ledger: %s)", seed, id, n, s)
			}
		}
	}
}
