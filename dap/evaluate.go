package dap

import (
	"context"
	"fmt"

	"github.com/ddmbridge/ddmbridge/dap/expr"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	godap "github.com/google/go-dap"
)

// namedEnv is an Env with extra names bound before the frame's: "exception"
// while a thread is stopped on one, or in an exception breakpoint's condition.
type namedEnv struct {
	*frameEnv
	names map[string]expr.Value
}

func (e *namedEnv) Lookup(ctx context.Context, name string) (expr.Value, error) {
	if v, ok := e.names[name]; ok {
		if _, local, err := e.frameEnv.local(ctx, name); err == nil && local {
			return e.frameEnv.Lookup(ctx, name) // a local of that name wins
		}
		return v, nil
	}
	return e.frameEnv.Lookup(ctx, name)
}

// evalEnv is the environment evaluate uses for a frame: the frame's, with
// "exception" bound when its thread stopped on an exception.
func (d *debuggee) evalEnv(ctx context.Context, env *frameEnv) expr.Env {
	exc, _, ok := d.t.LastException(env.f.Thread)
	onExc := ok && d.stops.Reason(env.f.Thread) == "exception"
	if !onExc {
		return env
	}
	sig := ""
	if _, s, err := d.vm.ObjectType(ctx, exc.ID); err == nil {
		sig = s
	}
	return &namedEnv{frameEnv: env, names: map[string]expr.Value{"exception": expr.ObjectRef(uint64(exc.ID), sig)}}
}

// requestEnv is the environment of a request's frameId, or of the top
// frame of the thread the VM stopped in when the request names none.
func (d *debuggee) requestEnv(ctx context.Context, frameID int) (*frameEnv, error) {
	if frameID == 0 {
		return d.stoppedEnv(ctx)
	}
	f, ok := d.refs.frames.get(frameID)
	if !ok {
		return nil, fmt.Errorf("unknown frame id %d (frames are forgotten when the VM resumes)", frameID)
	}
	return d.envFor(f), nil
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
	if f, ok := d.refs.frames.get(r.Arguments.FrameId); ok {
		// A frame's values are read only while its thread is suspended:
		// wait for a method left running there (this runs off the request
		// loop, in the thread's lane).
		d.vm.WaitReturned(ctx, f.Thread)
		if d.vm.StillRunning(f.Thread) {
			return godap.EvaluateResponseBody{}, s.explain(fmt.Errorf("%w (waited %v)", mirror.ErrStillRunning, s.cfg.RequestTimeout))
		}
	}
	env, err := d.requestEnv(ctx, r.Arguments.FrameId)
	if err != nil {
		return godap.EvaluateResponseBody{}, err
	}
	if r.Arguments.Context == "hover" && !d.opts.EvaluateHoverMethods {
		env.noInvoke = hoverNoInvoke
		ctx = withNoInvoke(ctx, hoverNoInvoke)
	}
	ev := d.evalEnv(ctx, env)
	var v expr.Value
	stop := s.progressAfter(ctx, r.Request.Seq, "Evaluating "+r.Arguments.Expression)
	v, err = expr.EvalString(ctx, r.Arguments.Expression, ev)
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
