package debugger

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

func TestHitCondition(t *testing.T) {
	for _, tc := range []struct {
		cond string
		hits []bool // for hit counts 1..len
	}{
		{"3", []bool{false, false, true, false}},
		{"== 2", []bool{false, true, false}},
		{">= 2", []bool{false, true, true}},
		{"> 2", []bool{false, false, true}},
		{"< 2", []bool{true, false}},
		{"% 2", []bool{false, true, false, true}},
	} {
		h, err := parseHitCondition(tc.cond)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range tc.hits {
			if h.ok(i+1) != want {
				t.Errorf("%q at hit %d: %v", tc.cond, i+1, !want)
			}
		}
	}
	for _, bad := range []string{"", "x", "% 0", ">= -1"} {
		if _, err := parseHitCondition(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestClassForSource(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "App.java")
	os.WriteFile(p, []byte("/* package not.this; */\n// package nor.this;\npackage com . example;\nclass App {}\n"), 0o644)
	if got := ClassForSource(p); got != "com.example.App" {
		t.Errorf("ClassForSource = %q", got)
	}
	if got := ClassForSource(filepath.Join(dir, "Missing.java")); got != "Missing" {
		t.Errorf("missing file: %q", got)
	}
}

func TestParseFuncName(t *testing.T) {
	for _, tc := range []struct{ in, class, method, desc string }{
		{"Basic.twice", "Basic", "twice", ""},
		{"com.example.App.main([Ljava/lang/String;)V", "com.example.App", "main", "([Ljava/lang/String;)V"},
		{"Outer.Inner.Inner", "Outer.Inner", "<init>", ""},
		{"App#run(int, String)", "App", "run", ""},
	} {
		f, err := parseFuncName(tc.in)
		if err != nil || f.class != tc.class || f.method != tc.method || f.desc != tc.desc {
			t.Errorf("%q: %+v %v", tc.in, f, err)
		}
	}
	for _, bad := range []string{"main", "App.", "App.run(int", "App.run(int) V"} {
		if _, err := parseFuncName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestMatchClass(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"java.lang.*", "java.lang.IllegalStateException", true},
		{"*Exception", "java.io.IOException", true},
		{"Outer.Inner", "Outer$Inner", true},
		{"java.io.*", "java.lang.Error", false},
	} {
		if got := MatchClass(tc.pattern, tc.name); got != tc.want {
			t.Errorf("MatchClass(%q, %q) = %v", tc.pattern, tc.name, got)
		}
	}
}

// TestLambdaSpans finds the lambdas of a line and matches a column to the
// lambda javac numbers at that place (inner lambdas before the lambda that
// holds them).
func TestLambdaSpans(t *testing.T) {
	chain := `        xs.stream().map(x -> x * 2).filter(y -> y > 3).forEach(z -> sink(z)); // a -> b`
	spans := lambdaSpans(chain)
	if len(spans) != 3 {
		t.Fatalf("spans of %q: %+v", chain, spans)
	}
	for i, want := range []string{"x * 2", "y > 3", "sink(z)"} {
		if got := chain[spans[i].body-1 : spans[i].end-1]; got != want {
			t.Errorf("lambda %d body %q, want %q", i, got, want)
		}
		if got := lambdaAt(spans, spans[i].body); got != i {
			t.Errorf("lambda at the body of %d: %d", i, got)
		}
	}
	if got := lambdaAt(spans, 5); got != -1 {
		t.Errorf("lambda before the first arrow: %d", got)
	}
	nested := `f = p -> q -> p + q; Supplier<String> s = () -> "->";`
	spans = lambdaSpans(nested)
	if len(spans) != 3 {
		t.Fatalf("spans of %q: %+v", nested, spans)
	}
	// javac: q's lambda first (inner), then p's, then the supplier.
	for i, want := range []int{1, 0, 2} {
		if got := lambdaAt(spans, spans[i].body); got != want {
			t.Errorf("%q: lambda %d is numbered %d, want %d", nested, i, got, want)
		}
	}
	args := `f(x -> g(w -> w), y -> y)`
	spans = lambdaSpans(args)
	// Post-order: w, x, y.
	for i, want := range []int{1, 0, 2} {
		if got := lambdaAt(spans, spans[i].body); got != want {
			t.Errorf("%q: lambda %d is numbered %d, want %d", args, i, got, want)
		}
	}
	cols, bodies := LambdaColumns(chain), lambdaSpans(chain)
	if len(cols) != len(bodies) {
		t.Fatalf("LambdaColumns(%q) = %v", chain, cols)
	}
	for i, c := range cols {
		if c != bodies[i].body {
			t.Errorf("LambdaColumns(%q)[%d] = %d, want the body's column %d", chain, i, c, bodies[i].body)
		}
	}
}

// TestStoppedFirst: the latest stop's thread leads the list, the other
// stopped threads follow, the rest keep the VM's order.
func TestStoppedFirst(t *testing.T) {
	s := NewStops()
	s.Stop(7, "breakpoint")
	s.Stop(9, "breakpoint")
	got := s.StoppedFirst([]jdwp.ThreadID{1, 2, 7, 3, 9})
	if want := []jdwp.ThreadID{9, 7, 1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("StoppedFirst = %v, want %v", got, want)
	}
	s.ResumedAll()
	if got := s.StoppedFirst([]jdwp.ThreadID{1, 9, 7}); !slices.Equal(got, []jdwp.ThreadID{1, 9, 7}) {
		t.Errorf("not stopped: %v, want the VM's order", got)
	}
}
