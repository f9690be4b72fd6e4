package kotlin

import (
	"slices"
	"strings"
	"testing"
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

// FuzzScan: any text scans to tokens in order, within its lines, and its
// inline bodies are line ranges of the text.
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
	})
}
