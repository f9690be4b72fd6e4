package debugger

import (
	"context"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Stops and resumes.
//
// Every request whose event may stop (breakpoints, steps, exceptions,
// field watches, method entries) suspends only the thread of the event
// (stopPolicy). The pump hands each thread's event sets, in order, to a
// lane of their own (HandleSet), so a condition or logpoint that runs a
// method in one thread never waits for another thread's event. The ledger
// owns every suspension: a set's own until it is decided, a stop's (one
// VM-wide hold shared by all the threads stopped, or the thread's own with
// Options.SuspendAll off).

// hold turns the suspension of a stopping event into the session's: with
// policy ALL it is a VM-wide one already; with the event thread's policy
// it stays the thread's alone, unless stops suspend the whole VM: then the
// rest of the VM is suspended too (one VM-wide hold shared by every
// stopped thread, so each can still run methods; threads running a method
// for the debugger keep running), and the thread's own suspension is
// folded into it.
func (t *Target) hold(ctx context.Context, st *Stop, policy jdwp.SuspendPolicy) error {
	switch {
	case policy == jdwp.SuspendAll:
		t.Sus.AdoptVM()
		return nil
	case !t.Opts.SuspendAll:
		t.Sus.HoldEventAsThread(st.Thread)
		return nil
	}
	return t.Sus.HoldEventAsVM(ctx, st.Thread)
}

// stop records a stop (the event's suspension is now held) and tells the
// front end.
func (t *Target) stop(ctx context.Context, st *Stop, policy jdwp.SuspendPolicy) {
	t.StopMu.Lock()
	defer t.StopMu.Unlock()
	if err := t.hold(ctx, st, policy); err != nil {
		t.log.Warn().Err(err).Msg("stop")
	}
	st.AllThreads = policy == jdwp.SuspendAll || t.Opts.SuspendAll
	t.Met(st.Thread)
	t.Stops.Stop(st.Thread, st.Reason)
	t.ClearSteps(ctx, st.Thread)
	t.fe.Stopped(*st)
}

// handOff gives the suspension of thread's event to the method an
// evaluation left running there: the ledger releases it when the method
// returns (Suspensions.Exit), unless a stop holds it by then.
func (t *Target) handOff(ctx context.Context, thread jdwp.ThreadID) *Stop {
	if err := t.Sus.ReleaseEvent(ctx, thread); err != nil && t.Conn.Err() == nil {
		t.log.Warn().Err(err).Msg("release a thread's event after an evaluation left a method running")
	}
	return &Stop{Thread: thread, handedOff: true}
}

// HeldAlone reports whether the session holds thread suspended by itself
// (the VM as a whole is not).
func (t *Target) HeldAlone(thread jdwp.ThreadID) bool { return t.Sus.HoldsAlone(thread) }

// ResumeAll releases every suspension the session holds.
func (t *Target) ResumeAll(ctx context.Context) error {
	t.Stops.ResumedAll()
	return t.Sus.ResumeAll(ctx)
}

// ResumeThread releases the session's suspensions of one thread; the
// session stays stopped while it holds others.
func (t *Target) ResumeThread(ctx context.Context, thread jdwp.ThreadID) error {
	err := t.Sus.ResumeThread(ctx, thread)
	t.Stops.ResumedThread(thread, t.Sus.Holding())
	return err
}

// Pause suspends the whole VM, or thread alone when stops hold their
// thread alone, and records thread as paused. It reports false when
// nothing was done: the session is stopped already, or holds the thread.
func (t *Target) Pause(ctx context.Context, thread jdwp.ThreadID) (bool, error) {
	if !t.Opts.SuspendAll {
		if t.HeldAlone(thread) {
			return true, nil
		}
		if err := t.Sus.SuspendThread(ctx, thread); err != nil {
			return false, err
		}
		t.Met(thread)
		t.Stops.Stop(thread, "paused")
		return true, nil
	}
	if t.Stops.Stopped() {
		return false, nil
	}
	if _, err := t.Sus.SuspendVM(ctx); err != nil {
		return false, err
	}
	t.Met(thread)
	t.Stops.Stop(thread, "paused")
	return true, nil
}
