package debugger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// Presentation runs the methods value presentation needs (toString, a
// collection's size, …) by the layer's rules, and holds what they leave
// for the current stop: the objects it keeps from the collector, the
// threads whose late return should refresh the shown values, and the calls
// that gave no value (each is not run again until the VM resumes: a slow
// toString costs its budget once).
type Presentation struct {
	t *Target
	// Budget bounds one method (3 s when 0).
	Budget time.Duration
	// invokeMu runs presentation's methods one at a time, so each value's
	// budget counts its own method only (values are presented in parallel).
	// An evaluation holds it too (Exclusive), so it reads the thread's
	// frames between methods, never while one runs.
	invokeMu chan struct{}
	mu       sync.Mutex
	kept     []jdwp.ObjectID
	waiting  map[jdwp.ThreadID]bool
	failed   map[presentCall]string
	soon     soonState // values in the works (soon.go)
}

type presentCall struct {
	obj  jdwp.ObjectID
	name string
}

// Presentation is the target's.
func (t *Target) Presentation() *Presentation { return &t.present }

// Release lets the collector have what presentation kept and forgets the
// stop's failed calls; called on resume.
func (p *Presentation) Release(ctx context.Context) {
	p.mu.Lock()
	kept := p.kept
	p.kept, p.waiting, p.failed = nil, nil, nil
	p.soon = soonState{gen: p.soon.gen + 1}
	p.mu.Unlock()
	mirror.Parallel(len(kept), func(i int) error {
		p.t.Conn.EnableCollection(ctx, kept[i]) //nolint:errcheck // the object may be gone; nothing to do
		return nil
	})
}

// noInvokeKey marks a context in which presentation runs no methods
// (hovers); the value is why.
type noInvokeKey struct{}

// WithNoInvoke marks ctx: presentation runs no method under it, for why.
func WithNoInvoke(ctx context.Context, why string) context.Context {
	return context.WithValue(ctx, noInvokeKey{}, why)
}

// ErrNoInvoke is why presentation ran no method.
var ErrNoInvoke = errors.New("methods do not run here")

func (p *Presentation) budget() time.Duration {
	if p.Budget > 0 {
		return p.Budget
	}
	return 3 * time.Second
}

// Invoke runs a method for presentation in a stopped thread, alone and
// bounded in time (a budget per value): not under WithNoInvoke, not while
// another thread holds obj's monitor (it would wait for that suspended
// thread forever). It runs in the stop's thread, or, while that one still
// runs a method that did not return in time (a native wait the debugger
// cannot stop), in another thread stopped at an event; with none, the
// value is shown without its text, and the front end is told to refresh
// when the thread is free (Frontend.Invalidated). A method that does not
// return within the budget is stopped if it can be (Suspensions.Abort),
// else left to finish: it costs its value the text, never the other values
// or the next request.
func (p *Presentation) Invoke(ctx context.Context, obj jdwp.ObjectID, name, desc string) (jdwp.Value, error) {
	t := p.t
	if why, _ := ctx.Value(noInvokeKey{}).(string); why != "" {
		return jdwp.Value{}, fmt.Errorf("%w: %s", ErrNoInvoke, why)
	}
	thread, reason, stopped := t.Stops.Latest()
	if !stopped || thread == 0 || reason == "pause" || reason == "paused" {
		return jdwp.Value{}, fmt.Errorf("%w: no thread is stopped at an event", ErrNoInvoke)
	}
	call := presentCall{obj, name}
	p.mu.Lock()
	why, failed := p.failed[call]
	p.mu.Unlock()
	if failed {
		return jdwp.Value{}, &mirror.PresentError{Text: why}
	}
	if ctx.Value(exclusiveKey{}) == nil {
		_, release, err := p.Exclusive(ctx)
		if err != nil {
			return jdwp.Value{}, err
		}
		defer release()
	}
	if t.StillRunning(thread) {
		alt := p.freeEventThread(thread)
		if alt == 0 {
			p.invalidateWhenFree(thread)
			return jdwp.Value{}, &mirror.PresentError{Text: name + "() not run: the thread still runs a method that did not return; shown when it returns"}
		}
		thread = alt
	}
	if t.Caps.CanGetMonitorInfo {
		mi, err := t.VM.MonitorInfo(ctx, obj)
		if err != nil {
			return jdwp.Value{}, err
		}
		if mi.Owner != 0 && mi.Owner != thread {
			return jdwp.Value{}, fmt.Errorf("%w: another thread holds the object's monitor", ErrNoInvoke)
		}
	}
	m, err := t.VM.InstanceMethod(ctx, obj, name, desc)
	if err != nil {
		return jdwp.Value{}, err
	}
	budget := p.budget()
	ictx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	res, err := t.Invoke(ictx, thread, obj, m, nil)
	if err != nil {
		if ictx.Err() != nil && ctx.Err() == nil {
			t.log.Debug().Str("method", name).Dur("budget", budget).Msg("a method run to present a value did not return in time")
			if errors.Is(err, mirror.ErrLeftRunning) {
				p.invalidateWhenFree(thread)
			}
			return jdwp.Value{}, p.failedCall(call, fmt.Sprintf("%s() did not return in %v", name, budget))
		}
		return jdwp.Value{}, err
	}
	if res.Exception.ID != 0 {
		_, sig, _ := t.VM.ObjectType(ctx, res.Exception.ID)
		return jdwp.Value{}, p.failedCall(call, name+"() threw "+javalang.SimpleTypeName(sig))
	}
	if res.Value.Tag.IsObject() && res.Value.Bits != 0 {
		if err := t.Conn.DisableCollection(ctx, res.Value.Object()); err == nil {
			p.mu.Lock()
			p.kept = append(p.kept, res.Value.Object())
			p.mu.Unlock()
		}
	}
	return res.Value, nil
}

// exclusiveKey marks a context that holds Exclusive.
type exclusiveKey struct{}

// Exclusive waits until no method for presentation runs (as long as ctx
// lets) and keeps others from starting until release is called, except
// those run under the context it returns.
func (p *Presentation) Exclusive(ctx context.Context) (_ context.Context, release func(), err error) {
	p.mu.Lock()
	if p.invokeMu == nil {
		p.invokeMu = make(chan struct{}, 1)
	}
	sem := p.invokeMu
	p.mu.Unlock()
	select {
	case sem <- struct{}{}:
		return context.WithValue(ctx, exclusiveKey{}, true), func() { <-sem }, nil
	case <-ctx.Done():
		return ctx, nil, fmt.Errorf("the thread still runs a method to present a value: %w", ctx.Err())
	}
}

// failedCall remembers why call gave no value in this stop.
func (p *Presentation) failedCall(call presentCall, why string) error {
	p.mu.Lock()
	if p.failed == nil {
		p.failed = map[presentCall]string{}
	}
	p.failed[call] = why
	p.mu.Unlock()
	return &mirror.PresentError{Text: why}
}

// freeEventThread is a thread other than busy stopped at an event (it can
// run methods) and not running one left over, or 0.
func (p *Presentation) freeEventThread(busy jdwp.ThreadID) jdwp.ThreadID {
	for _, th := range p.t.Stops.AtEvents(busy) {
		if !p.t.StillRunning(th) {
			return th
		}
	}
	return 0
}

// invalidateWhenFree has the front end refresh the shown values when the
// method thread still runs for the debugger returns, if the session is
// still stopped then (the values shown without their text get it).
func (p *Presentation) invalidateWhenFree(thread jdwp.ThreadID) {
	p.mu.Lock()
	if p.waiting[thread] {
		p.mu.Unlock()
		return
	}
	if p.waiting == nil {
		p.waiting = map[jdwp.ThreadID]bool{}
	}
	p.waiting[thread] = true
	p.mu.Unlock()
	p.t.AfterInvoke(thread, func() {
		p.mu.Lock()
		still := p.waiting[thread]
		delete(p.waiting, thread)
		if still {
			p.soon = soonState{gen: p.soon.gen + 1} // values said "not run" are worked out again
		}
		p.mu.Unlock()
		if still && p.t.Stops.Stopped() {
			p.t.fe.Invalidated()
		}
	})
}
