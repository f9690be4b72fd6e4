package expr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Env is what the evaluator needs from a suspended VM frame. Types are JNI
// signatures ("I", "Ljava/lang/String;", "[J").
type Env interface {
	// Lookup resolves a simple name: a local variable, then a field of this,
	// then a static field of the frame's class. A name that is none of them
	// fails with an error wrapping ErrUnknownName.
	Lookup(ctx context.Context, name string) (Value, error)
	// This is the frame's this (an error in a static method).
	This(ctx context.Context) (Value, error)
	// Field reads a field of an object (instance or static).
	Field(ctx context.Context, obj Value, name string) (Value, error)
	// Length is an array's length.
	Length(ctx context.Context, arr Value) (int, error)
	// Element reads an array element.
	Element(ctx context.Context, arr Value, i int) (Value, error)
	// StringOf returns the contents of a java.lang.String object.
	StringOf(ctx context.Context, s Value) (string, error)

	// FrameClass is the signature of the class whose method the frame runs.
	FrameClass(ctx context.Context) (string, error)
	// Class resolves a class name as Java source writes it — simple
	// ("Integer", "Node"), qualified ("java.util.List") or nested
	// ("Outer.Inner") — to the signature of a loaded class. A name that
	// names no loaded class fails with an error wrapping ErrUnknownName.
	Class(ctx context.Context, name string) (string, error)
	// StaticField reads a static field of a class; a missing field fails
	// with an error wrapping ErrUnknownName.
	StaticField(ctx context.Context, class, name string) (Value, error)
	// Methods lists the methods called name that class declares or
	// inherits, from superclasses and interfaces, the most derived first;
	// for "<init>", the constructors class declares.
	Methods(ctx context.Context, class, name string) ([]Method, error)
	// Subtype reports whether type sub is assignable to type sup (both
	// reference signatures; arrays follow Java's covariance).
	Subtype(ctx context.Context, sub, sup string) (bool, error)
	// Invoke runs m on recv (ignored for a static m) with args already
	// converted to m's parameter types. An exception thrown by the method
	// is returned as a *Thrown error. Environments that must not run code
	// (hover) fail with an error wrapping ErrNoInvoke.
	Invoke(ctx context.Context, recv Value, m Method, args []Value) (Value, error)
	// New creates an object with constructor m (as Invoke for errors).
	New(ctx context.Context, m Method, args []Value) (Value, error)
	// NewString creates a java.lang.String in the VM.
	NewString(ctx context.Context, s string) (Value, error)
	// NewArray creates an array of type sig holding elems (already
	// converted to the element type).
	NewArray(ctx context.Context, sig string, elems []Value) (Value, error)
}

// Method is a method or constructor as the Env lists it.
type Method struct {
	Class     string // signature of the declaring type
	Name      string
	Signature string // method descriptor, e.g. "(ILjava/lang/String;)V"
	Static    bool
	Varargs   bool
	Handle    any // the Env's own reference to the method
}

// String renders m as "Class.name(int, String)".
func (m Method) String() string {
	params, _ := javalang.ParamSigs(m.Signature)
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = javalang.SimpleTypeName(p)
	}
	name := m.Name
	if name == "<init>" {
		name = "new " + javalang.SimpleTypeName(m.Class)
	} else {
		name = javalang.SimpleTypeName(m.Class) + "." + name
	}
	return name + "(" + strings.Join(names, ", ") + ")"
}

// Thrown is an exception a method invoked by the evaluator threw.
type Thrown struct {
	Class   string // binary name, e.g. "java.lang.IllegalStateException"
	Message string // its getMessage(), "" for none
	Object  Value  // the exception object
}

func (t *Thrown) Error() string {
	if t.Message == "" {
		return t.Class + " thrown"
	}
	return t.Class + " thrown: " + t.Message
}

// ErrNoInvoke is wrapped by Env errors when running code in the VM is not
// allowed (hover evaluation, unless the user allows it).
var ErrNoInvoke = errors.New("running methods is not allowed here")

// ErrUnknownName is wrapped by Env.Lookup errors for names that resolve to nothing.
var ErrUnknownName = javalang.ErrUnknownName

// EvalError is an evaluation failure, naming the part of the expression that failed.
type EvalError struct {
	Expr string // the failing sub-expression, as source
	Err  error
}

func (e *EvalError) Error() string { return fmt.Sprintf("%s: %v", e.Expr, e.Err) }
func (e *EvalError) Unwrap() error { return e.Err }

// Eval evaluates n against env.
func Eval(ctx context.Context, n Node, env Env) (Value, error) {
	ev := evaluator{env: env}
	return ev.eval(ctx, n)
}

// EvalString parses and evaluates src.
func EvalString(ctx context.Context, src string, env Env) (Value, error) {
	n, err := Parse(src)
	if err != nil {
		return Value{}, err
	}
	return Eval(ctx, n, env)
}

// Truth evaluates a breakpoint condition: it must yield a boolean (or a Boolean).
func Truth(ctx context.Context, n Node, env Env) (bool, error) {
	ev := evaluator{env: env, noAssign: "a condition cannot assign (did you mean ==?)"}
	v, err := ev.eval(ctx, n)
	if err != nil {
		return false, err
	}
	v, err = ev.unbox(ctx, n, v)
	if err != nil {
		return false, err
	}
	if v.Kind != KindBoolean {
		return false, &EvalError{n.String(), fmt.Errorf("a condition must be boolean, not %s", v.TypeName())}
	}
	return v.Bool(), nil
}

type evaluator struct {
	env Env
	// binds are the names instanceof patterns bound (x instanceof T t).
	binds map[string]Value
	// noAssign, when set, is why this evaluation may not assign.
	noAssign string
	// depth counts eval's recursion, bounded by maxEvalDepth.
	depth int
}

// maxEvalDepth bounds the evaluator's recursion. A parsed tree is at most
// about 2×MaxTokens high; the bound also holds for trees built by hand.
const maxEvalDepth = 2*MaxTokens + MaxDepth

func fail(n Node, format string, args ...any) error {
	return &EvalError{Expr: n.String(), Err: fmt.Errorf(format, args...)}
}

func wrap(n Node, err error) error {
	var ee *EvalError
	if errors.As(err, &ee) {
		return err
	}
	return &EvalError{Expr: n.String(), Err: err}
}

func (ev *evaluator) eval(ctx context.Context, n Node) (Value, error) {
	if err := ctx.Err(); err != nil {
		return Value{}, err
	}
	if ev.depth++; ev.depth > maxEvalDepth {
		ev.depth--
		return Value{}, fmt.Errorf("the expression is nested deeper than %d levels: split it into smaller ones", maxEvalDepth)
	}
	defer func() { ev.depth-- }()
	switch n := n.(type) {
	case *Lit:
		return n.Value, nil
	case *Name:
		if v, ok := ev.binds[n.Name]; ok {
			return v, nil
		}
		v, err := ev.env.Lookup(ctx, n.Name)
		if err != nil {
			return Value{}, wrap(n, err)
		}
		return v, nil
	case *This:
		v, err := ev.env.This(ctx)
		if err != nil {
			return Value{}, wrap(n, err)
		}
		return v, nil
	case *Select:
		x, err := ev.eval(ctx, n.X)
		if err != nil {
			class, err := ev.asClass(ctx, n.X, err)
			if err != nil {
				return Value{}, err
			}
			return ev.staticField(ctx, n, class)
		}
		return ev.selectField(ctx, n, x)
	case *Index:
		return ev.index(ctx, n)
	case *Unary:
		return ev.unary(ctx, n)
	case *Binary:
		return ev.binary(ctx, n)
	case *Cond:
		c, err := ev.eval(ctx, n.Cond)
		if err != nil {
			return Value{}, err
		}
		if c, err = ev.unbox(ctx, n.Cond, c); err != nil {
			return Value{}, err
		}
		if c.Kind != KindBoolean {
			return Value{}, fail(n.Cond, "the condition of ?: must be boolean, not %s", c.TypeName())
		}
		if c.Bool() {
			return ev.eval(ctx, n.Then)
		}
		return ev.eval(ctx, n.Else)
	case *Cast:
		return ev.cast(ctx, n)
	case *Call:
		return ev.call(ctx, n)
	case *InstanceOf:
		return ev.instanceOf(ctx, n)
	case *New:
		return ev.newObject(ctx, n)
	case *NewArray:
		return ev.newArray(ctx, n)
	case *ArrayInit:
		return Value{}, fail(n, "an array initializer needs new Type[] before it")
	case *ClassLit:
		return ev.classLit(ctx, n)
	case *Assign:
		return ev.assign(ctx, n)
	case *Lambda:
		return Value{}, fail(n, errNoTarget, "lambda")
	case *MethodRef:
		return Value{}, fail(n, errNoTarget, "method reference")
	}
	return Value{}, fmt.Errorf("expr: unknown node %T", n)
}

// asClass interprets a name chain whose evaluation failed for an unknown
// name as a class name (java.lang.Integer, Outer.Inner, Node). When it is
// not one, the error is evalErr, or why the class name is wrong when that
// is more than its being unknown (an ambiguous name).
func (ev *evaluator) asClass(ctx context.Context, n Node, evalErr error) (string, error) {
	if !errors.Is(evalErr, ErrUnknownName) {
		return "", evalErr
	}
	name, ok := dotted(n)
	if !ok {
		return "", evalErr
	}
	class, err := ev.env.Class(ctx, name)
	switch {
	case err == nil:
		return class, nil
	case errors.Is(err, ErrUnknownName):
		return "", evalErr
	}
	return "", wrap(n, err)
}

// dotted renders a chain of names (a.b.C) as a string.
func dotted(n Node) (string, bool) {
	// Iterative, one allocation: member chains are walked at every level.
	size, x := 0, n
	for s, ok := x.(*Select); ok; s, ok = x.(*Select) {
		size += len(s.Name) + 1
		x = s.X
	}
	base, ok := x.(*Name)
	if !ok {
		return "", false
	}
	b := make([]byte, len(base.Name)+size)
	end := len(b)
	for s, ok := n.(*Select); ok; s, ok = s.X.(*Select) {
		end -= len(s.Name)
		copy(b[end:], s.Name)
		end--
		b[end] = '.'
	}
	copy(b, base.Name)
	return string(b), true
}

// staticField reads Class.name; a missing field wraps ErrUnknownName, so
// that Outer.Inner can still be tried as a nested class.
func (ev *evaluator) staticField(ctx context.Context, n *Select, class string) (Value, error) {
	v, err := ev.env.StaticField(ctx, class, n.Name)
	if err != nil {
		return Value{}, wrap(n, err)
	}
	return v, nil
}

func (ev *evaluator) selectField(ctx context.Context, n *Select, x Value) (Value, error) {
	switch {
	case x.Kind == KindNull:
		return Value{}, fail(n, "NullPointerException: %s is null", n.X)
	case !x.Kind.IsRef():
		return Value{}, fail(n, "%s is a %s, which has no fields", n.X, x.Kind)
	case strings.HasPrefix(x.Type, "[") && n.Name == "length":
		l, err := ev.env.Length(ctx, x)
		if err != nil {
			return Value{}, wrap(n, err)
		}
		return IntValue(int32(l)), nil
	}
	v, err := ev.env.Field(ctx, x, n.Name)
	if err != nil {
		return Value{}, wrap(n, err)
	}
	return v, nil
}

func (ev *evaluator) index(ctx context.Context, n *Index) (Value, error) {
	x, err := ev.eval(ctx, n.X)
	if err != nil {
		return Value{}, err
	}
	i, err := ev.eval(ctx, n.Index)
	if err != nil {
		return Value{}, err
	}
	if i, err = ev.unbox(ctx, n.Index, i); err != nil {
		return Value{}, err
	}
	switch {
	case x.Kind == KindNull:
		return Value{}, fail(n, "NullPointerException: %s is null", n.X)
	case x.Kind != KindObject || !strings.HasPrefix(x.Type, "["):
		return Value{}, fail(n, "%s is not an array", n.X)
	case !i.Kind.IsIntegral() || i.Kind == KindLong:
		return Value{}, fail(n, "an array index must be an int, not %s", i.TypeName())
	}
	l, err := ev.env.Length(ctx, x)
	if err != nil {
		return Value{}, wrap(n, err)
	}
	if i.I < 0 || i.I >= int64(l) {
		return Value{}, fail(n, "ArrayIndexOutOfBoundsException: index %d out of bounds for length %d", i.I, l)
	}
	v, err := ev.env.Element(ctx, x, int(i.I))
	if err != nil {
		return Value{}, wrap(n, err)
	}
	return v, nil
}

// boxes maps wrapper class signatures to the primitive kind they hold.
var boxes = map[string]Kind{
	"Ljava/lang/Boolean;": KindBoolean, "Ljava/lang/Byte;": KindByte, "Ljava/lang/Character;": KindChar,
	"Ljava/lang/Short;": KindShort, "Ljava/lang/Integer;": KindInt, "Ljava/lang/Long;": KindLong,
	"Ljava/lang/Float;": KindFloat, "Ljava/lang/Double;": KindDouble,
}

// IsBox reports whether sig is a primitive wrapper class (java.lang.Integer…).
func IsBox(sig string) bool { _, ok := boxes[sig]; return ok }

// unbox returns the primitive inside a wrapper object, or v unchanged.
func (ev *evaluator) unbox(ctx context.Context, n Node, v Value) (Value, error) {
	if v.Kind != KindObject || !IsBox(v.Type) {
		return v, nil
	}
	p, err := ev.env.Field(ctx, v, "value")
	if err != nil {
		return Value{}, wrap(n, fmt.Errorf("unboxing %s: %w", v.TypeName(), err))
	}
	return p, nil
}

func (ev *evaluator) unary(ctx context.Context, n *Unary) (Value, error) {
	x, err := ev.eval(ctx, n.X)
	if err != nil {
		return Value{}, err
	}
	if x, err = ev.unbox(ctx, n.X, x); err != nil {
		return Value{}, err
	}
	switch n.Op {
	case "!":
		if x.Kind != KindBoolean {
			return Value{}, fail(n, "! needs a boolean, not %s", x.TypeName())
		}
		return BoolValue(!x.Bool()), nil
	case "~":
		if !x.Kind.IsIntegral() {
			return Value{}, fail(n, "~ needs an integral value, not %s", x.TypeName())
		}
		x = promote1(x)
		return normalize(Value{Kind: x.Kind, I: ^x.I}), nil
	case "+", "-":
		if !x.Kind.IsNumeric() {
			return Value{}, fail(n, "unary %s needs a number, not %s", n.Op, x.TypeName())
		}
		x = promote1(x)
		if n.Op == "-" {
			if x.Kind == KindFloat || x.Kind == KindDouble {
				x.F = -x.F
			} else {
				x.I = -x.I
			}
		}
		return normalize(x), nil
	}
	return Value{}, fail(n, "unknown operator %s", n.Op)
}

// promote1 is unary numeric promotion: byte, short and char become int.
func promote1(v Value) Value {
	switch v.Kind {
	case KindByte, KindShort, KindChar:
		v.Kind = KindInt
	}
	return v
}

// promote2 is binary numeric promotion: the wider of the two kinds, at least int.
func promote2(a, b Value) Kind {
	switch {
	case a.Kind == KindDouble || b.Kind == KindDouble:
		return KindDouble
	case a.Kind == KindFloat || b.Kind == KindFloat:
		return KindFloat
	case a.Kind == KindLong || b.Kind == KindLong:
		return KindLong
	}
	return KindInt
}

// convert converts a numeric value to kind k as a Java primitive cast does.
func convert(v Value, k Kind) Value {
	out := Value{Kind: k}
	isF := v.Kind == KindFloat || v.Kind == KindDouble
	switch k {
	case KindFloat:
		out.F = float64(float32(v.Float()))
	case KindDouble:
		out.F = v.Float()
	case KindLong:
		out.I = v.Int()
	default:
		i := v.I
		if isF {
			i = f2l(v.F, 32)
		}
		out.I = i
	}
	return normalize(out)
}

// f2l converts a float to an integer of bits width with Java's saturation rules.
func f2l(f float64, bits int) int64 {
	if math.IsNaN(f) {
		return 0
	}
	lo, hi := float64(math.MinInt64), float64(math.MaxInt64)
	if bits == 32 {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	switch {
	case f <= lo:
		return int64(lo)
	case f >= hi:
		if bits == 64 {
			return math.MaxInt64
		}
		return math.MaxInt32
	}
	return int64(f)
}

// normalize wraps integers to their kind's width.
func normalize(v Value) Value {
	switch v.Kind {
	case KindByte:
		v.I = int64(int8(v.I))
	case KindShort:
		v.I = int64(int16(v.I))
	case KindChar:
		v.I = int64(uint16(v.I))
	case KindInt:
		v.I = int64(int32(v.I))
	case KindBoolean:
		if v.I != 0 {
			v.I = 1
		}
	case KindFloat:
		v.F = float64(float32(v.F))
	}
	return v
}

func (ev *evaluator) binary(ctx context.Context, n *Binary) (Value, error) {
	x, err := ev.eval(ctx, n.X)
	if err != nil {
		return Value{}, err
	}
	if n.Op == "&&" || n.Op == "||" {
		if x, err = ev.unbox(ctx, n.X, x); err != nil {
			return Value{}, err
		}
		if x.Kind != KindBoolean {
			return Value{}, fail(n.X, "%s needs boolean operands, not %s", n.Op, x.TypeName())
		}
		if x.Bool() == (n.Op == "||") {
			return x, nil
		}
		y, err := ev.eval(ctx, n.Y)
		if err != nil {
			return Value{}, err
		}
		if y, err = ev.unbox(ctx, n.Y, y); err != nil {
			return Value{}, err
		}
		if y.Kind != KindBoolean {
			return Value{}, fail(n.Y, "%s needs boolean operands, not %s", n.Op, y.TypeName())
		}
		return y, nil
	}
	y, err := ev.eval(ctx, n.Y)
	if err != nil {
		return Value{}, err
	}
	switch n.Op {
	case "==", "!=":
		eq, err := ev.equal(ctx, n, x, y)
		if err != nil {
			return Value{}, err
		}
		return BoolValue(eq == (n.Op == "==")), nil
	case "+":
		if x.Kind == KindString || y.Kind == KindString {
			xs, err := ev.javaString(ctx, n.X, x)
			if err != nil {
				return Value{}, err
			}
			ys, err := ev.javaString(ctx, n.Y, y)
			if err != nil {
				return Value{}, err
			}
			return StringLit(xs + ys), nil
		}
	}
	if x, err = ev.unbox(ctx, n.X, x); err != nil {
		return Value{}, err
	}
	if y, err = ev.unbox(ctx, n.Y, y); err != nil {
		return Value{}, err
	}
	switch n.Op {
	case "&", "|", "^":
		if x.Kind == KindBoolean && y.Kind == KindBoolean {
			a, b := x.Bool(), y.Bool()
			return BoolValue(map[string]bool{"&": a && b, "|": a || b, "^": a != b}[n.Op]), nil
		}
		if !x.Kind.IsIntegral() || !y.Kind.IsIntegral() {
			return Value{}, fail(n, "%s needs two integral or two boolean operands, not %s and %s", n.Op, x.TypeName(), y.TypeName())
		}
		k := promote2(x, y)
		a, b := convert(x, k).I, convert(y, k).I
		r := map[string]int64{"&": a & b, "|": a | b, "^": a ^ b}[n.Op]
		return normalize(Value{Kind: k, I: r}), nil
	case "<<", ">>", ">>>":
		if !x.Kind.IsIntegral() || !y.Kind.IsIntegral() {
			return Value{}, fail(n, "%s needs integral operands, not %s and %s", n.Op, x.TypeName(), y.TypeName())
		}
		x = promote1(x)
		mask := int64(31)
		if x.Kind == KindLong {
			mask = 63
		}
		s := uint(y.I & mask)
		var r int64
		switch n.Op {
		case "<<":
			r = x.I << s
		case ">>":
			r = x.I >> s
		case ">>>":
			if x.Kind == KindLong {
				r = int64(uint64(x.I) >> s)
			} else {
				r = int64(uint32(x.I) >> s)
			}
		}
		return normalize(Value{Kind: x.Kind, I: r}), nil
	}
	if !x.Kind.IsNumeric() || !y.Kind.IsNumeric() {
		return Value{}, fail(n, "%s needs numeric operands, not %s and %s", n.Op, x.TypeName(), y.TypeName())
	}
	k := promote2(x, y)
	a, b := convert(x, k), convert(y, k)
	if k == KindFloat || k == KindDouble {
		if c, ok := relational(n.Op, a.F, b.F); ok {
			return BoolValue(c), nil
		}
		if n.Op == "%" {
			return normalize(Value{Kind: k, F: math.Mod(a.F, b.F)}), nil
		}
		if r, ok := arithmetic(n.Op, a.F, b.F); ok {
			return normalize(Value{Kind: k, F: r}), nil
		}
	} else {
		i, j := a.I, b.I
		if c, ok := relational(n.Op, i, j); ok {
			return BoolValue(c), nil
		}
		switch {
		case (n.Op == "/" || n.Op == "%") && j == 0:
			return Value{}, fail(n, "ArithmeticException: / by zero")
		case n.Op == "%":
			if j == -1 { // MIN_VALUE % -1 is 0 in Java
				return Value{Kind: k}, nil
			}
			return normalize(Value{Kind: k, I: i % j}), nil
		}
		if r, ok := arithmetic(n.Op, i, j); ok {
			return normalize(Value{Kind: k, I: r}), nil
		}
	}
	return Value{}, fail(n, "unknown operator %s", n.Op)
}

// relational applies <, <=, > or >=.
func relational[T int64 | float64](op string, a, b T) (result, ok bool) {
	switch op {
	case "<":
		return a < b, true
	case "<=":
		return a <= b, true
	case ">":
		return a > b, true
	case ">=":
		return a >= b, true
	}
	return false, false
}

// arithmetic applies + - * /; integer results are wrapped by normalize
// (Go's MIN_VALUE / -1 wraps as Java's does).
func arithmetic[T int64 | float64](op string, a, b T) (T, bool) {
	switch op {
	case "+":
		return a + b, true
	case "-":
		return a - b, true
	case "*":
		return a * b, true
	case "/":
		return a / b, true
	}
	return 0, false
}

// equal implements == (with string contents compared, see the package doc).
func (ev *evaluator) equal(ctx context.Context, n *Binary, x, y Value) (bool, error) {
	if x.Kind == KindString && y.Kind == KindString {
		if x.Ref != 0 && x.Ref == y.Ref {
			return true, nil
		}
		xs, err := ev.stringOf(ctx, n.X, x)
		if err != nil {
			return false, err
		}
		ys, err := ev.stringOf(ctx, n.Y, y)
		if err != nil {
			return false, err
		}
		return xs == ys, nil
	}
	if x.Kind.IsRef() && y.Kind.IsRef() {
		return x.Ref == y.Ref && (x.Ref != 0 || x.Kind == y.Kind || x.Kind == KindNull || y.Kind == KindNull), nil
	}
	var err error
	if x, err = ev.unbox(ctx, n.X, x); err != nil {
		return false, err
	}
	if y, err = ev.unbox(ctx, n.Y, y); err != nil {
		return false, err
	}
	switch {
	case x.Kind == KindBoolean && y.Kind == KindBoolean:
		return x.Bool() == y.Bool(), nil
	case x.Kind.IsNumeric() && y.Kind.IsNumeric():
		k := promote2(x, y)
		a, b := convert(x, k), convert(y, k)
		if k == KindFloat || k == KindDouble {
			return a.F == b.F, nil
		}
		return a.I == b.I, nil
	}
	return false, fail(n, "cannot compare %s with %s", x.TypeName(), y.TypeName())
}

func (ev *evaluator) stringOf(ctx context.Context, n Node, v Value) (string, error) {
	if v.Known {
		return v.Str, nil
	}
	s, err := ev.env.StringOf(ctx, v)
	if err != nil {
		return "", wrap(n, err)
	}
	return s, nil
}

// javaString is String.valueOf(v): primitives, strings, boxed values and
// null directly; other objects through their toString() when the Env may run
// code, and as Type@id when it may not.
func (ev *evaluator) javaString(ctx context.Context, n Node, v Value) (string, error) {
	switch {
	case v.Kind == KindString:
		return ev.stringOf(ctx, n, v)
	case v.Kind == KindObject && IsBox(v.Type):
		p, err := ev.unbox(ctx, n, v)
		if err != nil {
			return "", err
		}
		return p.JavaString(), nil
	case v.Kind != KindObject:
		return v.JavaString(), nil
	}
	s, err := ev.invokeNamed(ctx, n, v, "toString", nil)
	if errors.Is(err, ErrNoInvoke) {
		return javalang.SimpleTypeName(v.Type) + "@" + strconv.FormatUint(v.Ref, 16), nil
	}
	if err != nil {
		return "", err
	}
	if s.Kind == KindNull {
		return "null", nil
	}
	return ev.stringOf(ctx, n, s)
}

// ToString formats v for a logpoint or a string concatenation.
func ToString(ctx context.Context, env Env, v Value) (string, error) {
	ev := evaluator{env: env}
	return ev.javaString(ctx, &Lit{Value: v}, v)
}

func (ev *evaluator) cast(ctx context.Context, n *Cast) (Value, error) {
	x, err := ev.eval(ctx, n.X)
	if err != nil {
		return Value{}, err
	}
	k, primitive := primitiveNames[n.Type]
	if !primitive {
		return ev.refCast(ctx, n, x)
	}
	if x, err = ev.unbox(ctx, n.X, x); err != nil {
		return Value{}, err
	}
	switch {
	case k == KindBoolean && x.Kind == KindBoolean:
		return x, nil
	case k != KindBoolean && x.Kind.IsNumeric():
		return convert(x, k), nil
	}
	return Value{}, fail(n, "cannot cast %s to %s", x.TypeName(), n.Type)
}

// resolveType turns a type name of the source (int, String, a.b.C[], Outer.Inner)
// into a signature.
func (ev *evaluator) resolveType(ctx context.Context, n Node, name string) (string, error) {
	dims := strings.Count(name, "[]")
	base := strings.TrimSuffix(name, strings.Repeat("[]", dims))
	if k, ok := primitiveNames[base]; ok {
		return strings.Repeat("[", dims) + kindSigs[k], nil
	}
	sig, err := ev.env.Class(ctx, base)
	if err != nil {
		return "", wrap(n, err)
	}
	return strings.Repeat("[", dims) + sig, nil
}

// refCast is a cast to a reference type: boxing a primitive, and a
// ClassCastException when the runtime type does not fit.
func (ev *evaluator) refCast(ctx context.Context, n *Cast, x Value) (Value, error) {
	target, err := ev.resolveType(ctx, n, n.Type)
	if err != nil {
		return Value{}, err
	}
	if x.Kind == KindNull {
		return x, nil
	}
	if !x.Kind.IsRef() {
		if x.Kind == KindVoid {
			return Value{}, fail(n, "cannot cast void to %s", n.Type)
		}
		if ok, err := ev.env.Subtype(ctx, boxSigs[x.Kind], target); err != nil || !ok {
			return Value{}, fail(n, "cannot cast %s to %s", x.TypeName(), n.Type)
		}
		return ev.box(ctx, n, x)
	}
	ok, err := ev.env.Subtype(ctx, typeSig(x), target)
	if err != nil {
		return Value{}, wrap(n, err)
	}
	if !ok {
		return Value{}, fail(n, "ClassCastException: class %s cannot be cast to class %s", javalang.TypeName(typeSig(x)), javalang.TypeName(target))
	}
	return x, nil
}

func (ev *evaluator) instanceOf(ctx context.Context, n *InstanceOf) (Value, error) {
	x, err := ev.eval(ctx, n.X)
	if err != nil {
		return Value{}, err
	}
	if !x.Kind.IsRef() {
		return Value{}, fail(n, "instanceof needs a reference, not %s", x.TypeName())
	}
	target, err := ev.resolveType(ctx, n, n.Type)
	if err != nil {
		return Value{}, err
	}
	if x.Kind == KindNull {
		return BoolValue(false), nil
	}
	ok, err := ev.env.Subtype(ctx, typeSig(x), target)
	if err != nil {
		return Value{}, wrap(n, err)
	}
	if ok && n.Bind != "" {
		if ev.binds == nil {
			ev.binds = map[string]Value{}
		}
		ev.binds[n.Bind] = x
	}
	return BoolValue(ok), nil
}
