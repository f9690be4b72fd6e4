package kotlin

import (
	"slices"
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/lang"
)

// The scanner passes comments (nested too), strings, raw strings and
// characters; a template's expression is code, its braces are not kept.
func TestScan(t *testing.T) {
	src := "val a = \"x { y } $z ${b.map { it }}\" /* { /* } */ { */ '{' // {\nf { q }\n\"\"\"{\n}\"\"\" }"
	var got []string
	for _, tok := range scan(src) {
		got = append(got, tok.text)
	}
	want := []string{"val", "a", "=", "b", ".", "map", "{", "it", "}", "f", "{", "q", "}", "}"}
	if !slices.Equal(got, want) {
		t.Errorf("tokens %q, want %q", got, want)
	}
	toks := scan(src)
	if f := toks[9]; f.text != "f" || f.line != 2 || f.col != 1 || !f.nl {
		t.Errorf("f at %+v, want line 2 col 1, first of its line", f)
	}
	if last := toks[len(toks)-1]; last.line != 4 {
		t.Errorf("the last brace on line %d, want 4 (the raw string's newline counted)", last.line)
	}
}

// InlineBodies finds the inline functions' lines: block and expression
// bodies, modifiers and annotations before `fun`, never a plain function
// or an inline class.
func TestInlineBodies(t *testing.T) {
	src := `package app

inline fun <T> twice(block: () -> T): List<T> {
    val first = block()
    return listOf(first, block())
}

fun plain() {
    println("inline fun x() {")
}

@Suppress("NOTHING_TO_INLINE")
public inline fun one(x: Int) =
    x +
        1
val after = 3

@JvmInline value class V(val x: Int)

class C {
    internal inline fun m(f: (Int) -> Int): Int {
        return f(1)
    }
    abstract fun a()
}
`
	got := InlineBodies([]byte(src))
	want := [][2]int{{3, 6}, {13, 15}, {21, 23}}
	if !slices.Equal(got, want) {
		t.Errorf("inline bodies %v, want %v", got, want)
	}
	for line, in := range map[int]bool{4: true, 9: false, 14: true, 16: false, 22: true, 24: false} {
		if InlineBody([]byte(src), line) != in {
			t.Errorf("line %d (%q): inline body %v, want %v", line, strings.Split(src, "\n")[line-1], !in, in)
		}
	}
}

// FuzzScan: any text scans to tokens in order, within its lines, its
// inline bodies are line ranges of the text, and its first line's lambdas
// lie in order within it.
func FuzzScan(f *testing.F) {
	f.Add("inline fun f() { g { it } }\n")
	f.Add("val s = \"${a.let { \"${b}\" }}\" /* /* */ */ '\\'' \"\"\"${x}\"\"\"\n")
	f.Add("inline fun e() =\n  1 +\n  2\n@A(\"x\") inline fun h() {")
	f.Fuzz(func(t *testing.T, src string) {
		lines := strings.Count(src, "\n") + 1
		last := 0
		for _, tok := range scan(src) {
			if tok.line < last || tok.line > lines || tok.col < 1 || tok.text == "" {
				t.Fatalf("token %+v out of order or place (%d lines)", tok, lines)
			}
			last = tok.line
		}
		for _, r := range InlineBodies([]byte(src)) {
			if r[0] < 1 || r[1] < r[0] || r[1] > lines {
				t.Fatalf("inline body %v in %d lines", r, lines)
			}
		}
		line, _, _ := strings.Cut(src, "\n")
		spans := Lambdas(line)
		for i, l := range spans {
			if l.Arrow < 1 || l.Body <= l.Arrow || l.Body > l.End || l.End > len(line)+1 || i > 0 && l.Arrow <= spans[i-1].Arrow {
				t.Fatalf("lambda %+v of %q (%d bytes) out of place or order", l, line, len(line))
			}
			if p := Lang.LambdaAt(spans, l.Body); p < i || p >= len(spans) {
				t.Fatalf("LambdaAt(%d) = %d, want the lambda %d or one inside it", l.Body, p, i)
			}
		}
	})
}

// Lambdas finds the lambda literals of a line whose body starts on it, with
// the call each is passed to; blocks, templates, strings and comments are
// not lambdas.
func TestLambdas(t *testing.T) {
	for text, want := range map[string][]lang.Lambda{
		`    val pick: (Long) -> Boolean = { it > 40 }; val big = orders.map { it.total }.filter { pick(it) }`: {
			{Arrow: 35, Body: 37, End: 45, Callee: ""}, {Arrow: 69, Body: 71, End: 80, Callee: "map"}, {Arrow: 89, Body: 91, End: 100, Callee: "filter"},
		},
		`    val text = shop.orders.joinToString(",") { line(it) } // @describeText`: {{Arrow: 46, Body: 48, End: 57, Callee: "joinToString"}},
		`    val square: (Int) -> Int = { n -> n * n } // @lambda`:                   {{Arrow: 32, Body: 39, End: 45}},
		`    orders.forEach { o ->`:                                                  {{Arrow: 20, Body: 26, End: 26, Callee: "forEach", Later: true}},
		`    return shop.apply {`:                                                    {{Arrow: 23, Body: 24, End: 24, Callee: "apply", Later: true}},
		`    x.let { }`:                                                              nil,
		`fun f(x: Int): Int {`:                                                       nil,
		`    if (x > 0) { y() } else { z() }`:                                        nil,
		`class A(val x: Int) : B() {`:                                                nil,
		`    val s = "${a.let { it }} { not } $x" // { no }`:                         {{Arrow: 22, Body: 24, End: 27, Callee: "let"}},
		`    is String -> { x }`:                                                     nil,
		`fun g() = run { 1 }`:                                                        {{Arrow: 15, Body: 17, End: 19, Callee: "run"}},
		`    f(1, { a, b -> a + b }, block = { 2 })`:                                 {{Arrow: 10, Body: 20, End: 26, Callee: "f"}, {Arrow: 37, Body: 39, End: 41, Callee: "f"}},
		`    logged("x") { 3 }.let<Int, Int> { it }`:                                 {{Arrow: 17, Body: 19, End: 21, Callee: "logged"}, {Arrow: 37, Body: 39, End: 42, Callee: "let"}},
	} {
		got := Lambdas(text)
		if !slices.Equal(got, want) {
			t.Errorf("Lambdas(%q) = %+v, want %+v", text, got, want)
		}
	}
	if p := Lang.LambdaAt(Lambdas(`x.map { a.let { it } }`), 16); p != 1 {
		t.Errorf("LambdaAt the inner lambda = %d, want 1", p)
	}
}

// The markers of inlined lambdas name the inline function they were passed
// to, in both of kotlinc's schemes; lambda bodies are methods of either
// lambda mode.
func TestInlinedLambdaAndLambdaBody(t *testing.T) {
	l := Lang.(language)
	for v, want := range map[string]string{`$i$a$-forEach-MainKt$total$1`: "forEach", `$i$a$-twice-Late$run$pair$1`: "twice", `$i$a$-map-A\2\40\1`: "map", `$i$f$forEach`: "", "it": ""} {
		if fn, ok := l.InlinedLambda(v); fn != want || ok != (want != "") {
			t.Errorf("InlinedLambda(%q) = %q, %v; want %q", v, fn, ok, want)
		}
	}
	for _, c := range []struct {
		class, method string
		n             int
		ok            bool
	}{{"app.MainKt", "main$lambda$2", 2, true}, {"app.MainKt$main$square$1", "invoke", 1, true}, {"app.MainKt", "invoke", -1, false}, {"app.MainKt$main$2", "invokeSuspend", 2, true}, {"app.MainKt", "main", -1, false}} {
		if n, ok := l.LambdaBody(c.class, c.method); n != c.n || ok != c.ok {
			t.Errorf("LambdaBody(%s, %s) = %d, %v; want %d, %v", c.class, c.method, n, ok, c.n, c.ok)
		}
	}
}
