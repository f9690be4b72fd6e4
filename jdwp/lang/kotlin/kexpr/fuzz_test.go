package kexpr

import (
	"strings"
	"testing"
)

var seeds = []string{
	`order.total`, `o?.name ?: "none"`, `o!!.id`, `"${o.id}: $name"`, `a == b`, `a === b`, `a !== null`,
	`x is String`, `x !is Int`, `x as? String`, `x as Any`, `3 in 1..10`, `x !in 0 until 5`, `list[i]`, `map["k"]`,
	`it`, `this@apply.title`, `twice(3)`, `"a".uppercase()`, `Shop.Companion.open("x")`,
	`when (x) { 1, 2 -> "low"; in 3..9 -> "mid"; is Long -> "long"; else -> "high" }`, `when { a > b -> a; else -> b }`,
	`if (a > b) a else b`, `1L`, `1.0f`, `0x1F`, `0b1010`, `1_000`, `1e3`, `'c'`, `'\u0041'`, `"""raw $x"""`,
	`a and b or c xor d shl 1`, `1 to "one"`, `10 downTo 1 step 3`, `-x + +y * !z`, `a.b?.c!!.d[0]`,
	`list.map { it }`, `String::length`, `x = 1`, `f(a = 1)`, `"${"${x}"}"`, `(a)`,
}

// FuzzParse: the parser never panics, and a tree it parses renders as
// source that parses back to the same rendering.
func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		n, err := Parse(src)
		if err != nil {
			return
		}
		again, err := Parse(n.String())
		if err != nil {
			t.Fatalf("Parse(%q) renders as %q, which does not parse: %v", src, n.String(), err)
		}
		if again.String() != n.String() {
			t.Fatalf("Parse(%q) renders as %q, which parses as %q", src, n.String(), again.String())
		}
	})
}

func TestParseRendering(t *testing.T) {
	for src, want := range map[string]string{
		`a + b * c`:           `(a + (b * c))`,
		`a ?: b ?: c`:         `((a ?: b) ?: c)`,
		`x in 1..10`:          `(x in (1 .. 10))`,
		`o?.name`:             `o?.name`,
		`"${o.id}: $name"`:    `"${o.id}: ${name}"`,
		`1_000 + 0x1F + 1L`:   `((1000 + 31) + 1L)`,
		`a == b && c !== d`:   `((a == b) && (c !== d))`,
		`x !is String`:        `(x !is String)`,
		`if (a) 1 else 2`:     `(if (a) 1 else 2)`,
		`1 until 3`:           `(1 until 3)`,
		`a?.b ?: c`:           `(a?.b ?: c)`,
		`x as? String ?: "d"`: `((x as? String) ?: "d")`,
		`this@apply`:          `this@apply`,
		`!!f`:                 `(!(!f))`,
	} {
		n, err := Parse(src)
		if err != nil {
			t.Errorf("Parse(%s): %v", src, err)
			continue
		}
		if n.String() != want {
			t.Errorf("Parse(%s) = %s, want %s", src, n.String(), want)
		}
	}
	for _, bad := range []string{``, `a +`, `"abc`, `(a`, `1__`, `0777`, `a b`, `when (x) { 1 -> 2`} {
		if _, err := Parse(bad); err == nil || strings.Contains(err.Error(), "panic") {
			t.Errorf("Parse(%q) = %v, want a syntax error", bad, err)
		}
	}
}
