package kexpr

import (
	"context"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

// javaTypes maps Kotlin's names of the JVM's types to Java's classes.
var javaTypes = map[string]string{
	"Any": "java.lang.Object", "String": "java.lang.String", "CharSequence": "java.lang.CharSequence",
	"Int": "java.lang.Integer", "Long": "java.lang.Long", "Short": "java.lang.Short", "Byte": "java.lang.Byte",
	"Double": "java.lang.Double", "Float": "java.lang.Float", "Char": "java.lang.Character", "Boolean": "java.lang.Boolean",
	"Number": "java.lang.Number", "Comparable": "java.lang.Comparable", "Throwable": "java.lang.Throwable",
	"Exception": "java.lang.Exception", "RuntimeException": "java.lang.RuntimeException",
	"Iterable": "java.lang.Iterable", "MutableIterable": "java.lang.Iterable",
	"Collection": "java.util.Collection", "MutableCollection": "java.util.Collection",
	"List": "java.util.List", "MutableList": "java.util.List", "Set": "java.util.Set", "MutableSet": "java.util.Set",
	"Map": "java.util.Map", "MutableMap": "java.util.Map", "Unit": "kotlin.Unit",
}

// primitiveOf: which primitive kinds a Kotlin type name admits.
var primitiveOf = map[string][]expr.Kind{
	"Int": {expr.KindInt}, "Long": {expr.KindLong}, "Short": {expr.KindShort}, "Byte": {expr.KindByte},
	"Double": {expr.KindDouble}, "Float": {expr.KindFloat}, "Char": {expr.KindChar}, "Boolean": {expr.KindBoolean},
	"Number":     {expr.KindInt, expr.KindLong, expr.KindShort, expr.KindByte, expr.KindDouble, expr.KindFloat},
	"Any":        {expr.KindInt, expr.KindLong, expr.KindShort, expr.KindByte, expr.KindDouble, expr.KindFloat, expr.KindChar, expr.KindBoolean},
	"Comparable": {expr.KindInt, expr.KindLong, expr.KindShort, expr.KindByte, expr.KindDouble, expr.KindFloat, expr.KindChar, expr.KindBoolean},
}

var kotlinNames = map[expr.Kind]string{
	expr.KindBoolean: "Boolean", expr.KindByte: "Byte", expr.KindChar: "Char", expr.KindShort: "Short",
	expr.KindInt: "Int", expr.KindLong: "Long", expr.KindFloat: "Float", expr.KindDouble: "Double",
	expr.KindNull: "null", expr.KindString: "String", expr.KindVoid: "Unit",
}

// kotlinType names a value's type as Kotlin does.
func kotlinType(v expr.Value) string {
	if v.Kind == expr.KindObject {
		name := javalang.SimpleTypeName(v.Type)
		for k, j := range javaTypes {
			if "L"+strings.ReplaceAll(j, ".", "/")+";" == v.Type {
				return k
			}
		}
		return name
	}
	return kotlinNames[v.Kind]
}

// typeSig resolves a Kotlin type name (nullable ? and type arguments
// dropped) to a class signature.
func (ev *evaluator) typeSig(ctx context.Context, n Node, t string) (string, error) {
	t = strings.TrimSuffix(t, "?")
	if j, ok := javaTypes[t]; ok {
		t = j
	}
	sig, err := ev.env.Class(ctx, t)
	if err != nil {
		return "", fail(n, "%v", err)
	}
	return sig, nil
}

func (ev *evaluator) is(ctx context.Context, n Node, x expr.Value, t string) (bool, error) {
	nullable := strings.HasSuffix(t, "?")
	base := strings.TrimSuffix(t, "?")
	if x.Kind == expr.KindNull {
		return nullable, nil
	}
	if !x.Kind.IsRef() {
		for _, k := range primitiveOf[base] {
			if k == x.Kind {
				return true, nil
			}
		}
		return false, nil
	}
	sig, err := ev.typeSig(ctx, n, base)
	if err != nil {
		return false, err
	}
	xt := x.Type
	if x.Kind == expr.KindString {
		xt = "Ljava/lang/String;"
	}
	ok, err := ev.env.Subtype(ctx, xt, sig)
	if err != nil {
		return false, fail(n, "%v", err)
	}
	return ok, nil
}

func (ev *evaluator) as(ctx context.Context, n *As) (expr.Value, error) {
	x, err := ev.eval(ctx, n.X)
	if err != nil {
		return x, err
	}
	ok, err := ev.is(ctx, n, x, n.Type)
	if err != nil {
		return expr.Value{}, err
	}
	switch {
	case ok:
		return x, nil
	case n.Safe:
		return null, nil
	case x.Kind == expr.KindNull:
		return expr.Value{}, fail(n, "NullPointerException: null cannot be cast to non-null type %s", n.Type)
	}
	return expr.Value{}, fail(n, "ClassCastException: %s cannot be cast to %s", kotlinType(x), n.Type)
}

func (ev *evaluator) binary(ctx context.Context, n *Binary) (expr.Value, error) {
	switch n.Op {
	case "&&", "||":
		x, err := ev.cond(ctx, n.X)
		if err != nil || x == (n.Op == "||") {
			return expr.BoolValue(x), err
		}
		y, err := ev.cond(ctx, n.Y)
		return expr.BoolValue(y), err
	case "?:":
		x, err := ev.eval(ctx, n.X)
		if err != nil || x.Kind != expr.KindNull {
			return x, err
		}
		return ev.eval(ctx, n.Y)
	case "in", "!in":
		x, err := ev.eval(ctx, n.X)
		if err != nil {
			return x, err
		}
		ok, err := ev.in(ctx, n, x, n.Y)
		return expr.BoolValue(ok != (n.Op == "!in")), err
	}
	x, err := ev.eval(ctx, n.X)
	if err != nil {
		return x, err
	}
	y, err := ev.eval(ctx, n.Y)
	if err != nil {
		return y, err
	}
	switch n.Op {
	case "==", "!=":
		eq, err := ev.equals(ctx, n, x, y)
		return expr.BoolValue(eq == (n.Op == "==")), err
	case "===", "!==":
		same, err := ev.identical(ctx, n, x, y)
		return expr.BoolValue(same == (n.Op == "===")), err
	case "<", ">", "<=", ">=":
		return ev.compare(ctx, n, x, y)
	case "+", "-", "*", "/", "%":
		return ev.arith(ctx, n, n.Op, x, y)
	case "and", "or", "xor", "shl", "shr", "ushr":
		op := map[string]string{"and": "&", "or": "|", "xor": "^", "shl": "<<", "shr": ">>", "ushr": ">>>"}[n.Op]
		return ev.java(ctx, n, []expr.Value{x, y}, func(k []expr.Node) expr.Node { return &expr.Binary{Op: op, X: k[0], Y: k[1]} })
	case "to":
		return ev.java(ctx, n, []expr.Value{x, y}, func(k []expr.Node) expr.Node { return &expr.New{Type: "kotlin.Pair", Args: k} })
	case "..", "..<", "until", "downTo", "step":
		return ev.rangeValue(ctx, n, x, y)
	}
	return expr.Value{}, fail(n, "the operator %s is not supported in evaluation yet", n.Op)
}

// arith is Kotlin's arithmetic: Java's on numbers and String +, a Char
// plus or minus an Int is a Char, and an object's operator function
// (plus, minus, times, div, rem) otherwise.
func (ev *evaluator) arith(ctx context.Context, n Node, op string, x, y expr.Value) (expr.Value, error) {
	if x.Kind == expr.KindObject && !expr.IsBox(x.Type) {
		name := map[string]string{"+": "plus", "-": "minus", "*": "times", "/": "div", "%": "rem"}[op]
		return ev.member(ctx, n, x, name, []expr.Value{y})
	}
	if x.Kind == expr.KindString && op == "+" {
		xs, err := ev.str(ctx, n, x)
		if err != nil {
			return expr.Value{}, err
		}
		ys, err := ev.str(ctx, n, y)
		if err != nil {
			return expr.Value{}, err
		}
		return expr.StringLit(xs + ys), nil
	}
	uy, err := ev.unbox(ctx, y)
	if err != nil {
		return expr.Value{}, err
	}
	v, err := ev.java(ctx, n, []expr.Value{x, y}, func(k []expr.Node) expr.Node { return &expr.Binary{Op: op, X: k[0], Y: k[1]} })
	if err != nil {
		return v, err
	}
	ux, err := ev.unbox(ctx, x)
	if err == nil && ux.Kind == expr.KindChar && (op == "+" || op == "-") && uy.Kind != expr.KindChar && uy.Kind.IsIntegral() {
		return expr.CharValue(uint16(v.I)), nil
	}
	return v, nil
}

// equals is Kotlin's ==: null-safe, numbers and chars by value, strings by
// contents, other objects by equals().
func (ev *evaluator) equals(ctx context.Context, n Node, x, y expr.Value) (bool, error) {
	if x.Kind == expr.KindNull || y.Kind == expr.KindNull {
		return x.Kind == y.Kind, nil
	}
	if x.Kind == expr.KindString && y.Kind == expr.KindString {
		xs, err := ev.str(ctx, n, x)
		if err != nil {
			return false, err
		}
		ys, err := ev.str(ctx, n, y)
		return xs == ys, err
	}
	if !x.Kind.IsRef() || !y.Kind.IsRef() || expr.IsBox(x.Type) && expr.IsBox(y.Type) {
		ux, err := ev.unbox(ctx, x)
		if err != nil {
			return false, err
		}
		uy, err := ev.unbox(ctx, y)
		if err != nil {
			return false, err
		}
		if ux.Kind.IsRef() || uy.Kind.IsRef() {
			return false, nil
		}
		if ux.Kind == expr.KindBoolean || uy.Kind == expr.KindBoolean {
			return ux.Kind == uy.Kind && ux.I == uy.I, nil
		}
		v, err := ev.java(ctx, n, []expr.Value{ux, uy}, func(k []expr.Node) expr.Node { return &expr.Binary{Op: "==", X: k[0], Y: k[1]} })
		return v.Bool(), err
	}
	if x.Kind == expr.KindString {
		x, y = y, x // equals on the object, not the literal
		if y.Kind == expr.KindString && x.Kind != expr.KindObject {
			return false, nil
		}
	}
	v, err := ev.member(ctx, n, x, "equals", []expr.Value{y})
	if err != nil {
		return false, err
	}
	v, err = ev.unbox(ctx, v)
	return v.Bool(), err
}

// identical is Kotlin's ===: the same object (values of primitive types
// by value).
func (ev *evaluator) identical(ctx context.Context, n Node, x, y expr.Value) (bool, error) {
	if x.Kind.IsRef() && y.Kind.IsRef() {
		if x.Kind == expr.KindNull || y.Kind == expr.KindNull {
			return x.Kind == y.Kind, nil
		}
		if x.Ref == 0 || y.Ref == 0 { // a literal string: equal literals are one object
			return ev.equals(ctx, n, x, y)
		}
		return x.Ref == y.Ref, nil
	}
	return ev.equals(ctx, n, x, y)
}

func (ev *evaluator) compare(ctx context.Context, n *Binary, x, y expr.Value) (expr.Value, error) {
	if x.Kind == expr.KindString && y.Kind == expr.KindString {
		xs, err := ev.str(ctx, n, x)
		if err != nil {
			return expr.Value{}, err
		}
		ys, err := ev.str(ctx, n, y)
		if err != nil {
			return expr.Value{}, err
		}
		c := strings.Compare(xs, ys) // UTF-8 order is UTF-16's but for surrogates
		return expr.BoolValue(map[string]bool{"<": c < 0, ">": c > 0, "<=": c <= 0, ">=": c >= 0}[n.Op]), nil
	}
	if x.Kind == expr.KindObject && !expr.IsBox(x.Type) {
		c, err := ev.member(ctx, n, x, "compareTo", []expr.Value{y})
		if err != nil {
			return c, err
		}
		return ev.java(ctx, n, []expr.Value{c, expr.IntValue(0)}, func(k []expr.Node) expr.Node { return &expr.Binary{Op: n.Op, X: k[0], Y: k[1]} })
	}
	return ev.java(ctx, n, []expr.Value{x, y}, func(k []expr.Node) expr.Node { return &expr.Binary{Op: n.Op, X: k[0], Y: k[1]} })
}

// ---- ranges

// span is a range evaluated in Go: from, to (inclusive), step.
type span struct {
	from, to expr.Value
	step     int64
}

// spanOf evaluates a range expression (a..b, a..<b, a until b, a downTo b,
// r step s) without making it in the VM; ok is false for anything else.
func (ev *evaluator) spanOf(ctx context.Context, n Node) (span, bool, error) {
	b, isBin := n.(*Binary)
	if !isBin {
		return span{}, false, nil
	}
	switch b.Op {
	case "step":
		s, ok, err := ev.spanOf(ctx, b.X)
		if !ok || err != nil {
			return s, ok, err
		}
		st, err := ev.eval(ctx, b.Y)
		if err == nil {
			st, err = ev.unbox(ctx, st)
		}
		if err != nil {
			return s, true, err
		}
		if !st.Kind.IsIntegral() || st.I <= 0 {
			return s, true, fail(b, "IllegalArgumentException: Step must be positive, was: %s", st.JavaString())
		}
		if s.step < 0 {
			s.step = -st.I
		} else {
			s.step = st.I
		}
		return s, true, nil
	case "..", "..<", "until", "downTo":
	default:
		return span{}, false, nil
	}
	x, err := ev.eval(ctx, b.X)
	if err == nil {
		x, err = ev.unbox(ctx, x)
	}
	if err != nil {
		return span{}, true, err
	}
	y, err := ev.eval(ctx, b.Y)
	if err == nil {
		y, err = ev.unbox(ctx, y)
	}
	if err != nil {
		return span{}, true, err
	}
	if !x.Kind.IsNumeric() || !y.Kind.IsNumeric() {
		if b.Op == ".." && x.Kind.IsRef() {
			return span{from: x, to: y, step: 0}, true, nil // a Comparable range
		}
		return span{}, true, fail(b, "a range of %s and %s is not supported in evaluation yet", kotlinType(x), kotlinType(y))
	}
	s := span{from: x, to: y, step: 1}
	switch b.Op {
	case "..<", "until":
		s.to = minusOne(y)
	case "downTo":
		s.step = -1
	}
	return s, true, nil
}

func minusOne(v expr.Value) expr.Value {
	if v.Kind == expr.KindDouble || v.Kind == expr.KindFloat {
		return v // ..< of floating point: handled by the caller as exclusive
	}
	v.I--
	return v
}

func (ev *evaluator) in(ctx context.Context, n *Binary, x expr.Value, yn Node) (bool, error) {
	s, ok, err := ev.spanOf(ctx, yn)
	if err != nil {
		return false, err
	}
	if ok {
		if s.step == 0 { // Comparable: from <= x <= to
			lo, err := ev.compare(ctx, &Binary{"<=", n.X, yn}, s.from, x)
			if err != nil || !lo.Bool() {
				return false, err
			}
			hi, err := ev.compare(ctx, &Binary{"<=", n.X, yn}, x, s.to)
			return hi.Bool(), err
		}
		ux, err := ev.unbox(ctx, x)
		if err != nil {
			return false, err
		}
		if !ux.Kind.IsNumeric() {
			return false, fail(n, "%s in a numeric range: it is a %s", n.X, kotlinType(x))
		}
		if ux.Kind == expr.KindDouble || ux.Kind == expr.KindFloat || s.from.Kind == expr.KindDouble || s.from.Kind == expr.KindFloat {
			lo, hi := s.from.Float(), s.to.Float()
			if s.step < 0 {
				lo, hi = hi, lo
			}
			v := ux.Float()
			if b, ok := yn.(*Binary); ok && (b.Op == "..<" || b.Op == "until") {
				return v >= lo && v < hi, nil
			}
			return v >= lo && v <= hi, nil
		}
		v, lo, hi := ux.I, s.from.I, s.to.I
		if s.step < 0 {
			lo, hi = hi, lo
			if v < lo || v > hi {
				return false, nil
			}
			return (s.from.I-v)%(-s.step) == 0, nil
		}
		if v < lo || v > hi {
			return false, nil
		}
		return (v-lo)%s.step == 0, nil
	}
	y, err := ev.eval(ctx, yn)
	if err != nil {
		return false, err
	}
	switch {
	case y.Kind == expr.KindNull:
		return false, fail(n, "NullPointerException: %s is null", yn)
	case y.Kind == expr.KindString:
		ys, err := ev.str(ctx, yn, y)
		if err != nil {
			return false, err
		}
		if x.Kind == expr.KindChar {
			return strings.ContainsRune(ys, rune(x.I)), nil
		}
		xs, err := ev.str(ctx, n.X, x)
		return strings.Contains(ys, xs), err
	case strings.HasPrefix(y.Type, "["):
		l, err := ev.env.Length(ctx, y)
		if err != nil {
			return false, fail(n, "%v", err)
		}
		for i := 0; i < l; i++ {
			e, err := ev.env.Element(ctx, y, i)
			if err != nil {
				return false, fail(n, "%v", err)
			}
			if eq, err := ev.equals(ctx, n, e, x); err != nil || eq {
				return eq, err
			}
		}
		return false, nil
	}
	if isMap, _ := ev.env.Subtype(ctx, y.Type, "Ljava/util/Map;"); isMap {
		v, err := ev.member(ctx, n, y, "containsKey", []expr.Value{x})
		return v.Bool(), err
	}
	v, err := ev.member(ctx, n, y, "contains", []expr.Value{x})
	if err != nil {
		return false, err
	}
	v, err = ev.unbox(ctx, v)
	return v.Bool(), err
}

// rangeValue makes a range in the VM (IntRange, LongRange, CharRange…):
// the value of a range not tested with in.
func (ev *evaluator) rangeValue(ctx context.Context, n *Binary, x, y expr.Value) (expr.Value, error) {
	s, _, err := ev.spanOf(ctx, n)
	if err != nil {
		return expr.Value{}, err
	}
	if s.step == 0 {
		return expr.Value{}, fail(n, "a range of %s as a value is not supported in evaluation yet (test it with in)", kotlinType(s.from))
	}
	class := ""
	switch s.from.Kind {
	case expr.KindInt, expr.KindShort, expr.KindByte:
		class = "kotlin.ranges.IntProgression"
	case expr.KindLong:
		class = "kotlin.ranges.LongProgression"
	case expr.KindChar:
		class = "kotlin.ranges.CharProgression"
	default:
		return expr.Value{}, fail(n, "a range of %s as a value is not supported in evaluation yet (test it with in)", kotlinType(s.from))
	}
	step := expr.IntValue(int32(s.step))
	if s.from.Kind == expr.KindLong {
		step = expr.LongValue(s.step)
	}
	if s.step == 1 {
		rc := strings.Replace(class, "Progression", "Range", 1)
		if _, err := ev.env.Class(ctx, rc); err == nil {
			return ev.java(ctx, n, []expr.Value{s.from, s.to}, func(k []expr.Node) expr.Node { return &expr.New{Type: rc, Args: k} })
		}
	}
	if _, err := ev.env.Class(ctx, class); err != nil {
		return expr.Value{}, fail(n, "%s is not loaded in the VM: test the range with in instead", class)
	}
	return ev.java(ctx, n, []expr.Value{s.from, s.to, step}, func(k []expr.Node) expr.Node {
		return &expr.Call{Fun: &expr.Select{X: &expr.Select{X: className(class), Name: "Companion"}, Name: "fromClosedRange"}, Args: k}
	})
}

// ---- when

func (ev *evaluator) when(ctx context.Context, n *When) (expr.Value, error) {
	var subj expr.Value
	if n.Subject != nil {
		var err error
		if subj, err = ev.eval(ctx, n.Subject); err != nil {
			return subj, err
		}
	}
	for _, b := range n.Branches {
		for _, c := range b.Conds {
			hit, err := ev.whenCond(ctx, n, subj, c)
			if err != nil {
				return expr.Value{}, err
			}
			if hit {
				return ev.eval(ctx, b.Body)
			}
		}
	}
	if n.Else == nil {
		return expr.Value{}, fail(n, "no branch of the when matched and it has no else")
	}
	return ev.eval(ctx, n.Else)
}

func (ev *evaluator) whenCond(ctx context.Context, n *When, subj expr.Value, c WhenCond) (bool, error) {
	switch c.Op {
	case "is", "!is":
		ok, err := ev.is(ctx, n, subj, c.Type)
		return ok != (c.Op == "!is"), err
	case "in", "!in":
		ok, err := ev.in(ctx, &Binary{c.Op, n.Subject, c.X}, subj, c.X)
		return ok != (c.Op == "!in"), err
	}
	if n.Subject == nil {
		return ev.cond(ctx, c.X)
	}
	v, err := ev.eval(ctx, c.X)
	if err != nil {
		return false, err
	}
	return ev.equals(ctx, c.X, subj, v)
}

var _ = fmt.Sprint
