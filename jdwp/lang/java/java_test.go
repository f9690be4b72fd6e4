package java

import (
	"context"
	"os"
	"path/filepath"
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
