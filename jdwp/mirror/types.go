package mirror

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// ClassBySignature returns a loaded class (or array type) by signature; an
// error wrapping javalang.ErrUnknownName when none is loaded.
func (m *VM) ClassBySignature(ctx context.Context, sig string) (jdwp.ReferenceTypeID, error) {
	return m.bySig.Get(sig, func() (jdwp.ReferenceTypeID, error) {
		cs, err := m.conn.ClassesBySignature(ctx, sig)
		if err != nil {
			return 0, err
		}
		if len(cs) == 0 {
			return 0, fmt.Errorf("class %s is not loaded: %w", javalang.TypeName(sig), javalang.ErrUnknownName)
		}
		return cs[0].ID, nil
	})
}

// ResolveClass finds the loaded class a source name means, seen from class
// from (0: from nowhere) and returns its signature: a nested class of from
// or its outer classes, a class of from's package, java.lang, a qualified
// name with nested parts (a.b.Outer.Inner is a.b.Outer$Inner), and, last,
// the only loaded class with that simple name.
func (m *VM) ResolveClass(ctx context.Context, name string, from jdwp.ReferenceTypeID) (string, error) {
	var cands []string
	if from != 0 {
		fromSig, err := m.Signature(ctx, from)
		if err != nil {
			return "", err
		}
		outer := javalang.InternalName(fromSig)
		for {
			cands = append(cands, outer+"$"+strings.ReplaceAll(name, ".", "$"))
			i := strings.LastIndexByte(outer, '$')
			if i < 0 {
				break
			}
			outer = outer[:i]
		}
		if i := strings.LastIndexByte(outer, '/'); i >= 0 && !strings.Contains(name, ".") {
			cands = append(cands, outer[:i+1]+name)
		}
	}
	if !strings.Contains(name, ".") {
		cands = append(cands, "java/lang/"+name)
	}
	// a.b.C.D: a/b/C/D, a/b/C$D, a/b$C$D…
	parts := strings.Split(name, ".")
	for i := len(parts); i >= 1; i-- {
		cands = append(cands, strings.Join(parts[:i], "/")+strings.Join(append([]string{""}, parts[i:]...), "$"))
	}
	for _, c := range cands {
		sig := javalang.ClassSignature(c)
		if _, err := m.ClassBySignature(ctx, sig); err == nil {
			return sig, nil
		}
	}
	if !strings.Contains(name, ".") {
		all, err := m.conn.AllClasses(ctx)
		if err != nil {
			return "", err
		}
		var found []string
		for _, c := range all {
			n := javalang.TypeName(c.Signature)
			if strings.HasPrefix(c.Signature, "L") && (strings.HasSuffix(n, "."+name) || strings.HasSuffix(n, "$"+name) || n == name) {
				found = append(found, c.Signature)
			}
		}
		if len(found) == 1 {
			return found[0], nil
		}
		if len(found) > 1 {
			names := make([]string, len(found))
			for i, f := range found {
				names[i] = javalang.TypeName(f)
			}
			return "", fmt.Errorf("%s is ambiguous: %s are loaded; qualify the name", name, strings.Join(names, ", "))
		}
	}
	return "", fmt.Errorf("no loaded class is called %s: %w", name, javalang.ErrUnknownName)
}

// Modifier bits of methods that package jdwp does not name.
const (
	AccVarargs int32 = 0x0080
	AccBridge  int32 = 0x0040
)

// Method is a method found by name: where it is declared and how to run it.
type Method struct {
	jdwp.MethodInfo
	// Class is the signature of the declaring type, Type its id.
	Class string
	Type  jdwp.ReferenceTypeID
	// Interface says Type is an interface (a static method there runs
	// through InterfaceType.InvokeMethod).
	Interface bool
}

// Static reports whether the method is static.
func (m Method) Static() bool { return m.ModBits&jdwp.AccStatic != 0 }

// Varargs reports whether the method takes a variable number of arguments.
func (m Method) Varargs() bool { return m.ModBits&AccVarargs != 0 }

// MethodsNamed lists the methods called name of t, its superclasses and
// interfaces, the most derived first, one per parameter list (bridges and
// synthetic methods left out); constructors ("<init>") are t's own.
func (m *VM) MethodsNamed(ctx context.Context, t jdwp.ReferenceTypeID, name string) ([]Method, error) {
	var out []Method
	seen := map[string]bool{}
	add := func(c jdwp.ReferenceTypeID, iface bool) error {
		ms, err := m.Methods(ctx, c)
		if err != nil {
			return err
		}
		sig, err := m.Signature(ctx, c)
		if err != nil {
			return err
		}
		for _, mi := range ms {
			// One per parameter list: an override with a covariant return
			// (StringBuilder.reverse() over AbstractStringBuilder's) hides
			// the overridden method.
			params := mi.Signature[:strings.IndexByte(mi.Signature, ')')+1]
			if mi.Name != name || seen[params] || mi.ModBits&(AccBridge|jdwp.AccSynthetic) != 0 {
				continue
			}
			seen[params] = true
			out = append(out, Method{MethodInfo: mi, Class: sig, Type: c, Interface: iface})
		}
		return nil
	}
	if name == "<init>" {
		return out, add(t, false)
	}
	classes, ifaces, err := m.Hierarchy(ctx, t)
	if err != nil {
		return nil, err
	}
	for _, c := range classes {
		if err := add(c, false); err != nil {
			return nil, err
		}
	}
	for _, i := range ifaces {
		if err := add(i, true); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Hierarchy lists t and its superclasses, the most derived first, and
// every interface they implement (breadth first, once each).
func (m *VM) Hierarchy(ctx context.Context, t jdwp.ReferenceTypeID) (classes, ifaces []jdwp.ReferenceTypeID, err error) {
	var queue []jdwp.ReferenceTypeID
	for c := t; c != 0; {
		classes = append(classes, c)
		m.typeFacts(ctx, c)
		is, err := m.Interfaces(ctx, c)
		if err != nil {
			return nil, nil, err
		}
		queue = append(queue, is...)
		if c, err = m.Superclass(ctx, c); err != nil {
			return nil, nil, err
		}
	}
	done := map[jdwp.ReferenceTypeID]bool{}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		if done[i] {
			continue
		}
		done[i] = true
		ifaces = append(ifaces, i)
		more, err := m.Interfaces(ctx, i)
		if err != nil {
			return nil, nil, err
		}
		queue = append(queue, more...)
	}
	return classes, ifaces, nil
}

// ReadType reads what a walk up a hierarchy asks of the type of signature
// sig (see typeFacts) into the caches, if it is loaded. A session reads
// java.lang.Object's at its start, beside its first requests: every walk
// ends there, so the first value of a type met costs a round trip less.
func (m *VM) ReadType(ctx context.Context, sig string) {
	if t, err := m.ClassBySignature(ctx, sig); err == nil {
		m.typeFacts(ctx, t)
	}
}

// typeFacts reads t's signature, interfaces and superclass into the caches
// at once, with its methods and declared fields (what presenting a value of
// the type asks next: a toString of its own? its fields): a walk up a
// hierarchy then costs a round trip per level on a slow link, not five.
// Errors are left to the calls that meet them.
func (m *VM) typeFacts(ctx context.Context, t jdwp.ReferenceTypeID) {
	Parallel(5, func(i int) error {
		switch i {
		case 0:
			m.Signature(ctx, t)
		case 1:
			m.Interfaces(ctx, t)
		case 2:
			m.Superclass(ctx, t)
		case 3:
			m.Methods(ctx, t)
		default:
			m.DeclaredFields(ctx, t)
		}
		return nil
	})
}

// Subtype reports whether type sub is assignable to sup (reference
// signatures). A class that is not loaded is a subtype of nothing but itself
// and Object.
func (m *VM) Subtype(ctx context.Context, sub, sup string) (bool, error) {
	if sub == sup || sup == "Ljava/lang/Object;" {
		return true, nil
	}
	if strings.HasPrefix(sub, "[") {
		if strings.HasPrefix(sup, "[") {
			se, pe := sub[1:], sup[1:]
			if javalang.IsPrimitive(se) || javalang.IsPrimitive(pe) {
				return se == pe, nil
			}
			return m.Subtype(ctx, se, pe)
		}
		return sup == "Ljava/lang/Cloneable;" || sup == "Ljava/io/Serializable;", nil
	}
	if strings.HasPrefix(sup, "[") {
		return false, nil
	}
	t, err := m.ClassBySignature(ctx, sub)
	if errors.Is(err, javalang.ErrUnknownName) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return m.subtypes.Get(subtypeKey{t, sup}, func() (bool, error) { return m.extends(ctx, t, sup, map[jdwp.ReferenceTypeID]bool{}) })
}

// extends walks t's superclasses and interfaces looking for signature sup.
func (m *VM) extends(ctx context.Context, t jdwp.ReferenceTypeID, sup string, seen map[jdwp.ReferenceTypeID]bool) (bool, error) {
	if t == 0 || seen[t] {
		return false, nil
	}
	seen[t] = true
	m.typeFacts(ctx, t)
	sig, err := m.Signature(ctx, t)
	if err != nil {
		return false, err
	}
	if sig == sup {
		return true, nil
	}
	is, err := m.Interfaces(ctx, t)
	if err != nil {
		return false, err
	}
	for _, i := range is {
		if ok, err := m.extends(ctx, i, sup, seen); ok || err != nil {
			return ok, err
		}
	}
	s, err := m.Superclass(ctx, t)
	if err != nil {
		return false, err
	}
	return m.extends(ctx, s, sup, seen)
}
