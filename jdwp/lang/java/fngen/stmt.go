package fngen

import (
	"fmt"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/classgen"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

// Block bodies, assignments and nested functions. Every value is an
// object, as in expressions; a local declared with a primitive type holds
// its box, converted on every store as Java converts (int x = 'a' holds
// 97); a compound assignment converts back to the variable's type
// (byte b; b += 1000) through Rt.narrow.

// body compiles a lambda's body, leaving its value on the stack (null for
// a block that returns none). done is false when the body never returns
// normally (it throws or loops forever): nothing follows it then.
func (g *gen) body(n *expr.Lambda) (done bool, err error) {
	g.lambda = n
	for range g.f.Locals[n] {
		slot := g.temp()
		g.m.Op(classgen.AconstNull) // every local is definitely assigned for the verifier
		g.m.Store(slot)
		g.locals = append(g.locals, slot)
	}
	block, ok := n.Body.(*expr.Block)
	if !ok {
		return true, g.expr(n.Body)
	}
	g.ret = g.m.NewLabel()
	if err := g.stmt(block); err != nil {
		return false, err
	}
	if g.dead && !g.returned {
		return false, nil
	}
	if !g.dead {
		g.m.Op(classgen.AconstNull)
		g.fellOff = true
	}
	g.m.Mark(g.ret)
	return true, nil
}

// stmt compiles a statement; the stack is empty before and after.
func (g *gen) stmt(n expr.Node) error {
	m := g.m
	switch n := n.(type) {
	case *expr.Block:
		for _, s := range n.Stmts {
			if g.dead {
				break // unreachable, which javac refuses; nothing to run
			}
			if err := g.stmt(s); err != nil {
				return err
			}
		}
	case *expr.ExprStmt:
		if err := g.expr(n.X); err != nil {
			return err
		}
		m.Op(classgen.Pop)
	case *expr.VarDecl:
		slots := g.f.Slots[n]
		if len(slots) != len(n.Names) {
			return fmt.Errorf("%s: locals not resolved", n)
		}
		for i, init := range n.Inits {
			if init == nil {
				continue
			}
			if err := g.expr(init); err != nil {
				return err
			}
			g.convert(n.Type)
			m.Store(g.locals[slots[i]])
		}
	case *expr.Return:
		if g.ret == nil {
			return fmt.Errorf("%s: return outside a block body", n)
		}
		if n.X == nil {
			m.Op(classgen.AconstNull)
		} else if err := g.expr(n.X); err != nil {
			return err
		}
		m.Jump(classgen.Goto, g.ret)
		g.returned, g.dead = true, true
	case *expr.If:
		if err := g.truth(n.Cond); err != nil {
			return err
		}
		els := m.NewLabel()
		m.Jump(classgen.Ifeq, els)
		if err := g.stmt(n.Then); err != nil {
			return err
		}
		var end *classgen.Label
		if !g.dead {
			end = m.NewLabel()
			m.Jump(classgen.Goto, end)
		}
		m.Mark(els)
		g.dead = false
		if n.Else != nil {
			if err := g.stmt(n.Else); err != nil {
				return err
			}
		}
		if end != nil {
			m.Mark(end)
			g.dead = false
		}
	case *expr.While:
		return g.while(n)
	case *expr.For:
		return g.forLoop(n)
	case *expr.ForEach:
		return g.forEach(n)
	case *expr.Jump:
		if len(g.loops) == 0 {
			return fmt.Errorf("%s outside a loop", n)
		}
		l := g.loops[len(g.loops)-1]
		if n.Continue {
			m.Jump(classgen.Goto, l.cont)
			l.contd = true
		} else {
			m.Jump(classgen.Goto, l.brk)
			l.broke = true
		}
		g.dead = true
	case *expr.Throw:
		if err := g.expr(n.X); err != nil {
			return err
		}
		m.Type(classgen.Checkcast, "java/lang/Throwable")
		m.Op(classgen.Athrow)
		g.dead = true
	case *expr.Try:
		return g.try(n)
	default:
		return fmt.Errorf("%s is not supported inside a lambda", n)
	}
	return nil
}

// try compiles try { } catch (...) { }: each catch is an exception
// handler over the try block, storing the exception in its local.
func (g *gen) try(n *expr.Try) error {
	m := g.m
	start := m.Here()
	if err := g.stmt(n.Body); err != nil {
		return err
	}
	end := m.Here()
	var after *classgen.Label
	if !g.dead {
		after = m.NewLabel()
		m.Jump(classgen.Goto, after)
	}
	if start.Pos() < end.Pos() { // an empty try throws nothing to catch
		for _, c := range n.Catches {
			slots := g.f.Slots[c]
			if len(slots) != 1 || slots[0] >= len(g.locals) {
				return fmt.Errorf("%s: the exception's local is not resolved", c)
			}
			h := m.NewLabel()
			for _, sig := range g.f.Types[c] {
				m.Handler(start, end, h, javalang.InternalName(sig))
			}
			m.MarkHandler(h)
			m.Store(g.locals[slots[0]])
			g.dead = false
			if err := g.stmt(c.Body); err != nil {
				return err
			}
			if !g.dead {
				if after == nil {
					after = m.NewLabel()
				}
				m.Jump(classgen.Goto, after)
			}
		}
	}
	if after != nil {
		m.Mark(after)
		g.dead = false
	} else {
		g.dead = true
	}
	return nil
}

// loopBody compiles a loop's body with its break and continue targets.
func (g *gen) loopBody(body expr.Node, l *loop) error {
	g.loops = append(g.loops, l)
	defer func() { g.loops = g.loops[:len(g.loops)-1] }()
	return g.stmt(body)
}

func (g *gen) while(n *expr.While) error {
	m := g.m
	top := m.NewLabel()
	l := &loop{brk: m.NewLabel(), cont: m.NewLabel()}
	if !n.Do {
		l.cont = top
	}
	m.Mark(top)
	if !n.Do {
		if err := g.truth(n.Cond); err != nil {
			return err
		}
		m.Jump(classgen.Ifeq, l.brk)
		if err := g.loopBody(n.Body, l); err != nil {
			return err
		}
		if !g.dead {
			m.Jump(classgen.Goto, top)
		}
		m.Mark(l.brk)
		g.dead = false
		return nil
	}
	if err := g.loopBody(n.Body, l); err != nil {
		return err
	}
	if !g.dead || l.contd {
		m.Mark(l.cont)
		g.dead = false
		if err := g.truth(n.Cond); err != nil {
			return err
		}
		m.Jump(classgen.Ifne, top)
		if l.broke {
			m.Mark(l.brk)
		}
		return nil
	}
	if l.broke {
		m.Mark(l.brk)
		g.dead = false
	}
	return nil
}

func (g *gen) forLoop(n *expr.For) error {
	m := g.m
	for _, s := range n.Init {
		if err := g.stmt(s); err != nil {
			return err
		}
	}
	top := m.NewLabel()
	l := &loop{brk: m.NewLabel(), cont: m.NewLabel()}
	m.Mark(top)
	if n.Cond != nil {
		if err := g.truth(n.Cond); err != nil {
			return err
		}
		m.Jump(classgen.Ifeq, l.brk)
	}
	if err := g.loopBody(n.Body, l); err != nil {
		return err
	}
	if !g.dead || l.contd {
		m.Mark(l.cont)
		g.dead = false
		for _, u := range n.Update {
			if err := g.stmt(u); err != nil {
				return err
			}
		}
		m.Jump(classgen.Goto, top)
	}
	if n.Cond != nil || l.broke {
		m.Mark(l.brk)
		g.dead = false
	} else {
		g.dead = true // for (;;) without a break
	}
	return nil
}

func (g *gen) forEach(n *expr.ForEach) error {
	m := g.m
	slots := g.f.Slots[n]
	if len(slots) != 1 {
		return fmt.Errorf("%s: its variable is not resolved", n)
	}
	if err := g.expr(n.X); err != nil {
		return err
	}
	g.rt("iter", "("+objectD+")"+objectD)
	it := g.temp()
	m.Store(it)
	top := m.NewLabel()
	l := &loop{brk: m.NewLabel(), cont: top}
	m.Mark(top)
	m.Load(objectD, it)
	g.rt("more", "("+objectD+")Z")
	m.Jump(classgen.Ifeq, l.brk)
	m.Load(objectD, it)
	g.rt("next", "("+objectD+")"+objectD)
	g.convert(n.Type)
	m.Store(g.locals[slots[0]])
	if err := g.loopBody(n.Body, l); err != nil {
		return err
	}
	if !g.dead {
		m.Jump(classgen.Goto, top)
	}
	m.Mark(l.brk)
	g.dead = false
	return nil
}

var primitive = map[string]bool{"boolean": true, "byte": true, "char": true, "short": true, "int": true, "long": true, "float": true, "double": true}

// convert converts the value on the stack for a local of declared type
// typ: a primitive type's box, as Java's assignment converts.
func (g *gen) convert(typ string) {
	if primitive[typ] {
		g.m.String(typ)
		g.rt("cast", "("+objectD+"Ljava/lang/String;)"+objectD)
	}
}

// fieldName is the field a node resolved as RefField or RefStatic names.
func fieldName(n expr.Node) string {
	if x, ok := n.(*expr.Name); ok {
		return x.Name
	}
	return n.String()
}

// assign compiles X = Y, X op= Y, X++ and the like: the value of the
// expression is what X holds after (before, for X++ and X--).
func (g *gen) assign(n *expr.Assign) error {
	m := g.m
	// Where: a local slot, or temps holding the receiver (and index).
	var store func() // stores the new value on the stack, leaving the stored value
	var load func()  // pushes the current value
	switch x := n.X.(type) {
	case *expr.Name:
		r, _ := g.ref(x)
		switch r.Kind {
		case expr.RefParam, expr.RefLocal:
			slot, typ := 0, ""
			if r.Kind == expr.RefParam {
				if r.Index >= len(g.params) {
					return fmt.Errorf("%s: parameter %d of %d", x, r.Index, len(g.params))
				}
				slot = g.params[r.Index]
			} else {
				if r.Index >= len(g.locals) {
					return fmt.Errorf("%s: local %d of %d", x, r.Index, len(g.locals))
				}
				slot, typ = g.locals[r.Index], g.f.Locals[g.lambda][r.Index]
			}
			load = func() { m.Load(objectD, slot) }
			store = func() {
				g.convert(typ)
				m.Op(classgen.Dup)
				m.Store(slot)
			}
		case expr.RefField:
			obj := g.temp()
			if err := g.load(&expr.This{}, expr.Ref{Kind: expr.RefCapture, Index: r.Index}); err != nil {
				return err
			}
			m.Store(obj)
			load = func() { g.load(x, r) } //nolint:errcheck // a RefField loads
			store = g.fieldStore(obj, x.Name)
		case expr.RefStatic:
			load = func() { g.load(x, r) } //nolint:errcheck // a RefStatic loads
			store = g.staticStore(r.Class, x.Name)
		default:
			return fmt.Errorf("%s cannot be assigned inside a lambda", x)
		}
	case *expr.Select:
		if r, ok := g.ref(x.X); ok && r.Kind == expr.RefClass {
			load = func() {
				g.class(x.X)
				m.String(x.Name)
				g.rt("sfield", "(Ljava/lang/Class;Ljava/lang/String;)"+objectD)
			}
			store = g.staticStore(r.Class, x.Name)
			break
		}
		obj := g.temp()
		if err := g.expr(x.X); err != nil {
			return err
		}
		m.Store(obj)
		load = func() {
			m.Load(objectD, obj)
			m.String(x.Name)
			g.rt("field", "("+objectD+"Ljava/lang/String;)"+objectD)
		}
		store = g.fieldStore(obj, x.Name)
	case *expr.Index:
		arr, idx := g.temp(), g.temp()
		if err := g.expr(x.X); err != nil {
			return err
		}
		m.Store(arr)
		if err := g.expr(x.Index); err != nil {
			return err
		}
		m.Store(idx)
		load = func() {
			m.Load(objectD, arr)
			m.Load(objectD, idx)
			g.rt("index", "("+objectD+objectD+")"+objectD)
		}
		store = func() {
			v := g.temp()
			m.Store(v)
			m.Load(objectD, arr)
			m.Load(objectD, idx)
			m.Load(objectD, v)
			g.rt("setIndex", "("+objectD+objectD+objectD+")"+objectD)
		}
	default:
		return fmt.Errorf("%s cannot be assigned", n.X)
	}
	old := -1
	if n.Op != "" {
		old = g.temp()
		load()
		m.Store(old)
		m.Load(objectD, old)
		if err := g.expr(n.Y); err != nil {
			return err
		}
		m.String(n.Op)
		g.rt("bin", "("+objectD+objectD+"Ljava/lang/String;)"+objectD)
		m.Load(objectD, old)
		g.rt("narrow", "("+objectD+objectD+")"+objectD)
	} else if err := g.expr(n.Y); err != nil {
		return err
	}
	store()
	if n.Post {
		m.Op(classgen.Pop)
		m.Load(objectD, old)
	}
	return nil
}

// fieldStore stores the value on the stack into field name of the object
// in slot obj, leaving the value stored (converted to the field's type).
func (g *gen) fieldStore(obj int, name string) func() {
	return func() {
		v := g.temp()
		g.m.Store(v)
		g.m.Load(objectD, obj)
		g.m.Load(objectD, v)
		g.m.String(name)
		g.rt("setField", "("+objectD+objectD+"Ljava/lang/String;)"+objectD)
	}
}

// staticStore stores the value on the stack into static field name of
// class (a signature), leaving the value stored.
func (g *gen) staticStore(class, name string) func() {
	return func() {
		v := g.temp()
		g.m.Store(v)
		g.m.Class(javalang.InternalName(class))
		g.m.Load(objectD, v)
		g.m.String(name)
		g.rt("setSField", "(Ljava/lang/Class;"+objectD+"Ljava/lang/String;)"+objectD)
	}
}

// nested creates the handler of a lambda or method reference in the body:
// new Handler(c, new Object[]{outer values...}).
func (g *gen) nested(n expr.Node) error {
	m := g.m
	info := g.f.Nested[n]
	if info == nil {
		return fmt.Errorf("%s is not resolved", n)
	}
	name, err := handler(g.pkg, g.f, n, g.out)
	if err != nil {
		return err
	}
	m.Type(classgen.NewObj, name)
	m.Op(classgen.Dup)
	m.Load(objectD, 0)
	m.Field(classgen.Getfield, g.self, capField, objects)
	if err := g.args(info.Outer); err != nil {
		return err
	}
	m.Invoke(classgen.Invokespec, name, "<init>", "("+objects+objects+")V")
	return nil
}
