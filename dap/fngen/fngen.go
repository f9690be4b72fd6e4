package fngen

//go:generate sh -c "rm -rf .rt && javac --release 8 -g:none -d .rt Rt.java && cp .rt/ddmbridge/rt/Rt.class Rt.class && rm -rf .rt"

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"

	"github.com/ddmbridge/ddmbridge/dap/classgen"
	"github.com/ddmbridge/ddmbridge/dap/expr"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
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

// Class compiles f into a class of package pkg ("a/b/", "" for the
// unnamed package) implementing interface iface (internal name) whose
// method sam (name and descriptor) runs f. In the package of the code that
// wrote the lambda it can use that package's classes. The class's name
// depends on its contents only (a hash), so the same lambda in the same
// class loader is defined once.
func Class(pkg, iface, sam, samDesc string, f *expr.Func) (name string, class []byte, err error) {
	b, err := compile(pkg+Prefix, iface, sam, samDesc, f)
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(b)
	name = pkg + Prefix + hex.EncodeToString(sum[:10])
	b, err = compile(name, iface, sam, samDesc, f)
	return name, b, err
}

func compile(name, iface, sam, samDesc string, f *expr.Func) ([]byte, error) {
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
	g := &gen{m: m, f: f, self: name}
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
	switch n := f.Node.(type) {
	case *expr.Lambda:
		if len(n.Params) != len(params) {
			return nil, fmt.Errorf("the lambda has %d parameters; %s takes %d", len(n.Params), sam, len(params))
		}
		if err := g.expr(n.Body); err != nil {
			return nil, err
		}
	case *expr.MethodRef:
		if err := g.methodRef(n); err != nil {
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
	params []int // local slot of each boxed parameter
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

func (g *gen) methodRef(n *expr.MethodRef) error {
	r, ok := g.ref(n.X)
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
		if !g.class(n) {
			return fmt.Errorf("%s: not a class", n)
		}
		g.rt("isInst", "("+objectD+"Ljava/lang/Class;)"+objectD)
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
