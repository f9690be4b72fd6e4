package debugger

import (
	"context"
	"fmt"
	"slices"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/classfile"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Step targets: the calls a line has left, read from the method's bytecode
// with its class's constant pool, for a step into one of them (StepInto).

// StepTargets lists the calls left on the rest of loc's line in thread, in
// order (from the method's bytecode), and the line.
func (t *Target) StepTargets(ctx context.Context, thread jdwp.ThreadID, loc jdwp.Location) ([]*StepTarget, int, error) {
	lt, err := t.VM.LineTable(ctx, loc.Class, loc.Method)
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
	ins, err := t.Disassemble(ctx, loc.Class, loc.Method)
	if err != nil {
		return nil, 0, err
	}
	var out []*StepTarget
	for _, in := range ins {
		if in.IsInvoke() && in.Member != nil && uint64(in.Offset) >= loc.Index && inLine(uint64(in.Offset)) {
			m := in.Member
			out = append(out, &StepTarget{Thread: thread, Class: javalang.ClassName(m.Class), Name: m.Name, Desc: m.Descriptor})
		}
	}
	return out, int(line), nil
}

// Disassemble decodes a method's bytecodes with its class's constant
// pool (cached per class until it is redefined or unloaded).
func (t *Target) Disassemble(ctx context.Context, class jdwp.ReferenceTypeID, method jdwp.MethodID) ([]classfile.Instruction, error) {
	pool, err := t.pool(ctx, class)
	if err != nil {
		return nil, err
	}
	code, err := t.VM.Bytecodes(ctx, class, method)
	if err != nil {
		return nil, fmt.Errorf("bytecodes: %w", err)
	}
	return classfile.Disassemble(code, pool)
}

func (t *Target) pool(ctx context.Context, class jdwp.ReferenceTypeID) (*classfile.Pool, error) {
	return t.pools.Get(class, func() (*classfile.Pool, error) {
		count, data, err := t.VM.ConstantPool(ctx, class)
		if err != nil {
			return nil, fmt.Errorf("constant pool: %w", err)
		}
		p, _, err := classfile.ParsePool(int(count), data)
		return p, err
	})
}
