package debugger

import (
	"context"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	"github.com/ddmbridge/ddmbridge/jdwp/queue"
	"github.com/rs/zerolog"
)

// EventHandler is what a front end does with the VM's events.
type EventHandler interface {
	// HandleSet decides an event set, on its thread's lane: a stop, or the
	// release of its suspension (Events.Release). It may run methods in
	// the thread (a condition): other threads' sets are handled meanwhile.
	HandleSet(es *jdwp.EventSet)
	// DuringInvoke sees an event of a thread running a method for the
	// debugger, which never stops (the method would never return): classes
	// it prepares still get their breakpoints; a breakpoint or step is
	// skipped (say so). The set is released right after.
	DuringInvoke(ctx context.Context, e jdwp.Event)
}

// Events is a session's event pump: one goroutine reads the VM's event
// sets and never waits on the VM; each set goes to the lane of its thread
// (sets of one thread in order, threads in parallel; the VM's own events,
// without a thread, share one), after its suspension is booked with the
// ledger. The sets of a thread running a method for the debugger are
// released at once.
type Events struct {
	sub     *jdwp.Subscription
	conn    *jdwp.Conn
	vm      *mirror.VM
	sus     *Suspensions
	h       EventHandler
	lanes   *queue.Lanes[jdwp.ThreadID, *jdwp.EventSet]
	log     zerolog.Logger
	ctx     context.Context
	timeout time.Duration
	// running reports whether a thread runs a method for the debugger
	// (Target.RunningMethod); nil: none ever does.
	running func(jdwp.ThreadID) bool
}

// NewEvents returns the pump of sub's sets; spawn starts the lanes'
// goroutines (the owner waits for them); ctx and timeout bound the
// commands the pump sends itself.
func NewEvents(ctx context.Context, sub *jdwp.Subscription, vm *mirror.VM, sus *Suspensions, h EventHandler, spawn func(func()), log zerolog.Logger, timeout time.Duration) *Events {
	ev := &Events{sub: sub, conn: vm.Conn(), vm: vm, sus: sus, h: h, log: log, ctx: ctx, timeout: timeout}
	ev.lanes = queue.NewLanes(func(_ jdwp.ThreadID, es *jdwp.EventSet) {
		ev.safely(func() { h.HandleSet(es) })
	}, spawn)
	return ev
}

// Run pumps until the subscription ends.
func (ev *Events) Run() {
	for es := range ev.sub.C {
		t := Thread(es)
		if t != 0 && ev.running != nil && ev.running(t) {
			if es.SuspendPolicy == jdwp.SuspendEventThread {
				ev.sus.DuringArrived(t)
			}
			ev.safely(func() { ev.duringInvoke(es) })
			continue
		}
		if es.SuspendPolicy == jdwp.SuspendEventThread && t != 0 {
			ev.sus.EventArrived(t)
		}
		ev.lanes.Push(t, es)
	}
}

// Thread is the thread of an event set's events, or 0.
func Thread(es *jdwp.EventSet) jdwp.ThreadID {
	for _, e := range es.Events {
		if e.Thread != 0 {
			return e.Thread
		}
	}
	return 0
}

func (ev *Events) duringInvoke(es *jdwp.EventSet) {
	ctx, cancel := context.WithTimeout(ev.ctx, ev.timeout)
	defer cancel()
	for _, e := range es.Events {
		ev.h.DuringInvoke(ctx, e)
	}
	switch es.SuspendPolicy {
	case jdwp.SuspendAll:
		if err := ev.conn.Resume(ctx); err != nil {
			ev.log.Warn().Err(err).Msg("resume after an event during an evaluation")
		}
	case jdwp.SuspendEventThread:
		if err := ev.sus.ReleaseDuring(ctx, Thread(es)); err != nil {
			ev.log.Warn().Err(err).Msg("resume after an event during an evaluation")
		}
	}
}

// Release releases the suspension of an event set that does not stop, as
// its policy asks: the VM for SUSPEND_ALL, the thread (through the ledger)
// for the event thread's.
func (ev *Events) Release(ctx context.Context, es *jdwp.EventSet) {
	switch es.SuspendPolicy {
	case jdwp.SuspendAll:
		if err := ev.conn.Resume(ctx); err != nil {
			ev.log.Warn().Err(err).Msg("resume after an event")
		}
	case jdwp.SuspendEventThread:
		if t := Thread(es); t != 0 {
			if err := ev.sus.ReleaseEvent(ctx, t); err != nil {
				ev.log.Warn().Err(err).Msg("resume a thread after an event")
			}
		}
	}
}

// safely runs f, turning a panic into a log line.
func (ev *Events) safely(f func()) {
	defer func() {
		if p := recover(); p != nil {
			ev.log.Error().Interface("panic", p).Msg("event handler panicked")
		}
	}()
	f()
}
