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

// hold turns the suspension of a stopping event into the session's (report
// runs once it is on its way, or is left to the caller): with
// policy ALL it is a VM-wide one already; with the event thread's policy
// it stays the thread's alone, unless stops suspend the whole VM: then the
// rest of the VM is suspended too (one VM-wide hold shared by every
// stopped thread, so each can still run methods; threads running a method
// for the debugger keep running), and the thread's own suspension is
// folded into it.
func (t *Target) hold(ctx context.Context, st *Stop, policy jdwp.SuspendPolicy, report func()) error {
	switch {
	case policy == jdwp.SuspendAll:
		t.Sus.AdoptVM()
		t.prefetch(st.Thread, st.at, true)
		return nil
	case !t.Opts.SuspendAll:
		t.Sus.HoldEventAsThread(st.Thread)
		t.prefetch(st.Thread, st.at, false)
		return nil
	}
	return t.Sus.HoldEventAsVM(ctx, st.Thread, func() {
		t.prefetch(st.Thread, st.at, true)
		report()
	})
}

// pendingStop is a stop decided while another was shown, held until the
// user lets that one go.
type pendingStop struct {
	st     *Stop
	policy jdwp.SuspendPolicy
}

// stop records a stop (the event's suspension is now held) and tells the
// front end. When stops hold the whole VM and one is shown already, the
// new one is not reported: the user's next continue would let its thread
// go before it was seen (a stopped thread without frames, a hit lost). Its
// thread stays held by its event, and it is shown in turn, when the user
// lets the shown stop go (ResumeAll). So is a conditional breakpoint's hit
// whose condition was decided while another stop was shown: its thread ran
// the condition's methods meanwhile, and the VM-wide resume that lets the
// shown stop go keeps its count (Suspensions.ResumeAll).
func (t *Target) stop(ctx context.Context, st *Stop, policy jdwp.SuspendPolicy) {
	t.StopMu.Lock()
	defer t.StopMu.Unlock()
	if (policy == jdwp.SuspendAll || t.Opts.SuspendAll) && t.Stops.Stopped() {
		t.pending = append(t.pending, pendingStop{st, policy})
		return
	}
	t.show(ctx, st, policy)
}

// show holds a stop's suspension and reports it; StopMu is held.
func (t *Target) show(ctx context.Context, st *Stop, policy jdwp.SuspendPolicy) {
	st.AllThreads = policy == jdwp.SuspendAll || t.Opts.SuspendAll
	t.Met(st.Thread)
	t.Stops.Stop(st.Thread, st.Reason)
	t.stacks.mu.Lock()
	t.stacks.get(st.Thread).at = st.at
	t.stacks.mu.Unlock()
	if st.at.Class != 0 && t.suspending() != nil {
		// The class's language decides whether a step from here reads its
		// top frame before the resume (suspendsAt): known by then.
		t.spawn(func() {
			ctx, cancel := context.WithTimeout(t.ctx, t.Opts.RequestTimeout)
			defer cancel()
			t.VM.SourceFile(ctx, st.at.Class)
		})
	}
	t.ClearSteps(ctx, st.Thread)
	// The stop is reported once its hold is on its way (the front end's
	// next requests reach the VM after it: they read the held VM), not
	// once it is answered: a round trip sooner on a slow link.
	reported := false
	report := func() {
		if !reported {
			reported = true
			t.fe.Stopped(*st)
		}
	}
	if err := t.hold(ctx, st, policy, report); err != nil {
		t.log.Warn().Err(err).Msg("stop")
	}
	report()
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

// ResumeAll releases every suspension the session holds; a stop held
// back meanwhile (see stop) is shown next. A front end calls it, and
// ResumeThread, holding StopMu, as it answers the user's resume: a stop
// decided between the record of the resume and the VM's resume would be
// shown and then let go unseen.
func (t *Target) ResumeAll(ctx context.Context) error {
	t.Stops.ResumedAll()
	err := t.Sus.ResumeAll(ctx)
	t.spawn(t.showPending) // after the caller's answer: it may hold StopMu
	return err
}

// showPending shows the oldest stop held back, unless another stop is
// shown by now. A held-back hit of a breakpoint removed meanwhile is let go
// instead: the user removed it to run on.
func (t *Target) showPending() {
	ctx, cancel := context.WithTimeout(t.ctx, t.Opts.RequestTimeout)
	defer cancel()
	t.StopMu.Lock()
	defer t.StopMu.Unlock()
	for len(t.pending) > 0 && !t.Stops.Stopped() {
		p := t.pending[0]
		t.pending = t.pending[1:]
		if !t.anyBreakpoint(p.st.Breakpoints) {
			t.releasePending(ctx, p)
			continue
		}
		t.show(ctx, p.st, p.policy)
	}
}

// releasePending lets a held-back stop's thread go, as its policy asks.
func (t *Target) releasePending(ctx context.Context, p pendingStop) {
	var err error
	if p.policy == jdwp.SuspendAll {
		err = t.Conn.Resume(ctx)
	} else {
		err = t.Sus.ReleaseEvent(ctx, p.st.Thread)
	}
	if err != nil && t.Conn.Err() == nil {
		t.log.Warn().Err(err).Msg("let a held-back hit of a removed breakpoint go")
	}
}

// anyBreakpoint reports whether a stop without breakpoints (a step, an
// exception) or one of ids is still set.
func (t *Target) anyBreakpoint(ids []int) bool {
	if len(ids) == 0 {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range []map[int32]*breakpoint{t.bps.bpByReq, t.bps.dataByReq} {
		for _, bp := range m {
			for _, id := range ids {
				if bp.id == id {
					return true
				}
			}
		}
	}
	return false
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
