package dap

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	godap "github.com/google/go-dap"
)

// Presentation: dap's side of package mirror. presentVM is mirror.VM over
// the session's connection and caches; whether it may run methods (and in
// which thread) comes from the request's context.

// presentState is what value presentation holds for the current stop: the
// objects it keeps from the collector, and the threads it asked to report
// when a method that did not return in time comes back (an invalidated
// event then has the client ask again).
type presentState struct {
	present *mirror.Presenter // made once, on first use
	once    sync.Once
	// invokeMu runs presentation's methods one at a time, so each value's
	// budget counts its own method only (values are presented in parallel).
	invokeMu sync.Mutex
	mu       sync.Mutex
	kept     []jdwp.ObjectID
	waiting  map[jdwp.ThreadID]bool
	// failed holds, per object and method, why a method run for
	// presentation did not give a value in this stop: it is not run again
	// until the VM resumes (a slow toString costs its budget once).
	failed map[presentCall]string
}

type presentCall struct {
	obj  jdwp.ObjectID
	name string
}

// release lets the collector have what presentation kept; called on resume.
func (p *presentState) release(ctx context.Context, conn *jdwp.Conn) {
	p.mu.Lock()
	kept := p.kept
	p.kept, p.waiting, p.failed = nil, nil, nil
	p.mu.Unlock()
	parallel(len(kept), func(i int) error {
		conn.EnableCollection(ctx, kept[i]) //nolint:errcheck // the object may be gone; nothing to do
		return nil
	})
}

// noInvokeKey marks a request context in which presentation runs no methods
// (hovers); the value is why.
type noInvokeKey struct{}

func withNoInvoke(ctx context.Context, why string) context.Context {
	return context.WithValue(ctx, noInvokeKey{}, why)
}

// showToString is the showToString option (default on).
func (d *debuggee) showToString() bool {
	return d.opts.ShowToString == nil || *d.opts.ShowToString
}

// invokeTimeout bounds one method presentation runs.
func (d *debuggee) invokeTimeout() time.Duration {
	if d.opts.InvokeTimeout > 0 {
		return time.Duration(d.opts.InvokeTimeout) * time.Millisecond
	}
	return 3 * time.Second
}

func (d *debuggee) presenter() *mirror.Presenter {
	d.presentSt.once.Do(func() { d.presentSt.present = mirror.NewPresenter(presentVM{VM: d.vm, d: d}) })
	return d.presentSt.present
}

// presentVM is the mirror with the session's policy on running methods.
type presentVM struct {
	*mirror.VM
	d *debuggee
}

// errNoInvoke is why presentation ran no method.
var errNoInvoke = errors.New("methods do not run here")

// Invoke runs a method for presentation in a stopped thread, alone and
// bounded in time (a budget per value): not in a hover, not while another
// thread holds obj's monitor (it would wait for that suspended thread
// forever). It runs in the stop's thread, or, while that one still runs a
// method that did not return in time (a native wait the debugger cannot
// stop), in another thread stopped at an event; with none, the value is
// shown without its text, and the client is told to ask again when the
// thread is free. A method that does not return within the budget is
// stopped if it can be (package debugger: Abort), else left to finish: it
// costs its value the text, never the other values or the next request.
func (p presentVM) Invoke(ctx context.Context, obj jdwp.ObjectID, name, desc string) (jdwp.Value, error) {
	d := p.d
	if why, _ := ctx.Value(noInvokeKey{}).(string); why != "" {
		return jdwp.Value{}, fmt.Errorf("%w: %s", errNoInvoke, why)
	}
	thread, reason, stopped := d.stops.Latest()
	if !stopped || thread == 0 || reason == "pause" || reason == "paused" {
		return jdwp.Value{}, fmt.Errorf("%w: no thread is stopped at an event", errNoInvoke)
	}
	call := presentCall{obj, name}
	d.presentSt.mu.Lock()
	why, failed := d.presentSt.failed[call]
	d.presentSt.mu.Unlock()
	if failed {
		return jdwp.Value{}, &mirror.PresentError{Text: why}
	}
	d.presentSt.invokeMu.Lock()
	defer d.presentSt.invokeMu.Unlock()
	if d.vm.StillRunning(thread) {
		alt := d.freeEventThread(thread)
		if alt == 0 {
			d.invalidateWhenFree(thread)
			return jdwp.Value{}, &mirror.PresentError{Text: name + "() not run: the thread still runs a method that did not return; shown when it returns"}
		}
		thread = alt
	}
	if d.caps.CanGetMonitorInfo {
		mi, err := d.vm.MonitorInfo(ctx, obj)
		if err != nil {
			return jdwp.Value{}, err
		}
		if mi.Owner != 0 && mi.Owner != thread {
			return jdwp.Value{}, fmt.Errorf("%w: another thread holds the object's monitor", errNoInvoke)
		}
	}
	m, err := d.vm.InstanceMethod(ctx, obj, name, desc)
	if err != nil {
		return jdwp.Value{}, err
	}
	budget := d.invokeTimeout()
	ictx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	res, err := d.vm.Invoke(ictx, thread, obj, m, nil)
	if err != nil {
		if ictx.Err() != nil && ctx.Err() == nil {
			d.log.Debug().Str("method", name).Dur("budget", budget).Msg("a method run to present a value did not return in time")
			if errors.Is(err, mirror.ErrLeftRunning) {
				d.invalidateWhenFree(thread)
			}
			return jdwp.Value{}, d.presentFailed(call, fmt.Sprintf("%s() did not return in %v", name, budget))
		}
		return jdwp.Value{}, err
	}
	if res.Exception.ID != 0 {
		_, sig, _ := d.vm.ObjectType(ctx, res.Exception.ID)
		return jdwp.Value{}, d.presentFailed(call, name+"() threw "+javalang.SimpleTypeName(sig))
	}
	if res.Value.Tag.IsObject() && res.Value.Bits != 0 {
		if err := d.conn.DisableCollection(ctx, res.Value.Object()); err == nil {
			d.presentSt.mu.Lock()
			d.presentSt.kept = append(d.presentSt.kept, res.Value.Object())
			d.presentSt.mu.Unlock()
		}
	}
	return res.Value, nil
}

// presentFailed remembers why call gave no value in this stop.
func (d *debuggee) presentFailed(call presentCall, why string) error {
	d.presentSt.mu.Lock()
	if d.presentSt.failed == nil {
		d.presentSt.failed = map[presentCall]string{}
	}
	d.presentSt.failed[call] = why
	d.presentSt.mu.Unlock()
	return &mirror.PresentError{Text: why}
}

// freeEventThread is a thread other than busy stopped at an event (it can
// run methods) and not running one left over, or 0.
func (d *debuggee) freeEventThread(busy jdwp.ThreadID) jdwp.ThreadID {
	for _, t := range d.stops.AtEvents(busy) {
		if !d.vm.StillRunning(t) {
			return t
		}
	}
	return 0
}

// invalidateWhenFree has the client ask for variables again when the method
// thread still runs for the debugger returns, if the session is still
// stopped then (the values shown without their text get it).
func (d *debuggee) invalidateWhenFree(thread jdwp.ThreadID) {
	d.presentSt.mu.Lock()
	if d.presentSt.waiting[thread] {
		d.presentSt.mu.Unlock()
		return
	}
	if d.presentSt.waiting == nil {
		d.presentSt.waiting = map[jdwp.ThreadID]bool{}
	}
	d.presentSt.waiting[thread] = true
	d.presentSt.mu.Unlock()
	d.vm.AfterInvoke(thread, func() {
		d.presentSt.mu.Lock()
		still := d.presentSt.waiting[thread]
		delete(d.presentSt.waiting, thread)
		d.presentSt.mu.Unlock()
		if still && d.isStopped() && d.s.client.SupportsInvalidatedEvent {
			d.s.send(&godap.InvalidatedEvent{Event: newEvent("invalidated"), Body: godap.InvalidatedEventBody{Areas: []godap.InvalidatedAreas{"variables"}}})
		}
	})
}

// isNoInvoke reports whether err says presentation may not run methods here.
func isNoInvoke(err error) bool { return errors.Is(err, errNoInvoke) }
