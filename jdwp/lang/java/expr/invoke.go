package expr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf16"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Method calls, constructors, overload resolution (JLS 15.12.2) and the
// conversions of arguments and assigned values.

func (ev *evaluator) evalArgs(ctx context.Context, nodes []Node) ([]Value, error) {
	args := make([]Value, len(nodes))
	for i, a := range nodes {
		switch a.(type) {
		case *Lambda, *MethodRef:
			f, err := ev.function(ctx, a)
			if err != nil {
				return nil, err
			}
			args[i] = f
			continue
		}
		v, err := ev.eval(ctx, a)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	return args, nil
}

func (ev *evaluator) call(ctx context.Context, n *Call) (Value, error) {
	switch fun := n.Fun.(type) {
	case *Name:
		// Unqualified: a method of this's class, or a static method of the
		// frame's class in a static frame.
		this, err := ev.env.This(ctx)
		if err == nil {
			if class, ok, err := ev.staticImport(ctx, typeSig(this), fun.Name); ok || err != nil {
				if err != nil {
					return Value{}, wrap(n, err)
				}
				return ev.callIn(ctx, n, class, fun.Name, Null, "it is imported static")
			}
			return ev.callIn(ctx, n, typeSig(this), fun.Name, this, "")
		}
		class, err := ev.env.FrameClass(ctx)
		if err != nil {
			return Value{}, wrap(n, err)
		}
		if imported, ok, err := ev.staticImport(ctx, class, fun.Name); ok || err != nil {
			if err != nil {
				return Value{}, wrap(n, err)
			}
			class = imported
		}
		return ev.callIn(ctx, n, class, fun.Name, Null, "the frame is static (there is no this)")
	case *Select:
		recv, err := ev.eval(ctx, fun.X)
		if err != nil {
			class, err := ev.asClass(ctx, fun.X, err)
			if err != nil {
				return Value{}, err
			}
			return ev.callIn(ctx, n, class, fun.Name, Null, "call it on an object")
		}
		args, err := ev.evalArgs(ctx, n.Args)
		if err != nil {
			return Value{}, err
		}
		return ev.callOn(ctx, n, fun, recv, args)
	}
	return Value{}, fail(n, "only a named method can be called")
}

// callIn calls a method of class on this (Null for a static context, where
// noThis says why an instance method cannot be called).
func (ev *evaluator) callIn(ctx context.Context, n *Call, class, name string, this Value, noThis string) (Value, error) {
	args, err := ev.evalArgs(ctx, n.Args)
	if err != nil {
		return Value{}, err
	}
	m, err := ev.choose(ctx, n, class, name, args)
	if err != nil {
		return Value{}, err
	}
	if !m.Static && this.Kind == KindNull {
		return Value{}, fail(n, "%s is an instance method; %s", m, noThis)
	}
	return ev.invoke(ctx, n, this, m, args)
}

// callOn calls a method on a value: String's simple methods are answered in
// Go, everything else runs in the VM.
func (ev *evaluator) callOn(ctx context.Context, n *Call, fun *Select, recv Value, args []Value) (Value, error) {
	switch {
	case recv.Kind == KindNull:
		return Value{}, fail(n, "NullPointerException: %s is null", fun.X)
	case !recv.Kind.IsRef():
		return Value{}, fail(n, "%s is a %s, which has no methods", fun.X, recv.Kind)
	case recv.Kind == KindString:
		if v, ok, err := ev.stringMethod(ctx, n, fun, recv, args); ok || err != nil {
			return v, err
		}
	}
	m, err := ev.choose(ctx, n, typeSig(recv), fun.Name, args)
	if err != nil {
		return Value{}, err
	}
	return ev.invoke(ctx, n, recv, m, args)
}

// invokeNamed calls recv.name(args) in the VM.
func (ev *evaluator) invokeNamed(ctx context.Context, n Node, recv Value, name string, args []Value) (Value, error) {
	m, err := ev.choose(ctx, n, typeSig(recv), name, args)
	if err != nil {
		return Value{}, err
	}
	return ev.invoke(ctx, n, recv, m, args)
}

// invoke converts the arguments to m's parameter types and runs m.
func (ev *evaluator) invoke(ctx context.Context, n Node, recv Value, m Method, args []Value) (Value, error) {
	conv, err := ev.convertArgs(ctx, n, m, args)
	if err != nil {
		return Value{}, err
	}
	if recv.Kind == KindString && recv.Ref == 0 && !m.Static {
		if recv, err = ev.env.NewString(ctx, recv.Str); err != nil {
			return Value{}, wrap(n, err)
		}
	}
	var v Value
	if m.Name == "<init>" {
		v, err = ev.env.New(ctx, m, conv)
	} else {
		v, err = ev.env.Invoke(ctx, recv, m, conv)
	}
	if err != nil {
		return Value{}, wrap(n, err)
	}
	return v, nil
}

func (ev *evaluator) newObject(ctx context.Context, n *New) (Value, error) {
	class, err := ev.resolveType(ctx, n, n.Type)
	if err != nil {
		return Value{}, err
	}
	if javalang.IsPrimitive(class) {
		return Value{}, fail(n, "%s is a primitive type", n.Type)
	}
	args, err := ev.evalArgs(ctx, n.Args)
	if err != nil {
		return Value{}, err
	}
	m, err := ev.choose(ctx, n, class, "<init>", args)
	if err != nil {
		return Value{}, err
	}
	return ev.invoke(ctx, n, Null, m, args)
}

// choose resolves an overloaded method by its arguments' runtime types, as
// JLS 15.12.2 does with static types: strict invocation first (no boxing),
// then loose (boxing), then variable arity; among the applicable methods the
// most specific wins, and several maximally specific ones are ambiguous.
func (ev *evaluator) choose(ctx context.Context, n Node, class, name string, args []Value) (Method, error) {
	ms, err := ev.env.Methods(ctx, class, name)
	if err != nil {
		return Method{}, wrap(n, err)
	}
	what := javalang.SimpleTypeName(class) + "." + name
	if name == "<init>" {
		what = "new " + javalang.SimpleTypeName(class)
	}
	if len(ms) == 0 {
		if name == "<init>" {
			return Method{}, fail(n, "%s has no constructor (is it an interface or abstract?)", javalang.TypeName(class))
		}
		return Method{}, fail(n, "%s has no method %s", javalang.TypeName(class), name)
	}
	for phase := 1; phase <= 3; phase++ {
		var cands []Method
		for _, m := range ms {
			ok, err := ev.applicable(ctx, m, args, phase)
			if err != nil {
				return Method{}, wrap(n, err)
			}
			if ok {
				cands = append(cands, m)
			}
		}
		if len(cands) == 0 {
			continue
		}
		return ev.mostSpecific(ctx, n, cands)
	}
	types := make([]string, len(args))
	for i, a := range args {
		types[i] = javalang.SimpleTypeName(typeSig(a))
		switch {
		case a.Kind == KindNull:
			types[i] = "null"
		case a.Fn != nil:
			types[i] = a.Fn.What()
		}
	}
	var have []string
	for _, m := range ms {
		have = append(have, m.String())
	}
	return Method{}, fail(n, "no %s(%s) matches the arguments; there is %s", what, strings.Join(types, ", "), strings.Join(have, ", "))
}

// applicable reports whether m accepts args in a phase (1 strict, 2 loose, 3 varargs).
func (ev *evaluator) applicable(ctx context.Context, m Method, args []Value, phase int) (bool, error) {
	params, _ := javalang.ParamSigs(m.Signature)
	if phase < 3 {
		if len(params) != len(args) {
			return false, nil
		}
		for i, a := range args {
			if ok, err := ev.assignable(ctx, a, params[i], phase == 2); err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	}
	if !m.Varargs || len(params) == 0 || len(args) < len(params)-1 {
		return false, nil
	}
	last := len(params) - 1
	for i := 0; i < last; i++ {
		if ok, err := ev.assignable(ctx, args[i], params[i], true); err != nil || !ok {
			return false, err
		}
	}
	elem := arrayElem(params[last])
	for _, a := range args[last:] {
		if ok, err := ev.assignable(ctx, a, elem, true); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// assignable reports whether v converts to type param in an invocation
// context; loose allows boxing and unboxing.
func (ev *evaluator) assignable(ctx context.Context, v Value, param string, loose bool) (bool, error) {
	if v.Fn != nil {
		return ev.functional(ctx, v.Fn, param)
	}
	if pk, prim := sigKinds[param]; prim {
		k := v.Kind
		if k == KindObject && loose {
			if bk, ok := boxes[v.Type]; ok {
				k = bk
			}
		}
		return !k.IsRef() && k != KindVoid && widens(k, pk), nil
	}
	switch {
	case v.Kind == KindNull:
		return true, nil
	case v.Kind == KindVoid:
		return false, nil
	case !v.Kind.IsRef():
		if !loose {
			return false, nil
		}
		return ev.env.Subtype(ctx, boxSigs[v.Kind], param)
	}
	return ev.env.Subtype(ctx, typeSig(v), param)
}

// mostSpecific picks the method whose parameter types are all subtypes of
// every other candidate's.
func (ev *evaluator) mostSpecific(ctx context.Context, n Node, cands []Method) (Method, error) {
	var best []Method
	for _, a := range cands {
		all := true
		for _, b := range cands {
			if a.Signature == b.Signature {
				continue
			}
			ok, err := ev.moreSpecific(ctx, a, b)
			if err != nil {
				return Method{}, wrap(n, err)
			}
			if !ok {
				all = false
				break
			}
		}
		if all {
			best = append(best, a)
		}
	}
	if len(best) > 0 {
		// Several with one signature are the same method inherited and
		// overridden; the Env lists the most derived first.
		for _, b := range best[1:] {
			if b.Signature != best[0].Signature {
				return Method{}, ambiguous(n, best)
			}
		}
		return best[0], nil
	}
	return Method{}, ambiguous(n, cands)
}

func ambiguous(n Node, ms []Method) error {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.String()
	}
	return fail(n, "the call is ambiguous: %s all match; cast the arguments to choose", strings.Join(names, ", "))
}

func (ev *evaluator) moreSpecific(ctx context.Context, a, b Method) (bool, error) {
	pa, _ := javalang.ParamSigs(a.Signature)
	pb, _ := javalang.ParamSigs(b.Signature)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		ok, err := ev.subtypeSig(ctx, pa[i], pb[i])
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// subtypeSig is subtyping of signatures, primitives included (int <: long).
func (ev *evaluator) subtypeSig(ctx context.Context, a, b string) (bool, error) {
	if a == b {
		return true, nil
	}
	ka, pa := sigKinds[a]
	kb, pb := sigKinds[b]
	switch {
	case pa && pb:
		return widens(ka, kb), nil
	case pa || pb:
		return false, nil
	}
	return ev.env.Subtype(ctx, a, b)
}

// convertArgs converts arguments to m's parameter types: widening, boxing,
// unboxing, strings into the VM, and the variable-arity array.
func (ev *evaluator) convertArgs(ctx context.Context, n Node, m Method, args []Value) ([]Value, error) {
	params, _ := javalang.ParamSigs(m.Signature)
	varargs := false
	if m.Varargs && len(params) > 0 {
		last := len(params) - 1
		varargs = len(args) != len(params)
		if !varargs {
			ok, err := ev.assignable(ctx, args[last], params[last], true)
			if err != nil {
				return nil, wrap(n, err)
			}
			varargs = !ok
		}
	}
	fixed := len(params)
	if varargs {
		fixed--
	}
	out := make([]Value, 0, len(params))
	for i := 0; i < fixed; i++ {
		v, err := ev.convertTo(ctx, n, args[i], params[i])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if varargs {
		elem := arrayElem(params[fixed])
		elems := make([]Value, 0, len(args)-fixed)
		for _, a := range args[fixed:] {
			v, err := ev.convertTo(ctx, n, a, elem)
			if err != nil {
				return nil, err
			}
			elems = append(elems, v)
		}
		arr, err := ev.env.NewArray(ctx, params[fixed], elems)
		if err != nil {
			return nil, wrap(n, err)
		}
		out = append(out, arr)
	}
	return out, nil
}

// convertTo converts an applicable value to type sig.
func (ev *evaluator) convertTo(ctx context.Context, n Node, v Value, sig string) (Value, error) {
	if v.Fn != nil {
		return ev.makeFunction(ctx, n, v.Fn, sig)
	}
	if k, prim := sigKinds[sig]; prim {
		v, err := ev.unbox(ctx, n, v)
		if err != nil {
			return Value{}, err
		}
		if k == KindBoolean {
			return v, nil
		}
		return convert(v, k), nil
	}
	switch {
	case v.Kind == KindNull:
		return v, nil
	case !v.Kind.IsRef():
		return ev.box(ctx, n, v)
	case v.Kind == KindString && v.Ref == 0:
		s, err := ev.env.NewString(ctx, v.Str)
		if err != nil {
			return Value{}, wrap(n, err)
		}
		return s, nil
	}
	return v, nil
}

// box wraps a primitive in its wrapper class with valueOf, in the VM.
func (ev *evaluator) box(ctx context.Context, n Node, v Value) (Value, error) {
	class := boxSigs[v.Kind]
	ms, err := ev.env.Methods(ctx, class, "valueOf")
	if err != nil {
		return Value{}, wrap(n, err)
	}
	want := "(" + kindSigs[v.Kind] + ")" + class
	for _, m := range ms {
		if m.Signature == want && m.Static {
			r, err := ev.env.Invoke(ctx, Null, m, []Value{v})
			if err != nil {
				return Value{}, wrap(n, fmt.Errorf("boxing %s: %w", v.TypeName(), err))
			}
			return r, nil
		}
	}
	return Value{}, fail(n, "cannot box %s: %s.valueOf%s not found", v.TypeName(), javalang.TypeName(class), want)
}

// Convert converts v for storing into a variable, field or array element of
// type sig (an assignment): widening; narrowing of integral values that fit
// (as Java allows for constants); boxing and unboxing, also across numeric
// kinds (42 into a Long field); strings into the VM; reference types
// checked against sig.
func Convert(ctx context.Context, env Env, n Node, v Value, sig string) (Value, error) {
	ev := evaluator{env: env}
	if n == nil {
		n = &Lit{Value: v}
	}
	if k, prim := sigKinds[sig]; prim {
		p, err := ev.unbox(ctx, n, v)
		if err != nil {
			return Value{}, err
		}
		return convertPrimitive(n, p, k)
	}
	if v.Kind == KindNull {
		return v, nil
	}
	if !v.Kind.IsRef() {
		if v.Kind == KindVoid {
			return Value{}, fail(n, "a void method has no value to store")
		}
		if k, ok := boxes[sig]; ok && k != v.Kind {
			// Long x = 42: convert to the wrapper's primitive first.
			p, err := convertPrimitive(n, v, k)
			if err != nil {
				return Value{}, err
			}
			v = p
		}
		ok, err := env.Subtype(ctx, boxSigs[v.Kind], sig)
		if err != nil {
			return Value{}, wrap(n, err)
		}
		if !ok {
			return Value{}, fail(n, "a %s cannot be stored in a %s", v.TypeName(), javalang.SimpleTypeName(sig))
		}
		return ev.box(ctx, n, v)
	}
	ok, err := env.Subtype(ctx, typeSig(v), sig)
	if err != nil {
		return Value{}, wrap(n, err)
	}
	if !ok {
		return Value{}, fail(n, "a %s cannot be stored in a %s", javalang.SimpleTypeName(typeSig(v)), javalang.SimpleTypeName(sig))
	}
	return ev.convertTo(ctx, n, v, sig)
}

// convertPrimitive converts for assignment: widening always, narrowing only
// when the integral value fits.
func convertPrimitive(n Node, v Value, k Kind) (Value, error) {
	switch {
	case k == KindBoolean || v.Kind == KindBoolean:
		if k == v.Kind {
			return v, nil
		}
	case !v.Kind.IsNumeric():
	case widens(v.Kind, k):
		return convert(v, k), nil
	case v.Kind.IsIntegral() && k.IsIntegral():
		c := convert(v, k)
		if c.I == v.I {
			return c, nil
		}
		return Value{}, fail(n, "%s does not fit in a %s", v.JavaString(), k)
	case v.Kind.IsIntegral() && (k == KindFloat || k == KindDouble):
		return convert(v, k), nil
	case (v.Kind == KindFloat || v.Kind == KindDouble) && k.IsIntegral():
		if v.F == math.Trunc(v.F) {
			c := convert(v, k)
			if float64(c.I) == v.F {
				return c, nil
			}
		}
		return Value{}, fail(n, "%s is not a %s; cast it, e.g. (%s) %s", v.JavaString(), k, k, v.JavaString())
	case v.Kind == KindDouble && k == KindFloat:
		return convert(v, k), nil
	}
	return Value{}, fail(n, "a %s cannot be stored in a %s", v.TypeName(), k)
}

// stringMethod answers String's simple methods in Go, so they work without
// running code in the VM (in hovers, too). ok is false for the others.
func (ev *evaluator) stringMethod(ctx context.Context, n *Call, fun *Select, recv Value, args []Value) (Value, bool, error) {
	argString := func(i int) (string, bool, error) {
		if args[i].Kind != KindString {
			return "", false, nil
		}
		t, err := ev.stringOf(ctx, n.Args[i], args[i])
		return t, true, err
	}
	switch {
	case (fun.Name == "length" || fun.Name == "isEmpty") && len(args) == 0:
	case (fun.Name == "equals" || fun.Name == "contains" || fun.Name == "startsWith" || fun.Name == "endsWith") && len(args) == 1:
		if args[0].Kind != KindString && fun.Name != "equals" {
			return Value{}, false, nil
		}
	default:
		return Value{}, false, nil
	}
	s, err := ev.stringOf(ctx, fun.X, recv)
	if err != nil {
		return Value{}, true, err
	}
	switch fun.Name {
	case "length":
		return IntValue(int32(len(utf16.Encode([]rune(s))))), true, nil
	case "isEmpty":
		return BoolValue(s == ""), true, nil
	}
	t, isString, err := argString(0)
	if err != nil {
		return Value{}, true, err
	}
	switch fun.Name {
	case "equals":
		return BoolValue(isString && s == t), true, nil
	case "contains":
		return BoolValue(strings.Contains(s, t)), true, nil
	case "startsWith":
		return BoolValue(strings.HasPrefix(s, t)), true, nil
	}
	return BoolValue(strings.HasSuffix(s, t)), true, nil
}

// IsThrown reports whether err carries an exception thrown in the VM.
func IsThrown(err error) (*Thrown, bool) {
	var t *Thrown
	ok := errors.As(err, &t)
	return t, ok
}

// StaticImports is implemented by an Env that knows the static imports of
// the frame's source file: StaticImport returns the class (a signature)
// whose static members called name the file imports, ok false when none.
type StaticImports interface {
	StaticImport(ctx context.Context, name string) (class string, ok bool, err error)
}

// staticImport finds the class of an unqualified method name when the
// class in scope (this's, or the frame's) has no method of that name and
// the file imports one static (import static java.lang.Math.max).
func (ev *evaluator) staticImport(ctx context.Context, scope, name string) (string, bool, error) {
	si, ok := ev.env.(StaticImports)
	if !ok {
		return "", false, nil
	}
	if ms, err := ev.env.Methods(ctx, scope, name); err != nil || len(ms) > 0 {
		return "", false, nil // a method in scope shadows the imports
	}
	return si.StaticImport(ctx, name)
}
