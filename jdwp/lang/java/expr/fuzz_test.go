package expr

import (
	"context"
	"strings"
	"testing"
)

// FuzzParse checks that the parser never panics and that printing a parsed
// expression and parsing it again gives the same tree; whatever parses is
// also evaluated against the fake frame, which must not panic either.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a + b * c", "x.y[1].z", "(int) -x", "a ? b : c", "s.equals(\"x\")", "'\\n' + 1L",
		"1.5e3f / 0", "i > 5 && name == \"main\"", "x instanceof a.B", "((Foo) o).f", "~0x7fffffff >>> 3", "-2147483648",
		"new Over(1).n", "Over.f((Object) boxed)", "java.lang.Integer.MAX_VALUE", "Over.join(\"a\", name)", "0b1010 | 0x0F",
		"boxed instanceof Number ? twice(2) : -1", "\"n=\" + this", "Outer.Inner.depth", "new int[3]", "x.<T>y()",
		"xs.filter(o -> o.total() > 100).count()", "m((a, b) -> a + b)", "xs.forEach(System.out::println)", "Over.f(String::length)",
		"xs.map(s -> { int n = 0; for (var c : s) { if (c == 'a') continue; n += 1; } return n; })",
		"f(x -> { List<String> l = null, m; do { x--; } while (x > 0); for (int i = 0, j; i < 3; i++, j--) ; return y -> x + y; })",
		"f(() -> { throw new E(); })", "f(x -> { if (x) return; else { break; } })", "f(a -> { int[] b = {1, 2}; b[0] += a; })",
		"f(s -> { try { return g(s); } catch (A | b.C e) { return e; } catch (final D d) { } })"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		n, err := Parse(src)
		if err != nil {
			return
		}
		printed := n.String()
		m, err := Parse(printed)
		if err != nil && strings.Contains(err.Error(), "nested deeper") {
			return // the rendering adds parentheses, and so depth
		}
		if err != nil {
			t.Fatalf("%q parsed, but its rendering %q does not: %v", src, printed, err)
		}
		if again := m.String(); again != printed {
			t.Fatalf("%q: rendering not stable: %q then %q", src, printed, again)
		}
		Eval(context.Background(), n, newFakeEnv())
	})
}
