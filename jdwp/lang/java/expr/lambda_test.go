package expr

import (
	"context"
	"strings"
	"testing"
)

// fnEnv is the fake frame with functional interfaces: MakeFunction keeps
// the Func it is given and returns a new object.
type fnEnv struct {
	*fakeEnv
	made  []*Func
	ifces []string
}

func (e *fnEnv) FunctionalMethod(_ context.Context, sig string) (Method, bool, error) {
	switch sig {
	case "Ljava/util/function/Predicate;":
		return Method{Class: sig, Name: "test", Signature: "(Ljava/lang/Object;)Z"}, true, nil
	case "Ljava/util/function/BiFunction;":
		return Method{Class: sig, Name: "apply", Signature: "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;"}, true, nil
	}
	return Method{}, false, nil
}

func (e *fnEnv) MakeFunction(_ context.Context, sig string, sam Method, f *Func) (Value, error) {
	e.made, e.ifces = append(e.made, f), append(e.ifces, sig+"."+sam.Name)
	e.nextRef++
	return ObjectRef(e.nextRef, "LLambda;"), nil
}

func newFnEnv() *fnEnv {
	e := &fnEnv{fakeEnv: newFakeEnv()}
	takes := func(name, param, result string) fakeMethod {
		return fakeMethod{Method{Class: "LOver;", Name: name, Signature: "(" + param + ")Ljava/lang/String;", Static: true},
			func(e *fakeEnv, _ Value, args []Value) (Value, error) {
				if args[0].Type != "LLambda;" {
					return Value{}, &Thrown{Class: "java.lang.AssertionError", Message: "not the made object"}
				}
				return e.NewString(context.Background(), result)
			}}
	}
	e.methods["LOver;"] = append(e.methods["LOver;"],
		takes("keep", "Ljava/util/function/Predicate;", "predicate"),
		takes("keep", "Ljava/util/function/BiFunction;", "bifunction"),
		takes("pred", "Ljava/util/function/Predicate;", "predicate"))
	e.supers["LLambda;"] = []string{"Ljava/util/function/Predicate;", "Ljava/util/function/BiFunction;", "Ljava/lang/Object;"}
	return e
}

// TestLambdaResolve checks what the evaluator hands to Functions: the
// overload chosen by the lambda's arity, parameters, captured locals,
// fields and this (each once, boxed), classes, and bound receivers.
func TestLambdaResolve(t *testing.T) {
	ctx := context.Background()
	e := newFnEnv()
	v, err := EvalString(ctx, "Over.keep(x -> x > i + i && Over.count > 0 ? twice(x) == i : label.isEmpty())", e)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := e.StringOf(ctx, v); s != "predicate" || e.ifces[0] != "Ljava/util/function/Predicate;.test" {
		t.Fatalf("result %q through %v", s, e.ifces)
	}
	f := e.made[0]
	if p := f.Params(); len(p) != 1 || p[0] != "x" || f.What() != "lambda" {
		t.Errorf("params %v, %s", p, f.What())
	}
	// i (boxed), this (for twice), label: in the order first met.
	if len(f.Captures) != 3 || f.Captures[0].Type != "Ljava/lang/Integer;" || f.Captures[1].Ref != 1 || f.Captures[2].Kind != KindString {
		t.Fatalf("captures %+v", f.Captures)
	}
	kinds := map[string][]Ref{}
	for n, r := range f.Refs {
		kinds[n.String()] = append(kinds[n.String()], r)
	}
	for name, want := range map[string]Ref{
		"x": {Kind: RefParam}, "i": {Kind: RefCapture, Index: 0}, "Over": {Kind: RefClass, Class: "LOver;"},
		"twice(x)": {Kind: RefCapture, Index: 1}, "label": {Kind: RefCapture, Index: 2},
	} {
		if len(kinds[name]) == 0 {
			t.Errorf("%s not resolved: %v", name, kinds)
		}
		for _, r := range kinds[name] {
			if r != want {
				t.Errorf("%s resolved to %+v, want %+v", name, r, want)
			}
		}
	}

	// The lambda's arity chooses the overload.
	if v, err := EvalString(ctx, "Over.keep((a, b) -> a)", e); err != nil {
		t.Fatal(err)
	} else if s, _ := e.StringOf(ctx, v); s != "bifunction" {
		t.Errorf("(a, b) -> a chose %q", s)
	}

	// A bound method reference captures its receiver, evaluated now.
	if _, err := EvalString(ctx, "Over.pred(name::equals)", e); err != nil {
		t.Fatal(err)
	}
	f = e.made[len(e.made)-1]
	if f.What() != "method reference" || len(f.Captures) != 1 || f.Captures[0].Ref != 10 {
		t.Fatalf("name::equals: %+v", f)
	}
	if r := f.Refs[f.Node.(*MethodRef).X]; r.Kind != RefCapture || r.Index != 0 {
		t.Errorf("name::equals receiver %+v", r)
	}
	// A type's method reference names the class.
	if _, err := EvalString(ctx, "Over.pred(Integer::valueOf)", e); err != nil {
		t.Fatal(err)
	}
	f = e.made[len(e.made)-1]
	if r := f.Refs[f.Node.(*MethodRef).X]; r.Kind != RefClass || r.Class != "Ljava/lang/Integer;" || len(f.Captures) != 0 {
		t.Errorf("Integer::valueOf: %+v, captures %v", r, f.Captures)
	}

	// A block body: its locals by index, a nested lambda taking the outer
	// lambda's parameter and local as its outer values.
	if _, err := EvalString(ctx, "Over.pred(x -> { int n = 2; for (var s : label) n += 1; return Over.pred(y -> y == x + n) != null; })", e); err != nil {
		t.Fatal(err)
	}
	f = e.made[len(e.made)-1]
	outer := f.Node.(*Lambda)
	if got := f.Locals[outer]; len(got) != 2 || got[0] != "int" || got[1] != "var" {
		t.Errorf("locals %v, want [int var]", got)
	}
	if len(f.Nested) != 1 {
		t.Fatalf("nested %v", f.Nested)
	}
	for node, nested := range f.Nested {
		inner := node.(*Lambda)
		if len(nested.Outer) != 2 || f.Refs[nested.Outer[0]] != (Ref{Kind: RefParam}) || f.Refs[nested.Outer[1]] != (Ref{Kind: RefLocal}) {
			t.Errorf("outer values %v of %s", nested.Outer, inner)
		}
		body := inner.Body.(*Binary).Y.(*Binary)
		if f.Refs[body.X] != (Ref{Kind: RefOuter}) || f.Refs[body.Y] != (Ref{Kind: RefOuter, Index: 1}) {
			t.Errorf("x and n in the nested lambda: %+v %+v", f.Refs[body.X], f.Refs[body.Y])
		}
	}

	for src, want := range map[string]string{
		"Over.pred(x -> nope > 1)":          `"nope": no local variable`,
		"Over.pred(x -> new int[][] {{1}})": "nested array initializers are not supported inside a lambda",
		"Over.pred((a, b) -> a)":            "no Over.pred(lambda) matches",
		"Over.f(x -> x)":                    "no Over.f(lambda) matches",
	} {
		if _, err := EvalString(ctx, src, e); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", src, err, want)
		}
	}
}
