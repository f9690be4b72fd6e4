package debugger

import (
	"context"
	"fmt"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Data breakpoints watch a field: of one object or static. A front end
// names the field with a DataTarget's ID ("field/<class>/<field>/<object>");
// SetDataBreakpoints sets field access ("read") and modification ("write")
// watchpoints, as the VM can (CanWatchFieldAccess,
// CanWatchFieldModification). A hit stops with reason "data breakpoint" and
// says what happened: "Engine.value = 11 (was 10)".

// DataTarget is the field a data breakpoint watches.
type DataTarget struct {
	Class  jdwp.ReferenceTypeID
	Field  jdwp.FieldID
	Object jdwp.ObjectID // 0 for a static field
	Desc   string        // "Engine.value"
}

// ID is the target's data id.
func (d DataTarget) ID() string { return fmt.Sprintf("field/%d/%d/%d", d.Class, d.Field, d.Object) }

// ParseDataID reads a DataTarget's ID.
func ParseDataID(s string) (DataTarget, error) {
	var d DataTarget
	var c, f, o uint64
	if _, err := fmt.Sscanf(s, "field/%d/%d/%d", &c, &f, &o); err != nil {
		return d, fmt.Errorf("%q is not a data breakpoint id from dataBreakpointInfo", s)
	}
	d.Class, d.Field, d.Object = jdwp.ReferenceTypeID(c), jdwp.FieldID(f), jdwp.ObjectID(o)
	return d, nil
}

// dataTarget is a data breakpoint's field and how it is watched.
type dataTarget struct {
	DataTarget
	access string // read, write or readWrite
}

// DataSpec is one data breakpoint as the user asks for it.
type DataSpec struct {
	DataID string
	Access string // read, write (the default) or readWrite
	BreakpointSpec
}

// AccessTypes are the data breakpoint access types this VM can watch.
func (t *Target) AccessTypes() []string {
	var out []string
	if t.Caps.CanWatchFieldAccess {
		out = append(out, "read")
	}
	if t.Caps.CanWatchFieldModification {
		out = append(out, "write")
	}
	if len(out) == 2 {
		out = append(out, "readWrite")
	}
	return out
}

// SimpleClassName is a class's name without its package ("?" when the VM
// does not say).
func (t *Target) SimpleClassName(ctx context.Context, c jdwp.ReferenceTypeID) string {
	sig, err := t.VM.Signature(ctx, c)
	if err != nil {
		return "?"
	}
	return javalang.SimpleName(javalang.TypeName(sig))
}

// SetDataBreakpoints replaces the data breakpoints.
func (t *Target) SetDataBreakpoints(ctx context.Context, want []DataSpec) []BreakpointInfo {
	t.mu.Lock()
	old := t.bps.dataBPs
	t.bps.dataBPs = nil
	for _, bp := range old {
		for _, id := range bp.reqs {
			delete(t.bps.dataByReq, id)
		}
	}
	t.mu.Unlock()
	for _, bp := range old {
		for i, id := range bp.reqs {
			t.Requests.Clear(ctx, bp.reqKinds[i], id)
		}
	}
	out := make([]BreakpointInfo, 0, len(want))
	for _, w := range want {
		t.mu.Lock()
		bp := t.newBreakpoint(BreakpointSpec{Cond: w.Cond, Hit: w.Hit, Bad: w.Bad}, "data breakpoint")
		t.mu.Unlock()
		target, err := ParseDataID(w.DataID)
		if err != nil && bp.bad == "" {
			bp.bad = err.Error()
		}
		d := &dataTarget{DataTarget: target, access: w.Access}
		if d.access == "" {
			d.access = "write"
		}
		if fs, err := t.VM.DeclaredFields(ctx, d.Class); err == nil {
			for _, f := range fs {
				if f.ID == d.Field {
					d.Desc = t.SimpleClassName(ctx, d.Class) + "." + f.Name
				}
			}
		}
		bp.data = d
		if bp.bad == "" {
			if err := t.watchField(ctx, bp); err != nil {
				bp.bad = err.Error()
			}
		}
		bp.verified = bp.bad == ""
		t.mu.Lock()
		t.bps.dataBPs = append(t.bps.dataBPs, bp)
		t.mu.Unlock()
		out = append(out, bp.info())
	}
	return out
}

// watchField sets the watchpoint requests of a data breakpoint.
func (t *Target) watchField(ctx context.Context, bp *breakpoint) error {
	d := bp.data
	var kinds []jdwp.EventKind
	switch d.access {
	case "read":
		kinds = []jdwp.EventKind{jdwp.EventFieldAccess}
	case "write":
		kinds = []jdwp.EventKind{jdwp.EventFieldModification}
	case "readWrite":
		kinds = []jdwp.EventKind{jdwp.EventFieldAccess, jdwp.EventFieldModification}
	default:
		return fmt.Errorf("unknown access type %q (read, write, readWrite)", d.access)
	}
	for _, k := range kinds {
		if k == jdwp.EventFieldAccess && !t.Caps.CanWatchFieldAccess {
			return fmt.Errorf("this VM cannot watch field reads (CanWatchFieldAccess is false)")
		}
		if k == jdwp.EventFieldModification && !t.Caps.CanWatchFieldModification {
			return fmt.Errorf("this VM cannot watch field writes (CanWatchFieldModification is false)")
		}
		mods := []jdwp.Modifier{jdwp.FieldOnly{Type: d.Class, Field: d.Field}}
		if d.Object != 0 && t.Caps.CanUseInstanceFilters {
			mods = append(mods, jdwp.InstanceOnly(d.Object))
		}
		id, err := t.Requests.Set(ctx, k, stopPolicy, mods...)
		if err != nil {
			return fmt.Errorf("watch %s: %w", d.Desc, err)
		}
		t.mu.Lock()
		bp.reqs = append(bp.reqs, id)
		bp.reqKinds = append(bp.reqKinds, k)
		t.bps.dataByReq[id] = bp
		t.mu.Unlock()
	}
	return nil
}

// onFieldEvent decides whether a watched field's access or modification
// stops.
func (t *Target) onFieldEvent(ctx context.Context, e jdwp.Event) *Stop {
	t.mu.Lock()
	bp := t.bps.dataByReq[e.RequestID]
	t.mu.Unlock()
	if bp == nil || bp.data.Object != 0 && e.Object.ID != bp.data.Object {
		return nil
	}
	var vals []jdwp.Value
	var err error
	if e.Object.ID != 0 {
		vals, err = t.VM.ReadFields(ctx, e.Object.ID, []jdwp.FieldID{e.Field})
	} else {
		vals, err = t.VM.ReadStatics(ctx, e.RefType, []jdwp.FieldID{e.Field})
	}
	cur := "?"
	if err == nil {
		cur = t.fe.ValueText(ctx, vals[0])
	}
	text := bp.data.Desc + " read: " + cur
	if e.Kind == jdwp.EventFieldModification {
		text = fmt.Sprintf("%s = %s (was %s)", bp.data.Desc, t.fe.ValueText(ctx, e.Value), cur)
	}
	st := t.hit(ctx, bp, e, text)
	if st != nil {
		st.Description = text
	}
	return st
}
