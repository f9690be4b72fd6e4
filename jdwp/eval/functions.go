package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/fngen"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// Lambdas and method references in expressions (expr.Functions): package
// jdwp/lang/java/fngen compiles one into a class implementing the functional
// interface; it is defined in the VM through the frame class's loader
// (ClassLoader.defineClass run like any method the evaluator calls: in the
// frame's thread alone, bounded by the evaluation's deadline), next to the
// runtime class it calls. Class names hash their contents, so a watch
// evaluated at every stop defines its class once per loader; the VM's own
// list of loaded classes is the cache.

const accInterface = 0x0200

// FunctionalMethod finds the single abstract method of interface sig,
// inherited ones included, leaving out default and static methods and
// Object's public methods redeclared (Comparator.equals).
func (e *Frame) FunctionalMethod(ctx context.Context, sig string) (expr.Method, bool, error) {
	if !strings.HasPrefix(sig, "L") {
		return expr.Method{}, false, nil
	}
	t, err := e.ev.vm.ClassBySignature(ctx, sig)
	if errors.Is(err, expr.ErrUnknownName) {
		// A parameter's interface the program has not used yet.
		var ok bool
		if t, ok, err = e.loadClass(ctx, sig); err != nil || !ok {
			return expr.Method{}, false, err
		}
	}
	if err != nil {
		return expr.Method{}, false, err
	}
	mods, err := e.ev.vm.Modifiers(ctx, t)
	if err != nil || mods&accInterface == 0 {
		return expr.Method{}, false, err
	}
	seen := map[string]bool{}
	done := map[jdwp.ReferenceTypeID]bool{}
	var found []expr.Method
	for queue := []jdwp.ReferenceTypeID{t}; len(queue) > 0; queue = queue[1:] {
		i := queue[0]
		if done[i] {
			continue
		}
		done[i] = true
		ms, err := e.preparedMethods(ctx, i)
		if err != nil {
			return expr.Method{}, false, err
		}
		isig, err := e.ev.vm.Signature(ctx, i)
		if err != nil {
			return expr.Method{}, false, err
		}
		for _, m := range ms {
			key := m.Name + m.Signature[:strings.IndexByte(m.Signature, ')')+1]
			if m.ModBits&jdwp.AccStatic != 0 || m.Name == "<clinit>" || seen[key] {
				continue
			}
			seen[key] = true // a default method here hides an abstract one above
			if m.ModBits&jdwp.AccAbstract == 0 || objectMethod(m.Name, m.Signature) {
				continue
			}
			found = append(found, expr.Method{Class: isig, Name: m.Name, Signature: m.Signature,
				Handle: mirror.Method{MethodInfo: m, Class: isig, Type: i, Interface: true}})
		}
		more, err := e.ev.vm.Interfaces(ctx, i)
		if err != nil {
			return expr.Method{}, false, err
		}
		queue = append(queue, more...)
	}
	if len(found) != 1 {
		return expr.Method{}, false, nil
	}
	return found[0], true, nil
}

// objectMethod reports whether an interface method redeclares one of
// Object's public methods, which do not count as abstract (JLS 9.8).
func objectMethod(name, sig string) bool {
	switch name + sig {
	case "equals(Ljava/lang/Object;)Z", "hashCode()I", "toString()Ljava/lang/String;":
		return true
	}
	return false
}

// MakeFunction defines (once per class loader) the class fngen makes for f
// and creates an instance holding f's captured values.
func (e *Frame) MakeFunction(ctx context.Context, sig string, sam expr.Method, f *expr.Func) (expr.Value, error) {
	if err := e.canInvoke(); err != nil {
		return expr.Value{}, err
	}
	loader, err := e.functionLoader(ctx)
	if err != nil {
		return expr.Value{}, fmt.Errorf("finding the class loader: %w", err)
	}
	frame, err := e.FrameClass(ctx)
	if err != nil {
		return expr.Value{}, err
	}
	root, nested, err := fngen.Compile(functionPackage(frame), javalang.InternalName(sig), sam.Name, sam.Signature, f)
	if err != nil {
		return expr.Value{}, err
	}
	name := root.Name
	if _, err := e.defineClass(ctx, loader, fngen.RuntimeName, fngen.Runtime); err != nil {
		return expr.Value{}, err
	}
	for _, c := range nested { // the lambdas in its body
		if _, err := e.defineClass(ctx, loader, c.Name, c.Bytes); err != nil {
			return expr.Value{}, err
		}
	}
	t, err := e.defineClass(ctx, loader, name, root.Bytes)
	if err != nil {
		return expr.Value{}, err
	}
	if _, err := e.preparedMethods(ctx, t); err != nil {
		return expr.Value{}, err
	}
	ctors, err := e.ev.methodsNamed(ctx, t, "<init>")
	if err != nil {
		return expr.Value{}, err
	}
	if len(ctors) != 1 {
		return expr.Value{}, fmt.Errorf("the generated class %s has %d constructors", name, len(ctors))
	}
	caps, err := e.NewArray(ctx, "[Ljava/lang/Object;", f.Captures)
	if err != nil {
		return expr.Value{}, fmt.Errorf("passing the captured values: %w", err)
	}
	return e.New(ctx, ctors[0], []expr.Value{caps})
}

// functionPackage is the package a lambda's class is defined in: the
// frame class's, so that the lambda reaches what the code there can
// (package-private classes and interfaces), except for the platform's
// packages, which no class loader may add to.
func functionPackage(frameSig string) string {
	internal := javalang.InternalName(frameSig)
	i := strings.LastIndexByte(internal, '/')
	pkg := internal[:i+1]
	for _, p := range []string{"java/", "javax/", "jdk/", "sun/", "com/sun/"} {
		if strings.HasPrefix(pkg, p) {
			return fngen.Package
		}
	}
	return pkg
}

// loadNamed loads a class a qualified name written in an expression names
// (java.util.stream.Collectors) that the program has not loaded yet,
// through the frame's class loader, when methods may run; a.b.Outer.Inner
// is tried as a.b.Outer$Inner too. Only names whose last part starts with
// a capital letter are tried, as Java names classes.
func (e *Frame) loadNamed(ctx context.Context, name string) (string, bool) {
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 || dot+1 >= len(name) || name[dot+1] < 'A' || name[dot+1] > 'Z' || e.canInvoke() != nil {
		return "", false
	}
	for try, n := 0, name; try < 3; try++ {
		sig := javalang.Signature(n)
		if _, ok, err := e.loadClass(ctx, sig); err == nil && ok {
			return sig, true
		}
		i := strings.LastIndexByte(n, '.')
		if i < 0 {
			break
		}
		n = n[:i] + "$" + n[i+1:]
	}
	return "", false
}

// functionLoader is the class loader of the frame's class, or the system
// class loader for a class of the bootstrap loader.
func (e *Frame) functionLoader(ctx context.Context) (jdwp.ClassLoaderID, error) {
	if _, err := e.FrameClass(ctx); err != nil {
		return 0, err
	}
	loader, err := e.ev.vm.ClassLoader(ctx, e.f.Loc.Class)
	if err != nil || loader != 0 {
		return loader, err
	}
	ms, err := e.Methods(ctx, "Ljava/lang/ClassLoader;", "getSystemClassLoader")
	if err != nil {
		return 0, err
	}
	if len(ms) != 1 {
		return 0, errors.New("ClassLoader.getSystemClassLoader() not found")
	}
	v, err := e.Invoke(ctx, expr.Null, ms[0], nil)
	if err != nil {
		return 0, err
	}
	return jdwp.ClassLoaderID(v.Ref), nil
}

// defineClass returns class name (internal form) of loader, defining it
// from b unless the loader has it already.
func (e *Frame) defineClass(ctx context.Context, loader jdwp.ClassLoaderID, name string, b []byte) (jdwp.ReferenceTypeID, error) {
	if t, ok, err := e.loadedIn(ctx, loader, name); ok || err != nil {
		return t, err
	}
	bytes := make([]expr.Value, len(b))
	for i, c := range b {
		bytes[i] = expr.ByteValue(int8(c))
	}
	arr, err := e.NewArray(ctx, "[B", bytes)
	if err != nil {
		return 0, fmt.Errorf("passing the class %s: %w", name, err)
	}
	// The array lives only in the debugger's hands until defineClass runs.
	if err := e.ev.vm.DisableCollection(ctx, jdwp.ObjectID(arr.Ref)); err == nil {
		defer e.ev.vm.EnableCollection(context.WithoutCancel(ctx), jdwp.ObjectID(arr.Ref))
	}
	jname, err := e.NewString(ctx, javalang.ClassName(name))
	if err != nil {
		return 0, err
	}
	var define expr.Method
	ms, err := e.Methods(ctx, "Ljava/lang/ClassLoader;", "defineClass")
	if err != nil {
		return 0, err
	}
	for _, m := range ms {
		if m.Signature == "(Ljava/lang/String;[BII)Ljava/lang/Class;" {
			define = m
		}
	}
	if define.Handle == nil {
		return 0, errors.New("ClassLoader.defineClass(String, byte[], int, int) not found")
	}
	v, err := e.Invoke(ctx, loaderValue(loader), define,
		[]expr.Value{jname, arr, expr.IntValue(0), expr.IntValue(int32(len(b)))})
	if th, ok := expr.IsThrown(err); ok && th.Class == "java.lang.LinkageError" {
		// Defined before, by another session perhaps: ask the loader.
		v, err = e.forName(ctx, jname, loader, false)
	}
	if th, ok := expr.IsThrown(err); ok && th.Class == "java.lang.UnsupportedOperationException" {
		return 0, fmt.Errorf("this VM cannot define classes from Java bytecode (Android runs dex), so lambdas and method references are not supported here: %w", err)
	}
	if err != nil {
		return 0, fmt.Errorf("defining class %s in the VM: %w", javalang.ClassName(name), err)
	}
	ci, err := e.ev.vm.ReflectedType(ctx, jdwp.ClassObjectID(v.Ref))
	if err != nil {
		return 0, err
	}
	e.ev.log.Debug().Str("class", name).Int("bytes", len(b)).Uint64("loader", uint64(loader)).Msg("defined a class for an expression")
	return ci.ID, nil
}

// loadedIn finds class name among the classes loader defined.
func (e *Frame) loadedIn(ctx context.Context, loader jdwp.ClassLoaderID, name string) (jdwp.ReferenceTypeID, bool, error) {
	cs, err := e.ev.vm.ClassesBySignature(ctx, javalang.ClassSignature(name))
	if err != nil {
		return 0, false, err
	}
	for _, c := range cs {
		l, err := e.ev.vm.ClassLoader(ctx, c.ID)
		if err != nil {
			return 0, false, err
		}
		if l == loader {
			return c.ID, true, nil
		}
	}
	return 0, false, nil
}

// loadClass loads the class of signature sig through the frame's class
// loader (Class.forName without initializing it); ok is false when the
// loader finds no such class.
func (e *Frame) loadClass(ctx context.Context, sig string) (jdwp.ReferenceTypeID, bool, error) {
	if err := e.canInvoke(); err != nil {
		return 0, false, err
	}
	loader, err := e.functionLoader(ctx)
	if err != nil {
		return 0, false, err
	}
	name, err := e.NewString(ctx, javalang.TypeName(sig))
	if err != nil {
		return 0, false, err
	}
	v, err := e.forName(ctx, name, loader, false)
	if th, ok := expr.IsThrown(err); ok && th.Class == "java.lang.ClassNotFoundException" {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	ci, err := e.ev.vm.ReflectedType(ctx, jdwp.ClassObjectID(v.Ref))
	if err != nil {
		return 0, false, err
	}
	// JDWP lists a class by signature once it is prepared.
	if _, err := e.preparedMethods(ctx, ci.ID); err != nil {
		return 0, false, err
	}
	return ci.ID, true, nil
}

// forName runs Class.forName(name, initialize, loader).
func (e *Frame) forName(ctx context.Context, name expr.Value, loader jdwp.ClassLoaderID, initialize bool) (expr.Value, error) {
	ms, err := e.Methods(ctx, "Ljava/lang/Class;", "forName")
	if err != nil {
		return expr.Value{}, err
	}
	for _, m := range ms {
		if m.Signature == "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;" {
			return e.Invoke(ctx, expr.Null, m, []expr.Value{name, expr.BoolValue(initialize), loaderValue(loader)})
		}
	}
	return expr.Value{}, errors.New("Class.forName(String, boolean, ClassLoader) not found")
}

func loaderValue(loader jdwp.ClassLoaderID) expr.Value {
	return expr.ObjectRef(uint64(loader), "Ljava/lang/ClassLoader;")
}

// preparedMethods lists t's methods, first linking a class that is loaded
// but not yet prepared (JDWP lists no methods of those) by running
// getDeclaredMethods() on it — linking without initializing.
func (e *Frame) preparedMethods(ctx context.Context, t jdwp.ReferenceTypeID) ([]jdwp.MethodInfo, error) {
	ms, err := e.ev.vm.Methods(ctx, t)
	if jdwp.Code(err) != jdwp.ErrClassNotPrepared {
		return ms, err
	}
	if err := e.canInvoke(); err != nil {
		return nil, err
	}
	obj, err := e.ev.vm.ClassObject(ctx, t)
	if err != nil {
		return nil, err
	}
	link, err := e.Methods(ctx, "Ljava/lang/Class;", "getDeclaredMethods")
	if err != nil {
		return nil, err
	}
	if len(link) != 1 {
		return nil, errors.New("Class.getDeclaredMethods() not found")
	}
	if _, err := e.Invoke(ctx, expr.ObjectRef(uint64(obj), "Ljava/lang/Class;"), link[0], nil); err != nil {
		return nil, fmt.Errorf("linking the class: %w", err)
	}
	return e.ev.vm.Methods(ctx, t)
}
