package dap

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// Presentation: dap's side of package mirror. presentVM is mirror.VM over
// the session's connection and caches, running the methods presentation
// needs by package debugger's rules (debugger.Presentation); whether it may
// run methods comes from the request's context (withNoInvoke).

// presentState is the session's presenter, made once.
type presentState struct {
	present *mirror.Presenter
	once    sync.Once
}

// release lets the collector have what presentation kept; called on resume.
func (p *presentState) release(ctx context.Context, d *debuggee) {
	d.t.Presentation().Release(ctx)
}

func withNoInvoke(ctx context.Context, why string) context.Context {
	return debugger.WithNoInvoke(ctx, why)
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
	d.presentSt.once.Do(func() {
		p := d.t.Presentation()
		p.Budget = d.invokeTimeout()
		d.presentSt.present = mirror.NewPresenter(presentVM{VM: d.vm, p: p})
	})
	return d.presentSt.present
}

// presentVM is the mirror with the debugger layer's policy on running
// methods.
type presentVM struct {
	*mirror.VM
	p *debugger.Presentation
}

func (v presentVM) Invoke(ctx context.Context, obj jdwp.ObjectID, name, desc string) (jdwp.Value, error) {
	return v.p.Invoke(ctx, obj, name, desc)
}

// isNoInvoke reports whether err says presentation may not run methods here.
func isNoInvoke(err error) bool { return errors.Is(err, debugger.ErrNoInvoke) }
