package smap

import "testing"

// FuzzParse: any text either parses into a map whose questions answer
// without panicking, or is refused with an error.
func FuzzParse(f *testing.F) {
	f.Add(kotlinForEach)
	f.Add("SMAP\nHi.java\nJSP\n*S JSP\n*F\n1 Hi.jsp\n2 greeting.jsp\n*L\n1#1,5:1,2\n1#2,2:11\n7:13\n*V\nx\n*E\n")
	f.Add("SMAP\nA.kt\nKotlin\n*S Kotlin\n*F\n1 A.kt\n*L\n1#1,2147483647:1,2147483647\n*E\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse(text)
		if err != nil {
			return
		}
		for _, st := range s.Strata {
			for out := 0; out < 64; out++ {
				if f, in, ok := st.Map(out); ok && (f == nil || in < 0) {
					t.Fatalf("Map(%d) = %v %d", out, f, in)
				}
			}
			for in := 0; in < 16; in++ {
				if outs := st.OutputLines(func(File) bool { return true }, in); len(outs) > 1<<16 {
					t.Fatalf("OutputLines(%d): %d lines", in, len(outs))
				}
			}
		}
	})
}
