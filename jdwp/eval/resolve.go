package eval

import (
	"context"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/classfile"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
	"github.com/ddmbridge/ddmbridge/jdwp/srclookup"
)

// Type names as javac reads them (JLS 6.4.1, 6.5.5, 7.5): a simple name
// written in the Debug Console means what it means in the frame's source
// file — a member type of the frame's class or of a class enclosing it
// (declared, or inherited from a supertype and loaded), then a
// single-type import, then a type of the file's package, then a
// type-import-on-demand (java.lang.* among them; two of those finding the
// name is ambiguous, as javac says). Further parts name member types
// (Shape.Circle). A class the program has not loaded yet is loaded through
// the frame class's loader (Class.forName, not initialized: a class is
// initialized when a static member is used, as Java does), when methods may
// run. Without the source file, or for a name these rules do not find,
// mirror.VM.ResolveClass's guesses over the loaded classes apply.

// scope is what a Frame learns of its source file, once per environment.
type scope struct {
	read    bool
	imports *Imports          // nil: the source file was not found
	classes map[string]string // names resolved so far: signature, or "" for none
	pool    map[string]bool   // class names in the frame's class's constant pool (nil: unknown)
	loaded  map[string]bool   // signatures this environment loaded (not yet initialized)
	inited  map[string]bool   // of those, the ones initialized since
}

// fileImports returns the imports of the frame's source file, or nil.
func (e *Frame) fileImports(ctx context.Context) *Imports {
	if e.sc.read {
		return e.sc.imports
	}
	e.sc.read = true
	if e.ev.s == nil || e.f.Loc.Class == 0 {
		return nil
	}
	f, ok := e.ev.s.SourceOf(ctx, e.f.Loc.Class)
	if !ok {
		return nil
	}
	text, err := srclookup.Read(f)
	if err != nil {
		e.ev.log.Debug().Err(err).Str("file", f.Path+f.Archive+"!"+f.Entry).Msg("read the frame's source for its imports")
		return nil
	}
	im := ParseImports(text)
	e.sc.imports = &im
	e.ev.log.Debug().Str("package", im.Package).Int("imports", len(im.Single)+len(im.OnDemand)).Msg("read the frame's imports")
	return e.sc.imports
}

// sourceClass resolves name as the frame's source file would. found is
// false when the file is unknown or its scope has no type of name's first
// part; an error says why a name that the scope does find is wrong.
func (e *Frame) sourceClass(ctx context.Context, name string) (sig string, found bool, err error) {
	if sig, ok := e.sc.classes[name]; ok {
		return sig, sig != "", nil
	}
	frame, err := e.FrameClass(ctx)
	if err != nil {
		return "", false, err
	}
	im := e.fileImports(ctx)
	if im == nil {
		return "", false, nil
	}
	head, rest, _ := strings.Cut(name, ".")
	internal, err := e.scopeType(ctx, javalang.InternalName(frame), im, head)
	if err != nil || internal == "" {
		if err == nil {
			e.remember(name, "") // not looked for again in this evaluation
		}
		return "", false, err
	}
	if rest != "" {
		internal += "$" + strings.ReplaceAll(rest, ".", "$")
		if ok, err := e.exists(ctx, internal); err != nil {
			return "", false, err
		} else if !ok {
			return "", true, fmt.Errorf("%s has no member type %s: %w", javalang.ClassName(internal[:len(internal)-len(rest)-1]), rest, expr.ErrUnknownName)
		}
	}
	sig = javalang.ClassSignature(internal)
	e.remember(name, sig)
	return sig, true, nil
}

// remember notes what name resolved to ("" for nothing).
func (e *Frame) remember(name, sig string) {
	if e.sc.classes == nil {
		e.sc.classes = map[string]string{}
	}
	e.sc.classes[name] = sig
}

// scopeType finds the type a simple name means in the file: its internal
// name, or "" when none.
func (e *Frame) scopeType(ctx context.Context, frame string, im *Imports, head string) (string, error) {
	// Member types of the frame's class and of those enclosing it,
	// innermost first.
	for outer := frame; ; {
		if c := outer + "$" + head; e.inPool(ctx, c) {
			if ok, err := e.exists(ctx, c); ok || err != nil {
				return c, err
			}
		}
		if c := e.inherited(ctx, outer, head); c != "" {
			return c, nil
		}
		i := strings.LastIndexByte(outer, '$')
		if i < 0 {
			break
		}
		outer = outer[:i]
	}
	// Single-type imports.
	for _, s := range im.Single {
		if s == head || strings.HasSuffix(s, "."+head) {
			if c, err := e.firstBinary(ctx, s); c != "" || err != nil {
				return c, err
			}
		}
	}
	// The file's package.
	pkg := strings.ReplaceAll(im.Package, ".", "/")
	if pkg != "" {
		pkg += "/"
	}
	if ok, err := e.exists(ctx, pkg+head); ok || err != nil {
		return pkg + head, err
	}
	// Imports on demand, java.lang.* among them.
	var found []string
	for _, od := range append(append([]string(nil), im.OnDemand...), "java.lang") {
		c, err := e.firstBinary(ctx, od+"."+head)
		if err != nil {
			return "", err
		}
		if c != "" && !contains(found, c) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = javalang.ClassName(f)
	}
	return "", fmt.Errorf("reference to %s is ambiguous: both %s match the file's imports on demand; qualify the name", head, strings.Join(names, " and "))
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// inherited finds a member type called head that class (internal name)
// inherits from its superclasses and interfaces, among the loaded classes.
func (e *Frame) inherited(ctx context.Context, class, head string) string {
	t, err := e.ev.vm.ClassBySignature(ctx, javalang.ClassSignature(class))
	if err != nil {
		return ""
	}
	classes, ifaces, err := e.ev.vm.Hierarchy(ctx, t)
	if err != nil || len(classes) == 0 {
		return ""
	}
	for _, s := range append(classes[1:], ifaces...) {
		sig, err := e.ev.vm.Signature(ctx, s)
		if err != nil {
			continue
		}
		if c := javalang.InternalName(sig) + "$" + head; e.isLoaded(ctx, c) {
			return c
		}
	}
	return ""
}

// firstBinary finds the class a canonical name (a.b.Outer.Inner) names:
// among the loaded classes a/b/Outer/Inner, else a/b/Outer$Inner, and so
// on outwards; else the one Java's naming makes likely (packages in lower
// case, a/b/Outer$Inner) loaded through the frame's loader.
func (e *Frame) firstBinary(ctx context.Context, canonical string) (string, error) {
	parts := strings.Split(canonical, ".")
	binary := func(i int) string {
		c := strings.Join(parts[:i], "/")
		if i < len(parts) {
			c += "$" + strings.Join(parts[i:], "$")
		}
		return c
	}
	for i := len(parts); i >= 1; i-- {
		if c := binary(i); e.isLoaded(ctx, c) {
			return c, nil
		}
	}
	likely := len(parts)
	for i, p := range parts {
		if p != "" && p[0] >= 'A' && p[0] <= 'Z' {
			likely = i + 1
			break
		}
	}
	c := binary(likely)
	ok, err := e.exists(ctx, c)
	if !ok || err != nil {
		return "", err
	}
	return c, nil
}

// isLoaded reports whether the VM has loaded class internal.
func (e *Frame) isLoaded(ctx context.Context, internal string) bool {
	_, err := e.ev.vm.ClassBySignature(ctx, javalang.ClassSignature(internal))
	return err == nil
}

// inPool reports whether the frame's class (or a class enclosing it) may
// declare the member type internal: its constant pool names every member
// type (the InnerClasses attribute). When the VM cannot give constant
// pools, every candidate is tried.
func (e *Frame) inPool(ctx context.Context, internal string) bool {
	if e.sc.pool == nil {
		e.sc.pool = map[string]bool{}
		count, data, err := e.ev.vm.ConstantPool(ctx, e.f.Loc.Class)
		if err != nil {
			e.sc.pool["*"] = true
			return true
		}
		pool, _, err := classfile.ParsePool(int(count), data)
		if err != nil {
			e.sc.pool["*"] = true
			return true
		}
		for _, en := range pool.Entries {
			if en.Tag == classfile.TagClass && int(en.A) < len(pool.Entries) {
				e.sc.pool[pool.Entries[en.A].Str] = true
			}
		}
	}
	return e.sc.pool["*"] || e.sc.pool[internal]
}

// exists reports whether class internal is loaded, or, when methods may
// run, can be loaded through the frame class's loader. Only names that
// start with a capital letter, as Java names classes, are loaded.
func (e *Frame) exists(ctx context.Context, internal string) (bool, error) {
	sig := javalang.ClassSignature(internal)
	if e.isLoaded(ctx, internal) {
		return true, nil
	}
	simple := internal[strings.LastIndexAny(internal, "/$")+1:]
	if simple == "" || simple[0] < 'A' || simple[0] > 'Z' || e.canInvoke() != nil {
		return false, nil
	}
	_, ok, err := e.loadClass(ctx, sig)
	if err != nil {
		return false, err
	}
	if ok {
		if e.sc.loaded == nil {
			e.sc.loaded = map[string]bool{}
		}
		e.sc.loaded[sig] = true
	}
	return ok, nil
}

// initialized makes sure a class this environment loaded is initialized
// before a static member of it is used (Class.forName(name, true, loader)),
// as the first use of a class in Java initializes it.
func (e *Frame) initialized(ctx context.Context, sig string) error {
	if !e.sc.loaded[sig] || e.sc.inited[sig] {
		return nil
	}
	if e.sc.inited == nil {
		e.sc.inited = map[string]bool{}
	}
	e.sc.inited[sig] = true
	loader, err := e.functionLoader(ctx)
	if err != nil {
		return err
	}
	name, err := e.NewString(ctx, javalang.TypeName(sig))
	if err != nil {
		return err
	}
	_, err = e.forName(ctx, name, loader, true)
	return err
}

// StaticImport returns the class whose static members called name the
// frame's source file imports (import static a.b.C.name, then import
// static a.b.C.*), ok false when none does (expr.StaticImports).
func (e *Frame) StaticImport(ctx context.Context, name string) (string, bool, error) {
	if _, err := e.FrameClass(ctx); err != nil {
		return "", false, err
	}
	im := e.fileImports(ctx)
	if im == nil {
		return "", false, nil
	}
	var classes []string
	for _, s := range im.Static {
		if i := strings.LastIndexByte(s, '.'); i > 0 && s[i+1:] == name {
			classes = append(classes, s[:i])
		}
	}
	classes = append(classes, im.StaticOnDemand...)
	for _, c := range classes {
		internal, err := e.firstBinary(ctx, c)
		if err != nil {
			return "", false, err
		}
		if internal == "" {
			continue
		}
		sig := javalang.ClassSignature(internal)
		if e.hasStatic(ctx, sig, name) {
			return sig, true, nil
		}
	}
	return "", false, nil
}

// hasStatic reports whether class sig has a static method or field called
// name.
func (e *Frame) hasStatic(ctx context.Context, sig, name string) bool {
	if ms, err := e.Methods(ctx, sig, name); err == nil {
		for _, m := range ms {
			if m.Static {
				return true
			}
		}
	}
	t, err := e.ev.vm.ClassBySignature(ctx, sig)
	if err != nil {
		return false
	}
	f, ok, err := e.ev.vm.FindField(ctx, t, name)
	return err == nil && ok && f.Static()
}
