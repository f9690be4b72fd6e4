package java

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

func TestClassForSource(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "App.java")
	if err := os.WriteFile(p, []byte("/* package not.this; */\n// package nor.this;\npackage com . example;\nclass App {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ClassForSource(p); got != "com.example.App" {
		t.Errorf("ClassForSource = %q", got)
	}
	if got := ClassForSource(filepath.Join(dir, "Missing.java")); got != "Missing" {
		t.Errorf("missing file: %q", got)
	}
	c := Lang.Classes(p)
	if got := c.Patterns(); len(got) != 1 || got[0] != "com.example.App*" {
		t.Errorf("Patterns = %q", got)
	}
	noAttr := func() string { t.Error("Java asked for a SourceFile attribute"); return "" }
	for name, want := range map[string]bool{
		"com.example.App": true, "com.example.App$Inner": true, "com.example.App$1": true,
		"com.example.Apple": false, "com.example.AppTest": false, "App": false,
	} {
		if got := c.Holds(name, noAttr); got != want {
			t.Errorf("Holds(%s) = %v, want %v", name, got, want)
		}
	}
}

func TestNoCode(t *testing.T) {
	for text, want := range map[string]bool{
		"": true, "   ": true, "// note": true, "/* a": true, " * b": true, "}": true, "  });": true,
		"x++;": false, "return;": false, "} else {": false,
	} {
		if got := Lang.NoCode(text); got != want {
			t.Errorf("NoCode(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestLocate(t *testing.T) {
	for _, c := range []struct {
		sig, file, rel string
	}{
		{"Lcom/example/App$Inner;", "App.java", "com/example/App.java"},
		{"LMain;", "Main.java", "Main.java"},
	} {
		if got := Lang.Locate(lang.Located{ClassSig: c.sig, SourceFile: c.file, Line: 7}); got != (lang.Where{Rel: c.rel, Line: 7}) {
			t.Errorf("Locate(%s, %s) = %+v, want %s:7", c.sig, c.file, got, c.rel)
		}
	}
}

// TestEngine parses through the seam and evaluates in an environment
// with nothing in it: constants need no VM.
func TestEngine(t *testing.T) {
	e := Lang.Engine()
	x, err := e.Parse("1 + 2 * 3")
	if err != nil {
		t.Fatal(err)
	}
	v, err := x.Eval(context.Background(), nil)
	if err != nil || v.Kind != expr.KindInt || v.Int() != 7 {
		t.Errorf("1 + 2 * 3 = %+v, %v", v, err)
	}
	c, err := e.Parse("2 > 1 && !false")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := c.Truth(context.Background(), nil); !ok || err != nil {
		t.Errorf("Truth = %v, %v", ok, err)
	}
	if c, err := e.Parse("x = 1"); err == nil {
		if _, err := c.Truth(context.Background(), nil); err == nil {
			t.Error("a condition that assigns was accepted")
		}
	}
	if _, err := e.Parse("1 +"); err == nil {
		t.Error(`"1 +" parsed`)
	}
	tm, err := e.ParseTemplate("sum={1+1}")
	if err != nil {
		t.Fatal(err)
	}
	if got := tm.Eval(context.Background(), nil); got != "sum=2" {
		t.Errorf("template = %q", got)
	}
}

// TestLambdaSpans finds the lambdas of a line and matches a column to the
// lambda javac numbers at that place (inner lambdas before the lambda that
// holds them).
func TestLambdaSpans(t *testing.T) {
	chain := `        xs.stream().map(x -> x * 2).filter(y -> y > 3).forEach(z -> sink(z)); // a -> b`
	spans := Lang.Lambdas(chain)
	if len(spans) != 3 {
		t.Fatalf("spans of %q: %+v", chain, spans)
	}
	for i, want := range []string{"x * 2", "y > 3", "sink(z)"} {
		if got := chain[spans[i].Body-1 : spans[i].End-1]; got != want {
			t.Errorf("lambda %d body %q, want %q", i, got, want)
		}
		if got := Lang.LambdaAt(spans, spans[i].Body); got != i {
			t.Errorf("lambda at the body of %d: %d", i, got)
		}
	}
	if got := Lang.LambdaAt(spans, 5); got != -1 {
		t.Errorf("lambda before the first arrow: %d", got)
	}
	nested := `f = p -> q -> p + q; Supplier<String> s = () -> "->";`
	spans = Lang.Lambdas(nested)
	if len(spans) != 3 {
		t.Fatalf("spans of %q: %+v", nested, spans)
	}
	// javac: q's lambda first (inner), then p's, then the supplier.
	for i, want := range []int{1, 0, 2} {
		if got := Lang.LambdaAt(spans, spans[i].Body); got != want {
			t.Errorf("%q: lambda %d is numbered %d, want %d", nested, i, got, want)
		}
	}
	args := `f(x -> g(w -> w), y -> y)`
	spans = Lang.Lambdas(args)
	// Post-order: w, x, y.
	for i, want := range []int{1, 0, 2} {
		if got := Lang.LambdaAt(spans, spans[i].Body); got != want {
			t.Errorf("%q: lambda %d is numbered %d, want %d", args, i, got, want)
		}
	}
}

func TestLambdaMethod(t *testing.T) {
	for name, want := range map[string]int{"lambda$main$3": 3, "lambda$static$0": 0, "lambda$x": -1} {
		if n, ok := Lang.LambdaMethod(name); !ok || n != want {
			t.Errorf("LambdaMethod(%s) = %d, %v; want %d, true", name, n, ok, want)
		}
	}
	if _, ok := Lang.LambdaMethod("main"); ok {
		t.Error("main is a lambda")
	}
}

// FuzzPackage reads package declarations out of arbitrary file heads.
func FuzzPackage(f *testing.F) {
	for _, s := range []string{"package a.b;\n", "/* package x; */ package y;", "// package z;\npackage q;", "/*", "package", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out := stripComments(b)
		if len(out) != len(b) {
			t.Fatalf("stripComments changed the length: %d → %d", len(b), len(out))
		}
		if m := packageRE.FindSubmatch(out); m != nil && len(m[1]) == 0 {
			t.Fatal("empty package name")
		}
		if p := Lang.Package(b); strings.ContainsAny(p, " \t\n;") {
			t.Fatalf("package %q of %q", p, b)
		}
	})
}

func TestPackage(t *testing.T) {
	for head, want := range map[string]string{
		"/* package wrong; */\n// package wronger;\npackage com.shop;\nclass Order {}\n": "com.shop",
		"class Main {}\n": "",
		"  package a.b ;": "a.b",
		"/* unterminated": "",
	} {
		if got := Lang.Package([]byte(head)); got != want {
			t.Errorf("Package(%q) = %q, want %q", head, got, want)
		}
	}
}
