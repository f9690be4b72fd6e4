package dap

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
	godap "github.com/google/go-dap"
)

// Breakpoints of every kind are package debugger's (resolution,
// installation as classes load, hits, conditions' outcome); dap compiles
// their conditions and log messages as Java expressions and translates
// requests and answers.

// exprCond is a breakpoint condition: a Java boolean expression evaluated
// in the hit's top frame ("exception" names an exception breakpoint's
// exception).
type exprCond struct {
	d *debuggee
	e lang.Expression
}

func (c exprCond) Truth(ctx context.Context, at debugger.Hit) (bool, error) {
	env := c.d.frameEnv(at.Thread, 0, 0, at.Location)
	if at.Exception.ID == 0 {
		return c.e.Truth(ctx, env)
	}
	_, sig, _ := c.d.vm.ObjectType(ctx, at.Exception.ID)
	return c.e.Truth(ctx, env.With(map[string]expr.Value{"exception": expr.ObjectRef(uint64(at.Exception.ID), sig)}))
}

// exprMessage is a logpoint's message: text with {expressions}.
type exprMessage struct {
	d    *debuggee
	tmpl lang.Template
}

func (m exprMessage) Text(ctx context.Context, at debugger.Hit) string {
	return m.tmpl.Eval(ctx, m.d.frameEnv(at.Thread, 0, 0, at.Location))
}

// spec compiles a breakpoint's condition, hit condition and log message
// in the language of the file at path (the default language for "").
func (d *debuggee) spec(path string, line, column int, cond, hit, logMessage string) debugger.BreakpointSpec {
	out := debugger.BreakpointSpec{Line: line, Column: column, Hit: hit}
	engine := d.langOfFile(path).Engine()
	if cond != "" {
		e, err := engine.Parse(cond)
		if err != nil {
			out.Bad = fmt.Sprintf("condition: %v", err)
		} else {
			out.Cond = exprCond{d, e}
		}
	}
	if hit != "" {
		if err := debugger.ParseHitCondition(hit); err != nil {
			out.Bad = err.Error()
		}
	}
	if logMessage != "" {
		t, err := engine.ParseTemplate(logMessage)
		if err != nil {
			out.Bad = fmt.Sprintf("log message: %v", err)
		} else {
			out.Log = exprMessage{d, t}
		}
	}
	return out
}

// dapBreakpoint is a breakpoint as DAP shows it.
func (d *debuggee) dapBreakpoint(ctx context.Context, b debugger.BreakpointInfo) godap.Breakpoint {
	out := godap.Breakpoint{Id: b.ID, Verified: b.Verified, Line: b.Line, Message: b.Message}
	switch {
	case b.Path != "":
		out.Source = &godap.Source{Name: filepath.Base(b.Path), Path: b.Path}
	case b.Class != 0:
		out.Source, _ = d.source(ctx, b.Class, b.ClassSig)
	}
	return out
}

func (d *debuggee) dapBreakpoints(ctx context.Context, bs []debugger.BreakpointInfo) []godap.Breakpoint {
	out := make([]godap.Breakpoint, len(bs))
	for i, b := range bs {
		out[i] = d.dapBreakpoint(ctx, b)
	}
	return out
}

func (s *session) setBreakpoints(ctx context.Context, r *godap.SetBreakpointsRequest) (godap.SetBreakpointsResponseBody, error) {
	path := r.Arguments.Source.Path
	if path == "" {
		return godap.SetBreakpointsResponseBody{}, fmt.Errorf("source.path is required (sources without a file are not supported)")
	}
	want := r.Arguments.Breakpoints
	if want == nil {
		for _, l := range r.Arguments.Lines {
			want = append(want, godap.SourceBreakpoint{Line: l})
		}
	}
	d := s.dbg
	specs := make([]debugger.BreakpointSpec, len(want))
	for i, w := range want {
		specs[i] = d.spec(path, w.Line, w.Column, w.Condition, w.HitCondition, w.LogMessage)
	}
	bps, err := d.t.SetBreakpoints(ctx, path, specs)
	if err != nil {
		return godap.SetBreakpointsResponseBody{}, asIs(fmt.Errorf("%s: %w", path, err))
	}
	return godap.SetBreakpointsResponseBody{Breakpoints: d.dapBreakpoints(ctx, bps)}, nil
}

func (s *session) setFunctionBreakpoints(ctx context.Context, r *godap.SetFunctionBreakpointsRequest) (godap.SetFunctionBreakpointsResponseBody, error) {
	d := s.dbg
	specs := make([]debugger.FunctionSpec, len(r.Arguments.Breakpoints))
	for i, w := range r.Arguments.Breakpoints {
		specs[i] = debugger.FunctionSpec{Name: w.Name, BreakpointSpec: d.spec("", 0, 0, w.Condition, w.HitCondition, "")}
	}
	bps, err := d.t.SetFunctionBreakpoints(ctx, specs)
	if err != nil {
		return godap.SetFunctionBreakpointsResponseBody{}, err
	}
	return godap.SetFunctionBreakpointsResponseBody{Breakpoints: d.dapBreakpoints(ctx, bps)}, nil
}

func (s *session) breakpointLocations(ctx context.Context, r *godap.BreakpointLocationsRequest) (godap.BreakpointLocationsResponseBody, error) {
	a := r.Arguments
	if a.Source.Path == "" {
		return godap.BreakpointLocationsResponseBody{}, fmt.Errorf("source.path is required")
	}
	locs, err := s.dbg.t.BreakpointLocations(ctx, a.Source.Path, a.Line, a.EndLine)
	if err != nil {
		return godap.BreakpointLocationsResponseBody{}, err
	}
	out := make([]godap.BreakpointLocation, len(locs))
	for i, l := range locs {
		out[i] = godap.BreakpointLocation{Line: l.Line, Column: l.Column}
	}
	return godap.BreakpointLocationsResponseBody{Breakpoints: out}, nil
}
