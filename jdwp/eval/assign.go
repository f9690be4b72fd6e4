package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// Assignment: to a local variable, a field (of an object or static) or an
// array element. The new value is a Java expression evaluated in the frame,
// converted to the variable's type as an assignment converts
// (expr.Convert): "42" into a long, 'c' into a char, "text" into a String
// (a new String in the VM), 7 into an Integer.

// LValue is something a value can be stored into.
type LValue struct {
	what   string // for messages: "local x", "field Node.count", "element [3]"
	sig    string // its declared type
	set    func(ctx context.Context, v jdwp.Value) error
	refuse error // why it cannot be assigned at all (a final field), checked before the value is evaluated
}

// errFinalField is JDI's refusal to set a final field, static or not
// (ReferenceTypeImpl.validateFieldSet: IllegalArgumentException "Cannot set
// value of final field"); the VM's JDWP agent would store it.
var errFinalField = errors.New("cannot set value of final field")

// LocalLV is the frame's visible local variable called name; ok is false
// when there is none.
func (e *Frame) LocalLV(ctx context.Context, name string) (lv LValue, ok bool, err error) {
	v, ok, err := e.Local(ctx, name)
	if err != nil || !ok {
		return LValue{}, false, err
	}
	return LValue{what: "local " + name, sig: v.Signature, set: func(ctx context.Context, val jdwp.Value) error {
		if _, err := e.FrameID(ctx); err != nil {
			return err
		}
		return e.ev.vm.SetLocal(ctx, e.f, v, val)
	}}, true, nil
}

// FieldLV is field f of obj (0 for a static field).
func (ev *Evaluator) FieldLV(ctx context.Context, obj jdwp.ObjectID, f mirror.Field) LValue {
	owner := "?"
	if sig, err := ev.vm.Signature(ctx, f.Class); err == nil {
		owner = javalang.SimpleTypeName(sig)
	}
	lv := LValue{what: "field " + owner + "." + f.Name, sig: f.Signature, set: func(ctx context.Context, val jdwp.Value) error {
		return ev.vm.Write(ctx, obj, f, val)
	}}
	if f.ModBits&jdwp.AccFinal != 0 {
		lv.refuse = fmt.Errorf("%w %s.%s: Java and JDI assign no final field", errFinalField, owner, f.Name)
	}
	return lv
}

// ElementLV is element i of array arr, of type arraySig.
func (ev *Evaluator) ElementLV(arr jdwp.ObjectID, arraySig string, i int) LValue {
	return LValue{what: fmt.Sprintf("element [%d]", i), sig: arraySig[1:], set: func(ctx context.Context, val jdwp.Value) error {
		return ev.vm.SetElements(ctx, arr, i, []jdwp.Value{val})
	}}
}

// Assign evaluates src in env, converts it to lv's type and stores it.
func Assign(ctx context.Context, env expr.Env, lv LValue, src string) (expr.Value, error) {
	if lv.refuse != nil {
		return expr.Value{}, lv.refuse
	}
	n, err := expr.Parse(src)
	if err != nil {
		return expr.Value{}, err
	}
	v, err := expr.Eval(ctx, n, env)
	if err != nil {
		return expr.Value{}, err
	}
	conv, err := expr.Convert(ctx, env, n, v, lv.sig)
	if err != nil {
		return expr.Value{}, fmt.Errorf("%s (%s): %w", lv.what, javalang.SimpleTypeName(lv.sig), err)
	}
	jv := ToJDWP(conv)
	if javalang.IsPrimitive(lv.sig) {
		jv.Tag = jdwp.TagForSignature(lv.sig)
	}
	if err := lv.set(ctx, jv); err != nil {
		return expr.Value{}, fmt.Errorf("set %s: %w", lv.what, err)
	}
	return conv, nil
}

// LV resolves an assignable expression: a local or a field by simple name,
// obj.field, Class.staticField, arr[i].
func (e *Frame) LV(ctx context.Context, src string) (LValue, error) {
	ev := e.ev
	n, err := expr.Parse(src)
	if err != nil {
		return LValue{}, err
	}
	switch n := n.(type) {
	case *expr.Name:
		if lv, ok, err := e.LocalLV(ctx, n.Name); err != nil || ok {
			return lv, err
		}
		if this, err := e.This(ctx); err == nil {
			if lv, ok, err := ev.objectFieldLV(ctx, this, n.Name); err != nil || ok {
				return lv, err
			}
		}
		if f, ok, err := ev.vm.FindField(ctx, e.f.Loc.Class, n.Name); err != nil || ok && f.ModBits&jdwp.AccStatic != 0 {
			return ev.FieldLV(ctx, 0, f), err
		}
		return LValue{}, fmt.Errorf("no local variable or field %s", n.Name)
	case *expr.Select:
		x, err := expr.Eval(ctx, n.X, ev.Env(ctx, e))
		if err == nil {
			if x.Kind != expr.KindObject {
				return LValue{}, fmt.Errorf("%s is not an object with fields", n.X)
			}
			lv, ok, err := ev.objectFieldLV(ctx, x, n.Name)
			if err == nil && !ok {
				err = fmt.Errorf("%s has no field %s", x.TypeName(), n.Name)
			}
			return lv, err
		}
		if !errors.Is(err, expr.ErrUnknownName) {
			return LValue{}, err
		}
		class, cerr := e.Class(ctx, n.X.String())
		if cerr != nil {
			return LValue{}, err
		}
		t, err := ev.vm.ClassBySignature(ctx, class)
		if err != nil {
			return LValue{}, err
		}
		f, ok, err := ev.vm.FindField(ctx, t, n.Name)
		if err != nil {
			return LValue{}, err
		}
		if !ok || f.ModBits&jdwp.AccStatic == 0 {
			return LValue{}, fmt.Errorf("%s has no static field %s", n.X, n.Name)
		}
		return ev.FieldLV(ctx, 0, f), nil
	case *expr.Index:
		arr, err := expr.Eval(ctx, n.X, ev.Env(ctx, e))
		if err != nil {
			return LValue{}, err
		}
		idx, err := expr.Eval(ctx, n.Index, ev.Env(ctx, e))
		if err != nil {
			return LValue{}, err
		}
		if arr.Kind != expr.KindObject || !strings.HasPrefix(arr.Type, "[") {
			return LValue{}, fmt.Errorf("%s is not an array", n.X)
		}
		if !idx.Kind.IsIntegral() || idx.Kind == expr.KindLong {
			return LValue{}, fmt.Errorf("the index %s is not an int", n.Index)
		}
		l, err := ev.vm.ArrayLength(ctx, jdwp.ObjectID(arr.Ref))
		if err != nil {
			return LValue{}, err
		}
		if idx.I < 0 || idx.I >= int64(l) {
			return LValue{}, fmt.Errorf("ArrayIndexOutOfBoundsException: index %d out of bounds for length %d", idx.I, l)
		}
		return ev.ElementLV(jdwp.ObjectID(arr.Ref), arr.Type, int(idx.I)), nil
	}
	return LValue{}, fmt.Errorf("only a variable, a field or an array element can be assigned, not %s", n)
}

// objectFieldLV finds field name of an object.
func (ev *Evaluator) objectFieldLV(ctx context.Context, obj expr.Value, name string) (LValue, bool, error) {
	t, _, err := ev.vm.ObjectType(ctx, jdwp.ObjectID(obj.Ref))
	if err != nil {
		return LValue{}, false, err
	}
	f, ok, err := ev.vm.FindField(ctx, t, name)
	if err != nil || !ok {
		return LValue{}, false, err
	}
	return ev.FieldLV(ctx, jdwp.ObjectID(obj.Ref), f), true, nil
}

// ---- expr.Assigner and expr.ClassObjects: assignment and class literals in expressions ----

// place turns an lvalue into an expression's assignable place.
func (e *Frame) place(lv LValue) (expr.Place, error) {
	if lv.refuse != nil {
		return expr.Place{}, lv.refuse
	}
	return expr.Place{Sig: lv.sig, Store: func(ctx context.Context, v expr.Value) error {
		jv := ToJDWP(v)
		if javalang.IsPrimitive(lv.sig) {
			jv.Tag = jdwp.TagForSignature(lv.sig)
		}
		return lv.set(ctx, jv)
	}}, nil
}

func (e *Frame) canAssign() error {
	if e.noInvoke != "" {
		return fmt.Errorf("%w: %s", expr.ErrNoAssign, strings.Replace(e.noInvoke, "run methods", "assign", 1))
	}
	return nil
}

func (e *Frame) VariablePlace(ctx context.Context, name string) (expr.Place, error) {
	if err := e.canAssign(); err != nil {
		return expr.Place{}, err
	}
	lv, ok, err := e.LocalLV(ctx, name)
	if err != nil {
		return expr.Place{}, err
	}
	if ok {
		return e.place(lv)
	}
	if this, err := e.This(ctx); err == nil {
		if p, err := e.FieldPlace(ctx, this, name); err == nil || errors.Is(err, errFinalField) {
			return p, err
		}
	}
	sig, err := e.FrameClass(ctx)
	if err != nil {
		return expr.Place{}, err
	}
	return e.StaticPlace(ctx, sig, name)
}

func (e *Frame) FieldPlace(ctx context.Context, obj expr.Value, name string) (expr.Place, error) {
	if err := e.canAssign(); err != nil {
		return expr.Place{}, err
	}
	t, _, err := e.ev.vm.ObjectType(ctx, jdwp.ObjectID(obj.Ref))
	if err != nil {
		return expr.Place{}, err
	}
	f, ok, err := e.ev.vm.FindField(ctx, t, name)
	if err != nil {
		return expr.Place{}, err
	}
	if !ok {
		return expr.Place{}, fmt.Errorf("%s has no field %s: %w", obj.TypeName(), name, expr.ErrUnknownName)
	}
	return e.place(e.ev.FieldLV(ctx, jdwp.ObjectID(obj.Ref), f))
}

func (e *Frame) StaticPlace(ctx context.Context, class, name string) (expr.Place, error) {
	if err := e.canAssign(); err != nil {
		return expr.Place{}, err
	}
	t, err := e.ev.vm.ClassBySignature(ctx, class)
	if err != nil {
		return expr.Place{}, err
	}
	f, ok, err := e.ev.vm.FindField(ctx, t, name)
	if err != nil {
		return expr.Place{}, err
	}
	if !ok || f.ModBits&jdwp.AccStatic == 0 {
		return expr.Place{}, fmt.Errorf("%s has no static field %s: %w", javalang.TypeName(class), name, expr.ErrUnknownName)
	}
	return e.place(e.ev.FieldLV(ctx, 0, f))
}

func (e *Frame) ElementPlace(ctx context.Context, arr expr.Value, i int) (expr.Place, error) {
	if err := e.canAssign(); err != nil {
		return expr.Place{}, err
	}
	return e.place(e.ev.ElementLV(jdwp.ObjectID(arr.Ref), arr.Type, i))
}

// ClassObject is the java.lang.Class of a loaded type.
func (e *Frame) ClassObject(ctx context.Context, sig string) (expr.Value, error) {
	t, err := e.ev.vm.ClassBySignature(ctx, sig)
	if err != nil {
		return expr.Value{}, err
	}
	id, err := e.ev.vm.ClassObject(ctx, t)
	if err != nil {
		return expr.Value{}, err
	}
	return expr.ObjectRef(uint64(id), "Ljava/lang/Class;"), nil
}
