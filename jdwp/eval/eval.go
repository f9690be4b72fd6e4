package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	"github.com/ddmbridge/ddmbridge/jdwp/srclookup"
	"github.com/rs/zerolog"
)

// Session is what evaluation needs of the debug session above it.
type Session interface {
	// StoppedOn returns the exception thread is stopped on, when its
	// latest stop was at one (it is then bound to the name "exception").
	StoppedOn(thread jdwp.ThreadID) (jdwp.ObjectID, bool)
	// SourceOf returns where the source file of class is (its imports
	// decide what names mean), ok false when it is not found.
	SourceOf(ctx context.Context, class jdwp.ReferenceTypeID) (f srclookup.Found, ok bool)
}

// Invoker runs methods in the VM: the debugger layer's invocation road
// (debugger.Target), the only way anything runs one. Its errors wrap
// mirror.ErrAborted, ErrLeftRunning and ErrStillRunning.
type Invoker interface {
	Invoke(ctx context.Context, thread jdwp.ThreadID, recv jdwp.ObjectID, m mirror.Method, args []jdwp.Value) (jdwp.InvokeResult, error)
	NewInstance(ctx context.Context, thread jdwp.ThreadID, ctor mirror.Method, args []jdwp.Value) (jdwp.InvokeResult, error)
}

// FrameReader is an Invoker that also answers what a stopped frame holds
// from the stop (the debugger layer reads it once per stop, before any
// method runs there): its this object and visible locals, in the order of
// the method's variable table. Evaluation reads a frame through it when the
// invoker has it.
type FrameReader interface {
	FrameValues(ctx context.Context, f mirror.Frame) (this jdwp.TaggedObjectID, vars []jdwp.Variable, vals []jdwp.Value, err error)
}

// Evaluator makes evaluation environments for the frames of one VM.
type Evaluator struct {
	vm  *mirror.VM
	inv Invoker
	log zerolog.Logger
	s   Session
}

// New returns an Evaluator over vm that runs methods through inv; s may be
// nil (no thread is then stopped on an exception).
func New(vm *mirror.VM, inv Invoker, log zerolog.Logger, s Session) *Evaluator {
	return &Evaluator{vm: vm, inv: inv, log: log, s: s}
}

// Frame is an expr.Env over one frame of a suspended thread: locals from
// the method's variable table, this, fields and statics, all read over JDWP;
// classes resolved among the loaded ones; methods and constructors run in
// the frame's thread alone (the debugger layer's invocation road).
type Frame struct {
	ev *Evaluator
	f  mirror.Frame // its id is 0 until looked up
	// noInvoke, when set, is why methods may not run (hover).
	noInvoke string
	sc       scope // the source file's names (resolve.go)
	// async, when set, is a suspended function's continuation, which has
	// no JVM frame (Async).
	async *asyncScope
}

// asyncScope is what a suspended function's continuation holds in place
// of a JVM frame: the variables it keeps, under the source's names, and
// its receiver (a null value when it has none).
type asyncScope struct {
	locals []mirror.NamedValue
	this   jdwp.Value
}

// ErrNoJVMFrame is the error of what needs a JVM frame (assigning a local)
// in an async frame.
var ErrNoJVMFrame = errors.New("a suspended coroutine's frame (an async stack's) has no JVM frame: its variables are the values its continuation keeps, and cannot be assigned")

// Async returns an environment for a suspended function's frame of an
// async stack (its continuation: no JVM frame is there): its locals are
// the variables the continuation keeps, this is its receiver (a null
// value: none), class the suspend function's class (its static fields and
// functions are found there, and its file's imports), and methods run in
// thread, which an event stopped.
func (ev *Evaluator) Async(thread jdwp.ThreadID, class jdwp.ReferenceTypeID, locals []mirror.NamedValue, this jdwp.Value) *Frame {
	return &Frame{ev: ev, f: mirror.Frame{Thread: thread, Loc: jdwp.Location{Class: class}, Gen: ev.vm.Gen(thread)}, async: &asyncScope{locals: locals, this: this}}
}

// At returns an environment for frame depth of thread at loc; frame may be
// 0, and is then looked up when a local or this is needed.
func (ev *Evaluator) At(thread jdwp.ThreadID, depth int32, frame jdwp.FrameID, loc jdwp.Location) *Frame {
	return &Frame{ev: ev, f: mirror.Frame{Thread: thread, ID: frame, Loc: loc, Depth: depth, Gen: ev.vm.Gen(thread)}}
}

// Frame returns an environment for a frame as the mirror lists it.
func (ev *Evaluator) Frame(f mirror.Frame) *Frame { return &Frame{ev: ev, f: f} }

// Env is the environment to evaluate in e: e's own, with "exception"
// bound when its thread stopped on an exception.
func (ev *Evaluator) Env(ctx context.Context, e *Frame) expr.Env {
	if ev.s == nil {
		return e
	}
	exc, ok := ev.s.StoppedOn(e.f.Thread)
	if !ok {
		return e
	}
	sig := ""
	if _, s, err := ev.vm.ObjectType(ctx, exc); err == nil {
		sig = s
	}
	return e.With(map[string]expr.Value{"exception": expr.ObjectRef(uint64(exc), sig)})
}

// NoInvoke forbids running methods (and assigning) in the environment;
// why is said in the errors.
func (e *Frame) NoInvoke(why string) { e.noInvoke = why }

// Thread is the frame's thread.
func (e *Frame) Thread() jdwp.ThreadID { return e.f.Thread }

// Location is the frame's location, once known (FrameClass looks it up).
func (e *Frame) Location() jdwp.Location { return e.f.Loc }

// FrameID returns the frame's id, looking it up again when a method ran in
// the thread since (an invocation invalidates the thread's frame ids).
func (e *Frame) FrameID(ctx context.Context) (jdwp.FrameID, error) {
	if e.async != nil {
		return 0, ErrNoJVMFrame
	}
	f, err := e.ev.vm.Live(ctx, e.f)
	if err != nil {
		return 0, err
	}
	e.f = f
	return f.ID, nil
}

// Local finds a visible local variable by name; the innermost declaration wins.
func (e *Frame) Local(ctx context.Context, name string) (jdwp.Variable, bool, error) {
	if e.async != nil {
		for _, l := range e.async.locals {
			if l.Name == name {
				return jdwp.Variable{Name: name}, true, nil
			}
		}
		return jdwp.Variable{}, false, nil
	}
	if _, err := e.FrameID(ctx); err != nil {
		return jdwp.Variable{}, false, err
	}
	return e.ev.vm.Local(ctx, e.f, name)
}

// IsLocal reports whether name is a visible local variable of the frame
// (expr.Locals: a lambda captures a local's value, and uses a field in place).
func (e *Frame) IsLocal(ctx context.Context, name string) (bool, error) {
	_, ok, err := e.Local(ctx, name)
	return ok, err
}

// LocalNames lists the names of the frame's visible locals, in the order
// of its variable table (a language's engine pairs compiler-made names,
// such as Kotlin's inline-lambda markers and receivers, with it).
func (e *Frame) LocalNames(ctx context.Context) ([]string, error) {
	if e.async != nil {
		names := make([]string, len(e.async.locals))
		for i, l := range e.async.locals {
			names[i] = l.Name
		}
		return names, nil
	}
	if _, err := e.FrameID(ctx); err != nil {
		return nil, err
	}
	vars, _, err := e.ev.vm.VisibleVariables(ctx, e.f.Loc)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(vars))
	for i, v := range vars {
		names[i] = v.Name
	}
	return names, nil
}

// fromStop returns the frame's this and locals as the stop read them, when
// the invoker keeps them (FrameReader).
func (e *Frame) fromStop(ctx context.Context) (this jdwp.TaggedObjectID, vars []jdwp.Variable, vals []jdwp.Value, ok bool) {
	fr, ok := e.ev.inv.(FrameReader)
	if !ok || e.async != nil {
		return this, nil, nil, false
	}
	this, vars, vals, err := fr.FrameValues(ctx, e.f)
	return this, vars, vals, err == nil && len(vars) == len(vals)
}

func (e *Frame) Lookup(ctx context.Context, name string) (expr.Value, error) {
	if v, ok, err := e.local(ctx, name); err != nil || ok {
		return v, err
	}
	if this, err := e.This(ctx); err == nil {
		if v, err := e.Field(ctx, this, name); err == nil {
			return v, nil
		}
	}
	chain, err := e.ev.vm.FieldChain(ctx, e.f.Loc.Class)
	if err != nil {
		return expr.Value{}, err
	}
	for _, f := range chain {
		if f.Name == name && f.Static() {
			val, err := e.ev.vm.Read(ctx, 0, f)
			if err != nil {
				return expr.Value{}, err
			}
			return e.ev.Value(ctx, val)
		}
	}
	if class, ok, err := e.StaticImport(ctx, name); err != nil {
		return expr.Value{}, err
	} else if ok {
		return e.StaticField(ctx, class, name)
	}
	return expr.Value{}, fmt.Errorf("%q: %w", name, expr.ErrUnknownName)
}

// local reads the frame's local variable called name, if it has one.
func (e *Frame) local(ctx context.Context, name string) (expr.Value, bool, error) {
	if e.async != nil {
		for _, l := range e.async.locals {
			if l.Name == name {
				v, err := e.ev.Value(ctx, l.Value)
				return v, true, err
			}
		}
		return expr.Value{}, false, nil
	}
	if _, vars, vals, ok := e.fromStop(ctx); ok {
		for i := len(vars) - 1; i >= 0; i-- {
			if vars[i].Name == name {
				v, err := e.ev.Value(ctx, vals[i])
				return v, true, err
			}
		}
	}
	v, ok, err := e.Local(ctx, name)
	if err != nil || !ok {
		return expr.Value{}, false, err
	}
	val, err := e.ev.vm.LocalValue(ctx, e.f, v)
	if err != nil {
		return expr.Value{}, false, err
	}
	x, err := e.ev.Value(ctx, val)
	return x, true, err
}

func (e *Frame) This(ctx context.Context) (expr.Value, error) {
	if e.async != nil {
		if !e.async.this.Tag.IsObject() || e.async.this.IsNull() {
			return expr.Value{}, fmt.Errorf("there is no this in this suspend function (its continuation keeps no receiver)")
		}
		return e.ev.Value(ctx, e.async.this)
	}
	obj, _, _, ok := e.fromStop(ctx)
	if !ok {
		if _, err := e.FrameID(ctx); err != nil {
			return expr.Value{}, err
		}
		var err error
		if obj, err = e.ev.vm.This(ctx, e.f); err != nil {
			return expr.Value{}, err
		}
	}
	if obj.ID == 0 {
		return expr.Value{}, fmt.Errorf("there is no this in a static method")
	}
	return e.ev.Value(ctx, jdwp.Value{Tag: obj.Tag, Bits: uint64(obj.ID)})
}

func (e *Frame) Field(ctx context.Context, obj expr.Value, name string) (expr.Value, error) {
	v, ok, err := e.ev.vm.Member(ctx, jdwp.ObjectID(obj.Ref), name)
	if err != nil {
		return expr.Value{}, err
	}
	if !ok {
		return expr.Value{}, fmt.Errorf("%s has no field %s", obj.TypeName(), name)
	}
	return e.ev.Value(ctx, v)
}

func (e *Frame) Length(ctx context.Context, arr expr.Value) (int, error) {
	return e.ev.vm.ArrayLength(ctx, jdwp.ObjectID(arr.Ref))
}

func (e *Frame) Element(ctx context.Context, arr expr.Value, i int) (expr.Value, error) {
	vals, err := e.ev.vm.ArrayValues(ctx, jdwp.ObjectID(arr.Ref), i, 1)
	if err != nil {
		return expr.Value{}, err
	}
	return e.ev.Value(ctx, vals[0])
}

func (e *Frame) StringOf(ctx context.Context, s expr.Value) (string, error) {
	return e.ev.vm.String(ctx, jdwp.ObjectID(s.Ref))
}

func (e *Frame) FrameClass(ctx context.Context) (string, error) {
	if e.f.Loc.Class == 0 {
		if _, err := e.FrameID(ctx); err != nil {
			return "", err
		}
	}
	return e.ev.vm.Signature(ctx, e.f.Loc.Class)
}

func (e *Frame) Class(ctx context.Context, name string) (string, error) {
	if _, err := e.FrameClass(ctx); err != nil {
		return "", err
	}
	if sig, found, err := e.sourceClass(ctx, name); found || err != nil {
		return sig, err
	}
	sig, err := e.ev.vm.ResolveClass(ctx, name, e.f.Loc.Class)
	if errors.Is(err, expr.ErrUnknownName) {
		if loaded, ok := e.loadNamed(ctx, name); ok { // functions.go
			return loaded, nil
		}
	}
	return sig, err
}

func (e *Frame) StaticField(ctx context.Context, class, name string) (expr.Value, error) {
	if err := e.initialized(ctx, class); err != nil {
		return expr.Value{}, err
	}
	t, err := e.ev.vm.ClassBySignature(ctx, class)
	if err != nil {
		return expr.Value{}, err
	}
	v, ok, err := e.ev.vm.StaticField(ctx, t, name)
	if err != nil {
		return expr.Value{}, err
	}
	if !ok {
		return expr.Value{}, fmt.Errorf("%s has no static field %s: %w", javalang.TypeName(class), name, expr.ErrUnknownName)
	}
	return e.ev.Value(ctx, v)
}

func (e *Frame) Methods(ctx context.Context, class, name string) ([]expr.Method, error) {
	if strings.HasPrefix(class, "[") {
		class = "Ljava/lang/Object;"
	}
	t, err := e.ev.vm.ClassBySignature(ctx, class)
	if err != nil {
		return nil, err
	}
	return e.ev.methodsNamed(ctx, t, name)
}

func (e *Frame) Subtype(ctx context.Context, sub, sup string) (bool, error) {
	return e.ev.vm.Subtype(ctx, sub, sup)
}

func (e *Frame) canInvoke() error {
	if e.noInvoke != "" {
		return fmt.Errorf("%w: %s", expr.ErrNoInvoke, e.noInvoke)
	}
	return nil
}

func (e *Frame) Invoke(ctx context.Context, recv expr.Value, m expr.Method, args []expr.Value) (expr.Value, error) {
	if err := e.canInvoke(); err != nil {
		return expr.Value{}, err
	}
	if m.Static {
		if err := e.initialized(ctx, m.Class); err != nil {
			return expr.Value{}, err
		}
	}
	res, err := e.ev.inv.Invoke(ctx, e.f.Thread, jdwp.ObjectID(recv.Ref), m.Handle.(mirror.Method), ToJDWPs(args))
	return e.result(ctx, res, err)
}

func (e *Frame) New(ctx context.Context, m expr.Method, args []expr.Value) (expr.Value, error) {
	if err := e.canInvoke(); err != nil {
		return expr.Value{}, err
	}
	if err := e.initialized(ctx, m.Class); err != nil {
		return expr.Value{}, err
	}
	res, err := e.ev.inv.NewInstance(ctx, e.f.Thread, m.Handle.(mirror.Method), ToJDWPs(args))
	return e.result(ctx, res, err)
}

// result turns an invocation's outcome into a value or an error saying why.
func (e *Frame) result(ctx context.Context, res jdwp.InvokeResult, err error) (expr.Value, error) {
	if err != nil {
		switch jdwp.Code(err) {
		case jdwp.ErrInvalidThread, jdwp.ErrThreadNotSuspended:
			return expr.Value{}, fmt.Errorf("methods can only run in a thread stopped at a breakpoint, step or exception (not one stopped by pause): %w", err)
		case jdwp.ErrAlreadyInvoking:
			return expr.Value{}, fmt.Errorf("the thread is already running a method for the debugger: %w", err)
		}
		switch {
		case errors.Is(err, mirror.ErrAborted):
			return expr.Value{}, fmt.Errorf("the method did not return (cancelled or timed out) and was stopped: made to return at once, what it did until then stays done; the thread is back where it stopped: %w", ctx.Err())
		case errors.Is(err, mirror.ErrLeftRunning):
			return expr.Value{}, fmt.Errorf("the method did not return (cancelled or timed out); the thread goes on running it: %w", err)
		case ctx.Err() != nil:
			return expr.Value{}, fmt.Errorf("the method did not return (cancelled or timed out): %w", ctx.Err())
		}
		return expr.Value{}, err
	}
	if res.Exception.ID != 0 {
		name, msg := e.ev.DescribeException(ctx, e.f.Thread, res.Exception.ID)
		_, sig, _ := e.ev.vm.ObjectType(ctx, res.Exception.ID)
		return expr.Value{}, &expr.Thrown{Class: name, Message: msg, Object: expr.ObjectRef(uint64(res.Exception.ID), sig)}
	}
	return e.ev.Value(ctx, res.Value)
}

func (e *Frame) NewString(ctx context.Context, s string) (expr.Value, error) {
	id, err := e.ev.vm.NewString(ctx, s)
	if err != nil {
		return expr.Value{}, err
	}
	return expr.ObjectRef(uint64(id), "Ljava/lang/String;"), nil
}

func (e *Frame) NewArray(ctx context.Context, sig string, elems []expr.Value) (expr.Value, error) {
	var arr jdwp.TaggedObjectID
	t, err := e.ev.vm.ClassBySignature(ctx, sig)
	switch {
	case errors.Is(err, expr.ErrUnknownName):
		// The VM creates array types as the program uses them; one it has
		// not made yet comes from java.lang.reflect.Array.newInstance.
		v, rerr := e.reflectArray(ctx, sig, len(elems))
		if rerr != nil {
			return expr.Value{}, fmt.Errorf("array type %s is not loaded, and making it failed: %w", javalang.TypeName(sig), rerr)
		}
		arr = jdwp.TaggedObjectID{Tag: jdwp.TagArray, ID: jdwp.ObjectID(v.Ref)}
	case err != nil:
		return expr.Value{}, err
	default:
		if arr, err = e.ev.vm.NewArray(ctx, t, len(elems)); err != nil {
			return expr.Value{}, err
		}
	}
	if len(elems) > 0 && !allZero(elems) { // a new array holds zeros and nulls already
		if err := e.ev.vm.SetElements(ctx, arr.ID, 0, ToJDWPs(elems)); err != nil {
			return expr.Value{}, err
		}
	}
	return expr.ObjectRef(uint64(arr.ID), sig), nil
}

// reflectArray creates an array of a type the VM has not loaded by running
// Array.newInstance(component, n).
func (e *Frame) reflectArray(ctx context.Context, sig string, n int) (expr.Value, error) {
	comp := sig[1:]
	var class expr.Value
	var err error
	switch {
	case javalang.IsPrimitive(comp):
		class, err = e.StaticField(ctx, expr.BoxSig(comp), "TYPE")
	default:
		if class, err = e.ClassObject(ctx, comp); errors.Is(err, expr.ErrUnknownName) && strings.HasPrefix(comp, "[") {
			var inner expr.Value
			if inner, err = e.NewArray(ctx, comp, nil); err == nil {
				class, err = e.Call(ctx, inner, "getClass")
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

// Call runs a no-argument method of obj.
func (e *Frame) Call(ctx context.Context, obj expr.Value, name string) (expr.Value, error) {
	ms, err := e.Methods(ctx, obj.Type, name)
	if err != nil {
		return expr.Value{}, err
	}
	for _, m := range ms {
		if strings.HasPrefix(m.Signature, "()") && !m.Static {
			return e.Invoke(ctx, obj, m, nil)
		}
	}
	return expr.Value{}, fmt.Errorf("%s has no method %s()", obj.TypeName(), name)
}

// Named is an environment with extra names bound before the frame's:
// "exception" while a thread is stopped on one, or in an exception
// breakpoint's condition.
type Named struct {
	*Frame
	names map[string]expr.Value
}

// With returns e with names bound before the frame's (a local of the same
// name wins).
func (e *Frame) With(names map[string]expr.Value) *Named { return &Named{Frame: e, names: names} }

func (e *Named) Lookup(ctx context.Context, name string) (expr.Value, error) {
	if v, ok := e.names[name]; ok {
		if _, local, err := e.Frame.Local(ctx, name); err == nil && local {
			return e.Frame.Lookup(ctx, name) // a local of that name wins
		}
		return v, nil
	}
	return e.Frame.Lookup(ctx, name)
}

// DescribeException returns an exception's class name and detail message,
// read from its fields (no method runs: mirror.VM.ExceptionText).
func (ev *Evaluator) DescribeException(ctx context.Context, _ jdwp.ThreadID, exc jdwp.ObjectID) (string, string) {
	return ev.vm.ExceptionText(ctx, exc)
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

// ToJDWPs converts expression values for the wire.
func ToJDWPs(vs []expr.Value) []jdwp.Value {
	out := make([]jdwp.Value, len(vs))
	for i, v := range vs {
		out[i] = ToJDWP(v)
	}
	return out
}

// ToJDWP converts an expression value for the wire.
func ToJDWP(v expr.Value) jdwp.Value {
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

// Value converts a JDWP value, looking up the runtime type of references.
func (ev *Evaluator) Value(ctx context.Context, v jdwp.Value) (expr.Value, error) {
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
	_, sig, err := ev.vm.ObjectType(ctx, v.Object())
	if err != nil {
		return expr.Value{}, err
	}
	return expr.ObjectRef(v.Bits, sig), nil
}

// methodsNamed lists the methods called name of t as the expression
// engine sees them (see mirror.VM.MethodsNamed); each Handle is the
// mirror.Method.
func (ev *Evaluator) methodsNamed(ctx context.Context, t jdwp.ReferenceTypeID, name string) ([]expr.Method, error) {
	ms, err := ev.vm.MethodsNamed(ctx, t, name)
	if err != nil {
		return nil, err
	}
	out := make([]expr.Method, len(ms))
	for i, m := range ms {
		out[i] = expr.Method{Class: m.Class, Name: m.Name, Signature: m.Signature, Static: m.Static(), Varargs: m.Varargs(), Handle: m}
	}
	return out, nil
}
