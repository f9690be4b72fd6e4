package dap

import (
	"context"
	"fmt"

	"github.com/ddmbridge/ddmbridge/dap/expr"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// frameEnv is an expr.Env over one frame of a suspended thread: locals from
// the method's variable table, this, fields and statics, all read over JDWP.
type frameEnv struct {
	d      *debuggee
	thread jdwp.ThreadID
	depth  int32
	frame  jdwp.FrameID // 0 until looked up
	loc    jdwp.Location
}

// frameEnv returns an environment for frame depth of thread at loc; frame
// may be 0, and is then looked up when a local or this is needed.
func (d *debuggee) frameEnv(thread jdwp.ThreadID, depth int32, frame jdwp.FrameID, loc jdwp.Location) *frameEnv {
	return &frameEnv{d: d, thread: thread, depth: depth, frame: frame, loc: loc}
}

func (e *frameEnv) frameID(ctx context.Context) (jdwp.FrameID, error) {
	if e.frame != 0 {
		return e.frame, nil
	}
	fs, err := e.d.conn.Frames(ctx, e.thread, e.depth, 1)
	if err != nil {
		return 0, err
	}
	if len(fs) == 0 {
		return 0, fmt.Errorf("thread has no frame %d", e.depth)
	}
	e.frame, e.loc = fs[0].ID, fs[0].Location
	return e.frame, nil
}

// visibleVariables returns the frame's local variables live at its code index.
func (d *debuggee) visibleVariables(ctx context.Context, loc jdwp.Location) ([]jdwp.Variable, bool, error) {
	vt, err := d.variableTable(ctx, loc.Class, loc.Method)
	if err != nil || vt.absent {
		return nil, vt.absent, err
	}
	var out []jdwp.Variable
	for _, v := range vt.Variables {
		if v.Visible(loc.Index) {
			out = append(out, v)
		}
	}
	return out, false, nil
}

func (e *frameEnv) Lookup(ctx context.Context, name string) (expr.Value, error) {
	if _, err := e.frameID(ctx); err != nil {
		return expr.Value{}, err
	}
	vars, _, err := e.d.visibleVariables(ctx, e.loc)
	if err != nil {
		return expr.Value{}, err
	}
	for i := len(vars) - 1; i >= 0; i-- { // the innermost declaration wins
		if v := vars[i]; v.Name == name {
			vals, err := e.d.conn.FrameValues(ctx, e.thread, e.frame, []jdwp.SlotRequest{{Slot: v.Slot, Tag: jdwp.TagForSignature(v.Signature)}})
			if err != nil {
				return expr.Value{}, err
			}
			return e.d.toExpr(ctx, vals[0])
		}
	}
	if this, err := e.This(ctx); err == nil {
		if v, err := e.Field(ctx, this, name); err == nil {
			return v, nil
		}
	}
	chain, err := e.d.fieldChain(ctx, e.loc.Class)
	if err != nil {
		return expr.Value{}, err
	}
	for _, f := range chain {
		if f.Name == name && f.ModBits&jdwp.AccStatic != 0 {
			vals, err := e.d.conn.StaticValues(ctx, f.class, []jdwp.FieldID{f.ID})
			if err != nil {
				return expr.Value{}, err
			}
			return e.d.toExpr(ctx, vals[0])
		}
	}
	return expr.Value{}, fmt.Errorf("%q: %w", name, expr.ErrUnknownName)
}

func (e *frameEnv) This(ctx context.Context) (expr.Value, error) {
	if _, err := e.frameID(ctx); err != nil {
		return expr.Value{}, err
	}
	obj, err := e.d.conn.ThisObject(ctx, e.thread, e.frame)
	if err != nil {
		return expr.Value{}, err
	}
	if obj.ID == 0 {
		return expr.Value{}, fmt.Errorf("there is no this in a static method")
	}
	return e.d.toExpr(ctx, jdwp.Value{Tag: obj.Tag, Bits: uint64(obj.ID)})
}

func (e *frameEnv) Field(ctx context.Context, obj expr.Value, name string) (expr.Value, error) {
	t, _, err := e.d.typeOf(ctx, jdwp.ObjectID(obj.Ref))
	if err != nil {
		return expr.Value{}, err
	}
	chain, err := e.d.fieldChain(ctx, t)
	if err != nil {
		return expr.Value{}, err
	}
	for _, f := range chain {
		if f.Name != name {
			continue
		}
		var vals []jdwp.Value
		if f.ModBits&jdwp.AccStatic != 0 {
			vals, err = e.d.conn.StaticValues(ctx, f.class, []jdwp.FieldID{f.ID})
		} else {
			vals, err = e.d.conn.FieldValues(ctx, jdwp.ObjectID(obj.Ref), []jdwp.FieldID{f.ID})
		}
		if err != nil {
			return expr.Value{}, err
		}
		return e.d.toExpr(ctx, vals[0])
	}
	return expr.Value{}, fmt.Errorf("%s has no field %s", obj.TypeName(), name)
}

func (e *frameEnv) Length(ctx context.Context, arr expr.Value) (int, error) {
	n, err := e.d.conn.ArrayLength(ctx, jdwp.ObjectID(arr.Ref))
	return int(n), err
}

func (e *frameEnv) Element(ctx context.Context, arr expr.Value, i int) (expr.Value, error) {
	vals, err := e.d.conn.ArrayValues(ctx, jdwp.ObjectID(arr.Ref), int32(i), 1)
	if err != nil {
		return expr.Value{}, err
	}
	return e.d.toExpr(ctx, vals[0])
}

func (e *frameEnv) StringOf(ctx context.Context, s expr.Value) (string, error) {
	return e.d.conn.StringValue(ctx, jdwp.ObjectID(s.Ref))
}

// toExpr converts a JDWP value, looking up the runtime type of references.
func (d *debuggee) toExpr(ctx context.Context, v jdwp.Value) (expr.Value, error) {
	switch v.Tag {
	case jdwp.TagBoolean:
		return expr.BoolValue(v.Bool()), nil
	case jdwp.TagByte:
		return expr.ByteValue(int8(v.Bits)), nil
	case jdwp.TagChar:
		return expr.CharValue(uint16(v.Bits)), nil
	case jdwp.TagShort:
		return expr.ShortValue(int16(v.Bits)), nil
	case jdwp.TagInt:
		return expr.IntValue(int32(v.Bits)), nil
	case jdwp.TagLong:
		return expr.LongValue(int64(v.Bits)), nil
	case jdwp.TagFloat:
		return expr.FloatValue(v.Float()), nil
	case jdwp.TagDouble:
		return expr.DoubleValue(v.Double()), nil
	case jdwp.TagVoid:
		return expr.Value{Kind: expr.KindVoid}, nil
	}
	if v.IsNull() {
		return expr.Null, nil
	}
	if v.Tag == jdwp.TagString {
		return expr.ObjectRef(v.Bits, "Ljava/lang/String;"), nil
	}
	_, sig, err := d.typeOf(ctx, v.Object())
	if err != nil {
		return expr.Value{}, err
	}
	return expr.ObjectRef(v.Bits, sig), nil
}
