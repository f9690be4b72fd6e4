package dap

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/dap/expr"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// frameEnv is an expr.Env over one frame of a suspended thread: locals from
// the method's variable table, this, fields and statics, all read over JDWP;
// classes resolved among the loaded ones; methods and constructors run in
// the frame's thread alone (InvokeSingleThreaded).
type frameEnv struct {
	d      *debuggee
	thread jdwp.ThreadID
	depth  int32
	frame  jdwp.FrameID // 0 until looked up
	gen    int          // the thread's invocation generation frame belongs to
	loc    jdwp.Location
	// noInvoke, when set, is why methods may not run (hover).
	noInvoke string
}

// frameEnv returns an environment for frame depth of thread at loc; frame
// may be 0, and is then looked up when a local or this is needed.
func (d *debuggee) frameEnv(thread jdwp.ThreadID, depth int32, frame jdwp.FrameID, loc jdwp.Location) *frameEnv {
	return &frameEnv{d: d, thread: thread, depth: depth, frame: frame, loc: loc, gen: d.invokeGen(thread)}
}

// envFor returns an environment for a frame the client named.
func (d *debuggee) envFor(f frameRef) *frameEnv {
	e := d.frameEnv(f.thread, f.depth, f.frame, f.loc)
	e.gen = f.gen
	return e
}

// frameID returns the frame's id, looking it up again when a method ran in
// the thread since (an invocation invalidates the thread's frame ids).
func (e *frameEnv) frameID(ctx context.Context) (jdwp.FrameID, error) {
	if e.frame != 0 && e.gen == e.d.invokeGen(e.thread) {
		return e.frame, nil
	}
	gen := e.d.invokeGen(e.thread)
	fs, err := e.d.conn.Frames(ctx, e.thread, e.depth, 1)
	if err != nil {
		return 0, err
	}
	if len(fs) == 0 {
		return 0, fmt.Errorf("thread has no frame %d", e.depth)
	}
	e.frame, e.loc, e.gen = fs[0].ID, fs[0].Location, gen
	return e.frame, nil
}

// liveFrame is frameID for a frame reference handed to the client.
func (d *debuggee) liveFrame(ctx context.Context, f frameRef) (jdwp.FrameID, error) {
	return d.envFor(f).frameID(ctx)
}

// visibleVariables returns the frame's local variables live at its code index.
func (d *debuggee) visibleVariables(ctx context.Context, loc jdwp.Location) ([]jdwp.Variable, bool, error) {
	vt, err := d.variableTable(ctx, loc.Class, loc.Method)
	if err != nil || vt.absent {
		return nil, vt.absent, err
	}
	var out []jdwp.Variable
	for _, v := range vt.Variables {
		// javac -g lists this (slot 0) among the locals; it is not one.
		if v.Visible(loc.Index) && (v.Name != "this" || v.Slot != 0) {
			out = append(out, v)
		}
	}
	return out, false, nil
}

// local finds a visible local variable by name; the innermost declaration wins.
func (e *frameEnv) local(ctx context.Context, name string) (jdwp.Variable, bool, error) {
	if _, err := e.frameID(ctx); err != nil {
		return jdwp.Variable{}, false, err
	}
	vars, _, err := e.d.visibleVariables(ctx, e.loc)
	if err != nil {
		return jdwp.Variable{}, false, err
	}
	for i := len(vars) - 1; i >= 0; i-- {
		if vars[i].Name == name {
			return vars[i], true, nil
		}
	}
	return jdwp.Variable{}, false, nil
}

func (e *frameEnv) Lookup(ctx context.Context, name string) (expr.Value, error) {
	v, ok, err := e.local(ctx, name)
	if err != nil {
		return expr.Value{}, err
	}
	if ok {
		vals, err := e.d.conn.FrameValues(ctx, e.thread, e.frame, []jdwp.SlotRequest{{Slot: v.Slot, Tag: jdwp.TagForSignature(v.Signature)}})
		if err != nil {
			return expr.Value{}, err
		}
		return e.d.toExpr(ctx, vals[0])
	}
	if this, err := e.This(ctx); err == nil {
		if v, err := e.Field(ctx, this, name); err == nil {
			return v, nil
		}
	}
	chain, err := e.d.fieldChain(ctx, e.loc.Class)
	if err != nil {
		return expr.Value{}, err
	}
	for _, f := range chain {
		if f.Name == name && f.ModBits&jdwp.AccStatic != 0 {
			vals, err := e.d.conn.StaticValues(ctx, f.class, []jdwp.FieldID{f.ID})
			if err != nil {
				return expr.Value{}, err
			}
			return e.d.toExpr(ctx, vals[0])
		}
	}
	return expr.Value{}, fmt.Errorf("%q: %w", name, expr.ErrUnknownName)
}

func (e *frameEnv) This(ctx context.Context) (expr.Value, error) {
	if _, err := e.frameID(ctx); err != nil {
		return expr.Value{}, err
	}
	obj, err := e.d.conn.ThisObject(ctx, e.thread, e.frame)
	if err != nil {
		return expr.Value{}, err
	}
	if obj.ID == 0 {
		return expr.Value{}, fmt.Errorf("there is no this in a static method")
	}
	return e.d.toExpr(ctx, jdwp.Value{Tag: obj.Tag, Bits: uint64(obj.ID)})
}

// findField finds a field by name in t and its superclasses.
func (d *debuggee) findField(ctx context.Context, t jdwp.ReferenceTypeID, name string) (declField, bool, error) {
	chain, err := d.fieldChain(ctx, t)
	if err != nil {
		return declField{}, false, err
	}
	for _, f := range chain {
		if f.Name == name {
			return f, true, nil
		}
	}
	return declField{}, false, nil
}

func (e *frameEnv) Field(ctx context.Context, obj expr.Value, name string) (expr.Value, error) {
	t, _, err := e.d.typeOf(ctx, jdwp.ObjectID(obj.Ref))
	if err != nil {
		return expr.Value{}, err
	}
	f, ok, err := e.d.findField(ctx, t, name)
	if err != nil {
		return expr.Value{}, err
	}
	if !ok {
		return expr.Value{}, fmt.Errorf("%s has no field %s", obj.TypeName(), name)
	}
	var vals []jdwp.Value
	if f.ModBits&jdwp.AccStatic != 0 {
		vals, err = e.d.conn.StaticValues(ctx, f.class, []jdwp.FieldID{f.ID})
	} else {
		vals, err = e.d.conn.FieldValues(ctx, jdwp.ObjectID(obj.Ref), []jdwp.FieldID{f.ID})
	}
	if err != nil {
		return expr.Value{}, err
	}
	return e.d.toExpr(ctx, vals[0])
}

func (e *frameEnv) Length(ctx context.Context, arr expr.Value) (int, error) {
	n, err := e.d.conn.ArrayLength(ctx, jdwp.ObjectID(arr.Ref))
	return int(n), err
}

func (e *frameEnv) Element(ctx context.Context, arr expr.Value, i int) (expr.Value, error) {
	vals, err := e.d.conn.ArrayValues(ctx, jdwp.ObjectID(arr.Ref), int32(i), 1)
	if err != nil {
		return expr.Value{}, err
	}
	return e.d.toExpr(ctx, vals[0])
}

func (e *frameEnv) StringOf(ctx context.Context, s expr.Value) (string, error) {
	return e.d.conn.StringValue(ctx, jdwp.ObjectID(s.Ref))
}

func (e *frameEnv) FrameClass(ctx context.Context) (string, error) {
	if e.loc.Class == 0 {
		if _, err := e.frameID(ctx); err != nil {
			return "", err
		}
	}
	return e.d.signature(ctx, e.loc.Class)
}

func (e *frameEnv) Class(ctx context.Context, name string) (string, error) {
	if _, err := e.FrameClass(ctx); err != nil {
		return "", err
	}
	sig, err := e.d.resolveClass(ctx, name, e.loc.Class)
	if errors.Is(err, expr.ErrUnknownName) {
		if loaded, ok := e.loadNamed(ctx, name); ok { // lambda.go
			return loaded, nil
		}
	}
	return sig, err
}

func (e *frameEnv) StaticField(ctx context.Context, class, name string) (expr.Value, error) {
	t, err := e.d.classID(ctx, class)
	if err != nil {
		return expr.Value{}, err
	}
	for c := t; c != 0; {
		f, ok, err := e.d.findField(ctx, c, name)
		if err != nil {
			return expr.Value{}, err
		}
		if ok && f.ModBits&jdwp.AccStatic != 0 {
			vals, err := e.d.conn.StaticValues(ctx, f.class, []jdwp.FieldID{f.ID})
			if err != nil {
				return expr.Value{}, err
			}
			return e.d.toExpr(ctx, vals[0])
		}
		// Interface constants.
		ifaces, err := e.d.conn.Interfaces(ctx, c)
		if err != nil {
			return expr.Value{}, err
		}
		for _, i := range ifaces {
			if f, ok, _ := e.d.findField(ctx, i, name); ok && f.ModBits&jdwp.AccStatic != 0 {
				vals, err := e.d.conn.StaticValues(ctx, f.class, []jdwp.FieldID{f.ID})
				if err != nil {
					return expr.Value{}, err
				}
				return e.d.toExpr(ctx, vals[0])
			}
		}
		c = 0 // findField searched the superclasses already
	}
	return expr.Value{}, fmt.Errorf("%s has no static field %s: %w", expr.SignatureToName(class), name, expr.ErrUnknownName)
}

func (e *frameEnv) Methods(ctx context.Context, class, name string) ([]expr.Method, error) {
	if strings.HasPrefix(class, "[") {
		class = "Ljava/lang/Object;"
	}
	t, err := e.d.classID(ctx, class)
	if err != nil {
		return nil, err
	}
	return e.d.methodsNamed(ctx, t, name)
}

func (e *frameEnv) Subtype(ctx context.Context, sub, sup string) (bool, error) {
	return e.d.subtype(ctx, sub, sup)
}

// methodRef is expr.Method.Handle for this Env.
type methodRef struct {
	class jdwp.ReferenceTypeID
	id    jdwp.MethodID
	iface bool
}

func (e *frameEnv) canInvoke() error {
	if e.noInvoke != "" {
		return fmt.Errorf("%w: %s", expr.ErrNoInvoke, e.noInvoke)
	}
	return nil
}

func (e *frameEnv) Invoke(ctx context.Context, recv expr.Value, m expr.Method, args []expr.Value) (expr.Value, error) {
	if err := e.canInvoke(); err != nil {
		return expr.Value{}, err
	}
	h, jargs := m.Handle.(methodRef), toJDWPs(args)
	var res jdwp.InvokeResult
	err := e.d.invoking(ctx, e.thread, func(ctx context.Context) error {
		var err error
		switch {
		case !m.Static:
			res, err = e.d.conn.InvokeMethod(ctx, jdwp.ObjectID(recv.Ref), e.thread, h.class, h.id, jargs, jdwp.InvokeSingleThreaded)
		case h.iface:
			res, err = e.d.conn.InvokeInterfaceStatic(ctx, h.class, e.thread, h.id, jargs, jdwp.InvokeSingleThreaded)
		default:
			res, err = e.d.conn.InvokeStatic(ctx, h.class, e.thread, h.id, jargs, jdwp.InvokeSingleThreaded)
		}
		return err
	})
	return e.result(ctx, res, err)
}

func (e *frameEnv) New(ctx context.Context, m expr.Method, args []expr.Value) (expr.Value, error) {
	if err := e.canInvoke(); err != nil {
		return expr.Value{}, err
	}
	h, jargs := m.Handle.(methodRef), toJDWPs(args)
	var res jdwp.InvokeResult
	err := e.d.invoking(ctx, e.thread, func(ctx context.Context) error {
		var err error
		res, err = e.d.conn.NewInstance(ctx, h.class, e.thread, h.id, jargs, jdwp.InvokeSingleThreaded)
		if err == nil && res.Exception.ID == 0 {
			res.Value = jdwp.Value{Tag: jdwp.TagObject, Bits: res.Value.Bits}
		}
		return err
	})
	return e.result(ctx, res, err)
}

// result turns an invocation's outcome into a value or an error saying why.
func (e *frameEnv) result(ctx context.Context, res jdwp.InvokeResult, err error) (expr.Value, error) {
	if err != nil {
		switch jdwp.Code(err) {
		case jdwp.ErrInvalidThread, jdwp.ErrThreadNotSuspended:
			return expr.Value{}, fmt.Errorf("methods can only run in a thread stopped at a breakpoint, step or exception (not one stopped by pause): %w", err)
		case jdwp.ErrAlreadyInvoking:
			return expr.Value{}, fmt.Errorf("the thread is already running a method for the debugger: %w", err)
		}
		if ctx.Err() != nil {
			return expr.Value{}, fmt.Errorf("the method did not return (cancelled or timed out); the thread goes on running it: %w", ctx.Err())
		}
		return expr.Value{}, err
	}
	if res.Exception.ID != 0 {
		name, msg := e.d.describeException(ctx, e.thread, res.Exception.ID)
		_, sig, _ := e.d.typeOf(ctx, res.Exception.ID)
		return expr.Value{}, &expr.Thrown{Class: name, Message: msg, Object: expr.ObjectRef(uint64(res.Exception.ID), sig)}
	}
	return e.d.toExpr(ctx, res.Value)
}

func (e *frameEnv) NewString(ctx context.Context, s string) (expr.Value, error) {
	id, err := e.d.conn.CreateString(ctx, s)
	if err != nil {
		return expr.Value{}, err
	}
	return expr.ObjectRef(uint64(id), "Ljava/lang/String;"), nil
}

func (e *frameEnv) NewArray(ctx context.Context, sig string, elems []expr.Value) (expr.Value, error) {
	var arr jdwp.TaggedObjectID
	t, err := e.d.classID(ctx, sig)
	switch {
	case errors.Is(err, expr.ErrUnknownName):
		// The VM creates array types as the program uses them; one it has
		// not made yet comes from java.lang.reflect.Array.newInstance.
		v, rerr := e.reflectArray(ctx, sig, len(elems))
		if rerr != nil {
			return expr.Value{}, fmt.Errorf("array type %s is not loaded, and making it failed: %w", expr.SignatureToName(sig), rerr)
		}
		arr = jdwp.TaggedObjectID{Tag: jdwp.TagArray, ID: jdwp.ObjectID(v.Ref)}
	case err != nil:
		return expr.Value{}, err
	default:
		if arr, err = e.d.conn.NewArray(ctx, t, int32(len(elems))); err != nil {
			return expr.Value{}, err
		}
	}
	if len(elems) > 0 && !allZero(elems) { // a new array holds zeros and nulls already
		if err := e.d.conn.SetArrayValues(ctx, arr.ID, 0, toJDWPs(elems)); err != nil {
			return expr.Value{}, err
		}
	}
	return expr.ObjectRef(uint64(arr.ID), sig), nil
}

// reflectArray creates an array of a type the VM has not loaded by running
// Array.newInstance(component, n).
func (e *frameEnv) reflectArray(ctx context.Context, sig string, n int) (expr.Value, error) {
	comp := sig[1:]
	var class expr.Value
	var err error
	switch {
	case expr.IsPrimitiveSig(comp):
		class, err = e.StaticField(ctx, expr.BoxSig(comp), "TYPE")
	default:
		if class, err = e.ClassObject(ctx, comp); errors.Is(err, expr.ErrUnknownName) && strings.HasPrefix(comp, "[") {
			var inner expr.Value
			if inner, err = e.NewArray(ctx, comp, nil); err == nil {
				class, err = e.call(ctx, inner, "getClass")
			}
		}
	}
	if err != nil {
		return expr.Value{}, err
	}
	ms, err := e.Methods(ctx, "Ljava/lang/reflect/Array;", "newInstance")
	if err != nil {
		return expr.Value{}, err
	}
	for _, m := range ms {
		if m.Signature == "(Ljava/lang/Class;I)Ljava/lang/Object;" {
			return e.Invoke(ctx, expr.Null, m, []expr.Value{class, expr.IntValue(int32(n))})
		}
	}
	return expr.Value{}, errors.New("java.lang.reflect.Array.newInstance(Class, int) not found")
}

// allZero reports whether values are all 0, false or null.
func allZero(vs []expr.Value) bool {
	for _, v := range vs {
		if v.Kind.IsRef() && v.Kind != expr.KindNull || v.I != 0 || v.F != 0 {
			return false
		}
	}
	return true
}
func (d *debuggee) invokeGen(thread jdwp.ThreadID) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.gens[thread]
}

// toJDWPs converts expression values for the wire.
func toJDWPs(vs []expr.Value) []jdwp.Value {
	out := make([]jdwp.Value, len(vs))
	for i, v := range vs {
		out[i] = toJDWP(v)
	}
	return out
}

// toJDWP converts an expression value for the wire.
func toJDWP(v expr.Value) jdwp.Value {
	switch v.Kind {
	case expr.KindBoolean:
		return jdwp.BoolValue(v.Bool())
	case expr.KindByte:
		return jdwp.ByteValue(int8(v.I))
	case expr.KindChar:
		return jdwp.CharValue(uint16(v.I))
	case expr.KindShort:
		return jdwp.ShortValue(int16(v.I))
	case expr.KindInt:
		return jdwp.IntValue(int32(v.I))
	case expr.KindLong:
		return jdwp.LongValue(v.I)
	case expr.KindFloat:
		return jdwp.FloatValue(float32(v.F))
	case expr.KindDouble:
		return jdwp.DoubleValue(v.F)
	case expr.KindString:
		return jdwp.Value{Tag: jdwp.TagString, Bits: v.Ref}
	case expr.KindObject:
		if strings.HasPrefix(v.Type, "[") {
			return jdwp.Value{Tag: jdwp.TagArray, Bits: v.Ref}
		}
		return jdwp.ObjectValue(jdwp.ObjectID(v.Ref))
	}
	return jdwp.ObjectValue(0)
}

// toExpr converts a JDWP value, looking up the runtime type of references.
func (d *debuggee) toExpr(ctx context.Context, v jdwp.Value) (expr.Value, error) {
	switch v.Tag {
	case jdwp.TagBoolean:
		return expr.BoolValue(v.Bool()), nil
	case jdwp.TagByte:
		return expr.ByteValue(int8(v.Bits)), nil
	case jdwp.TagChar:
		return expr.CharValue(uint16(v.Bits)), nil
	case jdwp.TagShort:
		return expr.ShortValue(int16(v.Bits)), nil
	case jdwp.TagInt:
		return expr.IntValue(int32(v.Bits)), nil
	case jdwp.TagLong:
		return expr.LongValue(int64(v.Bits)), nil
	case jdwp.TagFloat:
		return expr.FloatValue(v.Float()), nil
	case jdwp.TagDouble:
		return expr.DoubleValue(v.Double()), nil
	case jdwp.TagVoid:
		return expr.Value{Kind: expr.KindVoid}, nil
	}
	if v.IsNull() {
		return expr.Null, nil
	}
	if v.Tag == jdwp.TagString {
		return expr.ObjectRef(v.Bits, "Ljava/lang/String;"), nil
	}
	_, sig, err := d.typeOf(ctx, v.Object())
	if err != nil {
		return expr.Value{}, err
	}
	return expr.ObjectRef(v.Bits, sig), nil
}

// ---- classes, methods and subtyping ----

// classID returns a loaded class (or array type) by signature.
func (d *debuggee) classID(ctx context.Context, sig string) (jdwp.ReferenceTypeID, error) {
	return d.bySig.get(sig, func() (jdwp.ReferenceTypeID, error) {
		cs, err := d.conn.ClassesBySignature(ctx, sig)
		if err != nil {
			return 0, err
		}
		if len(cs) == 0 {
			return 0, fmt.Errorf("class %s is not loaded: %w", expr.SignatureToName(sig), expr.ErrUnknownName)
		}
		return cs[0].ID, nil
	})
}

// resolveClass finds the loaded class a source name means, seen from class
// from: a nested class of from or its outer classes, a class of from's
// package, java.lang, a qualified name with nested parts (a.b.Outer.Inner is
// a.b.Outer$Inner), and, last, the only loaded class with that simple name.
func (d *debuggee) resolveClass(ctx context.Context, name string, from jdwp.ReferenceTypeID) (string, error) {
	var cands []string
	if from != 0 {
		fromSig, err := d.signature(ctx, from)
		if err != nil {
			return "", err
		}
		outer := strings.TrimSuffix(strings.TrimPrefix(fromSig, "L"), ";")
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
		sig := "L" + c + ";"
		if _, err := d.classID(ctx, sig); err == nil {
			return sig, nil
		}
	}
	if !strings.Contains(name, ".") {
		all, err := d.conn.AllClasses(ctx)
		if err != nil {
			return "", err
		}
		var found []string
		for _, c := range all {
			n := sigToName(c.Signature)
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
				names[i] = sigToName(f)
			}
			return "", fmt.Errorf("%s is ambiguous: %s are loaded; qualify the name", name, strings.Join(names, ", "))
		}
	}
	return "", fmt.Errorf("no loaded class is called %s: %w", name, expr.ErrUnknownName)
}

const (
	accVarargs = 0x0080
	accBridge  = 0x0040
)

// methodsNamed lists the methods called name of t, its superclasses and
// interfaces, the most derived first, one per parameter list; constructors
// are t's own.
func (d *debuggee) methodsNamed(ctx context.Context, t jdwp.ReferenceTypeID, name string) ([]expr.Method, error) {
	var out []expr.Method
	seen := map[string]bool{}
	add := func(c jdwp.ReferenceTypeID, iface bool) error {
		ms, err := d.methodsOf(ctx, c)
		if err != nil {
			return err
		}
		sig, err := d.signature(ctx, c)
		if err != nil {
			return err
		}
		for _, m := range ms {
			// One per parameter list: an override with a covariant return
			// (StringBuilder.reverse() over AbstractStringBuilder's) hides
			// the overridden method.
			params := m.Signature[:strings.IndexByte(m.Signature, ')')+1]
			if m.Name != name || seen[params] || m.ModBits&(accBridge|jdwp.AccSynthetic) != 0 {
				continue
			}
			seen[params] = true
			out = append(out, expr.Method{
				Class: sig, Name: m.Name, Signature: m.Signature,
				Static: m.ModBits&jdwp.AccStatic != 0, Varargs: m.ModBits&accVarargs != 0,
				Handle: methodRef{class: c, id: m.ID, iface: iface},
			})
		}
		return nil
	}
	if name == "<init>" {
		return out, add(t, false)
	}
	classes, ifaces, err := d.hierarchy(ctx, t)
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

// hierarchy lists t and its superclasses, the most derived first, and
// every interface they implement (breadth first, once each).
func (d *debuggee) hierarchy(ctx context.Context, t jdwp.ReferenceTypeID) (classes, ifaces []jdwp.ReferenceTypeID, err error) {
	var queue []jdwp.ReferenceTypeID
	for c := t; c != 0; {
		classes = append(classes, c)
		is, err := d.interfacesOf(ctx, c)
		if err != nil {
			return nil, nil, err
		}
		queue = append(queue, is...)
		if c, err = d.superclass(ctx, c); err != nil {
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
		more, err := d.interfacesOf(ctx, i)
		if err != nil {
			return nil, nil, err
		}
		queue = append(queue, more...)
	}
	return classes, ifaces, nil
}

func (d *debuggee) interfacesOf(ctx context.Context, t jdwp.ReferenceTypeID) ([]jdwp.ReferenceTypeID, error) {
	return d.ifaces.get(t, func() ([]jdwp.ReferenceTypeID, error) { return d.conn.Interfaces(ctx, t) })
}

// subtype reports whether type sub is assignable to sup (reference signatures).
func (d *debuggee) subtype(ctx context.Context, sub, sup string) (bool, error) {
	if sub == sup || sup == "Ljava/lang/Object;" {
		return true, nil
	}
	if strings.HasPrefix(sub, "[") {
		if strings.HasPrefix(sup, "[") {
			se, pe := sub[1:], sup[1:]
			if expr.IsPrimitiveSig(se) || expr.IsPrimitiveSig(pe) {
				return se == pe, nil
			}
			return d.subtype(ctx, se, pe)
		}
		return sup == "Ljava/lang/Cloneable;" || sup == "Ljava/io/Serializable;", nil
	}
	if strings.HasPrefix(sup, "[") {
		return false, nil
	}
	t, err := d.classID(ctx, sub)
	if errors.Is(err, expr.ErrUnknownName) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return d.subtypes.get(subtypeKey{t, sup}, func() (bool, error) { return d.extends(ctx, t, sup, map[jdwp.ReferenceTypeID]bool{}) })
}

type subtypeKey struct {
	t   jdwp.ReferenceTypeID
	sup string
}

// extends walks t's superclasses and interfaces looking for signature sup.
func (d *debuggee) extends(ctx context.Context, t jdwp.ReferenceTypeID, sup string, seen map[jdwp.ReferenceTypeID]bool) (bool, error) {
	if t == 0 || seen[t] {
		return false, nil
	}
	seen[t] = true
	sig, err := d.signature(ctx, t)
	if err != nil {
		return false, err
	}
	if sig == sup {
		return true, nil
	}
	is, err := d.interfacesOf(ctx, t)
	if err != nil {
		return false, err
	}
	for _, i := range is {
		if ok, err := d.extends(ctx, i, sup, seen); ok || err != nil {
			return ok, err
		}
	}
	s, err := d.superclass(ctx, t)
	if err != nil {
		return false, err
	}
	return d.extends(ctx, s, sup, seen)
}
