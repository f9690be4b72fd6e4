package classfile

import (
	"os"
	"slices"
	"testing"
)

// testdata/ChainC.class is the continuation class kotlinc 2.2.21 wrote for
// the fixture's suspend fun chainC (jdwp/lang/kotlin/kotlintest/fixture/app/
// Coroutines.kt): its @DebugMetadata is the annotation read here.
func chainC(t testing.TB) []byte {
	b, err := os.ReadFile("testdata/ChainC.class")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestClassAnnotations(t *testing.T) {
	as, err := ClassAnnotations(chainC(t))
	if err != nil {
		t.Fatal(err)
	}
	var dm *Annotation
	for i := range as {
		if as[i].Type == "Lkotlin/coroutines/jvm/internal/DebugMetadata;" {
			dm = &as[i]
		}
	}
	if dm == nil {
		t.Fatalf("no DebugMetadata among %v", as)
	}
	e := dm.Elements
	if e["f"].Str != "Coroutines.kt" || e["m"].Str != "chainC" || e["c"].Str != "app.CoroutinesKt" || e["v"].Int != 1 {
		t.Errorf("f, m, c, v = %q %q %q %d", e["f"].Str, e["m"].Str, e["c"].Str, e["v"].Int)
	}
	if got := e["l"].Ints(); !slices.Equal(got, []int{30, 31, 33}) {
		t.Errorf("l = %v, want [30 31 33]", got)
	}
	if got := e["i"].Ints(); !slices.Equal(got, []int{0, 0, 1, 1, 2, 2, 2}) {
		t.Errorf("i = %v", got)
	}
	if got := e["n"].Strings(); !slices.Equal(got, []string{"n", "before", "n", "before", "n", "before", "after"}) {
		t.Errorf("n = %v", got)
	}
	if got := e["s"].Strings(); !slices.Equal(got, []string{"I$0", "I$1", "I$0", "I$1", "I$0", "I$1", "I$2"}) {
		t.Errorf("s = %v", got)
	}
	// A class without annotations has none; bad input fails in words.
	if as, err := ClassAnnotations(sample(t)); err != nil || len(as) != 0 {
		t.Errorf("Sample.class: %v, %v; want none", as, err)
	}
	b := chainC(t)
	for _, cut := range []int{4, 12, len(b) / 2, len(b) - 3} {
		if _, err := ClassAnnotations(b[:cut]); err == nil {
			t.Errorf("a class file cut at %d of %d decoded", cut, len(b))
		}
	}
}

func FuzzClassAnnotations(f *testing.F) {
	f.Add(chainC(f))
	f.Add(sample(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		as, err := ClassAnnotations(b)
		if err != nil {
			return
		}
		for _, a := range as {
			for _, v := range a.Elements {
				v.Ints()
				v.Strings()
			}
		}
	})
}
