package smap

import (
	"slices"
	"strings"
	"testing"
)

// The SMAP kotlinc 2.2 wrote for app.MainKt of a file whose main calls
// forEach (inlined from the stdlib's _Collections.kt).
const kotlinForEach = "SMAP\nMain.kt\nKotlin\n*S Kotlin\n*F\n+ 1 Main.kt\ndemo/app/MainKt\n+ 2 _Collections.kt\nkotlin/collections/CollectionsKt___CollectionsKt\n*L\n1#1,7:1\n1869#2,2:8\n*S KotlinDebug\n*F\n+ 1 Main.kt\ndemo/app/MainKt\n*L\n5#1:8,2\n*E\n"

func TestParseKotlin(t *testing.T) {
	s, err := Parse(kotlinForEach)
	if err != nil {
		t.Fatal(err)
	}
	if s.OutputFile != "Main.kt" || s.DefaultStratum != "Kotlin" || len(s.Strata) != 2 {
		t.Fatalf("header: %+v", s)
	}
	k := s.Stratum("Kotlin")
	if k == nil || len(k.Files) != 2 || k.Files[1] != (File{ID: 2, Name: "_Collections.kt", Path: "kotlin/collections/CollectionsKt___CollectionsKt"}) {
		t.Fatalf("Kotlin stratum files: %+v", k)
	}
	for _, c := range []struct {
		out, in int
		file    string
	}{{1, 1, "Main.kt"}, {7, 7, "Main.kt"}, {8, 1869, "_Collections.kt"}, {9, 1870, "_Collections.kt"}} {
		f, in, ok := k.Map(c.out)
		if !ok || f.Name != c.file || in != c.in {
			t.Errorf("Kotlin: JVM line %d → %v %d %v, want %s:%d", c.out, f, in, ok, c.file, c.in)
		}
	}
	if _, _, ok := k.Map(10); ok {
		t.Error("JVM line 10 mapped; no section covers it")
	}
	// KotlinDebug: "5#1:8,2" is one input line (the call site) that became
	// two output lines.
	d := s.Stratum("KotlinDebug")
	for _, out := range []int{8, 9} {
		if f, in, ok := d.Map(out); !ok || f.Name != "Main.kt" || in != 5 {
			t.Errorf("KotlinDebug: JVM line %d → %v %d %v, want Main.kt:5", out, f, in, ok)
		}
	}
	byName := func(name string) func(File) bool { return func(f File) bool { return f.Name == name } }
	if got := k.OutputLines(byName("_Collections.kt"), 1869); !slices.Equal(got, []int{8}) {
		t.Errorf("_Collections.kt:1869 became JVM lines %v, want [8]", got)
	}
	if got := d.OutputLines(byName("Main.kt"), 5); !slices.Equal(got, []int{8, 9}) {
		t.Errorf("KotlinDebug Main.kt:5 became %v, want [8 9]", got)
	}
	if got := k.OutputLines(byName("Main.kt"), 8); got != nil {
		t.Errorf("Main.kt:8 (past the section) became %v", got)
	}
}

// JSR-45's own example shape: a file id carried over from the line before,
// repeat counts with increments, an unnamed path, vendor sections skipped.
func TestParseJSR45(t *testing.T) {
	text := strings.Join([]string{
		"SMAP", "Hi.java", "JSP",
		"*S JSP", "*F", "1 Hi.jsp", "2 greeting.jsp",
		"*L", "1#1,5:1,2", "1#2,2:11", "7:13", "*V", "vendor junk: 1#1:1", "*E", ""}, "\n")
	s, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	st := s.Stratum("JSP")
	for _, c := range []struct {
		out, in int
		file    string
	}{{1, 1, "Hi.jsp"}, {2, 1, "Hi.jsp"}, {3, 2, "Hi.jsp"}, {10, 5, "Hi.jsp"}, {11, 1, "greeting.jsp"}, {12, 2, "greeting.jsp"}, {13, 7, "greeting.jsp"}} {
		f, in, ok := st.Map(c.out)
		if !ok || f.Name != c.file || in != c.in {
			t.Errorf("JVM line %d → %v %d %v, want %s:%d", c.out, f, in, ok, c.file, c.in)
		}
	}
	if got := st.OutputLines(func(f File) bool { return f.ID == 1 }, 3); !slices.Equal(got, []int{5, 6}) {
		t.Errorf("Hi.jsp:3 became %v, want [5 6]", got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, text := range []string{
		"",
		"SMAP\nA.kt\n",
		"NOTSMAP\nA.kt\nKotlin\n*E\n",
		"SMAP\nA.kt\nKotlin\n*S Kotlin\n*F\n+ 1 A.kt\n",                     // + without path, no *E
		"SMAP\nA.kt\nKotlin\n*S Kotlin\n*L\n1#1,x:1\n*E\n",                  // bad count
		"SMAP\nA.kt\nKotlin\n*S Kotlin\n*L\n1#1:99999999999\n*E\n",          // out of range
		"SMAP\nA.kt\nKotlin\n*L\n1:1\n*E\n",                                 // *L before *S
		"SMAP\nA.kt\nKotlin\n*S Kotlin\n*O A\n*E\n",                         // embedded
		"SMAP\nA.kt\nKotlin\n*S Kotlin\n*F\n+ 1 A.kt\na/AKt\n*L\n1#1,2:1\n", // no *E
	} {
		if _, err := Parse(text); err == nil {
			t.Errorf("Parse(%q) accepted it", text)
		}
	}
}

// A huge repeat count is a range, not an expansion.
func TestHugeRepeat(t *testing.T) {
	s, err := Parse("SMAP\nA.kt\nKotlin\n*S Kotlin\n*F\n1 A.kt\n*L\n1#1,2147483647:1,2147483647\n*E\n")
	if err != nil {
		t.Fatal(err)
	}
	st := s.Strata[0]
	if f, in, ok := st.Map(1); !ok || f.Name != "A.kt" || in != 1 {
		t.Errorf("Map(1) = %v %d %v", f, in, ok)
	}
	if got := st.OutputLines(func(File) bool { return true }, 2); len(got) != 0 {
		t.Errorf("line 2 became %d output lines; its first is past any class line", len(got))
	}
}

// BenchmarkParse: one class's source map, as kotlinc writes it for a
// facade with three inlined files (the fixture's app.MainKt).
func BenchmarkParse(b *testing.B) {
	text := "SMAP\nMain.kt\nKotlin\n*S Kotlin\n*F\n+ 1 Main.kt\napp/MainKt\n+ 2 _Collections.kt\nkotlin/collections/CollectionsKt___CollectionsKt\n+ 3 Util.kt\napp/Utils\n*L\n1#1,89:1\n1869#2,2:90\n9#3,3:92\n*S KotlinDebug\n*F\n+ 1 Main.kt\napp/MainKt\n*L\n39#1:90,2\n62#1:92,3\n*E\n"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(text); err != nil {
			b.Fatal(err)
		}
	}
}
