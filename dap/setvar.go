package dap

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ddmbridge/ddmbridge/dap/expr"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	godap "github.com/google/go-dap"
)

// setVariable and setExpression: assign to a local variable, a field (of an
// object or static) or an array element. The new value is a Java
// expression evaluated in the frame, converted to the variable's type as an
// assignment converts (expr.Convert): "42" into a long, 'c' into a char,
// "text" into a String (a new String in the VM), 7 into an Integer.

// lvalue is something a value can be stored into.
type lvalue struct {
	what   string // for messages: "local x", "field Node.count", "element [3]"
	sig    string // its declared type
	set    func(ctx context.Context, v jdwp.Value) error
	refuse error // why it cannot be assigned at all (a final field), checked before the value is evaluated
}

// errFinalField is JDI's refusal to set a final field, static or not
// (ReferenceTypeImpl.validateFieldSet: IllegalArgumentException "Cannot set
// value of final field"); the VM's JDWP agent would store it.
var errFinalField = errors.New("cannot set value of final field")

func (d *debuggee) localLV(ctx context.Context, env *frameEnv, name string) (lvalue, bool, error) {
	v, ok, err := env.local(ctx, name)
	if err != nil || !ok {
		return lvalue{}, false, err
	}
	return lvalue{what: "local " + name, sig: v.Signature, set: func(ctx context.Context, val jdwp.Value) error {
		if _, err := env.frameID(ctx); err != nil {
			return err
		}
		return d.vm.SetLocal(ctx, env.f, v, val)
	}}, true, nil
}

func (d *debuggee) fieldLV(ctx context.Context, obj jdwp.ObjectID, f mirror.Field) lvalue {
	owner := "?"
	if sig, err := d.vm.Signature(ctx, f.Class); err == nil {
		owner = simpleName(javalang.TypeName(sig))
	}
	lv := lvalue{what: "field " + owner + "." + f.Name, sig: f.Signature, set: func(ctx context.Context, val jdwp.Value) error {
		return d.vm.Write(ctx, obj, f, val)
	}}
	if f.ModBits&jdwp.AccFinal != 0 {
		lv.refuse = fmt.Errorf("%w %s.%s: Java and JDI assign no final field", errFinalField, owner, f.Name)
	}
	return lv
}

func (d *debuggee) elementLV(arr jdwp.ObjectID, arraySig string, i int) lvalue {
	return lvalue{what: fmt.Sprintf("element [%d]", i), sig: arraySig[1:], set: func(ctx context.Context, val jdwp.Value) error {
		return d.vm.SetElements(ctx, arr, i, []jdwp.Value{val})
	}}
}

// assign evaluates src in env, converts it to lv's type and stores it.
func (d *debuggee) assign(ctx context.Context, env expr.Env, lv lvalue, src string) (expr.Value, error) {
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
	jv := toJDWP(conv)
	if javalang.IsPrimitive(lv.sig) {
		jv.Tag = jdwp.TagForSignature(lv.sig)
	}
	if err := lv.set(ctx, jv); err != nil {
		return expr.Value{}, fmt.Errorf("set %s: %w", lv.what, err)
	}
	return conv, nil
}

// stoppedEnv is an environment in the top frame of the thread the VM
// stopped in, for values assigned to object fields and array elements.
func (d *debuggee) stoppedEnv(ctx context.Context) (*frameEnv, error) {
	t, _, _ := d.stops.Latest()
	if t == 0 {
		return nil, errors.New("no thread is stopped at an event")
	}
	env := d.frameEnv(t, 0, 0, jdwp.Location{})
	_, err := env.frameID(ctx)
	return env, err
}

// containerLV finds the variable called name in a variables container.
func (d *debuggee) containerLV(ctx context.Context, c container, name string) (lvalue, *frameEnv, error) {
	switch c := c.(type) {
	case *localsScope:
		env := d.envFor(c.f)
		if name == "this" {
			return lvalue{}, nil, errors.New("this cannot be assigned")
		}
		lv, ok, err := d.localLV(ctx, env, name)
		if err != nil {
			return lvalue{}, nil, err
		}
		if !ok {
			return lvalue{}, nil, fmt.Errorf("no local variable %s is visible here", name)
		}
		return lv, env, nil
	case *staticsScope:
		fs, err := d.vm.DeclaredFields(ctx, c.class)
		if err != nil {
			return lvalue{}, nil, err
		}
		for _, f := range fs {
			if f.Name == name && f.ModBits&jdwp.AccStatic != 0 {
				env, err := d.stoppedEnv(ctx)
				return d.fieldLV(ctx, 0, mirror.Field{FieldInfo: f, Class: c.class}), env, err
			}
		}
		return lvalue{}, nil, fmt.Errorf("no static field %s", name)
	case *objectVars:
		field, owner, _ := strings.Cut(name, " (")
		owner = strings.TrimSuffix(owner, ")")
		chain, err := d.vm.FieldChain(ctx, c.class)
		if err != nil {
			return lvalue{}, nil, err
		}
		for _, f := range chain {
			if f.Name != field {
				continue
			}
			if owner != "" {
				sig, _ := d.vm.Signature(ctx, f.Class)
				if simpleName(javalang.TypeName(sig)) != owner {
					continue
				}
			}
			env, err := d.stoppedEnv(ctx)
			return d.fieldLV(ctx, c.obj, f), env, err
		}
		return lvalue{}, nil, fmt.Errorf("the object has no field %s", name)
	case *arrayVars:
		i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]"))
		if err != nil || i < 0 || i >= c.length {
			return lvalue{}, nil, fmt.Errorf("%s is not an element of the array of length %d", name, c.length)
		}
		env, err := d.stoppedEnv(ctx)
		return d.elementLV(c.arr, c.sig, i), env, err
	}
	return lvalue{}, nil, fmt.Errorf("variables of this kind cannot be set")
}

func (s *session) setVariable(ctx context.Context, r *godap.SetVariableRequest) (godap.SetVariableResponseBody, error) {
	d := s.dbg
	ctx = withHex(ctx, r.Arguments.Format)
	c, ok := d.refs.vars.get(r.Arguments.VariablesReference)
	if !ok {
		return godap.SetVariableResponseBody{}, fmt.Errorf("unknown reference %d (references are forgotten when the VM resumes)", r.Arguments.VariablesReference)
	}
	lv, env, err := d.containerLV(ctx, c, r.Arguments.Name)
	if err != nil {
		return godap.SetVariableResponseBody{}, asIs(fmt.Errorf("setVariable %s: %w", r.Arguments.Name, err))
	}
	v, err := d.assign(ctx, d.evalEnv(ctx, env), lv, r.Arguments.Value)
	if err != nil {
		return godap.SetVariableResponseBody{}, asIs(fmt.Errorf("setVariable %s: %w", r.Arguments.Name, err))
	}
	vr, err := d.exprVariable(ctx, r.Arguments.Name, "", v)
	if err != nil {
		return godap.SetVariableResponseBody{}, asIs(err)
	}
	return godap.SetVariableResponseBody{
		Value: vr.Value, Type: vr.Type, VariablesReference: vr.VariablesReference, IndexedVariables: vr.IndexedVariables,
	}, nil
}

// setExpression assigns to an expression that names a variable: a
// local or a field by simple name, obj.field, Class.staticField, arr[i].
func (s *session) setExpression(ctx context.Context, r *godap.SetExpressionRequest) (godap.SetExpressionResponseBody, error) {
	d := s.dbg
	ctx = withHex(ctx, r.Arguments.Format)
	env, err := d.requestEnv(ctx, r.Arguments.FrameId)
	if err != nil {
		return godap.SetExpressionResponseBody{}, err
	}
	lv, err := d.exprLV(ctx, env, r.Arguments.Expression)
	if err != nil {
		return godap.SetExpressionResponseBody{}, asIs(fmt.Errorf("setExpression %s: %w", r.Arguments.Expression, err))
	}
	v, err := d.assign(ctx, d.evalEnv(ctx, env), lv, r.Arguments.Value)
	if err != nil {
		return godap.SetExpressionResponseBody{}, asIs(fmt.Errorf("setExpression %s: %w", r.Arguments.Expression, err))
	}
	vr, err := d.exprVariable(ctx, "", r.Arguments.Expression, v)
	if err != nil {
		return godap.SetExpressionResponseBody{}, asIs(err)
	}
	return godap.SetExpressionResponseBody{
		Value: vr.Value, Type: vr.Type, VariablesReference: vr.VariablesReference, IndexedVariables: vr.IndexedVariables,
	}, nil
}

// exprLV resolves an assignable expression.
func (d *debuggee) exprLV(ctx context.Context, env *frameEnv, src string) (lvalue, error) {
	n, err := expr.Parse(src)
	if err != nil {
		return lvalue{}, err
	}
	switch n := n.(type) {
	case *expr.Name:
		if lv, ok, err := d.localLV(ctx, env, n.Name); err != nil || ok {
			return lv, err
		}
		if this, err := env.This(ctx); err == nil {
			if lv, ok, err := d.objectFieldLV(ctx, this, n.Name); err != nil || ok {
				return lv, err
			}
		}
		if f, ok, err := d.vm.FindField(ctx, env.f.Loc.Class, n.Name); err != nil || ok && f.ModBits&jdwp.AccStatic != 0 {
			return d.fieldLV(ctx, 0, f), err
		}
		return lvalue{}, fmt.Errorf("no local variable or field %s", n.Name)
	case *expr.Select:
		x, err := expr.Eval(ctx, n.X, d.evalEnv(ctx, env))
		if err == nil {
			if x.Kind != expr.KindObject {
				return lvalue{}, fmt.Errorf("%s is not an object with fields", n.X)
			}
			lv, ok, err := d.objectFieldLV(ctx, x, n.Name)
			if err == nil && !ok {
				err = fmt.Errorf("%s has no field %s", x.TypeName(), n.Name)
			}
			return lv, err
		}
		if !errors.Is(err, expr.ErrUnknownName) {
			return lvalue{}, err
		}
		class, cerr := env.Class(ctx, n.X.String())
		if cerr != nil {
			return lvalue{}, err
		}
		t, err := d.vm.ClassBySignature(ctx, class)
		if err != nil {
			return lvalue{}, err
		}
		f, ok, err := d.vm.FindField(ctx, t, n.Name)
		if err != nil {
			return lvalue{}, err
		}
		if !ok || f.ModBits&jdwp.AccStatic == 0 {
			return lvalue{}, fmt.Errorf("%s has no static field %s", n.X, n.Name)
		}
		return d.fieldLV(ctx, 0, f), nil
	case *expr.Index:
		arr, err := expr.Eval(ctx, n.X, d.evalEnv(ctx, env))
		if err != nil {
			return lvalue{}, err
		}
		idx, err := expr.Eval(ctx, n.Index, d.evalEnv(ctx, env))
		if err != nil {
			return lvalue{}, err
		}
		if arr.Kind != expr.KindObject || !strings.HasPrefix(arr.Type, "[") {
			return lvalue{}, fmt.Errorf("%s is not an array", n.X)
		}
		if !idx.Kind.IsIntegral() || idx.Kind == expr.KindLong {
			return lvalue{}, fmt.Errorf("the index %s is not an int", n.Index)
		}
		l, err := d.vm.ArrayLength(ctx, jdwp.ObjectID(arr.Ref))
		if err != nil {
			return lvalue{}, err
		}
		if idx.I < 0 || idx.I >= int64(l) {
			return lvalue{}, fmt.Errorf("ArrayIndexOutOfBoundsException: index %d out of bounds for length %d", idx.I, l)
		}
		return d.elementLV(jdwp.ObjectID(arr.Ref), arr.Type, int(idx.I)), nil
	}
	return lvalue{}, fmt.Errorf("only a variable, a field or an array element can be assigned, not %s", n)
}

// objectFieldLV finds field name of an object.
func (d *debuggee) objectFieldLV(ctx context.Context, obj expr.Value, name string) (lvalue, bool, error) {
	t, _, err := d.vm.ObjectType(ctx, jdwp.ObjectID(obj.Ref))
	if err != nil {
		return lvalue{}, false, err
	}
	f, ok, err := d.vm.FindField(ctx, t, name)
	if err != nil || !ok {
		return lvalue{}, false, err
	}
	return d.fieldLV(ctx, jdwp.ObjectID(obj.Ref), f), true, nil
}

// ---- expr.Assigner and expr.ClassObjects: assignment and class literals in expressions ----

// place turns an lvalue into an expression's assignable place.
func (e *frameEnv) place(lv lvalue) (expr.Place, error) {
	if lv.refuse != nil {
		return expr.Place{}, lv.refuse
	}
	return expr.Place{Sig: lv.sig, Store: func(ctx context.Context, v expr.Value) error {
		jv := toJDWP(v)
		if javalang.IsPrimitive(lv.sig) {
			jv.Tag = jdwp.TagForSignature(lv.sig)
		}
		return lv.set(ctx, jv)
	}}, nil
}

func (e *frameEnv) canAssign() error {
	if e.noInvoke != "" {
		return fmt.Errorf("%w: %s", expr.ErrNoAssign, strings.Replace(e.noInvoke, "run methods", "assign", 1))
	}
	return nil
}

func (e *frameEnv) VariablePlace(ctx context.Context, name string) (expr.Place, error) {
	if err := e.canAssign(); err != nil {
		return expr.Place{}, err
	}
	lv, ok, err := e.d.localLV(ctx, e, name)
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

func (e *frameEnv) FieldPlace(ctx context.Context, obj expr.Value, name string) (expr.Place, error) {
	if err := e.canAssign(); err != nil {
		return expr.Place{}, err
	}
	t, _, err := e.d.vm.ObjectType(ctx, jdwp.ObjectID(obj.Ref))
	if err != nil {
		return expr.Place{}, err
	}
	f, ok, err := e.d.vm.FindField(ctx, t, name)
	if err != nil {
		return expr.Place{}, err
	}
	if !ok {
		return expr.Place{}, fmt.Errorf("%s has no field %s: %w", obj.TypeName(), name, expr.ErrUnknownName)
	}
	return e.place(e.d.fieldLV(ctx, jdwp.ObjectID(obj.Ref), f))
}

func (e *frameEnv) StaticPlace(ctx context.Context, class, name string) (expr.Place, error) {
	if err := e.canAssign(); err != nil {
		return expr.Place{}, err
	}
	t, err := e.d.vm.ClassBySignature(ctx, class)
	if err != nil {
		return expr.Place{}, err
	}
	f, ok, err := e.d.vm.FindField(ctx, t, name)
	if err != nil {
		return expr.Place{}, err
	}
	if !ok || f.ModBits&jdwp.AccStatic == 0 {
		return expr.Place{}, fmt.Errorf("%s has no static field %s: %w", javalang.TypeName(class), name, expr.ErrUnknownName)
	}
	return e.place(e.d.fieldLV(ctx, 0, f))
}

func (e *frameEnv) ElementPlace(ctx context.Context, arr expr.Value, i int) (expr.Place, error) {
	if err := e.canAssign(); err != nil {
		return expr.Place{}, err
	}
	return e.place(e.d.elementLV(jdwp.ObjectID(arr.Ref), arr.Type, i))
}

// ClassObject is the java.lang.Class of a loaded type.
func (e *frameEnv) ClassObject(ctx context.Context, sig string) (expr.Value, error) {
	t, err := e.d.vm.ClassBySignature(ctx, sig)
	if err != nil {
		return expr.Value{}, err
	}
	id, err := e.d.vm.ClassObject(ctx, t)
	if err != nil {
		return expr.Value{}, err
	}
	return expr.ObjectRef(uint64(id), "Ljava/lang/Class;"), nil
}
