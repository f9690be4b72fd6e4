package dap

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
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
		d.presentSt.present.Forms = d.valueForm
	})
	return d.presentSt.present
}

// valueForm is the form in which one of the session's languages shows
// objects of class sig (lang.ValueForms), for the presenter: the first
// language that has one.
func (d *debuggee) valueForm(_ context.Context, sig string, methods []string) *mirror.Form {
	for _, l := range d.srcs.langs {
		vf, ok := l.(lang.ValueForms)
		if !ok {
			continue
		}
		f := vf.ValueForm(sig, methods)
		if f == nil {
			continue
		}
		return &mirror.Form{Fields: f.Fields, Leading: f.Leading, Summary: func(fs []mirror.FormField) string {
			pf := make([]lang.PrintedField, len(fs))
			for i, x := range fs {
				pf[i] = lang.PrintedField(x)
			}
			return f.Text(pf)
		}}
	}
	return nil
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
