package dap

import (
	"context"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/dap/expr"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	godap "github.com/google/go-dap"
)

// Data breakpoints watch a field: of one object (a field listed under an
// object) or static (a field under Static). dataBreakpointInfo hands out a
// dataId "field/<class>/<field>/<object>"; setDataBreakpoints sets field
// access ("read") and modification ("write") watchpoints, as the VM can
// (CanWatchFieldAccess, CanWatchFieldModification). Locals and array
// elements cannot be watched in a JVM. A hit stops with reason "data
// breakpoint" and says what happened: "Engine.value = 11 (was 10)".

// dataTarget is the field a data breakpoint watches.
type dataTarget struct {
	class  jdwp.ReferenceTypeID
	field  jdwp.FieldID
	obj    jdwp.ObjectID // 0 for a static field
	desc   string        // "Engine.value"
	access string        // read, write or readWrite
}

func (t dataTarget) id() string { return fmt.Sprintf("field/%d/%d/%d", t.class, t.field, t.obj) }

func parseDataID(s string) (dataTarget, error) {
	var t dataTarget
	var c, f, o uint64
	if _, err := fmt.Sscanf(s, "field/%d/%d/%d", &c, &f, &o); err != nil {
		return t, fmt.Errorf("%q is not a data breakpoint id from dataBreakpointInfo", s)
	}
	t.class, t.field, t.obj = jdwp.ReferenceTypeID(c), jdwp.FieldID(f), jdwp.ObjectID(o)
	return t, nil
}

// accessTypes are the data breakpoint access types this VM can watch.
func (d *debuggee) accessTypes() []godap.DataBreakpointAccessType {
	var out []godap.DataBreakpointAccessType
	if d.caps.CanWatchFieldAccess {
		out = append(out, "read")
	}
	if d.caps.CanWatchFieldModification {
		out = append(out, "write")
	}
	if len(out) == 2 {
		out = append(out, "readWrite")
	}
	return out
}

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
	var t dataTarget
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
			if fi.Name == name && (owner == "" || d.simpleClassName(ctx, fi.Class) == owner) {
				f, found = fi, true
				if fi.ModBits&jdwp.AccStatic == 0 {
					t.obj = c.obj
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
	t.class, t.field = f.Class, f.ID
	t.desc = d.simpleClassName(ctx, f.Class) + "." + f.Name
	if t.obj != 0 {
		t.desc += fmt.Sprintf(" of (id=%d)", t.obj)
	}
	return godap.DataBreakpointInfoResponseBody{
		DataId: t.id(), Description: t.desc, AccessTypes: d.accessTypes(),
	}, nil
}

func (d *debuggee) simpleClassName(ctx context.Context, t jdwp.ReferenceTypeID) string {
	sig, err := d.vm.Signature(ctx, t)
	if err != nil {
		return "?"
	}
	return simpleName(javalang.TypeName(sig))
}

func (s *session) setDataBreakpoints(ctx context.Context, r *godap.SetDataBreakpointsRequest) (godap.SetDataBreakpointsResponseBody, error) {
	d := s.dbg
	if err := d.cannot("supportsDataBreakpoints"); err != nil && len(r.Arguments.Breakpoints) > 0 {
		return godap.SetDataBreakpointsResponseBody{}, failWith(ErrVMCannot, err)
	}
	d.mu.Lock()
	old := d.bps.dataBPs
	d.bps.dataBPs = nil
	for _, bp := range old {
		for _, id := range bp.reqs {
			delete(d.bps.dataByReq, id)
		}
	}
	d.mu.Unlock()
	for _, bp := range old {
		for i, id := range bp.reqs {
			d.clearRequest(ctx, bp.reqKinds[i], id)
		}
	}
	out := make([]godap.Breakpoint, 0, len(r.Arguments.Breakpoints))
	for _, w := range r.Arguments.Breakpoints {
		d.mu.Lock()
		bp := &breakpoint{id: d.bps.nextBP, reason: "data breakpoint"}
		d.bps.nextBP++
		d.mu.Unlock()
		bp.parse(godap.SourceBreakpoint{Condition: w.Condition, HitCondition: w.HitCondition})
		t, err := parseDataID(w.DataId)
		if err != nil {
			bp.bad = err.Error()
		}
		t.access = string(w.AccessType)
		if t.access == "" {
			t.access = "write"
		}
		if fs, err := d.vm.DeclaredFields(ctx, t.class); err == nil {
			for _, f := range fs {
				if f.ID == t.field {
					t.desc = d.simpleClassName(ctx, t.class) + "." + f.Name
				}
			}
		}
		bp.data = &t
		if bp.bad == "" {
			if err := d.watchField(ctx, bp); err != nil {
				bp.bad = err.Error()
			}
		}
		bp.verified = bp.bad == ""
		d.mu.Lock()
		d.bps.dataBPs = append(d.bps.dataBPs, bp)
		d.mu.Unlock()
		out = append(out, bp.dap())
	}
	return godap.SetDataBreakpointsResponseBody{Breakpoints: out}, nil
}

// watchField sets the watchpoint requests of a data breakpoint.
func (d *debuggee) watchField(ctx context.Context, bp *breakpoint) error {
	t := bp.data
	var kinds []jdwp.EventKind
	switch t.access {
	case "read":
		kinds = []jdwp.EventKind{jdwp.EventFieldAccess}
	case "write":
		kinds = []jdwp.EventKind{jdwp.EventFieldModification}
	case "readWrite":
		kinds = []jdwp.EventKind{jdwp.EventFieldAccess, jdwp.EventFieldModification}
	default:
		return fmt.Errorf("unknown access type %q (read, write, readWrite)", t.access)
	}
	for _, k := range kinds {
		if k == jdwp.EventFieldAccess && !d.caps.CanWatchFieldAccess {
			return fmt.Errorf("this VM cannot watch field reads (CanWatchFieldAccess is false)")
		}
		if k == jdwp.EventFieldModification && !d.caps.CanWatchFieldModification {
			return fmt.Errorf("this VM cannot watch field writes (CanWatchFieldModification is false)")
		}
		mods := []jdwp.Modifier{jdwp.FieldOnly{Type: t.class, Field: t.field}}
		if t.obj != 0 && d.caps.CanUseInstanceFilters {
			mods = append(mods, jdwp.InstanceOnly(t.obj))
		}
		id, err := d.setRequest(ctx, k, stopPolicy, mods...)
		if err != nil {
			return fmt.Errorf("watch %s: %w", t.desc, err)
		}
		d.mu.Lock()
		bp.reqs = append(bp.reqs, id)
		bp.reqKinds = append(bp.reqKinds, k)
		d.bps.dataByReq[id] = bp
		d.mu.Unlock()
	}
	return nil
}

// onFieldEvent decides whether a watched field's access or modification stops.
func (d *debuggee) onFieldEvent(ctx context.Context, e jdwp.Event) *stopInfo {
	d.mu.Lock()
	bp := d.bps.dataByReq[e.RequestID]
	d.mu.Unlock()
	if bp == nil || bp.data.obj != 0 && e.Object.ID != bp.data.obj {
		return nil
	}
	var cur expr.Value
	var vals []jdwp.Value
	var err error
	if e.Object.ID != 0 {
		vals, err = d.vm.ReadFields(ctx, e.Object.ID, []jdwp.FieldID{e.Field})
	} else {
		vals, err = d.vm.ReadStatics(ctx, e.RefType, []jdwp.FieldID{e.Field})
	}
	if err == nil {
		cur, _ = d.toExpr(ctx, vals[0])
	}
	show := func(v expr.Value) string {
		vr, err := d.exprVariable(ctx, "", "", v)
		if err != nil {
			return "?"
		}
		return vr.Value
	}
	text := bp.data.desc + " read: " + show(cur)
	if e.Kind == jdwp.EventFieldModification {
		nv, _ := d.toExpr(ctx, e.Value)
		text = fmt.Sprintf("%s = %s (was %s)", bp.data.desc, show(nv), show(cur))
	}
	st := d.hit(ctx, bp, e, text)
	if st != nil {
		st.description = text
	}
	return st
}
