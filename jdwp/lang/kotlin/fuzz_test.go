package kotlin

import (
	"strings"
	"testing"
)

// FuzzParseFile: any source text gives a file whose facade and types are
// names in its package, and Holds answers for them.
func FuzzParseFile(f *testing.F) {
	f.Add("package app\nclass Shop { inner class Till }\nobject R\nfun main() {}\n")
	f.Add("@file:JvmName(\"Utils\")\n@file:JvmMultifileClass\npackage a.b;\nval s = \"\"\"{{\"\"\"\n/* class X */ enum class E { A }\n")
	f.Add("class `weird name` { }\n'\\'' \"unterminated")
	f.Fuzz(func(t *testing.T, src string) {
		file := ParseFile("dir/Some-file.kt", []byte(src))
		for _, r := range file.Roots() {
			if file.Package != "" && !strings.HasPrefix(r, file.Package+".") {
				t.Fatalf("root %q outside package %q", r, file.Package)
			}
			if !file.Holds(r, func() string { return "Some-file.kt" }) {
				t.Fatalf("the file does not hold its own root %q", r)
			}
		}
	})
}

// FuzzCheck: the Kotlin engine's parsing of expressions and log messages
// never panics (kexpr.FuzzParse checks the parser's trees).
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`"${o.name}"`, `o?.name`, `a ?: b`, `x!!`, `a === b`, `'\'' == c`, `"\"$x\""`, `{a} {{b}} {"}"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		_, _ = Lang.Engine().Parse(src)
		_, _ = Lang.Engine().ParseTemplate(src)
	})
}
