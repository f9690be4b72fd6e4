package kexpr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

// Options is what the evaluator knows beyond the frame.
type Options struct {
	// Facades lists the binary names of the file facades (FileKt) known in
	// a package: where unqualified top-level and extension functions are
	// looked for, after the frame's own class. nil: the frame's class and
	// the standard library's facades only.
	Facades func(pkg string) []string
}

// stdFacades are the standard library's facades searched for extension
// functions (where loaded).
var stdFacades = []string{
	"kotlin.collections.CollectionsKt", "kotlin.text.StringsKt", "kotlin.collections.MapsKt",
	"kotlin.collections.ArraysKt", "kotlin.collections.SetsKt", "kotlin.ranges.RangesKt",
}

// Eval evaluates n in env.
func Eval(ctx context.Context, n Node, env expr.Env, opt Options) (expr.Value, error) {
	ev := &evaluator{env: env, opt: opt}
	return ev.eval(ctx, n)
}

// Truth evaluates a condition: a Boolean.
func Truth(ctx context.Context, n Node, env expr.Env, opt Options) (bool, error) {
	ev := &evaluator{env: env, opt: opt}
	v, err := ev.eval(ctx, n)
	if err != nil {
		return false, err
	}
	v, err = ev.unbox(ctx, v)
	if err != nil {
		return false, err
	}
	if v.Kind != expr.KindBoolean {
		return false, &expr.EvalError{Expr: n.String(), Err: fmt.Errorf("a condition must be a Boolean, not %s", kotlinType(v))}
	}
	return v.Bool(), nil
}

type evaluator struct {
	env   expr.Env
	opt   Options
	depth int
}

func fail(n Node, format string, args ...any) error {
	return &expr.EvalError{Expr: n.String(), Err: fmt.Errorf(format, args...)}
}

// bound is the frame's environment with the evaluator's intermediate
// values as extra names ($k0, $k1…), so that a Java tree can use them.
type bound struct {
	expr.Env
	vals []expr.Value
}

func (b *bound) Lookup(ctx context.Context, name string) (expr.Value, error) {
	if strings.HasPrefix(name, "$k") {
		var i int
		if _, err := fmt.Sscanf(name, "$k%d", &i); err == nil && i >= 0 && i < len(b.vals) {
			return b.vals[i], nil
		}
	}
	return b.Env.Lookup(ctx, name)
}

// java evaluates a Java tree built by mk over names $k0… holding vals.
func (ev *evaluator) java(ctx context.Context, n Node, vals []expr.Value, mk func(names []expr.Node) expr.Node) (expr.Value, error) {
	names := make([]expr.Node, len(vals))
	for i := range vals {
		names[i] = &expr.Name{At: n.Pos(), Name: fmt.Sprintf("$k%d", i)}
	}
	v, err := expr.Eval(ctx, mk(names), &bound{ev.env, vals})
	if err != nil {
		var ee *expr.EvalError
		if errors.As(err, &ee) {
			return expr.Value{}, &expr.EvalError{Expr: n.String(), Err: ee.Err}
		}
		return expr.Value{}, &expr.EvalError{Expr: n.String(), Err: err}
	}
	return v, nil
}

func (ev *evaluator) evalAll(ctx context.Context, ns []Node) ([]expr.Value, error) {
	out := make([]expr.Value, len(ns))
	for i, n := range ns {
		v, err := ev.eval(ctx, n)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

var null = expr.Value{Kind: expr.KindNull}

func (ev *evaluator) eval(ctx context.Context, n Node) (expr.Value, error) {
	if err := ctx.Err(); err != nil {
		return expr.Value{}, err
	}
	if ev.depth++; ev.depth > maxDepth {
		ev.depth--
		return expr.Value{}, fmt.Errorf("the expression is nested deeper than %d levels: split it", maxDepth)
	}
	defer func() { ev.depth-- }()
	switch n := n.(type) {
	case *Lit:
		return n.Value, nil
	case *StrTemplate:
		return ev.template(ctx, n)
	case *Name:
		return ev.name(ctx, n, true)
	case *This:
		return ev.this(ctx, n)
	case *Select:
		return ev.selectProp(ctx, n)
	case *Call:
		return ev.call(ctx, n)
	case *Index:
		return ev.index(ctx, n)
	case *NotNull:
		v, err := ev.eval(ctx, n.X)
		if err != nil {
			return v, err
		}
		if v.Kind == expr.KindNull {
			return expr.Value{}, fail(n, "NullPointerException: %s is null", n.X)
		}
		return v, nil
	case *Unary:
		x, err := ev.eval(ctx, n.X)
		if err != nil {
			return x, err
		}
		return ev.java(ctx, n, []expr.Value{x}, func(k []expr.Node) expr.Node { return &expr.Unary{At: n.At, Op: n.Op, X: k[0]} })
	case *Binary:
		return ev.binary(ctx, n)
	case *Is:
		x, err := ev.eval(ctx, n.X)
		if err != nil {
			return x, err
		}
		ok, err := ev.is(ctx, n, x, n.Type)
		return expr.BoolValue(ok != n.Not), err
	case *As:
		return ev.as(ctx, n)
	case *If:
		c, err := ev.cond(ctx, n.Cond)
		if err != nil {
			return expr.Value{}, err
		}
		if c {
			return ev.eval(ctx, n.Then)
		}
		return ev.eval(ctx, n.Else)
	case *When:
		return ev.when(ctx, n)
	}
	return expr.Value{}, fmt.Errorf("kexpr: unknown node %T", n)
}

func (ev *evaluator) cond(ctx context.Context, n Node) (bool, error) {
	v, err := ev.eval(ctx, n)
	if err != nil {
		return false, err
	}
	if v, err = ev.unbox(ctx, v); err != nil {
		return false, err
	}
	if v.Kind != expr.KindBoolean {
		return false, fail(n, "a condition must be a Boolean, not %s", kotlinType(v))
	}
	return v.Bool(), nil
}

func (ev *evaluator) unbox(ctx context.Context, v expr.Value) (expr.Value, error) {
	if v.Kind != expr.KindObject || !expr.IsBox(v.Type) {
		return v, nil
	}
	return ev.env.Field(ctx, v, "value")
}

// ---- strings

// str is Kotlin's toString of a value (null is "null").
func (ev *evaluator) str(ctx context.Context, n Node, v expr.Value) (string, error) {
	if v.Kind == expr.KindNull {
		return "null", nil
	}
	s, err := expr.ToString(ctx, ev.env, v)
	if err != nil {
		return "", fail(n, "%v", err)
	}
	return s, nil
}

func (ev *evaluator) template(ctx context.Context, n *StrTemplate) (expr.Value, error) {
	var b strings.Builder
	for _, p := range n.Parts {
		v, err := ev.eval(ctx, p)
		if err != nil {
			return v, err
		}
		s, err := ev.str(ctx, p, v)
		if err != nil {
			return expr.Value{}, err
		}
		b.WriteString(s)
	}
	return expr.StringLit(b.String()), nil
}

// ---- this

func (ev *evaluator) this(ctx context.Context, n *This) (expr.Value, error) {
	if n.Label == "" {
		// the innermost receiver: a lambda with receiver's (apply, with)
		// or an extension function's, then the method's this
		if rs := ev.receivers(ctx); len(rs) > 0 {
			return rs[0], nil
		}
		if v, err := ev.env.This(ctx); err == nil {
			return v, nil
		}
		return expr.Value{}, fail(n, "there is no this in this frame (a top-level function)")
	}
	if v, err := ev.env.Lookup(ctx, "$this$"+n.Label); err == nil {
		return v, nil
	}
	if name := ev.lambdaReceiver(ctx, n.Label); name != "" {
		if v, err := ev.env.Lookup(ctx, name); err == nil {
			return v, nil
		}
	}
	this, err := ev.env.This(ctx)
	for depth := 0; err == nil && this.Kind != expr.KindNull && depth < 16; depth++ {
		if simpleName(this.Type) == n.Label {
			return this, nil
		}
		this, err = ev.env.Field(ctx, this, "this$0")
	}
	return expr.Value{}, fail(n, "no receiver labelled @%s in this frame", n.Label)
}

// name resolves a simple name: a local, a field of this, a static of the
// frame's class, a property of an implicit receiver, and, as a value
// (asValue), an object's instance or a class's companion.
func (ev *evaluator) name(ctx context.Context, n *Name, asValue bool) (expr.Value, error) {
	v, err := ev.env.Lookup(ctx, n.Name)
	if err == nil {
		return v, nil
	}
	if errors.Is(err, expr.ErrUnknownName) {
		if d, derr := ev.env.Lookup(ctx, n.Name+"$delegate"); derr == nil && d.Kind.IsRef() && d.Kind != expr.KindNull {
			return ev.delegated(ctx, n, d)
		}
		// a property of an implicit receiver: apply's, an extension
		// function's ($this$… locals, innermost first)
		for _, r := range ev.receivers(ctx) {
			if v, err := ev.prop(ctx, n, r, n.Name); err == nil {
				return v, nil
			}
		}
		if class, ok := ev.classOf(ctx, n); ok && asValue {
			for _, holder := range []string{"INSTANCE", "Companion"} {
				if v, err := ev.env.StaticField(ctx, class, holder); err == nil && v.Kind != expr.KindNull {
					return v, nil
				}
			}
		}
	}
	return expr.Value{}, &expr.EvalError{Expr: n.Name, Err: err}
}

// delegated is the value of a local delegated property (val x by lazy
// { … }), whose delegate kotlinc keeps in the local x$delegate: a Lazy's
// value (getValue(), which initializes it as reading x in the program
// does; where no code may run, a hover, its _value once initialized), or
// the field value of a delegate that keeps one (Delegates.observable's).
func (ev *evaluator) delegated(ctx context.Context, n *Name, d expr.Value) (expr.Value, error) {
	v, err := ev.prop(ctx, n, d, "value")
	if err == nil {
		return v, nil
	}
	if iv, ferr := ev.env.Field(ctx, d, "_value"); ferr == nil && iv.Type != "Lkotlin/UNINITIALIZED_VALUE;" {
		return iv, nil
	}
	return expr.Value{}, fail(n, "%s is a delegated property: its delegate (%s) has no value this can read (%v)", n.Name, kotlinType(d), err)
}

// LocalNames is implemented by environments that list a frame's visible
// locals in variable-table order (jdwp/eval.Frame).
type LocalNames interface {
	LocalNames(ctx context.Context) ([]string, error)
}

// receivers are the frame's implicit receivers kotlinc keeps in $this$…
// locals (lambdas with a receiver, extension functions), innermost first.
func (ev *evaluator) receivers(ctx context.Context) []expr.Value {
	ln, ok := ev.env.(LocalNames)
	if !ok {
		return nil
	}
	names, err := ln.LocalNames(ctx)
	if err != nil {
		return nil
	}
	var out []expr.Value
	for i := len(names) - 1; i >= 0; i-- {
		if strings.HasPrefix(names[i], "$this$") {
			if v, err := ev.env.Lookup(ctx, names[i]); err == nil && v.Kind.IsRef() && v.Kind != expr.KindNull {
				out = append(out, v)
			}
		}
	}
	return out
}

// lambdaReceiver finds the receiver of the inlined lambda passed to
// function label (apply, with, run…): kotlinc marks the lambda's code with
// a local $i$a$-label-… and names its receiver $this$<enclosing>_u24lambda…
// beside it. "" when the frame says nothing of it.
func (ev *evaluator) lambdaReceiver(ctx context.Context, label string) string {
	ln, ok := ev.env.(LocalNames)
	if !ok {
		return ""
	}
	names, err := ln.LocalNames(ctx)
	if err != nil {
		return ""
	}
	best, dist := "", len(names)+1
	for i, m := range names {
		if !strings.HasPrefix(m, "$i$a$-"+label+"-") {
			continue
		}
		for j, r := range names {
			if !strings.HasPrefix(r, "$this$") || !strings.Contains(r, "lambda") {
				continue
			}
			d := i - j
			if d < 0 {
				d = -d
			}
			if d < dist || d == dist && j > i {
				best, dist = r, d
			}
		}
	}
	return best
}

// simpleName is a class's Kotlin simple name (Shop$Till → Till).
func simpleName(sig string) string {
	name := javalang.TypeName(sig)
	if i := strings.LastIndexAny(name, ".$"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// ---- properties

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// classOf resolves a chain of names (a.b.C, Outer.Inner) as a class.
func (ev *evaluator) classOf(ctx context.Context, n Node) (string, bool) {
	name, ok := dotted(n)
	if !ok {
		return "", false
	}
	if j, ok := javaTypes[name]; ok {
		name = j
	}
	sig, err := ev.env.Class(ctx, name)
	if err != nil {
		return "", false
	}
	return sig, true
}

func dotted(n Node) (string, bool) {
	switch n := n.(type) {
	case *Name:
		return n.Name, true
	case *Select:
		if n.Safe {
			return "", false
		}
		x, ok := dotted(n.X)
		return x + "." + n.Name, ok
	}
	return "", false
}

// receiver evaluates the left side of a select or call: a value, or a
// class (static members, an object's INSTANCE, a class's Companion).
func (ev *evaluator) receiver(ctx context.Context, x Node) (v expr.Value, class string, err error) {
	if nm, ok := x.(*Name); ok {
		v, err = ev.name(ctx, nm, false)
	} else {
		v, err = ev.eval(ctx, x)
	}
	if err == nil {
		return v, "", nil
	}
	if !errors.Is(err, expr.ErrUnknownName) {
		return v, "", err
	}
	if c, ok := ev.classOf(ctx, x); ok {
		return expr.Value{}, c, nil
	}
	return v, "", err
}

func (ev *evaluator) selectProp(ctx context.Context, n *Select) (expr.Value, error) {
	x, class, err := ev.receiver(ctx, n.X)
	if err != nil {
		return x, err
	}
	if class != "" {
		return ev.staticProp(ctx, n, class)
	}
	if x.Kind == expr.KindNull {
		if n.Safe {
			return null, nil
		}
		return expr.Value{}, fail(n, "NullPointerException: %s is null", n.X)
	}
	return ev.prop(ctx, n, x, n.Name)
}

// staticProp reads Class.name: a static field (const val, @JvmField,
// Companion, INSTANCE, an enum entry), else a property of the class's
// object or companion.
func (ev *evaluator) staticProp(ctx context.Context, n *Select, class string) (expr.Value, error) {
	if v, err := ev.env.StaticField(ctx, class, n.Name); err == nil {
		return v, nil
	}
	// a static getter (@JvmStatic, an enum's entries)
	if ms, err := ev.env.Methods(ctx, class, "get"+capital(n.Name)); err == nil {
		for _, m := range ms {
			if m.Static && strings.HasPrefix(m.Signature, "()") {
				v, err := ev.env.Invoke(ctx, expr.Value{Kind: expr.KindNull}, m, nil)
				if err != nil {
					return expr.Value{}, fail(n, "%v", err)
				}
				return v, nil
			}
		}
	}
	for _, holder := range []string{"INSTANCE", "Companion"} {
		if obj, err := ev.env.StaticField(ctx, class, holder); err == nil && obj.Kind != expr.KindNull {
			if v, err := ev.prop(ctx, n, obj, n.Name); err == nil {
				return v, nil
			}
		}
	}
	return expr.Value{}, &expr.EvalError{Expr: n.String(), Err: fmt.Errorf("%w: %s has no property %s", expr.ErrUnknownName, javalang.TypeName(class), n.Name)}
}

// javaProps are Kotlin properties of Java's types that are methods there.
var javaProps = map[string]string{"size": "size", "length": "length", "keys": "keySet", "values": "values", "entries": "entrySet"}

// prop reads property name of x: its getter (getName, isName), a Java
// method Kotlin reads as a property (size, keys…), its field, or an
// extension property's getter in a facade.
func (ev *evaluator) prop(ctx context.Context, n Node, x expr.Value, name string) (expr.Value, error) {
	switch {
	case !x.Kind.IsRef():
		return expr.Value{}, fail(n, "a %s has no property %s", kotlinType(x), name)
	case strings.HasPrefix(x.Type, "[") && (name == "size" || name == "length"):
		l, err := ev.env.Length(ctx, x)
		if err != nil {
			return expr.Value{}, fail(n, "%v", err)
		}
		return expr.IntValue(int32(l)), nil
	case x.Kind == expr.KindString && name == "length":
		s, err := ev.str(ctx, n, x)
		if err != nil {
			return expr.Value{}, err
		}
		return expr.IntValue(int32(len(utf16(s)))), nil
	}
	sig := x.Type
	if x.Kind == expr.KindString {
		sig = "Ljava/lang/String;"
	}
	getters := []string{"get" + capital(name)}
	if strings.HasPrefix(name, "is") && len(name) > 2 && unicode.IsUpper(rune(name[2])) {
		getters = []string{name}
	}
	if m, ok := javaProps[name]; ok {
		getters = append(getters, m)
	}
	for _, g := range getters {
		ms, err := ev.env.Methods(ctx, sig, g)
		if err != nil {
			continue
		}
		for _, m := range ms {
			if !m.Static && strings.HasPrefix(m.Signature, "()") {
				v, err := ev.env.Invoke(ctx, x, m, nil)
				if errors.Is(err, expr.ErrNoInvoke) {
					break // read the field instead
				}
				if err != nil {
					return expr.Value{}, fail(n, "%v", err)
				}
				return v, nil
			}
		}
	}
	if v, err := ev.env.Field(ctx, x, name); err == nil {
		return v, nil
	}
	if v, ok, err := ev.extension(ctx, n, "get"+capital(name), x, nil); ok || err != nil {
		return v, err
	}
	return expr.Value{}, &expr.EvalError{Expr: n.String(), Err: fmt.Errorf("%w: %s has no property %s", expr.ErrUnknownName, kotlinType(x), name)}
}

func utf16(s string) []uint16 {
	var out []uint16
	for _, r := range s {
		if r >= 0x10000 {
			out = append(out, 0, 0)
		} else {
			out = append(out, uint16(r))
		}
	}
	return out
}

// ---- indexing

func (ev *evaluator) index(ctx context.Context, n *Index) (expr.Value, error) {
	x, err := ev.eval(ctx, n.X)
	if err != nil {
		return x, err
	}
	idx, err := ev.evalAll(ctx, n.Index)
	if err != nil {
		return expr.Value{}, err
	}
	if x.Kind == expr.KindNull {
		return expr.Value{}, fail(n, "NullPointerException: %s is null", n.X)
	}
	if strings.HasPrefix(x.Type, "[") && len(idx) == 1 {
		return ev.java(ctx, n, []expr.Value{x, idx[0]}, func(k []expr.Node) expr.Node { return &expr.Index{X: k[0], Index: k[1]} })
	}
	if x.Kind == expr.KindString && len(idx) == 1 {
		return ev.java(ctx, n, []expr.Value{x, idx[0]}, func(k []expr.Node) expr.Node {
			return &expr.Call{Fun: &expr.Select{X: k[0], Name: "charAt"}, Args: k[1:]}
		})
	}
	return ev.member(ctx, n, x, "get", idx)
}

// ---- calls

// member calls name on x: a method of its class, else an extension
// function of a facade (its static form, x first).
func (ev *evaluator) member(ctx context.Context, n Node, x expr.Value, name string, args []expr.Value) (expr.Value, error) {
	if !x.Kind.IsRef() {
		if v, ok, err := ev.primitiveCall(ctx, n, x, name, args); ok {
			return v, err
		}
		if v, ok, err := ev.extension(ctx, n, name, x, args); ok || err != nil {
			return v, err
		}
		return expr.Value{}, fail(n, "%s.%s() on a %s is not supported in evaluation yet", n, name, kotlinType(x))
	}
	sig := x.Type
	if x.Kind == expr.KindString {
		sig = "Ljava/lang/String;"
		if j, ok := stringAliases[name]; ok && len(args) == 0 {
			name = j
		}
	}
	if ms, err := ev.env.Methods(ctx, sig, name); err == nil && hasInstance(ms) || x.Kind == expr.KindString && javaStringMethod(name) {
		vals := append([]expr.Value{x}, args...)
		return ev.java(ctx, n, vals, func(k []expr.Node) expr.Node {
			return &expr.Call{Fun: &expr.Select{X: k[0], Name: name}, Args: k[1:]}
		})
	}
	if v, ok, err := ev.extension(ctx, n, name, x, args); ok || err != nil {
		return v, err
	}
	return expr.Value{}, &expr.EvalError{Expr: n.String(), Err: fmt.Errorf("%w: no function %s on %s, nor an extension function %s in this file's facade or the standard library's loaded facades", expr.ErrUnknownName, name, kotlinType(x), name)}
}

func hasInstance(ms []expr.Method) bool {
	for _, m := range ms {
		if !m.Static {
			return true
		}
	}
	return false
}

// The Kotlin String functions that are Java's under another name.
var stringAliases = map[string]string{"uppercase": "toUpperCase", "lowercase": "toLowerCase"}

func javaStringMethod(name string) bool {
	switch name {
	case "length", "charAt", "isEmpty", "substring", "indexOf", "startsWith", "endsWith", "contains", "equals", "toUpperCase", "toLowerCase", "trim", "hashCode", "toString", "compareTo":
		return true
	}
	return false
}

// facades are the classes searched for top-level and extension functions:
// the frame's class, the known facades of its package, the standard
// library's (each only where loaded).
func (ev *evaluator) facades(ctx context.Context) []string {
	var out []string
	seen := map[string]bool{}
	add := func(sig string) {
		if !seen[sig] {
			seen[sig] = true
			out = append(out, sig)
		}
	}
	frame, err := ev.env.FrameClass(ctx)
	pkg := ""
	if err == nil {
		add(frame)
		name := javalang.TypeName(frame)
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			pkg = name[:i]
		}
		if top, _, _ := strings.Cut(name, "$"); top != name {
			if sig, err := ev.env.Class(ctx, top); err == nil {
				add(sig)
			}
		}
	}
	if ev.opt.Facades != nil {
		for _, f := range ev.opt.Facades(pkg) {
			if sig, err := ev.env.Class(ctx, f); err == nil {
				add(sig)
			}
		}
	}
	for _, f := range stdFacades {
		if sig, err := ev.env.Class(ctx, f); err == nil {
			add(sig)
		}
	}
	return out
}

// extension calls the static form of an extension function name of recv:
// a static method of a facade whose first parameter takes recv.
func (ev *evaluator) extension(ctx context.Context, n Node, name string, recv expr.Value, args []expr.Value) (expr.Value, bool, error) {
	for _, f := range ev.facades(ctx) {
		ms, err := ev.env.Methods(ctx, f, name)
		if err != nil {
			continue
		}
		ok := false
		for _, m := range ms {
			params, _ := javalang.ParamSigs(m.Signature)
			if m.Static && len(params) == len(args)+1 {
				ok = true
			}
		}
		if !ok {
			continue
		}
		class := javalang.TypeName(f)
		vals := append([]expr.Value{recv}, args...)
		v, err := ev.java(ctx, n, vals, func(k []expr.Node) expr.Node {
			return &expr.Call{Fun: &expr.Select{X: className(class), Name: name}, Args: k}
		})
		return v, true, err
	}
	return expr.Value{}, false, nil
}

// className is a Java tree naming a class (a.b.C as Selects).
func className(name string) expr.Node {
	parts := strings.Split(name, ".")
	var n expr.Node = &expr.Name{Name: parts[0]}
	for _, p := range parts[1:] {
		n = &expr.Select{X: n, Name: p}
	}
	return n
}

// topLevel calls an unqualified function: a method of this's class (or
// the frame's class), a top-level function of a facade, or a constructor.
func (ev *evaluator) topLevel(ctx context.Context, n *Call, name string, args []expr.Value) (expr.Value, error) {
	if this, err := ev.env.This(ctx); err == nil && this.Kind.IsRef() {
		if ms, err := ev.env.Methods(ctx, this.Type, name); err == nil && len(ms) > 0 {
			return ev.java(ctx, n, args, func(k []expr.Node) expr.Node { return &expr.Call{Fun: &expr.Name{Name: name}, Args: k} })
		}
	}
	for _, f := range ev.facades(ctx) {
		ms, err := ev.env.Methods(ctx, f, name)
		if err != nil || len(ms) == 0 {
			continue
		}
		class := javalang.TypeName(f)
		return ev.java(ctx, n, args, func(k []expr.Node) expr.Node {
			return &expr.Call{Fun: &expr.Select{X: className(class), Name: name}, Args: k}
		})
	}
	if sig, ok := ev.classOf(ctx, &Name{Name: name}); ok {
		class := javalang.TypeName(sig)
		return ev.java(ctx, n, args, func(k []expr.Node) expr.Node { return &expr.New{Type: class, Args: k} })
	}
	return expr.Value{}, &expr.EvalError{Expr: n.String(), Err: fmt.Errorf("%w: no function %s in this frame's class or a loaded file facade (write FileKt.%s(…) to name its file)", expr.ErrUnknownName, name, name)}
}

func (ev *evaluator) call(ctx context.Context, n *Call) (expr.Value, error) {
	switch fun := n.Fun.(type) {
	case *Name:
		// a local of a function type: its invoke
		if v, err := ev.env.Lookup(ctx, fun.Name); err == nil && v.Kind == expr.KindObject {
			args, err := ev.evalAll(ctx, n.Args)
			if err != nil {
				return expr.Value{}, err
			}
			return ev.member(ctx, n, v, "invoke", args)
		}
		args, err := ev.evalAll(ctx, n.Args)
		if err != nil {
			return expr.Value{}, err
		}
		return ev.topLevel(ctx, n, fun.Name, args)
	case *Select:
		x, class, err := ev.receiver(ctx, fun.X)
		if err != nil {
			return x, err
		}
		if class == "" && x.Kind == expr.KindNull {
			if fun.Safe {
				return null, nil
			}
			return expr.Value{}, fail(n, "NullPointerException: %s is null", fun.X)
		}
		args, err := ev.evalAll(ctx, n.Args)
		if err != nil {
			return expr.Value{}, err
		}
		if class != "" {
			return ev.static(ctx, n, class, fun.Name, args)
		}
		return ev.member(ctx, n, x, fun.Name, args)
	}
	return expr.Value{}, fail(n, "only a named function can be called (Kotlin lambdas are not supported in evaluation yet)")
}

// static calls Class.name(args): a static method (@JvmStatic, a facade's
// function, Java's statics), else a member of the class's object
// (INSTANCE) or companion.
func (ev *evaluator) static(ctx context.Context, n *Call, class, name string, args []expr.Value) (expr.Value, error) {
	if ms, err := ev.env.Methods(ctx, class, name); err == nil {
		for _, m := range ms {
			if m.Static {
				cn := javalang.TypeName(class)
				return ev.java(ctx, n, args, func(k []expr.Node) expr.Node {
					return &expr.Call{Fun: &expr.Select{X: className(cn), Name: name}, Args: k}
				})
			}
		}
	}
	for _, holder := range []string{"INSTANCE", "Companion"} {
		if obj, err := ev.env.StaticField(ctx, class, holder); err == nil && obj.Kind != expr.KindNull {
			if ms, err := ev.env.Methods(ctx, obj.Type, name); err == nil && hasInstance(ms) {
				return ev.member(ctx, n, obj, name, args)
			}
		}
	}
	return expr.Value{}, &expr.EvalError{Expr: n.String(), Err: fmt.Errorf("%w: %s has no function %s (nor its object or companion)", expr.ErrUnknownName, javalang.TypeName(class), name)}
}

// primitiveCall answers the functions of Kotlin's numbers, chars and
// booleans: conversions, toString, compareTo, equals.
func (ev *evaluator) primitiveCall(ctx context.Context, n Node, x expr.Value, name string, args []expr.Value) (expr.Value, bool, error) {
	casts := map[string]string{"toInt": "int", "toLong": "long", "toDouble": "double", "toFloat": "float", "toShort": "short", "toByte": "byte", "toChar": "char"}
	if t, ok := casts[name]; ok && len(args) == 0 && x.Kind.IsNumeric() {
		v, err := ev.java(ctx, n, []expr.Value{x}, func(k []expr.Node) expr.Node { return &expr.Cast{Type: t, X: k[0]} })
		return v, true, err
	}
	switch {
	case name == "toString" && len(args) == 0:
		s, err := ev.str(ctx, n, x)
		return expr.StringLit(s), true, err
	case name == "compareTo" && len(args) == 1:
		y, err := ev.unbox(ctx, args[0])
		if err != nil {
			return expr.Value{}, true, err
		}
		lt, err := ev.java(ctx, n, []expr.Value{x, y}, func(k []expr.Node) expr.Node { return &expr.Binary{Op: "<", X: k[0], Y: k[1]} })
		if err != nil {
			return lt, true, err
		}
		gt, err := ev.java(ctx, n, []expr.Value{x, y}, func(k []expr.Node) expr.Node { return &expr.Binary{Op: ">", X: k[0], Y: k[1]} })
		switch {
		case lt.Bool():
			return expr.IntValue(-1), true, err
		case gt.Bool():
			return expr.IntValue(1), true, err
		}
		return expr.IntValue(0), true, err
	case name == "equals" && len(args) == 1:
		ok, err := ev.equals(ctx, n, x, args[0])
		return expr.BoolValue(ok), true, err
	case name == "not" && len(args) == 0 && x.Kind == expr.KindBoolean:
		return expr.BoolValue(!x.Bool()), true, nil
	case name == "inv" && len(args) == 0 && x.Kind.IsIntegral():
		v, err := ev.java(ctx, n, []expr.Value{x}, func(k []expr.Node) expr.Node { return &expr.Unary{Op: "~", X: k[0]} })
		return v, true, err
	}
	if op, ok := operatorFuns[name]; ok && len(args) == 1 {
		v, err := ev.arith(ctx, n, op, x, args[0])
		return v, true, err
	}
	return expr.Value{}, false, nil
}

var operatorFuns = map[string]string{"plus": "+", "minus": "-", "times": "*", "div": "/", "rem": "%"}
