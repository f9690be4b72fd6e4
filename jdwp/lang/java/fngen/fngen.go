package fngen

//go:generate sh -c "rm -rf .rt && javac --release 8 -g:none -d .rt Rt.java && cp .rt/ddmbridge/rt/Rt.class Rt.class && rm -rf .rt"

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/classgen"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

// Runtime is the compiled runtime class (Rt.java), defined once per class
// loader before any generated class runs.
//
//go:embed Rt.class
var Runtime []byte

// RuntimeName is the runtime class's internal name.
const RuntimeName = "ddmbridge/rt/Rt"

// Package is the package of generated classes whose frame's package cannot
// hold them (java.*): the runtime's.
const Package = "ddmbridge/rt/"

// Prefix is the start of a generated class's simple name.
const Prefix = "ddmbridge$F"

const (
	object   = "java/lang/Object"
	objectD  = "Ljava/lang/Object;"
	objects  = "[Ljava/lang/Object;"
	capField = "c"
)

// Generated is a class fngen made: its internal name and class file.
type Generated struct {
	Name  string
	Bytes []byte
}

// Class compiles f into a class of package pkg ("a/b/", "" for the
// unnamed package) implementing interface iface (internal name) whose
// method sam (name and descriptor) runs f. In the package of the code that
// wrote the lambda it can use that package's classes. The class's name
// depends on its contents only (a hash), so the same lambda in the same
// class loader is defined once. A lambda with lambdas or method references
// in its body needs Compile, which also gives their classes.
func Class(pkg, iface, sam, samDesc string, f *expr.Func) (name string, class []byte, err error) {
	root, nested, err := Compile(pkg, iface, sam, samDesc, f)
	if err == nil && len(nested) > 0 {
		err = fmt.Errorf("fngen: the %s holds %d nested functions: use Compile", f.What(), len(nested))
	}
	return root.Name, root.Bytes, err
}

// Compile is Class, and also gives the classes of the lambdas and method
// references nested in f's body: each is an InvocationHandler (the
// runtime makes it a java.lang.reflect.Proxy of the interface the method
// it is passed to takes), named by its contents like the root. They must
// be defined in the same loader as the root, in any order.
func Compile(pkg, iface, sam, samDesc string, f *expr.Func) (root Generated, nested []Generated, err error) {
	var out []Generated
	b, err := compile(pkg, pkg+Prefix, iface, sam, samDesc, f, &out)
	if err != nil {
		return Generated{}, nil, err
	}
	sum := sha256.Sum256(b)
	name := pkg + Prefix + hex.EncodeToString(sum[:10])
	out = nil
	b, err = compile(pkg, name, iface, sam, samDesc, f, &out)
	return Generated{Name: name, Bytes: b}, out, err
}

const (
	handlerIface = "java/lang/reflect/InvocationHandler"
	methodD      = "Ljava/lang/reflect/Method;"
	outerField   = "e"
)

func compile(pkg, name, iface, sam, samDesc string, f *expr.Func, out *[]Generated) ([]byte, error) {
	c := classgen.New(name, object, iface)
	c.Field(classgen.AccPrivate|classgen.AccFinal, capField, objects)

	init := c.Method(classgen.AccPublic, "<init>", "("+objects+")V")
	init.Load(objectD, 0)
	init.Invoke(classgen.Invokespec, object, "<init>", "()V")
	init.Load(objectD, 0)
	init.Load(objects, 1)
	init.Field(classgen.Putfield, name, capField, objects)
	init.Op(classgen.Return)

	m := c.Method(classgen.AccPublic, sam, samDesc)
	g := &gen{m: m, f: f, self: name, pkg: pkg, out: out}
	// Box the parameters into locals after them.
	params, ret := javalang.ParamSigs(samDesc)
	slot, next := 1, 1+classgen.ArgSlots(samDesc)
	for _, p := range params {
		m.Load(p, slot)
		box(m, p)
		m.Store(next)
		g.params = append(g.params, next)
		slot += classgen.ArgSlots("(" + p + ")V")
		next++
	}
	g.next = next
	switch n := f.Node.(type) {
	case *expr.Lambda:
		if len(n.Params) != len(params) {
			return nil, fmt.Errorf("the lambda has %d parameters; %s takes %d", len(n.Params), sam, len(params))
		}
		done, err := g.body(n)
		if err != nil {
			return nil, err
		}
		if !done {
			return c.Bytes() // the body never returns normally
		}
		if _, block := n.Body.(*expr.Block); block && ret != "V" && g.fellOff {
			return nil, fmt.Errorf("missing return statement: the block body of a lambda for %s must return a value", sam)
		}
	case *expr.MethodRef:
		if err := g.methodRef(n, false); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("fngen: %T is not a lambda or method reference", f.Node)
	}
	switch {
	case ret == "V":
		m.Op(classgen.Pop)
		m.Op(classgen.Return)
	case len(ret) == 1:
		m.Invoke(classgen.Invokestat, RuntimeName, "to"+ret, "("+objectD+")"+ret)
		m.Op(map[string]byte{"Z": classgen.Ireturn, "B": classgen.Ireturn, "C": classgen.Ireturn, "S": classgen.Ireturn,
			"I": classgen.Ireturn, "J": classgen.Lreturn, "F": classgen.Freturn, "D": classgen.Dreturn}[ret])
	case ret == objectD:
		m.Op(classgen.Areturn)
	default:
		m.Class(javalang.InternalName(ret))
		m.Invoke(classgen.Invokestat, RuntimeName, "to", "("+objectD+"Ljava/lang/Class;)"+objectD)
		m.Type(classgen.Checkcast, javalang.InternalName(ret))
		m.Op(classgen.Areturn)
	}
	return c.Bytes()
}

// handler compiles a lambda or method reference nested in a lambda's body
// into an InvocationHandler whose invoke runs it for the interface's
// abstract method (Rt.body; Object's methods and default methods go to
// Rt.other), and returns its name, which hashes its contents.
func handler(pkg string, f *expr.Func, n expr.Node, out *[]Generated) (string, error) {
	b, err := compileHandler(pkg, pkg+Prefix, f, n, out)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	name := pkg + Prefix + hex.EncodeToString(sum[:10])
	if b, err = compileHandler(pkg, name, f, n, out); err != nil {
		return "", err
	}
	for _, g := range *out {
		if g.Name == name {
			return name, nil
		}
	}
	*out = append(*out, Generated{Name: name, Bytes: b})
	return name, nil
}

func compileHandler(pkg, name string, f *expr.Func, n expr.Node, out *[]Generated) ([]byte, error) {
	c := classgen.New(name, object, handlerIface)
	c.Field(classgen.AccPrivate|classgen.AccFinal, capField, objects)
	c.Field(classgen.AccPrivate|classgen.AccFinal, outerField, objects)
	c.Field(classgen.AccPublic|classgen.AccFinal, "n", "I")
	arity := -1 // a method reference takes what the interface gives
	if l, ok := n.(*expr.Lambda); ok {
		arity = len(l.Params)
	}
	init := c.Method(classgen.AccPublic, "<init>", "("+objects+objects+")V")
	init.Load(objectD, 0)
	init.Invoke(classgen.Invokespec, object, "<init>", "()V")
	init.Load(objectD, 0)
	init.Load(objects, 1)
	init.Field(classgen.Putfield, name, capField, objects)
	init.Load(objectD, 0)
	init.Load(objects, 2)
	init.Field(classgen.Putfield, name, outerField, objects)
	init.Load(objectD, 0)
	init.Int(int32(arity))
	init.Field(classgen.Putfield, name, "n", "I")
	init.Op(classgen.Return)

	m := c.Method(classgen.AccPublic, "invoke", "("+objectD+methodD+objects+")"+objectD)
	body := m.NewLabel()
	m.Load(methodD, 2)
	m.Invoke(classgen.Invokestat, RuntimeName, "body", "("+methodD+")Z")
	m.Jump(classgen.Ifne, body)
	m.Load(objectD, 0)
	m.Load(objectD, 1)
	m.Load(methodD, 2)
	m.Load(objects, 3)
	m.Invoke(classgen.Invokestat, RuntimeName, "other", "("+objectD+objectD+methodD+objects+")"+objectD)
	m.Op(classgen.Areturn)
	m.Mark(body)
	g := &gen{m: m, f: f, self: name, pkg: pkg, out: out, next: 4, argsSlot: 3, outer: true}
	for i := 0; i < arity; i++ {
		m.Load(objects, 3)
		m.Int(int32(i))
		m.Op(classgen.Aaload)
		m.Store(g.next)
		g.params = append(g.params, g.next)
		g.next++
	}
	switch n := n.(type) {
	case *expr.Lambda:
		done, err := g.body(n)
		if err != nil || !done {
			if err == nil {
				return c.Bytes()
			}
			return nil, err
		}
	case *expr.MethodRef:
		if err := g.methodRef(n, len(f.Nested[n].Outer) > 0); err != nil {
			return nil, err
		}
	}
	m.Load(methodD, 2)
	m.Invoke(classgen.Invokestat, RuntimeName, "ret", "("+objectD+methodD+")"+objectD)
	m.Op(classgen.Areturn)
	return c.Bytes()
}

// internal is a reference type's name for a class constant: the internal
// name of a class, the descriptor of an array.
var boxes = map[string]string{"Z": "java/lang/Boolean", "B": "java/lang/Byte", "C": "java/lang/Character",
	"S": "java/lang/Short", "I": "java/lang/Integer", "J": "java/lang/Long", "F": "java/lang/Float", "D": "java/lang/Double"}

// box turns the primitive of type t on the stack into its wrapper.
func box(m *classgen.Code, t string) {
	if b, ok := boxes[t]; ok {
		m.Invoke(classgen.Invokestat, b, "valueOf", "("+t+")"+javalang.ClassSignature(b))
	}
}

type gen struct {
	m      *classgen.Code
	f      *expr.Func
	self   string
	pkg    string
	params []int // local slot of each boxed parameter
	out    *[]Generated

	outer    bool // the class has the outer values (a nested function's handler)
	argsSlot int  // a handler's slot of invoke's Object[] args (0 in the root)
	lambda   *expr.Lambda
	locals   []int // slot of each local of the lambda's block, by RefLocal index
	next     int   // the next free local slot

	ret      *classgen.Label // where return goes, with the value on the stack
	returned bool            // a return jumps to ret
	fellOff  bool            // the block body can complete without a return
	dead     bool            // the code here is unreachable
	loops    []*loop
}

// loop is a loop being compiled: where break and continue go.
type loop struct {
	brk, cont    *classgen.Label
	broke, contd bool
}

// temp is a fresh local slot for a value kept a moment.
func (g *gen) temp() int {
	g.next++
	return g.next - 1
}

func (g *gen) rt(name, desc string) { g.m.Invoke(classgen.Invokestat, RuntimeName, name, desc) }

func (g *gen) ref(n expr.Node) (expr.Ref, bool) {
	r, ok := g.f.Refs[n]
	return r, ok
}

// load pushes what a resolved name refers to, as an object.
func (g *gen) load(n expr.Node, r expr.Ref) error {
	switch r.Kind {
	case expr.RefParam:
		if r.Index >= len(g.params) {
			return fmt.Errorf("%s: parameter %d of %d", n, r.Index, len(g.params))
		}
		g.m.Load(objectD, g.params[r.Index])
	case expr.RefCapture:
		g.m.Load(objectD, 0)
		g.m.Field(classgen.Getfield, g.self, capField, objects)
		g.m.Int(int32(r.Index))
		g.m.Op(classgen.Aaload)
	case expr.RefLocal:
		if r.Index >= len(g.locals) {
			return fmt.Errorf("%s: local %d of %d", n, r.Index, len(g.locals))
		}
		g.m.Load(objectD, g.locals[r.Index])
	case expr.RefOuter:
		if !g.outer {
			return fmt.Errorf("%s: no enclosing lambda", n)
		}
		g.m.Load(objectD, 0)
		g.m.Field(classgen.Getfield, g.self, outerField, objects)
		g.m.Int(int32(r.Index))
		g.m.Op(classgen.Aaload)
	case expr.RefField:
		g.m.Load(objectD, 0)
		g.m.Field(classgen.Getfield, g.self, capField, objects)
		g.m.Int(int32(r.Index))
		g.m.Op(classgen.Aaload)
		g.m.String(fieldName(n))
		g.rt("field", "("+objectD+"Ljava/lang/String;)"+objectD)
	case expr.RefStatic:
		g.m.Class(javalang.InternalName(r.Class))
		g.m.String(fieldName(n))
		g.rt("sfield", "(Ljava/lang/Class;Ljava/lang/String;)"+objectD)
	case expr.RefClass:
		return fmt.Errorf("%s is a class, not a value", n)
	default:
		return fmt.Errorf("%s is not resolved", n)
	}
	return nil
}

// class pushes the java.lang.Class n refers to, if it names one.
func (g *gen) class(n expr.Node) bool {
	r, ok := g.ref(n)
	if !ok || r.Kind != expr.RefClass {
		return false
	}
	g.m.Class(javalang.InternalName(r.Class))
	return true
}

// className pushes the java.lang.Class n refers to if n, a name, names a
// class (Cast, New and the like carry their type's class under their own
// node: that is not them naming a class).
func (g *gen) className(n expr.Node) bool {
	switch n.(type) {
	case *expr.Name, *expr.Select:
		return g.class(n)
	}
	return false
}

// args pushes an Object[] of the nodes' values.
func (g *gen) args(ns []expr.Node) error {
	g.m.Int(int32(len(ns)))
	g.m.Type(classgen.Anewarray, object)
	for i, a := range ns {
		g.m.Op(classgen.Dup)
		g.m.Int(int32(i))
		if err := g.expr(a); err != nil {
			return err
		}
		g.m.Op(classgen.Aastore)
	}
	return nil
}

// paramArray pushes an Object[] of the method's (boxed) parameters.
func (g *gen) paramArray() {
	if g.argsSlot > 0 && g.lambda == nil { // a method reference's handler: what invoke was given
		g.m.Load(objects, g.argsSlot)
		g.rt("args", "("+objects+")"+objects)
		return
	}
	g.m.Int(int32(len(g.params)))
	g.m.Type(classgen.Anewarray, object)
	for i, slot := range g.params {
		g.m.Op(classgen.Dup)
		g.m.Int(int32(i))
		g.m.Load(objectD, slot)
		g.m.Op(classgen.Aastore)
	}
}

const (
	callDesc  = "(" + objectD + "Ljava/lang/String;" + objects + ")" + objectD
	classCall = "(Ljava/lang/Class;Ljava/lang/String;" + objects + ")" + objectD
	makeDesc  = "(Ljava/lang/Class;" + objects + ")" + objectD
)

// methodRef compiles a method reference's call; outer says its receiver
// is the handler's outer value 0 (a nested bound reference).
func (g *gen) methodRef(n *expr.MethodRef, outer bool) error {
	r, ok := g.ref(n.X)
	if outer {
		r, ok = expr.Ref{Kind: expr.RefOuter}, true
	}
	switch {
	case !ok:
		return fmt.Errorf("%s is not resolved", n.X)
	case r.Kind == expr.RefClass && n.Name == "new":
		g.class(n.X)
		g.paramArray()
		g.rt("make", makeDesc)
	case r.Kind == expr.RefClass:
		g.class(n.X)
		g.m.String(n.Name)
		g.paramArray()
		g.rt("ref", classCall)
	default:
		if err := g.load(n.X, r); err != nil {
			return err
		}
		g.m.String(n.Name)
		g.paramArray()
		g.rt("call", callDesc)
	}
	return nil
}

// expr pushes the value of n as an object.
func (g *gen) expr(n expr.Node) error {
	m := g.m
	switch n := n.(type) {
	case *expr.Lit:
		return g.lit(n.Value)
	case *expr.Name, *expr.This:
		r, _ := g.ref(n)
		return g.load(n, r)
	case *expr.Select:
		if g.className(n.X) {
			m.String(n.Name)
			g.rt("sfield", "(Ljava/lang/Class;Ljava/lang/String;)"+objectD)
			return nil
		}
		if err := g.expr(n.X); err != nil {
			return err
		}
		m.String(n.Name)
		g.rt("field", "("+objectD+"Ljava/lang/String;)"+objectD)
	case *expr.Call:
		var name string
		switch fun := n.Fun.(type) {
		case *expr.Name:
			name = fun.Name
			r, _ := g.ref(n)
			if r.Kind == expr.RefClass {
				g.class(n)
				m.String(name)
				if err := g.args(n.Args); err != nil {
					return err
				}
				g.rt("scall", classCall)
				return nil
			}
			if err := g.load(n, r); err != nil {
				return err
			}
		case *expr.Select:
			name = fun.Name
			if g.className(fun.X) {
				m.String(name)
				if err := g.args(n.Args); err != nil {
					return err
				}
				g.rt("scall", classCall)
				return nil
			}
			if err := g.expr(fun.X); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: only a named method can be called", n)
		}
		m.String(name)
		if err := g.args(n.Args); err != nil {
			return err
		}
		g.rt("call", callDesc)
	case *expr.New:
		if !g.class(n) {
			return fmt.Errorf("%s: not a class", n)
		}
		if err := g.args(n.Args); err != nil {
			return err
		}
		g.rt("make", makeDesc)
	case *expr.Unary:
		m.String(n.Op)
		if err := g.expr(n.X); err != nil {
			return err
		}
		g.rt("un", "(Ljava/lang/String;"+objectD+")"+objectD)
	case *expr.Binary:
		if n.Op == "&&" || n.Op == "||" {
			return g.logical(n)
		}
		if err := g.expr(n.X); err != nil {
			return err
		}
		if err := g.expr(n.Y); err != nil {
			return err
		}
		m.String(n.Op)
		g.rt("bin", "("+objectD+objectD+"Ljava/lang/String;)"+objectD)
	case *expr.Cond:
		if err := g.truth(n.Cond); err != nil {
			return err
		}
		els, end := m.NewLabel(), m.NewLabel()
		m.Jump(classgen.Ifeq, els)
		if err := g.expr(n.Then); err != nil {
			return err
		}
		m.Jump(classgen.Goto, end)
		m.Mark(els)
		if err := g.expr(n.Else); err != nil {
			return err
		}
		m.Mark(end)
	case *expr.Cast:
		if err := g.expr(n.X); err != nil {
			return err
		}
		if g.class(n) {
			g.rt("cast", "("+objectD+"Ljava/lang/Class;)"+objectD)
		} else {
			m.String(n.Type)
			g.rt("cast", "("+objectD+"Ljava/lang/String;)"+objectD)
		}
	case *expr.InstanceOf:
		if err := g.expr(n.X); err != nil {
			return err
		}
		x := -1
		if n.Bind != "" { // keep the value for the pattern variable
			x = g.temp()
			m.Op(classgen.Dup)
			m.Store(x)
		}
		if !g.class(n) {
			return fmt.Errorf("%s: not a class", n)
		}
		g.rt("isInst", "("+objectD+"Ljava/lang/Class;)"+objectD)
		if x >= 0 {
			slots := g.f.Slots[n]
			if len(slots) != 1 || slots[0] >= len(g.locals) {
				return fmt.Errorf("%s: the pattern variable is not resolved", n)
			}
			skip := m.NewLabel()
			m.Op(classgen.Dup)
			g.rt("truth", "("+objectD+")Z")
			m.Jump(classgen.Ifeq, skip)
			m.Load(objectD, x)
			m.Store(g.locals[slots[0]])
			m.Mark(skip)
		}
	case *expr.Index:
		if err := g.expr(n.X); err != nil {
			return err
		}
		if err := g.expr(n.Index); err != nil {
			return err
		}
		g.rt("index", "("+objectD+objectD+")"+objectD)
	case *expr.ClassLit:
		if !g.class(n) {
			return fmt.Errorf("%s: not a class", n)
		}
	case *expr.Assign:
		return g.assign(n)
	case *expr.Lambda, *expr.MethodRef:
		return g.nested(n)
	case *expr.NewArray:
		if !g.class(n) {
			m.String(strings.TrimSuffix(n.Type, "[]"))
		}
		if n.Init != nil {
			if err := g.args(n.Init.Elems); err != nil {
				return err
			}
			g.rt("arrayOf", "("+objectD+objects+")"+objectD)
			return nil
		}
		if err := g.expr(n.Len); err != nil {
			return err
		}
		g.rt("newArray", "("+objectD+objectD+")"+objectD)
	default:
		return fmt.Errorf("%s is not supported inside a lambda", n)
	}
	return nil
}

// truth pushes n as a boolean (int 0 or 1).
func (g *gen) truth(n expr.Node) error {
	if err := g.expr(n); err != nil {
		return err
	}
	g.rt("truth", "("+objectD+")Z")
	return nil
}

// logical is && and ||, which evaluate their right operand only when needed.
func (g *gen) logical(n *expr.Binary) error {
	m := g.m
	short, end := m.NewLabel(), m.NewLabel()
	if err := g.truth(n.X); err != nil {
		return err
	}
	op, val := byte(classgen.Ifeq), "FALSE"
	if n.Op == "||" {
		op, val = classgen.Ifne, "TRUE"
	}
	m.Jump(op, short)
	if err := g.truth(n.Y); err != nil {
		return err
	}
	box(m, "Z")
	m.Jump(classgen.Goto, end)
	m.Mark(short)
	m.Field(classgen.Getstatic, "java/lang/Boolean", val, "Ljava/lang/Boolean;")
	m.Mark(end)
	return nil
}

// lit pushes a literal as an object.
func (g *gen) lit(v expr.Value) error {
	m := g.m
	switch v.Kind {
	case expr.KindNull:
		m.Op(classgen.AconstNull)
	case expr.KindString:
		if !v.Known {
			return fmt.Errorf("a string from the VM cannot be a literal")
		}
		m.String(v.Str)
	case expr.KindBoolean, expr.KindByte, expr.KindChar, expr.KindShort, expr.KindInt:
		m.Int(int32(v.I))
		box(m, map[expr.Kind]string{expr.KindBoolean: "Z", expr.KindByte: "B", expr.KindChar: "C", expr.KindShort: "S", expr.KindInt: "I"}[v.Kind])
	case expr.KindLong:
		m.Long(v.I)
		box(m, "J")
	case expr.KindFloat:
		m.Float(float32(v.F))
		box(m, "F")
	case expr.KindDouble:
		m.Double(v.F)
		box(m, "D")
	default:
		return fmt.Errorf("literal %s not supported inside a lambda", v.Kind)
	}
	return nil
}
