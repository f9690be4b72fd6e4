package dap

import (
	"context"
	"fmt"
	"slices"

	"github.com/ddmbridge/ddmbridge/dap/classfile"
	"github.com/ddmbridge/ddmbridge/dap/expr"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	godap "github.com/google/go-dap"
)

// Steps are package debugger's (filters, lambdas, step into a chosen
// call); dap lists a line's calls for stepInTargets.

func (s *session) stepInTargets(ctx context.Context, r *godap.StepInTargetsRequest) (godap.StepInTargetsResponseBody, error) {
	d := s.dbg
	if err := d.cannot("supportsStepInTargetsRequest"); err != nil {
		return godap.StepInTargetsResponseBody{}, failWith(ErrVMCannot, err)
	}
	f, ok := d.refs.frames.get(r.Arguments.FrameId)
	if !ok {
		return godap.StepInTargetsResponseBody{}, fmt.Errorf("unknown frame id %d", r.Arguments.FrameId)
	}
	calls, line, err := d.callsOnLine(ctx, f.Loc)
	if err != nil {
		return godap.StepInTargetsResponseBody{}, err
	}
	targets := []godap.StepInTarget{}
	for _, m := range calls {
		t := &debugger.StepTarget{Thread: f.Thread, Class: javalang.ClassName(m.Class), Name: m.Name, Desc: m.Descriptor}
		label := expr.Method{Class: javalang.ClassSignature(m.Class), Name: m.Name, Signature: m.Descriptor}.String()
		targets = append(targets, godap.StepInTarget{Id: d.refs.targets.add(t), Label: label, Line: line})
	}
	return godap.StepInTargetsResponseBody{Targets: targets}, nil
}

// callsOnLine lists the methods called on the rest of loc's line, in order.
func (d *debuggee) callsOnLine(ctx context.Context, loc jdwp.Location) ([]classfile.Member, int, error) {
	lt, err := d.vm.LineTable(ctx, loc.Class, loc.Method)
	if err != nil {
		return nil, 0, err
	}
	if lt.Absent {
		return nil, 0, fmt.Errorf("the method has no line numbers (compiled without -g)")
	}
	line := lt.LineFor(loc.Index)
	entries := slices.Clone(lt.Lines)
	slices.SortFunc(entries, func(a, b jdwp.LineEntry) int { return int(a.CodeIndex) - int(b.CodeIndex) })
	inLine := func(idx uint64) bool {
		for i, e := range entries {
			end := lt.End + 1
			if i+1 < len(entries) {
				end = entries[i+1].CodeIndex
			}
			if e.Line == line && idx >= e.CodeIndex && idx < end {
				return true
			}
		}
		return false
	}
	ins, err := d.disassemble(ctx, loc.Class, loc.Method)
	if err != nil {
		return nil, 0, err
	}
	var out []classfile.Member
	for _, in := range ins {
		if in.IsInvoke() && in.Member != nil && uint64(in.Offset) >= loc.Index && inLine(uint64(in.Offset)) {
			out = append(out, *in.Member)
		}
	}
	return out, int(line), nil
}

// disassemble decodes a method's bytecodes with its class's constant pool.
func (d *debuggee) disassemble(ctx context.Context, class jdwp.ReferenceTypeID, method jdwp.MethodID) ([]classfile.Instruction, error) {
	pool, err := d.pool(ctx, class)
	if err != nil {
		return nil, err
	}
	code, err := d.vm.Bytecodes(ctx, class, method)
	if err != nil {
		return nil, fmt.Errorf("bytecodes: %w", err)
	}
	return classfile.Disassemble(code, pool)
}

func (d *debuggee) pool(ctx context.Context, class jdwp.ReferenceTypeID) (*classfile.Pool, error) {
	return d.srcs.pools.Get(class, func() (*classfile.Pool, error) {
		count, data, err := d.vm.ConstantPool(ctx, class)
		if err != nil {
			return nil, fmt.Errorf("constant pool: %w", err)
		}
		p, _, err := classfile.ParsePool(int(count), data)
		return p, err
	})
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
