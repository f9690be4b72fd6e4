package debugger

import (
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

// A function breakpoint's class matches the class, and for a method (not
// a constructor) its Kotlin companion object: Shop.open is
// Shop$Companion.open, as Kotlin calls it.
func TestFuncSpecMatchesCompanion(t *testing.T) {
	for _, tc := range []struct {
		spec, class string
		want        bool
	}{
		{"Shop.open", "app.Shop", true},
		{"Shop.open", "app.Shop$Companion", true},
		{"app.Shop.open", "app.Shop$Companion", true},
		{"Shop.Companion.open", "app.Shop$Companion", true},
		{"Shop.open", "app.BigShop$Companion", false},
		{"Shop.open", "app.Shop$Till", false},
		{"Shop.Shop", "app.Shop$Companion", false},
		{"Shop.Shop", "app.Shop", true},
	} {
		f, err := parseFuncName(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.matchesClass(tc.class); got != tc.want {
			t.Errorf("%s matches %s: %v, want %v", tc.spec, tc.class, got, tc.want)
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

// Kotlin's intrinsics are skipped by default and with "$JDK", as the JDK's
// classes are; a list without "$JDK" skips only what it names.
func TestSkipClassesKotlinIntrinsics(t *testing.T) {
	for _, c := range []struct {
		filters *StepFilters
		want    bool
	}{{nil, true}, {&StepFilters{SkipClasses: []string{"$JDK"}}, true}, {&StepFilters{SkipClasses: []string{"com.example.*"}}, false}} {
		tg := &Target{Opts: Options{StepFilters: c.filters}}
		if got := slices.Contains(tg.skipClasses(), "kotlin.jvm.internal.*"); got != c.want || tg.skipped("kotlin.jvm.internal.Intrinsics") != c.want {
			t.Errorf("filters %+v: kotlin.jvm.internal.* skipped %v, want %v", c.filters, got, c.want)
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
