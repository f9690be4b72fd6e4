package dap

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/ddmbridge/ddmbridge/dap/expr"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	godap "github.com/google/go-dap"
)

// Exception breakpoints: the "caught" and "uncaught" filters, filterOptions
// with a condition, exceptionOptions with class names and break modes.
//
// A filter's condition is either a list of exception class patterns —
// "java.lang.IllegalStateException, com.example.*, !com.example.Ignored"
// (an exception matches when its class or a superclass matches a pattern
// and no "!" pattern) — or a Java boolean expression evaluated in the
// throwing frame, where "exception" names the exception:
// "exception.getMessage().contains(\"x\") && i > 3".

// excRule is one way an exception can stop the VM.
type excRule struct {
	caught, uncaught bool
	never            bool // an exceptionOptions "never": matching exceptions never stop
	include, exclude []string
	cond             expr.Node
	condText         string
}

var classPatterns = regexp.MustCompile(`^\s*!?[\p{L}_$*][\p{L}\p{N}_$.*]*(\s*,\s*!?[\p{L}_$*][\p{L}\p{N}_$.*]*)*\s*$`)

// parseExcCondition reads a filter condition: class patterns or an expression.
func parseExcCondition(s string) (include, exclude []string, cond expr.Node, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil, nil, nil
	}
	if classPatterns.MatchString(s) && (strings.ContainsAny(s, ".*,!$") || s[0] >= 'A' && s[0] <= 'Z') {
		for _, p := range strings.Split(s, ",") {
			p = strings.TrimSpace(p)
			if strings.HasPrefix(p, "!") {
				exclude = append(exclude, strings.TrimSpace(p[1:]))
			} else {
				include = append(include, p)
			}
		}
		return include, exclude, nil, nil
	}
	cond, err = expr.Parse(s)
	return nil, nil, cond, err
}

// matchClass matches a binary class name against a pattern: "*", a prefix
// ("com.example.*"), a suffix ("*Exception") or a name; nested classes may be
// written with '.' or '$'.
func matchClass(pattern, name string) bool {
	dotted := strings.ReplaceAll(name, "$", ".")
	pattern = strings.TrimSpace(pattern)
	switch {
	case pattern == "*":
		return true
	case strings.HasSuffix(pattern, "*"):
		pre := strings.TrimSuffix(pattern, "*")
		return strings.HasPrefix(name, pre) || strings.HasPrefix(dotted, pre)
	case strings.HasPrefix(pattern, "*"):
		suf := strings.TrimPrefix(pattern, "*")
		return strings.HasSuffix(name, suf) || strings.HasSuffix(dotted, suf)
	}
	return pattern == name || pattern == dotted
}

func (s *session) setExceptionBreakpoints(ctx context.Context, r *godap.SetExceptionBreakpointsRequest) (godap.SetExceptionBreakpointsResponseBody, error) {
	d := s.dbg
	var rules []excRule
	var out []godap.Breakpoint
	filter := func(id string) (excRule, bool) {
		switch id {
		case "caught":
			return excRule{caught: true}, true
		case "uncaught":
			return excRule{uncaught: true}, true
		}
		return excRule{}, false
	}
	for _, f := range r.Arguments.Filters {
		rule, ok := filter(f)
		if !ok {
			return godap.SetExceptionBreakpointsResponseBody{}, fmt.Errorf("unknown filter %q (uncaught, caught)", f)
		}
		rules = append(rules, rule)
		out = append(out, godap.Breakpoint{Verified: true})
	}
	for _, fo := range r.Arguments.FilterOptions {
		rule, ok := filter(fo.FilterId)
		if !ok {
			return godap.SetExceptionBreakpointsResponseBody{}, fmt.Errorf("unknown filter %q (uncaught, caught)", fo.FilterId)
		}
		var err error
		rule.include, rule.exclude, rule.cond, err = parseExcCondition(fo.Condition)
		rule.condText = fo.Condition
		if err != nil {
			out = append(out, godap.Breakpoint{Verified: false, Message: fmt.Sprintf("condition: %v", err)})
			continue
		}
		rules = append(rules, rule)
		out = append(out, godap.Breakpoint{Verified: true})
	}
	for _, eo := range r.Arguments.ExceptionOptions {
		var rule excRule
		switch eo.BreakMode {
		case "always":
			rule.caught, rule.uncaught = true, true
		case "unhandled", "userUnhandled":
			rule.uncaught = true
		case "never":
			rule.never = true
		default:
			out = append(out, godap.Breakpoint{Verified: false, Message: fmt.Sprintf("unknown breakMode %q", eo.BreakMode)})
			continue
		}
		if n := len(eo.Path); n > 0 {
			seg := eo.Path[n-1]
			for _, name := range seg.Names {
				if seg.Negate {
					rule.exclude = append(rule.exclude, name)
				} else {
					rule.include = append(rule.include, name)
				}
			}
		}
		rules = append(rules, rule)
		out = append(out, godap.Breakpoint{Verified: true})
	}
	var caught, uncaught bool
	for _, rule := range rules {
		caught = caught || rule.caught
		uncaught = uncaught || rule.uncaught
	}
	d.mu.Lock()
	old := d.bps.excReq
	d.bps.excReq = 0
	d.bps.excRules = rules
	d.mu.Unlock()
	if old != 0 {
		d.clearRequest(ctx, jdwp.EventException, old)
	}
	if caught || uncaught {
		id, err := d.setRequest(ctx, jdwp.EventException, stopPolicy, jdwp.ExceptionOnly{Caught: caught, Uncaught: uncaught})
		if err != nil {
			return godap.SetExceptionBreakpointsResponseBody{}, err
		}
		d.mu.Lock()
		d.bps.excReq = id
		d.mu.Unlock()
	}
	return godap.SetExceptionBreakpointsResponseBody{Breakpoints: out}, nil
}

// classChain lists the binary names of t and its superclasses.
func (d *debuggee) classChain(ctx context.Context, t jdwp.ReferenceTypeID) ([]string, error) {
	var out []string
	for c := t; c != 0; {
		sig, err := d.vm.Signature(ctx, c)
		if err != nil {
			return nil, err
		}
		out = append(out, javalang.TypeName(sig))
		if c, err = d.vm.Superclass(ctx, c); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func anyMatch(patterns, names []string) bool {
	for _, p := range patterns {
		for _, n := range names {
			if matchClass(p, n) {
				return true
			}
		}
	}
	return false
}

// onException decides whether an exception stops: the first rule that
// matches how it is thrown (caught or not), its class and its condition.
func (d *debuggee) onException(ctx context.Context, e jdwp.Event) *stopInfo {
	caught := e.CatchLocation.Class != 0
	t, _, err := d.vm.ObjectType(ctx, e.Exception.ID)
	if err != nil {
		d.log.Debug().Err(err).Msg("type of a thrown exception")
		return nil
	}
	names, err := d.classChain(ctx, t)
	if err != nil {
		d.log.Debug().Err(err).Msg("superclasses of a thrown exception")
		return nil
	}
	d.mu.Lock()
	rules := d.bps.excRules
	d.mu.Unlock()
	for _, r := range rules {
		if r.never && anyMatch(r.include, names) && !anyMatch(r.exclude, names) {
			return nil
		}
	}
	for _, r := range rules {
		if r.never || caught && !r.caught || !caught && !r.uncaught {
			continue
		}
		if len(r.include) > 0 && !anyMatch(r.include, names) || anyMatch(r.exclude, names) {
			continue
		}
		var failed string
		if r.cond != nil {
			_, sig, _ := d.vm.ObjectType(ctx, e.Exception.ID)
			env := d.frameEnv(e.Thread, 0, 0, e.Location).With(map[string]expr.Value{"exception": expr.ObjectRef(uint64(e.Exception.ID), sig)})
			ok, err := expr.Truth(ctx, r.cond, env)
			if err != nil {
				failed = fmt.Sprintf("exception breakpoint condition %q failed: %v", r.condText, err)
				d.s.output("console", failed+"\n")
			} else if !ok {
				continue
			}
		}
		d.mu.Lock()
		d.bps.lastExc[e.Thread] = e.Exception
		d.bps.excCaught[e.Thread] = caught
		d.mu.Unlock()
		name, msg := d.describeException(ctx, e.Thread, e.Exception.ID)
		text := name
		if msg != "" {
			text += ": " + msg
		}
		if failed != "" {
			text = failed
		}
		kind := "uncaught"
		if caught {
			kind = "caught"
		}
		return &stopInfo{reason: "exception", thread: e.Thread, description: "Paused on " + kind + " exception", text: text}
	}
	return nil
}

// describeException returns an exception's class name and detail message.
func (d *debuggee) describeException(ctx context.Context, thread jdwp.ThreadID, exc jdwp.ObjectID) (string, string) {
	return d.ev().DescribeException(ctx, thread, exc)
}

// exceptionInfo describes the exception a thread stopped on: its
// class, its message (getMessage()), its stack trace (getStackTrace(), or
// the thread's frames when methods cannot run) and its causes.
func (s *session) exceptionInfo(ctx context.Context, r *godap.ExceptionInfoRequest) (godap.ExceptionInfoResponseBody, error) {
	d := s.dbg
	t, ok := d.refs.threads.key(r.Arguments.ThreadId)
	d.mu.Lock()
	exc, have := d.bps.lastExc[t]
	onExc := have && d.stops.Reason(t) == "exception"
	d.mu.Unlock()
	if !ok || !onExc {
		return godap.ExceptionInfoResponseBody{}, fmt.Errorf("thread %d did not stop on an exception", r.Arguments.ThreadId)
	}
	env := d.frameEnv(t, 0, 0, jdwp.Location{})
	details := d.exceptionDetails(ctx, env, exc.ID, 0)
	mode := "always"
	d.mu.Lock()
	if !d.bps.excCaught[t] {
		mode = "unhandled"
	}
	d.mu.Unlock()
	return godap.ExceptionInfoResponseBody{
		ExceptionId: details.FullTypeName, Description: details.Message, BreakMode: godap.ExceptionBreakMode(mode), Details: &details,
	}, nil
}

// exceptionDetails describes an exception and (up to 4 deep) its causes.
func (d *debuggee) exceptionDetails(ctx context.Context, env *frameEnv, exc jdwp.ObjectID, depth int) godap.ExceptionDetails {
	_, sig, err := d.vm.ObjectType(ctx, exc)
	if err != nil {
		return godap.ExceptionDetails{Message: err.Error()}
	}
	obj := expr.ObjectRef(uint64(exc), sig)
	out := godap.ExceptionDetails{FullTypeName: javalang.TypeName(sig), TypeName: simpleName(javalang.TypeName(sig))}
	if depth == 0 {
		out.EvaluateName = "exception"
	}
	if v, err := env.Call(ctx, obj, "getMessage"); err == nil && v.Kind == expr.KindString {
		out.Message, _ = env.StringOf(ctx, v)
	} else {
		_, out.Message = d.describeException(ctx, env.Thread(), exc)
	}
	out.StackTrace = d.exceptionTrace(ctx, env, obj)
	if depth < 4 {
		if cause, err := env.Field(ctx, obj, "cause"); err == nil && cause.Kind == expr.KindObject && cause.Ref != obj.Ref {
			out.InnerException = []godap.ExceptionDetails{d.exceptionDetails(ctx, env, jdwp.ObjectID(cause.Ref), depth+1)}
		}
	}
	return out
}

// exceptionTrace formats getStackTrace() as Java prints it; when methods
// cannot run, the thread's own frames stand in.
func (d *debuggee) exceptionTrace(ctx context.Context, env *frameEnv, obj expr.Value) string {
	var b strings.Builder
	arr, err := env.Call(ctx, obj, "getStackTrace")
	if err == nil && arr.Kind == expr.KindObject {
		n, err := env.Length(ctx, arr)
		if err == nil {
			vals, err := d.vm.ArrayValues(ctx, jdwp.ObjectID(arr.Ref), 0, n)
			if err == nil {
				for _, v := range vals {
					el, err := d.toExpr(ctx, v)
					if err != nil || el.Kind != expr.KindObject {
						continue
					}
					str := func(name string) string {
						f, err := env.Field(ctx, el, name)
						if err != nil || f.Kind != expr.KindString {
							return ""
						}
						s, _ := env.StringOf(ctx, f)
						return s
					}
					where := str("fileName")
					if ln, err := env.Field(ctx, el, "lineNumber"); err == nil && where != "" && ln.I >= 0 {
						where += fmt.Sprintf(":%d", ln.I)
					}
					if where == "" {
						where = "Unknown Source"
					}
					fmt.Fprintf(&b, "\tat %s.%s(%s)\n", str("declaringClass"), str("methodName"), where)
				}
				return b.String()
			}
		}
	}
	frames, err := d.vm.Frames(ctx, env.Thread(), 0, -1)
	if err != nil {
		return ""
	}
	for _, f := range frames {
		sf, err := d.describeFrame(ctx, f.Loc)
		if err != nil {
			continue
		}
		where := "Unknown Source"
		if sf.Source != nil {
			where = fmt.Sprintf("%s:%d", sf.Source.Name, sf.Line)
		}
		sig, _ := d.vm.Signature(ctx, f.Loc.Class)
		m, _ := d.vm.Method(ctx, f.Loc.Class, f.Loc.Method)
		fmt.Fprintf(&b, "\tat %s.%s(%s)\n", javalang.TypeName(sig), m.Name, where)
	}
	return b.String()
}
