package expr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// fakeEnv is a frame with a few locals, a this object with fields, a string
// and an int array, a few classes with static fields and methods (run in
// Go), all held in Go.
type fakeEnv struct {
	locals   map[string]Value
	fields   map[uint64]map[string]Value
	strs     map[uint64]string
	arrays   map[uint64][]Value
	this     Value
	lookups  int
	statics  map[string]map[string]Value
	methods  map[string][]fakeMethod
	supers   map[string][]string
	nextRef  uint64
	noInvoke bool
	invoked  []string
}

type fakeMethod struct {
	Method
	run func(e *fakeEnv, recv Value, args []Value) (Value, error)
}

func newFakeEnv() *fakeEnv {
	e := &fakeEnv{
		locals: map[string]Value{
			"i":     IntValue(7),
			"l":     LongValue(1 << 40),
			"b":     ByteValue(-3),
			"c":     CharValue('x'),
			"d":     DoubleValue(2.5),
			"f":     FloatValue(0.1),
			"ok":    BoolValue(true),
			"name":  ObjectRef(10, "Ljava/lang/String;"),
			"arr":   ObjectRef(20, "[I"),
			"boxed": ObjectRef(30, "Ljava/lang/Integer;"),
			"nil":   Null,
		},
		fields: map[uint64]map[string]Value{
			1:  {"count": IntValue(3), "label": ObjectRef(11, "Ljava/lang/String;"), "next": Null},
			30: {"value": IntValue(42)},
		},
		strs:   map[uint64]string{10: "main", 11: "n{1}"},
		arrays: map[uint64][]Value{20: {IntValue(1), IntValue(2), IntValue(3)}},
		this:   ObjectRef(1, "LNode;"),
		statics: map[string]map[string]Value{
			"Ljava/lang/Integer;": {"MAX_VALUE": IntValue(math.MaxInt32)},
			"LOver;":              {"count": IntValue(5)},
			"LOuter$Inner;":       {"depth": IntValue(2)},
		},
		supers: map[string][]string{
			"Ljava/lang/Integer;":   {"Ljava/lang/Number;", "Ljava/lang/Comparable;", "Ljava/lang/Object;"},
			"Ljava/lang/Long;":      {"Ljava/lang/Number;", "Ljava/lang/Comparable;", "Ljava/lang/Object;"},
			"Ljava/lang/Double;":    {"Ljava/lang/Number;", "Ljava/lang/Comparable;", "Ljava/lang/Object;"},
			"Ljava/lang/Character;": {"Ljava/lang/Object;"},
			"Ljava/lang/String;":    {"Ljava/lang/CharSequence;", "Ljava/lang/Comparable;", "Ljava/lang/Object;"},
			"LNode;":                {"Ljava/lang/Object;"},
			"LOver;":                {"Ljava/lang/Object;"},
			"[I":                    {"Ljava/lang/Object;"},
			"[Ljava/lang/String;":   {"[Ljava/lang/Object;", "Ljava/lang/Object;"},
		},
		nextRef: 1000,
	}
	str := func(s string) func(*fakeEnv, Value, []Value) (Value, error) {
		return func(e *fakeEnv, _ Value, _ []Value) (Value, error) { return e.NewString(context.Background(), s) }
	}
	static := func(name, sig string, run func(*fakeEnv, Value, []Value) (Value, error)) fakeMethod {
		return fakeMethod{Method{Class: "LOver;", Name: name, Signature: sig, Static: true}, run}
	}
	e.methods = map[string][]fakeMethod{
		"LOver;": {
			static("f", "(I)Ljava/lang/String;", str("int")),
			static("f", "(J)Ljava/lang/String;", str("long")),
			static("f", "(D)Ljava/lang/String;", str("double")),
			static("f", "(Ljava/lang/Object;)Ljava/lang/String;", str("Object")),
			static("f", "(Ljava/lang/Integer;)Ljava/lang/String;", str("Integer")),
			static("g", "(IJ)I", func(*fakeEnv, Value, []Value) (Value, error) { return IntValue(1), nil }),
			static("g", "(JI)I", func(*fakeEnv, Value, []Value) (Value, error) { return IntValue(2), nil }),
			{Method{Class: "LOver;", Name: "join", Signature: "([Ljava/lang/String;)I", Static: true, Varargs: true},
				func(e *fakeEnv, _ Value, args []Value) (Value, error) {
					return IntValue(int32(len(e.arrays[args[0].Ref]))), nil
				}},
			static("boom", "()I", func(*fakeEnv, Value, []Value) (Value, error) {
				return Value{}, &Thrown{Class: "java.lang.IllegalStateException", Message: "boom"}
			}),
			{Method{Class: "LOver;", Name: "<init>", Signature: "(I)V"}, func(e *fakeEnv, _ Value, args []Value) (Value, error) {
				e.nextRef++
				e.fields[e.nextRef] = map[string]Value{"n": args[0]}
				return ObjectRef(e.nextRef, "LOver;"), nil
			}},
		},
		"LNode;": {
			{Method{Class: "LNode;", Name: "toString", Signature: "()Ljava/lang/String;"}, str("Node#1")},
			{Method{Class: "LNode;", Name: "twice", Signature: "(I)I"}, func(_ *fakeEnv, recv Value, args []Value) (Value, error) {
				return IntValue(int32(args[0].I * 2)), nil
			}},
		},
		"Ljava/lang/Integer;": {
			{Method{Class: "Ljava/lang/Integer;", Name: "valueOf", Signature: "(I)Ljava/lang/Integer;", Static: true}, func(e *fakeEnv, _ Value, args []Value) (Value, error) {
				e.nextRef++
				e.fields[e.nextRef] = map[string]Value{"value": args[0]}
				return ObjectRef(e.nextRef, "Ljava/lang/Integer;"), nil
			}},
		},
		"Ljava/lang/Long;": {
			{Method{Class: "Ljava/lang/Long;", Name: "valueOf", Signature: "(J)Ljava/lang/Long;", Static: true}, func(e *fakeEnv, _ Value, args []Value) (Value, error) {
				e.nextRef++
				e.fields[e.nextRef] = map[string]Value{"value": args[0]}
				return ObjectRef(e.nextRef, "Ljava/lang/Long;"), nil
			}},
		},
	}
	return e
}

func (e *fakeEnv) FrameClass(context.Context) (string, error) { return "LNode;", nil }
func (e *fakeEnv) Class(_ context.Context, name string) (string, error) {
	switch name {
	case "Integer", "java.lang.Integer":
		return "Ljava/lang/Integer;", nil
	case "String", "java.lang.String":
		return "Ljava/lang/String;", nil
	case "Object", "java.lang.Object":
		return "Ljava/lang/Object;", nil
	case "Number":
		return "Ljava/lang/Number;", nil
	case "Over", "Node":
		return "L" + name + ";", nil
	case "Outer.Inner":
		return "LOuter$Inner;", nil
	case "Outer":
		return "LOuter;", nil
	}
	return "", fmt.Errorf("no class %s: %w", name, ErrUnknownName)
}
func (e *fakeEnv) StaticField(_ context.Context, class, name string) (Value, error) {
	if v, ok := e.statics[class][name]; ok {
		return v, nil
	}
	return Value{}, fmt.Errorf("%s has no static field %s: %w", class, name, ErrUnknownName)
}
func (e *fakeEnv) Methods(_ context.Context, class, name string) ([]Method, error) {
	var out []Method
	for _, m := range e.methods[class] {
		if m.Name == name {
			out = append(out, m.Method)
		}
	}
	return out, nil
}
func (e *fakeEnv) Subtype(_ context.Context, sub, sup string) (bool, error) {
	if sub == sup || sup == "Ljava/lang/Object;" {
		return true, nil
	}
	for _, s := range e.supers[sub] {
		if s == sup {
			return true, nil
		}
	}
	return false, nil
}
func (e *fakeEnv) Invoke(ctx context.Context, recv Value, m Method, args []Value) (Value, error) {
	if e.noInvoke {
		return Value{}, fmt.Errorf("hover: %w", ErrNoInvoke)
	}
	e.invoked = append(e.invoked, m.String())
	for _, fm := range e.methods[m.Class] {
		if fm.Name == m.Name && fm.Signature == m.Signature {
			return fm.run(e, recv, args)
		}
	}
	return Value{}, fmt.Errorf("no such method %s", m)
}
func (e *fakeEnv) New(ctx context.Context, m Method, args []Value) (Value, error) {
	return e.Invoke(ctx, Null, m, args)
}
func (e *fakeEnv) NewString(_ context.Context, s string) (Value, error) {
	e.nextRef++
	e.strs[e.nextRef] = s
	return ObjectRef(e.nextRef, "Ljava/lang/String;"), nil
}
func (e *fakeEnv) NewArray(_ context.Context, sig string, elems []Value) (Value, error) {
	e.nextRef++
	e.arrays[e.nextRef] = elems
	return ObjectRef(e.nextRef, sig), nil
}

func (e *fakeEnv) Lookup(_ context.Context, name string) (Value, error) {
	e.lookups++
	if v, ok := e.locals[name]; ok {
		return v, nil
	}
	if v, ok := e.fields[e.this.Ref][name]; ok {
		return v, nil
	}
	return Value{}, fmt.Errorf("%q: %w", name, ErrUnknownName)
}
func (e *fakeEnv) This(context.Context) (Value, error) { return e.this, nil }
func (e *fakeEnv) Field(_ context.Context, obj Value, name string) (Value, error) {
	if v, ok := e.fields[obj.Ref][name]; ok {
		return v, nil
	}
	return Value{}, fmt.Errorf("%s has no field %s", obj.TypeName(), name)
}
func (e *fakeEnv) Length(_ context.Context, arr Value) (int, error) {
	return len(e.arrays[arr.Ref]), nil
}
func (e *fakeEnv) Element(_ context.Context, arr Value, i int) (Value, error) {
	return e.arrays[arr.Ref][i], nil
}
func (e *fakeEnv) StringOf(_ context.Context, s Value) (string, error) { return e.strs[s.Ref], nil }

func TestEval(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"1 + 2 * 3", "7"},
		{"(1 + 2) * 3", "9"},
		{"i * 2 == 14", "true"},
		{"i / 2", "3"},
		{"-i % 4", "-3"},
		{"i / 2.0", "3.5"},
		{"l + 1", "1099511627777L"},
		{"2147483647 + 1", "-2147483648"},
		{"-2147483648", "-2147483648"},
		{"0xFFFFFFFF", "-1"},
		{"1L << 40 == l", "true"},
		{"-1 >>> 28", "15"},
		{"-1L >>> 60", "15L"},
		{"b + 1", "-2"},
		{"c + 1", "121"},
		{"(char) (c + 1)", "'y'"},
		{"c == 'x'", "true"},
		{"(int) 3.9", "3"},
		{"(byte) 200", "-56"},
		{"(int) 1e20", "2147483647"},
		{"f == 0.1f", "true"},
		{"d > 2 && ok", "true"},
		{"!ok || i > 100", "false"},
		{"ok ^ true", "false"},
		{"i & 3 | 8", "11"},
		{"~i", "-8"},
		{"name == \"main\"", "true"},
		{"name != \"main\"", "false"},
		{"name.equals(\"main\")", "true"},
		{"name.length()", "4"},
		{"\"x=\" + i + \",\" + d + name", `"x=7,2.5main"`},
		{"this.count + count", "6"},
		{"label", "java.lang.String@b"},
		{"next == null", "true"},
		{"arr.length", "3"},
		{"arr[1] + arr[2]", "5"},
		{"boxed + 1", "43"},
		{"boxed == 42", "true"},
		{"i > 5 ? \"big\" : \"small\"", `"big"`},
		{"1.0 / 0", "1e999"},
		{"nil == null", "true"},
		{"'\\u0041'", "'A'"},
	} {
		v, err := EvalString(context.Background(), tc.src, newFakeEnv())
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if got := v.Literal(); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.src, got, tc.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"i / 0", "i / 0): ArithmeticException: / by zero"},
		{"missing + 1", "missing: \"missing\": no local variable"},
		{"arr[3]", "ArrayIndexOutOfBoundsException: index 3 out of bounds for length 3"},
		{"next.count", "NullPointerException: next is null"},
		{"i && ok", "&& needs boolean operands, not int"},
		{"ok + 1", "+ needs numeric operands, not boolean and int"},
		{"i.x", "i is a int, which has no fields"},
		{"foo()", "foo(): Node has no method foo"},
		{"i instanceof Object", "instanceof needs a reference, not int"},
		{"Over.g(1, 1)", "the call is ambiguous: Over.g(int, long), Over.g(long, int) all match"},
		{"Over.boom() + 1", "Over.boom(): java.lang.IllegalStateException thrown: boom"},
		{"(String) boxed", "ClassCastException: class java.lang.Integer cannot be cast to class java.lang.String"},
		{"Over.f(name, 1)", "no Over.f(String, int) matches the arguments; there is Over.f(int), Over.f(long)"},
		{"Nope.x", `"Nope": no local variable`},
		{"Over.nope", "Over.nope: LOver; has no static field nope"},
		{"Over.twice(1)", "no method twice"},
		{"twice(true)", "no Node.twice(boolean) matches"},
		{"new Over()", "no new Over() matches the arguments; there is new Over(int)"},
		{"new int[2][3]", "several sizes"},
		{"x -> x + 1", "a lambda needs an interface to implement"},
		{"Integer::parseInt", "a method reference needs an interface to implement"},
		{"Over.f(x -> x)", "no Over.f(lambda) matches the arguments"},
		{"Over.f(Integer::parseInt)", "no Over.f(method reference) matches the arguments"},
		{"Over.f(x -> y -> x)", "no Over.f(lambda) matches the arguments"},
		{"Over.f(x -> i = 1)", "local variables referenced from a lambda expression must be final or effectively final: i cannot be assigned here"},
		{"Over.f(x -> y -> i++)", "local variables referenced from a lambda expression must be final or effectively final"},
		{"Over.f(x -> y -> x++)", "local variables referenced from a lambda expression must be final or effectively final: x cannot"},
		{"Over.f(x -> { int y = 1; int y = 2; return y; })", "variable y is already defined here"},
		{"Over.f(x -> { int x = 1; return x; })", "variable x is already defined here"},
		{"Over.f(x -> { try { return x; } })", "a try needs a catch here"},
		{"Over.f(x -> { try { return x; } finally { } })", "finally is not supported inside a lambda here"},
		{"Over.f(x -> { try (var r = x) { return x; } })", "try with resources is not supported"},
		{"Over.f(x -> { switch (x) { } })", "switch"},
		{"Over.f(x -> { return x })", `expected ";"`},
		{"Over.f(x -> { break outer; })", "labelled break"},
		{"Over.f(x -> nope)", `"nope": no local variable`},
		{"Over.f(x -> { return x; })", "no Over.f(lambda) matches the arguments"},
		{"Over.f(nil::toString)", "NullPointerException: nil is null"},
		{"1 = 2", "only a variable"},
		{"1++", "needs a variable"},
		{"a = 1", "assignment is not supported here"},
	} {
		_, err := EvalString(context.Background(), tc.src, newFakeEnv())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.src, err, tc.want)
		}
	}
	if _, err := EvalString(context.Background(), "Over.boom()", newFakeEnv()); err == nil {
		t.Error("a thrown exception was not an error")
	} else if th, ok := IsThrown(err); !ok || th.Message != "boom" {
		t.Errorf("Over.boom(): %v does not carry the exception", err)
	}
}

// TestEvalObjects covers what needs classes and methods: static fields by
// simple, qualified and nested names, calls with overloads resolved by
// argument types, varargs, constructors, reference casts, instanceof and
// toString in concatenation.
func TestEvalObjects(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"java.lang.Integer.MAX_VALUE", "2147483647"},
		{"Integer.MAX_VALUE + 1", "-2147483648"},
		{"Over.count * 2", "10"},
		{"Outer.Inner.depth", "2"},
		{"Over.f(1)", `"int"`},
		{"Over.f(1L)", `"long"`},
		{"Over.f('c')", `"int"`},
		{"Over.f(1.5f)", `"double"`},
		{"Over.f(boxed)", `"Integer"`},
		{"Over.f(name)", `"Object"`},
		{"Over.f(null)", `"Integer"`},
		{"Over.f((Object) boxed)", `"Integer"`},
		{"Over.g(1, 1L)", "1"},
		{"Over.join(\"a\", \"b\", name)", "3"},
		{"Over.join()", "0"},
		{"twice(21)", "42"},
		{"this.twice(c)", "240"},
		{"\"n=\" + this", `"n=Node#1"`},
		{"new Over(3).n", "3"},
		{"boxed instanceof Number", "true"},
		{"name instanceof Integer", "false"},
		{"nil instanceof Object", "false"},
		{"(Number) boxed == boxed", "true"},
		{"((Integer) 5) + 1", "6"},
		{"\"abc\".length() + name.length()", "7"},
		{"0b1010_1010", "170"},
	} {
		v, err := EvalString(context.Background(), tc.src, newFakeEnv())
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		got := v.Literal()
		if v.Kind == KindString && !v.Known {
			got = `"` + newFakeEnvString(t, tc.src) + `"`
		}
		if got != tc.want {
			t.Errorf("%s = %s, want %s", tc.src, got, tc.want)
		}
	}
}

// newFakeEnvString evaluates src to a VM string and returns its contents.
func newFakeEnvString(t *testing.T, src string) string {
	env := newFakeEnv()
	v, err := EvalString(context.Background(), src, env)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := env.StringOf(context.Background(), v)
	return s
}

// TestNoInvoke: an Env that must not run code (hover) still evaluates
// everything else, and objects in concatenations print as Type@id.
func TestNoInvoke(t *testing.T) {
	env := newFakeEnv()
	env.noInvoke = true
	v, err := EvalString(context.Background(), `"x" + this + name.length()`, env)
	if err != nil || v.Str != "xNode@14" {
		t.Errorf("concatenation without invoking: %v %v", v.Literal(), err)
	}
	if _, err := EvalString(context.Background(), "twice(1)", env); !errors.Is(err, ErrNoInvoke) {
		t.Errorf("twice(1) in a no-invoke Env: %v", err)
	}
	if len(env.invoked) != 0 {
		t.Errorf("invoked %v", env.invoked)
	}
}

// TestConvert covers assignment conversions for setVariable.
func TestConvert(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		v    Value
		sig  string
		want string
	}{
		{IntValue(42), "J", "42L"},
		{IntValue(42), "B", "42"},
		{IntValue(300), "B", "300 does not fit in a byte"},
		{CharValue('c'), "C", "'c'"},
		{IntValue(99), "C", "'c'"},
		{DoubleValue(2), "I", "2"},
		{DoubleValue(2.5), "I", "2.5 is not a int; cast it"},
		{IntValue(1), "D", "1.0"},
		{BoolValue(true), "I", "a boolean cannot be stored in a int"},
		{IntValue(7), "Ljava/lang/Long;", "java.lang.Long@"},
		{IntValue(7), "Ljava/lang/String;", "a int cannot be stored in a String"},
		{StringLit("s"), "Ljava/lang/String;", "String@"},
		{StringLit("s"), "LNode;", "a String cannot be stored in a Node"},
		{Null, "LNode;", "null"},
	} {
		v, err := Convert(ctx, newFakeEnv(), nil, tc.v, tc.sig)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = v.Literal()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("Convert(%s, %s) = %s, want %s", tc.v.Literal(), tc.sig, got, tc.want)
		}
	}
}

func TestShortCircuit(t *testing.T) {
	env := newFakeEnv()
	ok, err := Truth(context.Background(), mustParse(t, "false && missing"), env)
	if err != nil || ok || env.lookups != 0 {
		t.Fatalf("false && missing = %v, %v after %d lookups", ok, err, env.lookups)
	}
	if _, err := Truth(context.Background(), mustParse(t, "i"), env); err == nil {
		t.Fatal("an int condition was accepted")
	}
	// A condition never assigns: "b = true" is a typo for ==.
	if _, err := Truth(context.Background(), mustParse(t, "b = true"), env); err == nil || !strings.Contains(err.Error(), "did you mean ==?") {
		t.Fatalf("an assigning condition: %v", err)
	}
	tmpl, err := ParseTemplate("x={i += 1}")
	if err != nil {
		t.Fatal(err)
	}
	if out := tmpl.Eval(context.Background(), env); !strings.Contains(out, "a logpoint cannot assign") {
		t.Errorf("an assigning logpoint printed %q", out)
	}
}

func mustParse(t *testing.T, s string) Node {
	t.Helper()
	n, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestParse(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"a + b * c", "(a + (b * c))"},
		{"a.b.c[1].d", "a.b.c[1].d"},
		{"a ? b : c ? d : e", "(a ? b : (c ? d : e))"},
		{"a || b && c | d ^ e & f == g < h << i + j * k", "(a || (b && (c | (d ^ (e & (f == (g < (h << (i + (j * k))))))))))"},
		{"(int) -x", "((int) (-x))"},
		{"(Foo) x", "((Foo) x)"},
		{"(a) + b", "(a + b)"},
		{"(a.b) - 1", "(a.b - 1)"},
		{"x instanceof java.lang.String", "(x instanceof java.lang.String)"},
		{"s.equals(\"a\\\"b\", 1)", `s.equals("a\"b", 1)`},
		{"1_000L + 0x1F + 017", "((1000L + 31) + 15)"},
		{"1.5f + .5 + 1e3", "((1.5f + 0.5) + 1000.0)"},
		{"xs.filter(o -> o.total() > 100)", "xs.filter(((o) -> (o.total() > 100)))"},
		{"m((a, b) -> a + b, () -> 1)", "m(((a, b) -> (a + b)), (() -> 1))"},
		{"m((String s, java.util.List<T> l) -> s)", "m(((s, l) -> s))"},
		{"xs.forEach(System.out::println)", "xs.forEach(System.out::println)"},
		{"xs.map(String::length).map(ArrayList::new)", "xs.map(String::length).map(ArrayList::new)"},
	} {
		n, err := Parse(tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if got := n.String(); got != tc.want {
			t.Errorf("Parse(%q) = %s, want %s", tc.src, got, tc.want)
		}
	}
	for _, bad := range []string{"", "a +", "(a", "a b", "1x", "\"abc", "'ab'", "a.", "a[1", "2147483648", "9223372036854775808L", "f()()", "a ? b", "#", "(a, b) + c", "(a,) -> a", "x -> ", "a::", "a::1", strings.Repeat("(", 300) + "a" + strings.Repeat(")", 300)} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

func TestTemplate(t *testing.T) {
	tpl, err := ParseTemplate("i={i} name={name} label={label.length()} {{literal}} {missing}")
	if err != nil {
		t.Fatal(err)
	}
	got := tpl.Eval(context.Background(), newFakeEnv())
	want := `i=7 name=main label=String@b {literal} {missing: missing: "missing": no local variable, field or static field of that name}`
	if !strings.HasPrefix(got, "i=7 name=main label=") || !strings.HasSuffix(got, want[strings.Index(want, " {literal}"):]) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, err := ParseTemplate("x={a + }"); err == nil {
		t.Error("a bad expression in a template was accepted")
	}
	if _, err := ParseTemplate("x={a"); err == nil {
		t.Error("an unclosed { was accepted")
	}
	tpl, _ = ParseTemplate(`{"}" + i}`)
	if got := tpl.Eval(context.Background(), newFakeEnv()); got != "}7" {
		t.Errorf("brace in a string literal: %q", got)
	}
}

func TestJavaString(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{DoubleValue(1), "1.0"}, {DoubleValue(1e7), "1.0E7"}, {DoubleValue(1.5e-5), "1.5E-5"},
		{FloatValue(0.1), "0.1"}, {DoubleValue(-0.0), "0.0"}, {LongValue(-5), "-5"}, {CharValue('q'), "q"},
	} {
		if got := tc.v.JavaString(); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.v, got, tc.want)
		}
	}
}
