package dap

import (
	"context"
	"fmt"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	godap "github.com/google/go-dap"
)

// Suspension and event dispatch.
//
// Every request whose event may stop (breakpoints, steps, exceptions, field
// watches, method entries) suspends only the thread of the event
// (stopPolicy). Package debugger's pump hands each thread's event sets, in
// order, to a goroutine of their own (HandleSet), so a condition or logpoint
// that runs a method in one thread never waits for another thread's event.
// Its ledger owns every suspension: a set's own until it is decided, a
// stop's (one VM-wide hold shared by all the threads stopped, or the
// thread's own with suspendAllThreads off), and it brings a thread's count
// to exactly 1 for each method run there, so an invocation never waits on
// another stop and a stop never waits on an invocation.
//
// An evaluation that does not return within its deadline is ended when it
// can be (its method made to return at once); one in native code (a sleep,
// a wait) goes on running, the request or condition fails saying so, and
// the ledger settles the thread's suspension when the method returns (see
// mirror.VM.Invoking and handOff).

// stopPolicy is the suspend policy of every request whose events may stop.
const stopPolicy = jdwp.SuspendEventThread

// evalTimeout bounds a condition's or logpoint's evaluation.
func (d *debuggee) evalTimeout() time.Duration {
	if t := d.s.cfg.EvalTimeout; t > 0 {
		return t
	}
	return 10 * time.Second
}

// suspendAll reports whether a stop suspends the whole VM (the launch or
// attach option suspendAllThreads, true unless set false).
func (d *debuggee) suspendAll() bool {
	return d.opts.SuspendAllThreads == nil || *d.opts.SuspendAllThreads
}

// holdStop turns the suspension of a stopping event into the session's
// (package debugger keeps the ledger): with policy ALL it is a VM-wide one
// already; with the event thread's policy it stays the thread's alone,
// unless stops suspend the whole VM: then the rest of the VM is suspended
// too (one VM-wide hold shared by every stopped thread, so each can still
// run methods; threads running a method for the debugger keep running),
// and the thread's own suspension is folded into it.
func (d *debuggee) holdStop(ctx context.Context, st *stopInfo, policy jdwp.SuspendPolicy) error {
	switch {
	case policy == jdwp.SuspendAll:
		d.sus.AdoptVM()
		return nil
	case !d.suspendAll():
		d.sus.HoldEventAsThread(st.thread)
		return nil
	}
	return d.sus.HoldEventAsVM(ctx, st.thread)
}

// stop records a stop (the event's suspension is now held) and tells the client.
func (d *debuggee) stop(ctx context.Context, st *stopInfo, policy jdwp.SuspendPolicy) {
	d.stopMu.Lock() // see the resumes route in server.go
	defer d.stopMu.Unlock()
	if err := d.holdStop(ctx, st, policy); err != nil {
		d.log.Warn().Err(err).Msg("stop")
	}
	all := policy == jdwp.SuspendAll || d.suspendAll()
	d.stops.Stop(st.thread, st.reason)
	d.clearSteps(ctx, st.thread)
	d.s.send(&godap.StoppedEvent{Event: newEvent("stopped"), Body: godap.StoppedEventBody{
		Reason: st.reason, ThreadId: d.refs.threads.id(st.thread), AllThreadsStopped: all,
		HitBreakpointIds: st.bps, Description: st.description, Text: st.text,
	}})
}

// heldAlone reports whether the session holds thread suspended by itself
// (the VM as a whole is not).
func (d *debuggee) heldAlone(thread jdwp.ThreadID) bool { return d.sus.HoldsAlone(thread) }

// resumeThread releases the session's suspensions of one thread; the
// session stays stopped while it holds others.
func (d *debuggee) resumeThread(ctx context.Context, thread jdwp.ThreadID) error {
	err := d.sus.ResumeThread(ctx, thread)
	d.stops.ResumedThread(thread, d.sus.Holding())
	d.refs.frames.reset()
	d.refs.vars.reset()
	d.refs.targets.reset()
	return err
}

// pauseThread suspends one thread and reports it paused.
func (d *debuggee) pauseThread(ctx context.Context, thread jdwp.ThreadID) error {
	if err := d.sus.SuspendThread(ctx, thread); err != nil {
		return err
	}
	d.stops.Stop(thread, "paused")
	return nil
}

// removeID returns ids without id.
func removeID(ids []int32, id int32) []int32 {
	out := ids[:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// handOff gives the suspension of thread's event to the method an
// evaluation left running there: the ledger releases it when the method
// returns (debugger.Suspensions.Exit), unless a stop holds it by then.
func (d *debuggee) handOff(ctx context.Context, thread jdwp.ThreadID) *stopInfo {
	if err := d.sus.ReleaseEvent(ctx, thread); err != nil && d.conn.Err() == nil {
		d.log.Warn().Err(err).Msg("release a thread's event after an evaluation left a method running")
	}
	return &stopInfo{thread: thread, handedOff: true}
}

// explain adds to a VM's THREAD_NOT_SUSPENDED error what the session knows
// of why: a method an evaluation left running.
func (s *session) explain(err error) error {
	d := s.dbg
	if d == nil || jdwp.Code(err) != jdwp.ErrThreadNotSuspended {
		return err
	}
	var busy []int
	for _, t := range d.vm.LeftRunning() {
		busy = append(busy, d.refs.threads.id(t))
	}
	if len(busy) == 0 {
		return fmt.Errorf("%w (the thread is running: resumed, or never stopped)", err)
	}
	return fmt.Errorf("%w: thread %v is still running a method of an evaluation that was cancelled or timed out; it is suspended again when the method returns", err, busy)
}

// obsoleteFrame describes a frame running a method a redefine replaced
// (JDWP gives it method id 0): it has no name, lines or variables any more;
// restartFrame re-enters the new version.
func (d *debuggee) obsoleteFrame(ctx context.Context, class jdwp.ReferenceTypeID, sig string) (godap.StackFrame, error) {
	name, _ := frameClassName(sig)
	sf := godap.StackFrame{Name: name + ".<obsolete method: restart the frame to run the new code>", Column: 1, PresentationHint: "subtle"}
	src, err := d.source(ctx, class, sig)
	if err != nil {
		return godap.StackFrame{}, err
	}
	sf.Source = src
	return sf, nil
}
