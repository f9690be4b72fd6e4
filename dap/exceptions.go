package dap

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/eval"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	godap "github.com/google/go-dap"
)

// Exception breakpoints: the "caught" and "uncaught" filters, filterOptions
// with a condition, exceptionOptions with class names and break modes,
// translated to package debugger's exception rules.
//
// A filter's condition is either a list of exception class patterns —
// "java.lang.IllegalStateException, com.example.*, !com.example.Ignored"
// (an exception matches when its class or a superclass matches a pattern
// and no "!" pattern) — or a Java boolean expression evaluated in the
// throwing frame, where "exception" names the exception:
// "exception.getMessage().contains(\"x\") && i > 3".

var classPatterns = regexp.MustCompile(`^\s*!?[\p{L}_$*][\p{L}\p{N}_$.*]*(\s*,\s*!?[\p{L}_$*][\p{L}\p{N}_$.*]*)*\s*$`)

// parseExcCondition reads a filter condition: class patterns or an
// expression of the engine's language.
func parseExcCondition(s string, engine lang.Engine) (include, exclude []string, cond lang.Expression, err error) {
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
	cond, err = engine.Parse(s)
	return nil, nil, cond, err
}

func (s *session) setExceptionBreakpoints(ctx context.Context, r *godap.SetExceptionBreakpointsRequest) (godap.SetExceptionBreakpointsResponseBody, error) {
	d := s.dbg
	var rules []debugger.ExceptionRule
	var out []godap.Breakpoint
	filter := func(id string) (debugger.ExceptionRule, bool) {
		switch id {
		case "caught":
			return debugger.ExceptionRule{Caught: true}, true
		case "uncaught":
			return debugger.ExceptionRule{Uncaught: true}, true
		}
		return debugger.ExceptionRule{}, false
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
		include, exclude, cond, err := parseExcCondition(fo.Condition, d.langOfFile("").Engine())
		rule.Include, rule.Exclude, rule.CondText = include, exclude, fo.Condition
		if cond != nil {
			rule.Cond = exprCond{d, cond}
		}
		if err != nil {
			out = append(out, godap.Breakpoint{Verified: false, Message: fmt.Sprintf("condition: %v", err)})
			continue
		}
		rules = append(rules, rule)
		out = append(out, godap.Breakpoint{Verified: true})
	}
	for _, eo := range r.Arguments.ExceptionOptions {
		var rule debugger.ExceptionRule
		switch eo.BreakMode {
		case "always":
			rule.Caught, rule.Uncaught = true, true
		case "unhandled", "userUnhandled":
			rule.Uncaught = true
		case "never":
			rule.Never = true
		default:
			out = append(out, godap.Breakpoint{Verified: false, Message: fmt.Sprintf("unknown breakMode %q", eo.BreakMode)})
			continue
		}
		if n := len(eo.Path); n > 0 {
			seg := eo.Path[n-1]
			for _, name := range seg.Names {
				if seg.Negate {
					rule.Exclude = append(rule.Exclude, name)
				} else {
					rule.Include = append(rule.Include, name)
				}
			}
		}
		rules = append(rules, rule)
		out = append(out, godap.Breakpoint{Verified: true})
	}
	if err := d.t.SetExceptionRules(ctx, rules); err != nil {
		return godap.SetExceptionBreakpointsResponseBody{}, err
	}
	return godap.SetExceptionBreakpointsResponseBody{Breakpoints: out}, nil
}

// exceptionInfo describes the exception a thread stopped on: its
// class, its message (getMessage()), its stack trace (getStackTrace(), or
// the thread's frames when methods cannot run) and its causes.
func (s *session) exceptionInfo(ctx context.Context, r *godap.ExceptionInfoRequest) (godap.ExceptionInfoResponseBody, error) {
	d := s.dbg
	t, ok := d.refs.threads.key(r.Arguments.ThreadId)
	exc, caught, have := d.t.LastException(t)
	if !ok || !have || d.stops.Reason(t) != "exception" {
		return godap.ExceptionInfoResponseBody{}, fmt.Errorf("thread %d did not stop on an exception", r.Arguments.ThreadId)
	}
	details := exceptionDetails(d.frameEnv(t, 0, 0, jdwp.Location{}).Exception(ctx, exc.ID), true)
	mode := "always"
	if !caught {
		mode = "unhandled"
	}
	return godap.ExceptionInfoResponseBody{
		ExceptionId: details.FullTypeName, Description: details.Message, BreakMode: godap.ExceptionBreakMode(mode), Details: &details,
	}, nil
}

// exceptionDetails is an exception (and its causes) as DAP shows it.
func exceptionDetails(e eval.Exception, top bool) godap.ExceptionDetails {
	out := godap.ExceptionDetails{FullTypeName: e.Type, TypeName: simpleName(e.Type), Message: e.Message, StackTrace: e.StackTrace}
	if top {
		out.EvaluateName = "exception"
	}
	if e.Cause != nil {
		out.InnerException = []godap.ExceptionDetails{exceptionDetails(*e.Cause, false)}
	}
	return out
}
