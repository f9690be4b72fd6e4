package expr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fakeEnv is a frame with a few locals, a this object with fields, a string
// and an int array, all held in Go.
type fakeEnv struct {
	locals  map[string]Value
	fields  map[uint64]map[string]Value
	strs    map[uint64]string
	arrays  map[uint64][]Value
	this    Value
	lookups int
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
	}
	return e
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
		{"foo()", "method calls: not supported"},
		{"i instanceof Object", "instanceof: not supported"},
	} {
		_, err := EvalString(context.Background(), tc.src, newFakeEnv())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.src, err, tc.want)
		}
	}
	if _, err := EvalString(context.Background(), "foo()", newFakeEnv()); !errors.Is(err, ErrUnsupported) {
		t.Errorf("foo(): %v does not wrap ErrUnsupported", err)
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
	for _, bad := range []string{"", "a +", "(a", "a b", "1x", "\"abc", "'ab'", "a.", "a[1", "2147483648", "9223372036854775808L", "f()()", "a ? b", "#", strings.Repeat("(", 300) + "a" + strings.Repeat(")", 300)} {
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
