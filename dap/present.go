package dap

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// Presentation: dap's side of package mirror. presentVM is mirror.VM over
// the session's connection and caches; whether it may run methods (and in
// which thread) comes from the request's context.

// presentState is what presentation keeps for one stop: objects kept from
// the collector, and whether an invocation timed out (then no more run
// until the VM resumes: the thread is still busy in the VM).
type presentState struct {
	invokeMu sync.Mutex // one method at a time: a thread runs one invocation
	mu       sync.Mutex
	kept     []jdwp.ObjectID
	stuck    bool
}

// release lets the collector have what presentation kept; called on resume.
func (p *presentState) release(ctx context.Context, conn *jdwp.Conn) {
	p.mu.Lock()
	kept := p.kept
	p.kept, p.stuck = nil, false
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
	d.presentOnce.Do(func() { d.present = mirror.NewPresenter(presentVM{VM: d.vm, d: d}) })
	return d.present
}

// presentVM is the mirror with the session's policy on running methods.
type presentVM struct {
	*mirror.VM
	d *debuggee
}

// errNoInvoke is why presentation ran no method.
var errNoInvoke = errors.New("methods do not run here")

// Invoke runs a method for presentation in the stopped thread, alone and
// bounded in time; not in a hover, not while another thread holds obj's
// monitor (it would wait for that suspended thread forever), not after an
// invocation timed out in this stop.
func (p presentVM) Invoke(ctx context.Context, obj jdwp.ObjectID, name, desc string) (jdwp.Value, error) {
	d := p.d
	if why, _ := ctx.Value(noInvokeKey{}).(string); why != "" {
		return jdwp.Value{}, fmt.Errorf("%w: %s", errNoInvoke, why)
	}
	d.mu.Lock()
	thread, reason, stopped := d.stopThread, d.stopReason, d.stopped
	d.mu.Unlock()
	if !stopped || thread == 0 || reason == "pause" {
		return jdwp.Value{}, fmt.Errorf("%w: no thread is stopped at an event", errNoInvoke)
	}
	d.presentSt.mu.Lock()
	stuck := d.presentSt.stuck
	d.presentSt.mu.Unlock()
	if stuck {
		return jdwp.Value{}, fmt.Errorf("%w: a method run for the debugger did not return", errNoInvoke)
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
	d.presentSt.invokeMu.Lock()
	defer d.presentSt.invokeMu.Unlock()
	ictx, cancel := context.WithTimeout(ctx, d.invokeTimeout())
	defer cancel()
	res, err := d.vm.Invoke(ictx, thread, obj, m, nil)
	if err != nil {
		if ictx.Err() != nil && ctx.Err() == nil {
			d.presentSt.mu.Lock()
			d.presentSt.stuck = true
			d.presentSt.mu.Unlock()
			d.log.Warn().Str("method", name).Msg("a method run to present a value did not return in time; no more run until the VM resumes")
		}
		return jdwp.Value{}, err
	}
	if res.Exception.ID != 0 {
		return jdwp.Value{}, fmt.Errorf("%s threw", name)
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

// isNoInvoke reports whether err says presentation may not run methods here.
func isNoInvoke(err error) bool { return errors.Is(err, errNoInvoke) }
