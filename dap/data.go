package dap

import (
	"context"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	godap "github.com/google/go-dap"
)

// Data breakpoints watch a field: of one object (a field listed under an
// object) or static (a field under Static). dataBreakpointInfo hands out
// the dataId of package debugger's DataTarget; the watchpoints and their
// hits are package debugger's. Locals and array elements cannot be watched
// in a JVM.

func (s *session) dataBreakpointInfo(ctx context.Context, r *godap.DataBreakpointInfoRequest) (godap.DataBreakpointInfoResponseBody, error) {
	d := s.dbg
	none := func(why string) (godap.DataBreakpointInfoResponseBody, error) {
		return godap.DataBreakpointInfoResponseBody{DataId: nil, Description: why}, nil
	}
	if err := d.cannot("supportsDataBreakpoints"); err != nil {
		return none(err.Error())
	}
	c, ok := d.refs.vars.get(r.Arguments.VariablesReference)
	if !ok {
		return none("data breakpoints watch fields: pick a field of an object or a static field in the Variables view")
	}
	var t debugger.DataTarget
	var f mirror.Field
	found := false
	name, owner, _ := strings.Cut(r.Arguments.Name, " (")
	owner = strings.TrimSuffix(owner, ")")
	switch c := c.(type) {
	case *objectVars:
		chain, err := d.vm.FieldChain(ctx, c.class)
		if err != nil {
			return godap.DataBreakpointInfoResponseBody{}, asIs(err)
		}
		for _, fi := range chain {
			if fi.Name == name && (owner == "" || d.t.SimpleClassName(ctx, fi.Class) == owner) {
				f, found = fi, true
				if fi.ModBits&jdwp.AccStatic == 0 {
					t.Object = c.obj
				}
				break
			}
		}
	case *staticsScope:
		fs, err := d.vm.DeclaredFields(ctx, c.class)
		if err != nil {
			return godap.DataBreakpointInfoResponseBody{}, asIs(err)
		}
		for _, fi := range fs {
			if fi.Name == name && fi.ModBits&jdwp.AccStatic != 0 {
				f, found = mirror.Field{FieldInfo: fi, Class: c.class}, true
			}
		}
	default:
		return none("only fields can be watched: a JVM cannot watch local variables or array elements")
	}
	if !found {
		return none(fmt.Sprintf("no field %s there", r.Arguments.Name))
	}
	t.Class, t.Field = f.Class, f.ID
	t.Desc = d.t.SimpleClassName(ctx, f.Class) + "." + f.Name
	if t.Object != 0 {
		t.Desc += fmt.Sprintf(" of (id=%d)", t.Object)
	}
	var access []godap.DataBreakpointAccessType
	for _, a := range d.t.AccessTypes() {
		access = append(access, godap.DataBreakpointAccessType(a))
	}
	return godap.DataBreakpointInfoResponseBody{
		DataId: t.ID(), Description: t.Desc, AccessTypes: access,
	}, nil
}

func (s *session) setDataBreakpoints(ctx context.Context, r *godap.SetDataBreakpointsRequest) (godap.SetDataBreakpointsResponseBody, error) {
	d := s.dbg
	if err := d.cannot("supportsDataBreakpoints"); err != nil && len(r.Arguments.Breakpoints) > 0 {
		return godap.SetDataBreakpointsResponseBody{}, failWith(ErrVMCannot, err)
	}
	specs := make([]debugger.DataSpec, len(r.Arguments.Breakpoints))
	for i, w := range r.Arguments.Breakpoints {
		specs[i] = debugger.DataSpec{DataID: w.DataId, Access: string(w.AccessType), BreakpointSpec: d.spec("", 0, 0, w.Condition, w.HitCondition, "")}
	}
	return godap.SetDataBreakpointsResponseBody{Breakpoints: d.dapBreakpoints(ctx, d.t.SetDataBreakpoints(ctx, specs))}, nil
}
