package dap

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/eval"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	"github.com/ddmbridge/ddmbridge/jdwp/srclookup"
	godap "github.com/google/go-dap"
)

// Evaluation is package jdwp/eval's; dap finds the frame a request names,
// says whether methods may run, and shows the result.

// ev is the session's evaluator: jdwp/eval over the mirror, told by the
// session which exception a thread stopped on (StoppedOn).
func (d *debuggee) ev() *eval.Evaluator { return eval.New(d.vm, d.t, d.log, d) }

// StoppedOn returns the exception thread stopped on, when its latest stop
// was at one (eval.Session).
func (d *debuggee) StoppedOn(t jdwp.ThreadID) (jdwp.ObjectID, bool) {
	exc, _, ok := d.t.LastException(t)
	return exc.ID, ok && d.stops.Reason(t) == "exception"
}

// SourceOf is where class's source file is, as the stack shows it
// (eval.Session: the file's imports decide what names mean).
func (d *debuggee) SourceOf(ctx context.Context, class jdwp.ReferenceTypeID) (srclookup.Found, bool) {
	sig, err := d.vm.Signature(ctx, class)
	if err != nil {
		return srclookup.Found{}, false
	}
	switch src, err := d.source(ctx, class, sig); {
	case err != nil:
		return srclookup.Found{}, false
	case src.Path != "":
		return srclookup.Found{Path: src.Path}, true
	default:
		return d.archived(src.SourceReference)
	}
}

// frameEnv returns an environment for frame depth of thread at loc; frame
// may be 0, and is then looked up when a local or this is needed.
func (d *debuggee) frameEnv(thread jdwp.ThreadID, depth int32, frame jdwp.FrameID, loc jdwp.Location) *eval.Frame {
	return d.ev().At(thread, depth, frame, loc)
}

// requestEnv is the environment of a request's frameId, or of the top
// frame of the thread the VM stopped in when the request names none.
func (d *debuggee) requestEnv(ctx context.Context, frameID int) (*eval.Frame, error) {
	if frameID == 0 {
		return d.stoppedEnv(ctx)
	}
	if ar, ok := d.refs.asyncFrames.get(frameID); ok {
		return d.asyncEnv(ctx, ar)
	}
	f, ok := d.refs.frames.get(frameID)
	if !ok {
		return nil, fmt.Errorf("unknown frame id %d (frames are forgotten when the VM resumes)", frameID)
	}
	return d.ev().Frame(f), nil
}

// asyncEnv is the environment of a frame of a coroutine's async stack (a
// suspended function's continuation, no JVM frame): its locals are the
// variables the continuation keeps, under the source's names; this is its
// receiver when it keeps one (a spilled this, or the this$0 of a member
// function's continuation); static names and functions are its suspend
// function's class's; methods run in the thread whose stack holds it.
func (d *debuggee) asyncEnv(ctx context.Context, ar asyncRef) (*eval.Frame, error) {
	af := ar.af
	if af == nil {
		return nil, fmt.Errorf("%q is a label, not a frame: pick a frame under it", asyncLabel)
	}
	class := af.Class
	if af.Method != "" {
		if c, err := d.vm.ClassBySignature(ctx, "L"+strings.ReplaceAll(af.Owner, ".", "/")+";"); err == nil {
			class = c
		}
	}
	locals := make([]mirror.NamedValue, 0, len(af.Spilled))
	for _, v := range af.Spilled {
		if v.Name != "this" {
			locals = append(locals, mirror.NamedValue{Name: v.Name, Value: v.Value})
		}
	}
	return d.ev().Async(ar.thread, class, locals, d.asyncThis(ctx, af)), nil
}

// asyncThis is the receiver a suspended function's continuation keeps: a
// spilled this, or the this$0 of a member function's continuation; a zero
// value when it keeps none.
func (d *debuggee) asyncThis(ctx context.Context, af *debugger.AsyncFrame) jdwp.Value {
	for _, v := range af.Spilled {
		if v.Name == "this" {
			return v.Value
		}
	}
	if v, ok, err := d.vm.Field(ctx, af.Continuation, "this$0"); err == nil && ok && v.Tag.IsObject() {
		return v
	}
	return jdwp.Value{}
}

// stoppedEnv is an environment in the top frame of the thread the VM
// stopped in, for values assigned to object fields and array elements.
func (d *debuggee) stoppedEnv(ctx context.Context) (*eval.Frame, error) {
	t, _, _ := d.stops.Latest()
	if t == 0 {
		return nil, errors.New("no thread is stopped at an event")
	}
	env := d.frameEnv(t, 0, 0, jdwp.Location{})
	_, err := env.FrameID(ctx)
	return env, err
}

// hoverNoInvoke is why a hover does not run methods.
const hoverNoInvoke = `hovers do not run methods; set "evaluateHoverMethods": true in the launch configuration to allow it`

// evaluate evaluates an expression in a stopped frame (the top
// frame of the stopped thread when no frame is given). Contexts: "hover"
// runs no methods unless evaluateHoverMethods is set; "clipboard" gives a
// string's contents unquoted and an object's toString(); "repl" and
// "watch" evaluate anything.
func (s *session) evaluate(ctx context.Context, r *godap.EvaluateRequest) (godap.EvaluateResponseBody, error) {
	d := s.dbg
	ctx = withHex(ctx, r.Arguments.Format)
	thread := jdwp.ThreadID(0)
	if f, ok := d.refs.frames.get(r.Arguments.FrameId); ok {
		thread = f.Thread
	} else if ar, ok := d.refs.asyncFrames.get(r.Arguments.FrameId); ok {
		thread = ar.thread
	}
	if thread != 0 {
		// Frames are read while the thread is suspended: wait for a method
		// run or left running there, and start none meanwhile (this runs
		// off the request loop, in the thread's lane).
		xctx, release, err := d.t.Presentation().Exclusive(ctx)
		if err != nil {
			return godap.EvaluateResponseBody{}, err
		}
		defer release()
		ctx = xctx
		d.t.WaitReturned(ctx, thread)
		if d.t.StillRunning(thread) {
			return godap.EvaluateResponseBody{}, s.explain(fmt.Errorf("%w (waited %v)", mirror.ErrStillRunning, s.cfg.RequestTimeout))
		}
	}
	env, err := d.requestEnv(ctx, r.Arguments.FrameId)
	if err != nil {
		return godap.EvaluateResponseBody{}, err
	}
	if r.Arguments.Context == "hover" && !d.opts.EvaluateHoverMethods {
		env.NoInvoke(hoverNoInvoke)
		ctx = withNoInvoke(ctx, hoverNoInvoke)
	}
	ev := d.ev().Env(ctx, env)
	stop := s.progressAfter(ctx, r.Request.Seq, "Evaluating "+r.Arguments.Expression)
	v, err := d.evalIn(ctx, env, ev, r.Arguments.Expression)
	stop()
	if err != nil {
		return godap.EvaluateResponseBody{}, asIs(err)
	}
	vr, err := d.exprVariable(ctx, "", r.Arguments.Expression, v)
	if err != nil {
		return godap.EvaluateResponseBody{}, asIs(err)
	}
	if r.Arguments.Context == "clipboard" && v.Kind.IsRef() && v.Kind != expr.KindNull {
		if str, err := expr.ToString(ctx, ev, v); err == nil {
			vr.Value = str
		}
	}
	return godap.EvaluateResponseBody{
		Result: vr.Value, Type: vr.Type, VariablesReference: vr.VariablesReference,
		IndexedVariables: vr.IndexedVariables, NamedVariables: vr.NamedVariables,
	}, nil
}

// evalIn parses src in the language of env's frame and evaluates it in ev.
func (d *debuggee) evalIn(ctx context.Context, env *eval.Frame, ev expr.Env, src string) (expr.Value, error) {
	e, err := d.langOfClass(ctx, env.Location().Class).Engine().Parse(src)
	if err != nil {
		return expr.Value{}, err
	}
	return e.Eval(ctx, ev)
}
