package dap

import (
	"context"
	"fmt"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
	godap "github.com/google/go-dap"
)

// Steps are package debugger's (filters, lambdas, step into a chosen
// call, the calls a line has left); dap labels them for stepInTargets.

func (s *session) stepInTargets(ctx context.Context, r *godap.StepInTargetsRequest) (godap.StepInTargetsResponseBody, error) {
	d := s.dbg
	if err := d.cannot("supportsStepInTargetsRequest"); err != nil {
		return godap.StepInTargetsResponseBody{}, failWith(ErrVMCannot, err)
	}
	f, ok := d.refs.frames.get(r.Arguments.FrameId)
	if !ok {
		return godap.StepInTargetsResponseBody{}, fmt.Errorf("unknown frame id %d", r.Arguments.FrameId)
	}
	calls, line, err := d.t.StepTargets(ctx, f.Thread, f.Loc)
	if err != nil {
		return godap.StepInTargetsResponseBody{}, err
	}
	targets := []godap.StepInTarget{}
	for _, t := range calls {
		label := expr.Method{Class: javalang.Signature(t.Class), Name: t.Name, Signature: t.Desc}.String()
		targets = append(targets, godap.StepInTarget{Id: d.refs.targets.add(t), Label: label, Line: line})
	}
	return godap.StepInTargetsResponseBody{Targets: targets}, nil
}

// stepInTarget steps into one call of the current line.
func (s *session) stepInTarget(ctx context.Context, r *godap.StepInRequest) (resumePlan, error) {
	d := s.dbg
	target, ok := d.refs.targets.get(r.Arguments.TargetId)
	if !ok {
		return resumePlan{}, fmt.Errorf("unknown target id %d (targets are forgotten when the VM resumes)", r.Arguments.TargetId)
	}
	if err := d.t.StepInto(ctx, target); err != nil {
		return resumePlan{}, err
	}
	return resumePlan{thread: target.Thread}, nil
}
