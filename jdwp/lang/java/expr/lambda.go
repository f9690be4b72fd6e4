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
	// Lambda is (Params) -> Body, with an expression body or a *Block.
	// Parameter types, when written, are not kept: the functional
	// interface gives them.
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
		return &Lambda{At: at, Params: params, Body: p.block()}
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
	// Locals are, for the lambda and each lambda nested in it, the declared
	// types of the locals its block body declares, by RefLocal index
	// ("var" when inferred, "int", "String", "int[]").
	Locals map[*Lambda][]string
	// Slots are the RefLocal indexes a *VarDecl (one per name) or a
	// *ForEach (its variable) declares.
	Slots map[Node][]int
	// Nested are the lambdas and method references in the body, which the
	// body creates each time it runs them.
	Nested map[Node]*Nested
	// Types are the classes (signatures) each *Catch of the body catches.
	Types map[Node][]string
}

// Nested is what a lambda or method reference in a lambda's body takes
// from the function that creates it: Outer are expressions of that
// function (names of its parameters and locals, or a method reference's
// receiver), evaluated when it is created; RefOuter Index i is Outer[i]'s
// value. A nested method reference with a receiver value has it as
// Outer[0].
type Nested struct {
	Outer []Node
}

// RefKind is what a name in a lambda's body refers to.
type RefKind uint8

const (
	RefParam   RefKind = iota + 1 // the lambda's parameter Index
	RefCapture                    // Captures[Index]
	RefClass                      // the class Class (a signature)
	RefLocal                      // a local of the lambda's block: Locals[lambda][Index]
	RefOuter                      // a value of the enclosing lambda: Nested.Outer[Index]
	RefField                      // the named field of this (Captures[Index]), read and assigned in place
	RefStatic                     // the named static field of Class, read and assigned in place
)

// Locals is implemented by an Env that tells a frame's local variables
// from its fields: a lambda captures a local's value (Java's effectively
// final locals), and reads and assigns a field in place.
type Locals interface {
	IsLocal(ctx context.Context, name string) (bool, error)
}

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
	r := &resolver{ev: ev, f: &Func{Node: n, Refs: map[Node]Ref{}, Locals: map[*Lambda][]string{}, Slots: map[Node][]int{}, Nested: map[Node]*Nested{}, Types: map[Node][]string{}},
		captured: map[string]int{}}
	switch n := n.(type) {
	case *Lambda:
		r.fn = &fnScope{lambda: n, params: n.Params, blocks: []map[string]int{{}}}
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
	fn       *fnScope       // the lambda whose body is being resolved (nil for a method reference)
	captured map[string]int // name ("this" too) -> index in Captures
}

// fnScope is a lambda being resolved: its parameters, the locals its
// blocks declare, and, for a nested one, what it takes from the lambda
// around it.
type fnScope struct {
	parent *fnScope
	lambda *Lambda
	params []string
	blocks []map[string]int // innermost last: name -> RefLocal index
	nested *Nested          // nil for the outermost lambda
	outer  map[string]int   // names taken from the enclosing lambda -> RefOuter index
	binds  map[string]int   // pattern variables -> RefLocal index
}

// lambdaName finds a name among the parameters and locals of fn and of the
// lambdas around it (those become fn's outer values).
func (r *resolver) lambdaName(fn *fnScope, name string) (Ref, bool) {
	if fn == nil {
		return Ref{}, false
	}
	for i := len(fn.blocks) - 1; i >= 0; i-- {
		if idx, ok := fn.blocks[i][name]; ok {
			return Ref{Kind: RefLocal, Index: idx}, true
		}
	}
	for i := len(fn.params) - 1; i >= 0; i-- {
		if fn.params[i] == name {
			return Ref{Kind: RefParam, Index: i}, true
		}
	}
	if fn.parent == nil {
		return Ref{}, false
	}
	if j, ok := fn.outer[name]; ok {
		return Ref{Kind: RefOuter, Index: j}, true
	}
	pr, ok := r.lambdaName(fn.parent, name)
	if !ok {
		return Ref{}, false
	}
	node := &Name{At: -1, Name: name}
	r.f.Refs[node] = pr
	fn.nested.Outer = append(fn.nested.Outer, node)
	fn.outer[name] = len(fn.nested.Outer) - 1
	return Ref{Kind: RefOuter, Index: len(fn.nested.Outer) - 1}, true
}

// declare adds a local of the innermost block.
func (r *resolver) declare(n Node, typ, name string) error {
	fn := r.fn
	if _, clash := r.lambdaName(fn, name); clash {
		return fail(n, "variable %s is already defined here", name)
	}
	idx := len(r.f.Locals[fn.lambda])
	r.f.Locals[fn.lambda] = append(r.f.Locals[fn.lambda], typ)
	fn.blocks[len(fn.blocks)-1][name] = idx
	r.f.Slots[n] = append(r.f.Slots[n], idx)
	return nil
}

// bind declares a pattern variable (x instanceof T t) as a local of the
// innermost block: javac's scope for it is narrower (where the test is
// known true), which matters only for names javac would refuse; another
// pattern variable of the same name shares its local.
func (r *resolver) bind(n Node, typ, name string) error {
	if idx, ok := r.fn.binds[name]; ok {
		r.f.Slots[n] = append(r.f.Slots[n], idx)
		return nil
	}
	if err := r.declare(n, typ, name); err != nil {
		return err
	}
	if r.fn.binds == nil {
		r.fn.binds = map[string]int{}
	}
	r.fn.binds[name] = r.f.Slots[n][0]
	return nil
}

// scoped resolves ns in a new block scope.
func (r *resolver) scoped(ctx context.Context, ns ...Node) error {
	r.fn.blocks = append(r.fn.blocks, map[string]int{})
	defer func() { r.fn.blocks = r.fn.blocks[:len(r.fn.blocks)-1] }()
	return r.all(ctx, ns)
}

// frameField resolves a name of the frame that is no local as a field
// read and assigned in place: of this, or a static one of the frame's
// class. ok is false when the environment cannot tell locals from fields,
// or the name is a local.
func (r *resolver) frameField(ctx context.Context, n *Name) (Ref, bool, error) {
	loc, isEnv := r.ev.env.(Locals)
	if _, bound := r.ev.binds[n.Name]; !isEnv || bound {
		return Ref{}, false, nil
	}
	local, err := loc.IsLocal(ctx, n.Name)
	if err != nil || local {
		return Ref{}, false, err
	}
	if this, err := r.ev.env.This(ctx); err == nil {
		if _, err := r.ev.env.Field(ctx, this, n.Name); err == nil {
			ref, err := r.captureName(ctx, n, "this", func() (Value, error) { return this, nil })
			return Ref{Kind: RefField, Index: ref.Index}, err == nil, err
		}
	}
	class, err := r.ev.env.FrameClass(ctx)
	if err != nil {
		return Ref{}, false, nil
	}
	if _, err := r.ev.env.StaticField(ctx, class, n.Name); err == nil {
		return Ref{Kind: RefStatic, Class: class}, true, nil
	}
	return Ref{}, false, nil
}

// nestedFunc resolves a lambda or method reference inside a lambda's body.
func (r *resolver) nestedFunc(ctx context.Context, n Node) error {
	nested := &Nested{}
	r.f.Nested[n] = nested
	switch n := n.(type) {
	case *Lambda:
		child := &fnScope{parent: r.fn, lambda: n, params: n.Params, nested: nested, outer: map[string]int{}, blocks: []map[string]int{{}}}
		for _, p := range n.Params {
			if _, clash := r.lambdaName(r.fn, p); clash {
				return fail(n, "variable %s is already defined here", p)
			}
		}
		save := r.fn
		r.fn = child
		defer func() { r.fn = save }()
		return r.resolve(ctx, n.Body)
	case *MethodRef:
		if _, isThis := n.X.(*This); !isThis {
			isClass, err := r.valueOrClass(ctx, n.X)
			if err != nil || isClass {
				return err
			}
		} else if err := r.resolve(ctx, n.X); err != nil {
			return err
		}
		if n.Name == "new" {
			return fail(n, "::new needs a class name before it")
		}
		nested.Outer = []Node{n.X}
	}
	return nil
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
		if ref, ok := r.lambdaName(r.fn, n.Name); ok {
			r.f.Refs[n] = ref
			return nil
		}
		if ref, ok, err := r.frameField(ctx, n); err != nil || ok {
			r.f.Refs[n] = ref
			return err
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
		if err := r.class(ctx, n, n.Type); err != nil {
			return err
		}
		if err := r.resolve(ctx, n.X); err != nil || n.Bind == "" {
			return err
		}
		return r.bind(n, n.Type, n.Bind)
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
			// Unqualified: a method of this, or of the frame's class, or
			// one the file imports static.
			scope, err := r.ev.env.FrameClass(ctx)
			if this, terr := r.ev.env.This(ctx); terr == nil {
				scope, err = typeSig(this), nil
			}
			if err != nil {
				return wrap(n, err)
			}
			if class, ok, err := r.ev.staticImport(ctx, scope, fun.Name); err != nil {
				return wrap(n, err)
			} else if ok {
				r.f.Refs[n] = Ref{Kind: RefClass, Class: class}
			} else if _, err := r.ev.env.This(ctx); err == nil {
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
		return r.nestedFunc(ctx, n)
	case *Assign:
		if err := r.resolve(ctx, n.X); err != nil {
			return err
		}
		if name, ok := n.X.(*Name); ok {
			switch r.f.Refs[name].Kind {
			case RefCapture, RefOuter:
				return fail(n, "local variables referenced from a lambda expression must be final or effectively final: %s cannot be assigned here", name.Name)
			}
		}
		return r.resolve(ctx, n.Y)
	case *NewArray:
		elem := strings.TrimSuffix(n.Type, "[]")
		if _, prim := primitiveNames[elem]; !prim {
			if err := r.class(ctx, n, elem); err != nil {
				return err
			}
		}
		if n.Init != nil {
			for _, e := range n.Init.Elems {
				if _, nestedInit := e.(*ArrayInit); nestedInit {
					return fail(e, "nested array initializers are not supported inside a lambda")
				}
			}
			return r.all(ctx, n.Init.Elems)
		}
		return r.resolve(ctx, n.Len)
	case *ArrayInit:
		return fail(n, "an array initializer needs new Type[] before it")
	// Statements of a block body.
	case *Block:
		return r.scoped(ctx, n.Stmts...)
	case *VarDecl:
		for i, name := range n.Names {
			if n.Inits[i] != nil {
				if err := r.resolve(ctx, n.Inits[i]); err != nil {
					return err
				}
			}
			if err := r.declare(n, n.Type, name); err != nil {
				return err
			}
		}
		return nil
	case *ExprStmt:
		return r.resolve(ctx, n.X)
	case *Return:
		if n.X == nil {
			return nil
		}
		return r.resolve(ctx, n.X)
	case *If:
		if err := r.resolve(ctx, n.Cond); err != nil {
			return err
		}
		if err := r.scoped(ctx, n.Then); err != nil || n.Else == nil {
			return err
		}
		return r.scoped(ctx, n.Else)
	case *While:
		if err := r.resolve(ctx, n.Cond); err != nil {
			return err
		}
		return r.scoped(ctx, n.Body)
	case *For:
		r.fn.blocks = append(r.fn.blocks, map[string]int{})
		defer func() { r.fn.blocks = r.fn.blocks[:len(r.fn.blocks)-1] }()
		if err := r.all(ctx, n.Init); err != nil {
			return err
		}
		if n.Cond != nil {
			if err := r.resolve(ctx, n.Cond); err != nil {
				return err
			}
		}
		if err := r.all(ctx, n.Update); err != nil {
			return err
		}
		return r.scoped(ctx, n.Body)
	case *ForEach:
		if err := r.resolve(ctx, n.X); err != nil {
			return err
		}
		r.fn.blocks = append(r.fn.blocks, map[string]int{})
		defer func() { r.fn.blocks = r.fn.blocks[:len(r.fn.blocks)-1] }()
		if err := r.declare(n, n.Type, n.Name); err != nil {
			return err
		}
		return r.scoped(ctx, n.Body)
	case *Jump:
		return nil
	case *Throw:
		return r.resolve(ctx, n.X)
	case *Try:
		if err := r.resolve(ctx, n.Body); err != nil {
			return err
		}
		for _, c := range n.Catches {
			for _, t := range c.Types {
				sig, err := r.ev.resolveType(ctx, c, t)
				if err != nil {
					return err
				}
				r.f.Types[c] = append(r.f.Types[c], sig)
			}
			r.fn.blocks = append(r.fn.blocks, map[string]int{})
			err := r.declare(c, strings.Join(c.Types, "|"), c.Name)
			if err == nil {
				err = r.resolve(ctx, c.Body)
			}
			r.fn.blocks = r.fn.blocks[:len(r.fn.blocks)-1]
			if err != nil {
				return err
			}
		}
		return nil
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
