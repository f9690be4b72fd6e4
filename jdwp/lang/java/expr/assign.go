package expr

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Assignment, array creation and class literals: what needs an Env beyond
// reading.

// Place is somewhere a value can be stored: its declared type and how to
// store a value already converted to it.
type Place struct {
	Sig   string
	Store func(ctx context.Context, v Value) error
}

// Assigner is implemented by environments whose variables can be assigned
// (the REPL: x = 5, o.count += 2, a[i]++). Each returns the place a name,
// field or element denotes; a missing one wraps ErrUnknownName.
type Assigner interface {
	// VariablePlace is a simple name: a local, a field of this, a static
	// field of the frame's class.
	VariablePlace(ctx context.Context, name string) (Place, error)
	// FieldPlace is a field of an object.
	FieldPlace(ctx context.Context, obj Value, name string) (Place, error)
	// StaticPlace is a static field of a class.
	StaticPlace(ctx context.Context, class, name string) (Place, error)
	// ElementPlace is an array element.
	ElementPlace(ctx context.Context, arr Value, i int) (Place, error)
}

// ClassObjects is implemented by environments that can produce the
// java.lang.Class of a loaded type (for Type.class).
type ClassObjects interface {
	ClassObject(ctx context.Context, sig string) (Value, error)
}

// ErrNoAssign is wrapped by the error of an assignment in an environment
// that cannot store values.
var ErrNoAssign = errors.New("assignment is not supported here")

func (ev *evaluator) place(ctx context.Context, n Node) (Place, error) {
	if ev.noAssign != "" {
		return Place{}, fail(n, "%v: %s", ErrNoAssign, ev.noAssign)
	}
	a, ok := ev.env.(Assigner)
	if !ok {
		return Place{}, fail(n, "%v", ErrNoAssign)
	}
	var p Place
	var err error
	switch x := n.(type) {
	case *Name:
		if _, bound := ev.binds[x.Name]; bound {
			return Place{}, fail(n, "a pattern variable cannot be assigned here")
		}
		p, err = a.VariablePlace(ctx, x.Name)
	case *Select:
		obj, oerr := ev.eval(ctx, x.X)
		if oerr != nil {
			class, cerr := ev.asClass(ctx, x.X, oerr)
			if cerr != nil {
				return Place{}, cerr
			}
			p, err = a.StaticPlace(ctx, class, x.Name)
			break
		}
		switch {
		case obj.Kind == KindNull:
			return Place{}, fail(n, "NullPointerException: %s is null", x.X)
		case !obj.Kind.IsRef() || obj.Kind == KindString:
			return Place{}, fail(n, "%s has no assignable field %s", obj.TypeName(), x.Name)
		case strings.HasPrefix(obj.Type, "["):
			return Place{}, fail(n, "an array's length cannot be assigned")
		}
		p, err = a.FieldPlace(ctx, obj, x.Name)
	case *Index:
		arr, aerr := ev.eval(ctx, x.X)
		if aerr != nil {
			return Place{}, aerr
		}
		iv, ierr := ev.eval(ctx, x.Index)
		if ierr != nil {
			return Place{}, ierr
		}
		if iv, ierr = ev.unbox(ctx, x.Index, iv); ierr != nil {
			return Place{}, ierr
		}
		if !iv.Kind.IsIntegral() || iv.Kind == KindLong {
			return Place{}, fail(x.Index, "an array index must be an int, not %s", iv.TypeName())
		}
		if arr.Kind == KindNull {
			return Place{}, fail(n, "NullPointerException: %s is null", x.X)
		}
		if !strings.HasPrefix(arr.Type, "[") {
			return Place{}, fail(n, "%s is not an array", x.X)
		}
		length, lerr := ev.env.Length(ctx, arr)
		if lerr != nil {
			return Place{}, wrap(n, lerr)
		}
		if iv.I < 0 || iv.I >= int64(length) {
			return Place{}, fail(n, "ArrayIndexOutOfBoundsException: index %d out of bounds for length %d", iv.I, length)
		}
		p, err = a.ElementPlace(ctx, arr, int(iv.I))
	default:
		return Place{}, fail(n, "only a variable, a field or an array element can be assigned")
	}
	if err != nil {
		return Place{}, wrap(n, err)
	}
	return p, nil
}

// assign evaluates X = Y, X op= Y, X++, ++X: the value is converted to X's
// type (a compound assignment casts, as Java does) and stored; the result is
// the new value, or the old one for X++ and X--.
func (ev *evaluator) assign(ctx context.Context, n *Assign) (Value, error) {
	p, err := ev.place(ctx, n.X)
	if err != nil {
		return Value{}, err
	}
	var old, v Value
	if n.Op != "" || n.Post {
		if old, err = ev.eval(ctx, n.X); err != nil {
			return Value{}, err
		}
	}
	y, err := ev.eval(ctx, n.Y)
	if err != nil {
		return Value{}, err
	}
	if n.Op == "" {
		if v, err = Convert(ctx, ev.env, n.Y, y, p.Sig); err != nil {
			return Value{}, wrap(n, err)
		}
	} else {
		sum, err := ev.binary(ctx, &Binary{Op: n.Op, X: &Lit{At: n.Pos(), Value: old}, Y: &Lit{At: n.Y.Pos(), Value: y}})
		if err != nil {
			return Value{}, wrap(n, err)
		}
		if v, err = ev.castTo(ctx, n, sum, p.Sig); err != nil {
			return Value{}, err
		}
	}
	if err := p.Store(ctx, v); err != nil {
		return Value{}, wrap(n, err)
	}
	if n.Post {
		return old, nil
	}
	return v, nil
}

// castTo converts the result of a compound assignment to the variable's
// type: a primitive cast (boxing back for a boxed variable), or a string
// for String +=.
func (ev *evaluator) castTo(ctx context.Context, n Node, v Value, sig string) (Value, error) {
	if k, prim := sigKinds[sig]; prim {
		u, err := ev.unbox(ctx, n, v)
		if err != nil {
			return Value{}, err
		}
		if k == KindBoolean || u.Kind == KindBoolean {
			if k != u.Kind {
				return Value{}, fail(n, "cannot assign %s to %s", u.TypeName(), javalang.SimpleTypeName(sig))
			}
			return u, nil
		}
		return convert(u, k), nil
	}
	for k, box := range boxSigs {
		if box == sig {
			u, err := ev.unbox(ctx, n, v)
			if err != nil {
				return Value{}, err
			}
			if u.Kind != KindBoolean && k != KindBoolean {
				u = convert(u, k)
			}
			return Convert(ctx, ev.env, n, u, sig)
		}
	}
	return Convert(ctx, ev.env, n, v, sig)
}

// newArray creates new T[n] (elements zero or null) or new T[]{...}.
func (ev *evaluator) newArray(ctx context.Context, n *NewArray) (Value, error) {
	sig, err := ev.resolveType(ctx, n, n.Type)
	if err != nil {
		return Value{}, err
	}
	if n.Init != nil {
		return ev.arrayFrom(ctx, n.Init, sig)
	}
	lv, err := ev.eval(ctx, n.Len)
	if err != nil {
		return Value{}, err
	}
	if lv, err = ev.unbox(ctx, n.Len, lv); err != nil {
		return Value{}, err
	}
	if !lv.Kind.IsIntegral() || lv.Kind == KindLong {
		return Value{}, fail(n.Len, "an array size must be an int, not %s", lv.TypeName())
	}
	if lv.I < 0 {
		return Value{}, fail(n, "NegativeArraySizeException: %d", lv.I)
	}
	if lv.I > maxNewArray {
		return Value{}, fail(n, "an array of %d elements is more than the %d the debugger creates", lv.I, maxNewArray)
	}
	elems := make([]Value, lv.I)
	zero := Null
	if k, prim := sigKinds[sig[1:]]; prim {
		zero = convert(IntValue(0), k)
		if k == KindBoolean {
			zero = BoolValue(false)
		}
	}
	for i := range elems {
		elems[i] = zero
	}
	v, err := ev.env.NewArray(ctx, sig, elems)
	if err != nil {
		return Value{}, wrap(n, err)
	}
	return v, nil
}

// maxNewArray bounds new T[n].
const maxNewArray = 1 << 20

// arrayFrom creates an array of type sig from an initializer.
func (ev *evaluator) arrayFrom(ctx context.Context, init *ArrayInit, sig string) (Value, error) {
	elemSig := sig[1:]
	elems := make([]Value, len(init.Elems))
	for i, e := range init.Elems {
		var v Value
		var err error
		if sub, ok := e.(*ArrayInit); ok {
			if !strings.HasPrefix(elemSig, "[") {
				return Value{}, fail(e, "%s is not an array type", javalang.TypeName(elemSig))
			}
			v, err = ev.arrayFrom(ctx, sub, elemSig)
		} else {
			if v, err = ev.eval(ctx, e); err == nil {
				v, err = Convert(ctx, ev.env, e, v, elemSig)
			}
		}
		if err != nil {
			return Value{}, wrap(e, err)
		}
		elems[i] = v
	}
	v, err := ev.env.NewArray(ctx, sig, elems)
	if err != nil {
		return Value{}, wrap(init, err)
	}
	return v, nil
}

// classLit evaluates Type.class: the Class object of a loaded type, or the
// TYPE of a primitive's wrapper (int.class is Integer.TYPE).
func (ev *evaluator) classLit(ctx context.Context, n *ClassLit) (Value, error) {
	if k, ok := primitiveNames[n.Type]; ok {
		return ev.staticField(ctx, &Select{X: &Name{At: n.At, Name: n.Type}, Name: "TYPE"}, boxSigs[k])
	}
	if n.Type == "void" {
		return ev.staticField(ctx, &Select{X: &Name{At: n.At, Name: "Void"}, Name: "TYPE"}, "Ljava/lang/Void;")
	}
	sig, err := ev.resolveType(ctx, n, n.Type)
	if err != nil {
		return Value{}, err
	}
	co, ok := ev.env.(ClassObjects)
	if !ok {
		return Value{}, fail(n, "class literals are not supported here")
	}
	v, err := co.ClassObject(ctx, sig)
	if err != nil {
		return Value{}, wrap(n, fmt.Errorf("%s: %w", n.Type, err))
	}
	return v, nil
}
