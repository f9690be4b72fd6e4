package expr

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Lambdas and method references. The parser reads them; the evaluator
// resolves every name of a lambda's body where it is written (a parameter,
// a value captured from the frame, or a class) into a [Func], and an Env
// that implements [Functions] turns that into an object implementing the
// functional interface the called method's parameter names.

type (
	// Lambda is (Params) -> Body, with an expression body. Parameter types,
	// when written, are not kept: the functional interface gives them.
	Lambda struct {
		At     int
		Params []string
		Body   Node
	}
	// MethodRef is X::Name; Name is "new" for a constructor reference. X
	// is a type name (String::length) or a value (System.out::println).
	MethodRef struct {
		X    Node
		Name string
	}
)

func (n *Lambda) Pos() int    { return n.At }
func (n *MethodRef) Pos() int { return n.X.Pos() }
func (n *Lambda) String() string {
	return "((" + strings.Join(n.Params, ", ") + ") -> " + n.Body.String() + ")"
}
func (n *MethodRef) String() string { return n.X.String() + "::" + n.Name }

// lambdaParams reads ahead from ( for a lambda's parameter list followed by
// ->: (), (a, b) or (String a, List<T> b). On success the parser stands on
// ->; otherwise nothing is consumed.
func (p *parser) lambdaParams() ([]string, bool) {
	lx := p.lx
	var params []string
	last, depth := "", 0
	for {
		t, err := lx.scan()
		if err != nil {
			return nil, false
		}
		switch {
		case t.kind == tIdent:
			last = t.text
			continue
		case t.kind != tOp:
			return nil, false
		}
		switch t.text {
		case "<":
			depth++
		case ">":
			depth--
		case ">>":
			depth -= 2
		case ".", "[", "]", "?", "&":
		case ",":
			if depth == 0 {
				if last == "" {
					return nil, false
				}
				params, last = append(params, last), ""
			}
		case ")":
			if last != "" {
				params = append(params, last)
			} else if len(params) > 0 {
				return nil, false
			}
			arrow, err := lx.scan()
			if err != nil || arrow.kind != tOp || arrow.text != "->" {
				return nil, false
			}
			p.lx, p.tok = lx, arrow
			return params, true
		default:
			return nil, false
		}
	}
}

// lambda parses the rest of a lambda: the parser stands on its single
// parameter (single) or on ->.
func (p *parser) lambda(at int, params []string, single bool) Node {
	if single {
		p.next()
	}
	p.expect("->")
	if p.isOp("{") {
		p.fail(p.tok.pos, "lambdas with a block body are not supported here: give the lambda an expression body (x -> x.total() > 100)")
		return nil
	}
	return &Lambda{At: at, Params: params, Body: p.expr(0)}
}

// Functions is implemented by an Env that can make lambdas and method
// references into objects in the VM.
type Functions interface {
	// FunctionalMethod returns the single abstract method of interface
	// sig; ok is false when sig is not a functional interface.
	FunctionalMethod(ctx context.Context, sig string) (m Method, ok bool, err error)
	// MakeFunction creates an object implementing interface sig whose
	// method sam runs f.
	MakeFunction(ctx context.Context, sig string, sam Method, f *Func) (Value, error)
}

// Func is a lambda or method reference prepared for [Functions]: its names
// resolved, the values it captures boxed and in the VM.
type Func struct {
	// Node is the *Lambda or *MethodRef.
	Node Node
	// Captures are the values the body reads from the frame (locals, this),
	// as objects; RefCapture refers to them by index.
	Captures []Value
	// Refs says what each name of the body means: keys are *Name and *This
	// nodes, *Select nodes that name a class, *Call nodes of unqualified
	// method calls (this, or the frame's class), and *New, *Cast,
	// *InstanceOf and *ClassLit nodes (their class). For a method
	// reference, the key is the MethodRef's X.
	Refs map[Node]Ref
}

// RefKind is what a name in a lambda's body refers to.
type RefKind uint8

const (
	RefParam   RefKind = iota + 1 // the lambda's parameter Index
	RefCapture                    // Captures[Index]
	RefClass                      // the class Class (a signature)
)

// Ref is what a name in a lambda's body refers to.
type Ref struct {
	Kind  RefKind
	Index int
	Class string
}

// Params is the lambda's parameter names (nil for a method reference).
func (f *Func) Params() []string {
	if l, ok := f.Node.(*Lambda); ok {
		return l.Params
	}
	return nil
}

// What names the construct for messages: "lambda" or "method reference".
func (f *Func) What() string {
	if _, ok := f.Node.(*Lambda); ok {
		return "lambda"
	}
	return "method reference"
}

// errNoTarget is the error for a lambda or method reference used where no
// method parameter gives it an interface.
const errNoTarget = "a %s needs an interface to implement: pass it to a method (list.forEach(x -> ...))"

// function prepares a lambda or method reference argument.
func (ev *evaluator) function(ctx context.Context, n Node) (Value, error) {
	r := &resolver{ev: ev, f: &Func{Node: n, Refs: map[Node]Ref{}}, captured: map[string]int{}}
	switch n := n.(type) {
	case *Lambda:
		r.params = n.Params
		if err := r.resolve(ctx, n.Body); err != nil {
			return Value{}, err
		}
	case *MethodRef:
		if _, isThis := n.X.(*This); isThis {
			if err := r.resolve(ctx, n.X); err != nil {
				return Value{}, err
			}
			break
		}
		isClass, err := r.valueOrClass(ctx, n.X)
		if err != nil {
			return Value{}, err
		}
		if !isClass {
			if n.Name == "new" {
				return Value{}, fail(n, "::new needs a class name before it")
			}
			// expr::name evaluates expr now, as Java does.
			v, err := ev.eval(ctx, n.X)
			if err != nil {
				return Value{}, err
			}
			if v.Kind == KindNull {
				return Value{}, fail(n, "NullPointerException: %s is null", n.X)
			}
			// The receiver is the one value captured (resolving it
			// above may have captured its parts).
			r.f.Captures = nil
			idx, err := r.capture(ctx, n.X, v)
			if err != nil {
				return Value{}, err
			}
			r.f.Refs = map[Node]Ref{n.X: {Kind: RefCapture, Index: idx}}
		}
	}
	return Value{Kind: KindObject, Type: "Ljava/lang/Object;", Fn: r.f}, nil
}

type resolver struct {
	ev       *evaluator
	f        *Func
	params   []string
	captured map[string]int // name ("this" too) -> index in Captures
}

func (r *resolver) capture(ctx context.Context, n Node, v Value) (int, error) {
	v, err := r.ev.convertTo(ctx, n, v, "Ljava/lang/Object;")
	if err != nil {
		return 0, err
	}
	r.f.Captures = append(r.f.Captures, v)
	return len(r.f.Captures) - 1, nil
}

// captureName captures a local, field or this by name, once.
func (r *resolver) captureName(ctx context.Context, n Node, name string, get func() (Value, error)) (Ref, error) {
	if i, ok := r.captured[name]; ok {
		return Ref{Kind: RefCapture, Index: i}, nil
	}
	v, err := get()
	if err != nil {
		return Ref{}, err
	}
	i, err := r.capture(ctx, n, v)
	if err != nil {
		return Ref{}, err
	}
	r.captured[name] = i
	return Ref{Kind: RefCapture, Index: i}, nil
}

// valueOrClass resolves n as a value or, failing that, a class name.
func (r *resolver) valueOrClass(ctx context.Context, n Node) (isClass bool, err error) {
	switch x := n.(type) {
	case *Name:
		err := r.resolve(ctx, x)
		if err == nil || !errors.Is(err, ErrUnknownName) {
			return false, err
		}
		sig, cerr := r.ev.env.Class(ctx, x.Name)
		if cerr != nil {
			return false, err
		}
		r.f.Refs[n] = Ref{Kind: RefClass, Class: sig}
		return true, nil
	case *Select:
		_, err := r.valueOrClass(ctx, x.X)
		if err == nil || !errors.Is(err, ErrUnknownName) {
			return false, err
		}
		name, _ := dotted(x)
		sig, cerr := r.ev.env.Class(ctx, name)
		if cerr != nil {
			return false, err
		}
		r.f.Refs[n] = Ref{Kind: RefClass, Class: sig}
		return true, nil
	}
	return false, r.resolve(ctx, n)
}

func (r *resolver) class(ctx context.Context, n Node, typ string) error {
	sig, err := r.ev.resolveType(ctx, n, typ)
	if err != nil {
		return err
	}
	if javalang.IsPrimitive(sig) {
		return nil
	}
	r.f.Refs[n] = Ref{Kind: RefClass, Class: sig}
	return nil
}

func (r *resolver) all(ctx context.Context, ns []Node) error {
	for _, a := range ns {
		if err := r.resolve(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

// resolve records what the names in n refer to.
func (r *resolver) resolve(ctx context.Context, n Node) error {
	switch n := n.(type) {
	case *Lit:
		return nil
	case *Name:
		for i := len(r.params) - 1; i >= 0; i-- {
			if r.params[i] == n.Name {
				r.f.Refs[n] = Ref{Kind: RefParam, Index: i}
				return nil
			}
		}
		ref, err := r.captureName(ctx, n, n.Name, func() (Value, error) {
			if v, ok := r.ev.binds[n.Name]; ok {
				return v, nil
			}
			v, err := r.ev.env.Lookup(ctx, n.Name)
			if err != nil {
				return Value{}, wrap(n, err)
			}
			return v, nil
		})
		if err != nil {
			return err
		}
		r.f.Refs[n] = ref
		return nil
	case *This:
		ref, err := r.captureName(ctx, n, "this", func() (Value, error) {
			v, err := r.ev.env.This(ctx)
			if err != nil {
				return Value{}, wrap(n, err)
			}
			return v, nil
		})
		if err != nil {
			return err
		}
		r.f.Refs[n] = ref
		return nil
	case *Select:
		_, err := r.valueOrClass(ctx, n.X)
		return err
	case *Index:
		return r.all(ctx, []Node{n.X, n.Index})
	case *Unary:
		return r.resolve(ctx, n.X)
	case *Binary:
		return r.all(ctx, []Node{n.X, n.Y})
	case *Cond:
		return r.all(ctx, []Node{n.Cond, n.Then, n.Else})
	case *Cast:
		if err := r.class(ctx, n, n.Type); err != nil {
			return err
		}
		return r.resolve(ctx, n.X)
	case *InstanceOf:
		if n.Bind != "" {
			return fail(n, "instanceof with a pattern is not supported inside a lambda: test, then cast")
		}
		if err := r.class(ctx, n, n.Type); err != nil {
			return err
		}
		return r.resolve(ctx, n.X)
	case *ClassLit:
		if err := r.class(ctx, n, n.Type); err != nil {
			return err
		}
		if _, ok := r.f.Refs[n]; !ok {
			return fail(n, "a primitive class literal is not supported inside a lambda")
		}
		return nil
	case *New:
		if err := r.class(ctx, n, n.Type); err != nil {
			return err
		}
		return r.all(ctx, n.Args)
	case *Call:
		switch fun := n.Fun.(type) {
		case *Name:
			// Unqualified: a method of this, or of the frame's class.
			if _, err := r.ev.env.This(ctx); err == nil {
				ref, err := r.captureName(ctx, n, "this", func() (Value, error) { return r.ev.env.This(ctx) })
				if err != nil {
					return err
				}
				r.f.Refs[n] = ref
			} else {
				class, err := r.ev.env.FrameClass(ctx)
				if err != nil {
					return wrap(n, err)
				}
				r.f.Refs[n] = Ref{Kind: RefClass, Class: class}
			}
		case *Select:
			if _, err := r.valueOrClass(ctx, fun.X); err != nil {
				return err
			}
		}
		return r.all(ctx, n.Args)
	case *Lambda, *MethodRef:
		return fail(n, "a lambda or method reference inside a lambda is not supported here")
	case *Assign:
		return fail(n, "assignment is not supported inside a lambda")
	case *NewArray, *ArrayInit:
		return fail(n, "array creation is not supported inside a lambda")
	}
	return fail(n, "not supported inside a lambda")
}

// functional reports whether a lambda or method reference converts to
// type param: a functional interface whose method takes as many
// parameters as the lambda has.
func (ev *evaluator) functional(ctx context.Context, f *Func, param string) (bool, error) {
	fns, ok := ev.env.(Functions)
	if !ok || javalang.IsPrimitive(param) || strings.HasPrefix(param, "[") {
		return false, nil
	}
	m, ok, err := fns.FunctionalMethod(ctx, param)
	if err != nil || !ok {
		return false, err
	}
	if l, isLambda := f.Node.(*Lambda); isLambda {
		params, _ := javalang.ParamSigs(m.Signature)
		return len(params) == len(l.Params), nil
	}
	return true, nil
}

// makeFunction creates the object a lambda or method reference argument
// becomes for a parameter of type sig.
func (ev *evaluator) makeFunction(ctx context.Context, n Node, f *Func, sig string) (Value, error) {
	fns, ok := ev.env.(Functions)
	if !ok {
		return Value{}, fail(f.Node, "%ss are not supported here", f.What())
	}
	m, ok, err := fns.FunctionalMethod(ctx, sig)
	if err != nil {
		return Value{}, wrap(f.Node, err)
	}
	if !ok {
		return Value{}, fail(f.Node, "%s is not a functional interface", javalang.TypeName(sig))
	}
	v, err := fns.MakeFunction(ctx, sig, m, f)
	if err != nil {
		return Value{}, wrap(f.Node, fmt.Errorf("making the %s: %w", f.What(), err))
	}
	return v, nil
}
