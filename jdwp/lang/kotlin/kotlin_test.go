package kotlin

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/lang"
)

func TestParseFile(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      File
	}{
		{"app/Main.kt", "package app\n\nimport x.y\n\ndata class Order(val id: Int)\nclass Shop {\n  inner class Till\n  companion object { fun open() = 1 }\n}\nobject Registry\nfun main() {}\n",
			File{Package: "app", Base: "Main.kt", Facade: "app.MainKt", Types: []string{"app.Order", "app.Shop", "app.Registry"}}},
		{"Util.kt", "@file:JvmName(\"Utils\")\n\npackage com.example.util;\n\n/* class NotMe */\nprivate sealed interface Shape\n@JvmInline value class Id(val v: Int)\nenum class Color { RED }\nfun interface Op { fun run() }\nval s = \"class Fake {\"\n",
			File{Package: "com.example.util", Base: "Util.kt", Facade: "com.example.util.Utils", Types: []string{"com.example.util.Shape", "com.example.util.Id", "com.example.util.Color", "com.example.util.Op"}}},
		{"x/multi-a.kt", "@file:JvmName(\"Multi\")\n@file:JvmMultifileClass\npackage app\nfun partA() = 1\n",
			File{Package: "app", Base: "multi-a.kt", Facade: "app.Multi__Multi_aKt", Multifile: true}},
		{"Script.kt", "fun main() = println(\"\"\"\n}}}\nclass Raw\n\"\"\")\nclass After\n", File{Base: "Script.kt", Facade: "ScriptKt", Types: []string{"After"}}},
	} {
		got := ParseFile(c.name, []byte(c.src))
		if got.Package != c.want.Package || got.Base != c.want.Base || got.Facade != c.want.Facade || got.Multifile != c.want.Multifile || !slices.Equal(got.Types, c.want.Types) {
			t.Errorf("ParseFile(%s) = %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func TestHolds(t *testing.T) {
	f := ParseFile("app/Main.kt", []byte("package app\nclass Shop\nfun main() {}\n"))
	main := func() string { return "Main.kt" }
	other := func() string { return "Other.kt" }
	for _, c := range []struct {
		name string
		sf   func() string
		want bool
	}{
		{"app.MainKt", main, true}, {"app.MainKt$main$1", main, true}, {"app.Shop$Companion", main, true},
		{"app.Shop", nil, true}, {"app.Shop", func() string { return "" }, true},
		{"app.ShopKeeper", main, false}, {"app.MainKtx", main, false}, {"app.Shop", other, false}, {"other.Shop", main, false},
	} {
		if got := f.Holds(c.name, c.sf); got != c.want {
			t.Errorf("Holds(%s) = %v, want %v", c.name, got, c.want)
		}
	}
	if want := []string{"app.MainKt", "app.MainKt$*", "app.Shop", "app.Shop$*"}; !slices.Equal(f.Patterns(), want) {
		t.Errorf("Patterns = %q, want %q", f.Patterns(), want)
	}
	if f.Top() != "app.MainKt" {
		t.Errorf("Top = %s", f.Top())
	}
}

func TestVariableName(t *testing.T) {
	for raw, want := range map[string]string{
		"xs": "xs", "$this$apply": "this@apply", "$this$forEach$iv": "this@forEach", "element$iv": "element",
		"start$iv$iv": "start", "x$delegate": "x", "$i$f$forEach": "", "$i$a$-forEach-MainKt$main$1": "",
		"$completion": "", "$result": "", "it": "it",
	} {
		got, ok := VariableName(raw)
		if ok != (want != "") || got != want {
			t.Errorf("VariableName(%q) = %q %v, want %q", raw, got, ok, want)
		}
	}
}

// Kotlin 2 names an inline lambda's receiver after the lambda
// ($this$describe_u24lambda_u241, as kotlinc 2.2 compiles the fixture's
// shop.apply { … } in describe); beside its $i$a$-apply-… marker it reads
// this@apply. Without a marker it keeps Variable's name.
func TestVariablesPairReceiverWithMarker(t *testing.T) {
	names := []string{"$i$a$-apply-MainKt$describe$1", "$this$describe_u24lambda_u241", "$i$a$-let-MainKt$describe$2", "s", "text", "shop"}
	shown, ok := Lang.(lang.VariableNamer).Variables(names)
	want := []string{"", "this@apply", "", "s", "text", "shop"}
	for i := range names {
		if shown[i] != want[i] || ok[i] != (want[i] != "") {
			t.Errorf("%s shown as %q %v, want %q", names[i], shown[i], ok[i], want[i])
		}
	}
	shown, _ = lang.VariableNames(Lang, []string{"$this$main_u24lambda_u240", "$this$apply", "x$delegate"})
	if shown[0] != "this@main_u24lambda_u240" || shown[1] != "this@apply" || shown[2] != "x" {
		t.Errorf("without markers: %q", shown)
	}
}

// A frame's class reads as Kotlin names it: nested classes dotted, what
// the compiler made of a function (lambdas, continuations) as it is.
func TestFrameClass(t *testing.T) {
	n := Lang.(lang.FrameNamer)
	for simple, want := range map[string]string{
		"Shop$Companion": "Shop.Companion", "Crate$Factory": "Crate.Factory", "Shop$Till": "Shop.Till", "Rect$Corner": "Rect.Corner",
		"MainKt": "MainKt", "MainKt$main$square$1": "MainKt$main$square$1", "Shop$Companion$open$1": "Shop.Companion$open$1",
		"Shop$label$2": "Shop$label$2", "MainKt$fetchOne$1": "MainKt$fetchOne$1", "A$B$C": "A.B.C", "Odd$": "Odd$", "Multi__MultiAKt": "Multi__MultiAKt",
	} {
		if got := n.FrameClass(simple); got != want {
			t.Errorf("FrameClass(%q) = %q, want %q", simple, got, want)
		}
	}
}

// kotlin.Lazy's implementations keep their value in a field the adapter
// reads (a lazy delegate shown as its value); others have none.
func TestLazyValueField(t *testing.T) {
	l := Lang.(interface {
		LazyValueField(string) string
		LazyUninitialized(string) bool
	})
	for sig, want := range map[string]string{"Lkotlin/SynchronizedLazyImpl;": "_value", "Lkotlin/SafePublicationLazyImpl;": "_value",
		"Lkotlin/UnsafeLazyImpl;": "_value", "Lkotlin/InitializedLazyImpl;": "value", "Ljava/lang/String;": "", "Lapp/MyLazy;": ""} {
		if got := l.LazyValueField(sig); got != want {
			t.Errorf("LazyValueField(%s) = %q, want %q", sig, got, want)
		}
	}
	if !l.LazyUninitialized("Lkotlin/UNINITIALIZED_VALUE;") || l.LazyUninitialized("Ljava/lang/String;") {
		t.Error("LazyUninitialized: only kotlin.UNINITIALIZED_VALUE")
	}
}

func TestNoCode(t *testing.T) {
	for text, want := range map[string]bool{
		"": true, "  }": true, "// x": true, "package app": true, "import kotlinx.coroutines.delay": true,
		"@file:JvmName(\"X\")": true, "val x = 1": false, "println(x) // @m": false, "})": true,
	} {
		if got := Lang.NoCode(text); got != want {
			t.Errorf("NoCode(%q) = %v", text, got)
		}
	}
}

// Kotlin's expressions parse as Kotlin (templates, ?., ?:, !!, ===, == as
// equals, ranges, when, if); what the engine does not evaluate yet is
// refused by name, never read as something else.
func TestEngineRefusesByName(t *testing.T) {
	for src, named := range map[string]string{
		`"${data.name}"`:                "",
		`"total: $sum"`:                 "",
		`order?.name`:                   "",
		`name ?: "none"`:                "",
		`order!!.name`:                  "",
		`a === b`:                       "",
		`o.name == "tea"`:               "",
		`"cost: $"`:                     "",
		`!!flag`:                        "",
		`x in 1..10 && y !in 0 until 3`: "",
		`when (x) { 1, 2 -> "a"; in 3..4 -> "b"; is String -> "c"; else -> "d" }`: "",
		`if (a > b) a else b`:         "",
		`o as? String ?: "x"`:         "",
		`this@apply.title`:            "",
		`1L + 1.0f + 0x1F + 1_000`:    "",
		`list.map { it * 2 }`:         "Kotlin lambdas",
		`items.filter { x -> x > 1 }`: "Kotlin lambdas",
		`{ 1 }`:                       "Kotlin lambdas",
		`String::length`:              "callable references",
		`x = 3`:                       "assignment",
		`f(name = 1)`:                 "named arguments",
		`1u + 2u`:                     "unsigned literals",
		`object : Runnable {}`:        "object expressions",
		`super.toString()`:            "super",
		`x++`:                         "assignment",
	} {
		_, err := Lang.Engine().Parse(src)
		switch {
		case named == "":
			if err != nil {
				t.Errorf("Parse(%s): %v", src, err)
			}
		case !errors.Is(err, ErrNotYet) || !strings.Contains(err.Error(), named):
			t.Errorf("Parse(%s) = %v, want a refusal naming %q", src, err, named)
		}
	}
	if _, err := Lang.Engine().ParseTemplate(`total {o?.total} of {"$name"} {when (x) { 1 -> "a"; else -> "b" }}`); err != nil {
		t.Errorf("a log message in Kotlin: %v", err)
	}
	if _, err := Lang.Engine().ParseTemplate(`sizes {list.map { it.size }}`); !errors.Is(err, ErrNotYet) {
		t.Errorf("a log message with a lambda was accepted: %v", err)
	}
	if _, err := Lang.Engine().ParseTemplate(`cost $5 {{literal}} {o.total + 1}`); err != nil {
		t.Errorf("a plain log message: %v", err)
	}
}

// Locate maps lines past the file's end through the Kotlin stratum.
func TestLocate(t *testing.T) {
	m := "SMAP\nMain.kt\nKotlin\n*S Kotlin\n*F\n+ 1 Main.kt\napp/MainKt\n+ 2 _Collections.kt\nkotlin/collections/CollectionsKt___CollectionsKt\n+ 3 Util.kt\napp/Utils\n*L\n1#1,89:1\n1869#2,2:90\n9#3,3:92\n*S KotlinDebug\n*F\n+ 1 Main.kt\napp/MainKt\n*L\n39#1:90,2\n62#1:92,3\n*E\n"
	smapOf := func(context.Context) (string, error) { return m, nil }
	for _, c := range []struct {
		line int
		want lang.Where
	}{
		{5, lang.Where{Rel: "app/Main.kt", Line: 5}},
		{90, lang.Where{Rel: "kotlin/collections/_Collections.kt", Line: 1869}},
		{93, lang.Where{Rel: "app/Util.kt", Line: 10}},
		{200, lang.Where{Rel: "app/Main.kt", Line: 200}},
	} {
		got := Lang.Locate(lang.Located{ClassSig: "Lapp/MainKt;", SourceFile: "Main.kt", Line: c.line, SMAP: smapOf})
		if got != c.want {
			t.Errorf("Locate(line %d) = %+v, want %+v", c.line, got, c.want)
		}
	}
	if got := Lang.Locate(lang.Located{ClassSig: "Lapp/MainKt;", SourceFile: "Main.kt", Line: 90}); got != (lang.Where{Rel: "app/Main.kt", Line: 90}) {
		t.Errorf("Locate without a map = %+v", got)
	}
	bad := func(context.Context) (string, error) { return "not a map", nil }
	if got := Lang.Locate(lang.Located{ClassSig: "Lapp/MainKt;", SourceFile: "Main.kt", Line: 90, SMAP: bad}); got != (lang.Where{Rel: "app/Main.kt", Line: 90}) {
		t.Errorf("Locate with a bad map = %+v", got)
	}
}

// Inlined finds the inline function and its call site through KotlinDebug.
func TestInlined(t *testing.T) {
	m := "SMAP\nMain.kt\nKotlin\n*S Kotlin\n*F\n+ 1 Main.kt\napp/MainKt\n+ 2 _Collections.kt\nkotlin/collections/CollectionsKt___CollectionsKt\n+ 3 Util.kt\napp/Utils\n*L\n1#1,89:1\n1869#2,2:90\n9#3,3:92\n*S KotlinDebug\n*F\n+ 1 Main.kt\napp/MainKt\n*L\n39#1:90,2\n62#1:92,3\n*E\n"
	at := lang.Located{ClassSig: "Lapp/MainKt;", SourceFile: "Main.kt", Line: 93, SMAP: func(context.Context) (string, error) { return m, nil }}
	fn, call, ok := Lang.(language).Inlined(at, []string{"xs", "$i$f$twice", "first$iv"})
	if !ok || fn != "twice" || call != (lang.Where{Rel: "app/Main.kt", Line: 62}) {
		t.Errorf("Inlined(93) = %q %+v %v, want twice called at app/Main.kt:62", fn, call, ok)
	}
	at.Line = 62
	if _, _, ok := Lang.(language).Inlined(at, nil); ok {
		t.Error("Main.kt's own line 62 reads as inlined")
	}
}

// An inline function (inner, Inner.kt) inlined into another (outer,
// Outer.kt) inlined into main: kotlinc 2.2's map and variable table of
// MainKt.main (javap), stopped at code index 23 (JVM line 12, Inner.kt:5):
// inner at its body, outer at its call of inner (Outer.kt:5, the line just
// before $i$f$inner came alive at 9), main at Main.kt:5.
func TestInlinedFrames(t *testing.T) {
	m := "SMAP\nMain.kt\nKotlin\n*S Kotlin\n*F\n+ 1 Main.kt\nn/MainKt\n+ 2 Outer.kt\nn/OuterKt\n+ 3 Inner.kt\nn/InnerKt\n*L\n1#1,8:1\n4#2,2:9\n6#2:14\n4#3,3:11\n*S KotlinDebug\n*F\n+ 1 Main.kt\nn/MainKt\n*L\n5#1:9,2\n5#1:14\n5#1:11,3\n*E\n"
	table := []struct {
		index uint64
		line  int
	}{{0, 4}, {2, 5}, {4, 9}, {6, 10}, {9, 11}, {12, 12}, {15, 10}, {18, 5}, {21, 10}, {23, 12}, {28, 13}, {30, 10}, {32, 14}, {34, 5}, {35, 6}, {42, 7}}
	lineAt := func(i uint64) int {
		line := 0
		for _, e := range table {
			if e.index <= i {
				line = e.line
			}
		}
		return line
	}
	at := lang.Located{ClassSig: "Ln/MainKt;", SourceFile: "Main.kt", Line: 12, SMAP: func(context.Context) (string, error) { return m, nil }}
	live := []lang.Marker{{Name: "$i$f$inner", Start: 9}, {Name: "b$iv$iv", Start: 12}, {Name: "$i$f$outer", Start: 4}, {Name: "a$iv", Start: 6}, {Name: "start", Start: 2}}
	frames, call, ok := Lang.(language).InlinedFrames(at, live, lineAt)
	want := []lang.InlineFrame{{Fn: "inner"}, {Fn: "outer", At: lang.Where{Rel: "n/Outer.kt", Line: 5}}}
	if !ok || !slices.Equal(frames, want) || call != (lang.Where{Rel: "n/Main.kt", Line: 5}) {
		t.Errorf("InlinedFrames = %+v called at %+v (%v), want %+v called at n/Main.kt:5", frames, call, ok, want)
	}
	// In the lambda passed to inner (its $i$a$ marker live, started inside
	// outer): one level, as Inlined says.
	at.Line = 10
	lambda := append(live, lang.Marker{Name: "$i$a$-inner-OuterKt$outer$r$1$iv", Start: 15})
	if frames, _, ok := Lang.(language).InlinedFrames(at, lambda, lineAt); !ok || len(frames) != 1 || frames[0].Fn != "inner" {
		t.Errorf("in the lambda: %+v %v, want the one level of Inlined", frames, ok)
	}
	// The method's own line: not inlined.
	at.Line = 5
	if _, _, ok := Lang.(language).InlinedFrames(at, nil, lineAt); ok {
		t.Error("Main.kt's own line 5 reads as inlined")
	}
}

func TestFieldName(t *testing.T) {
	for _, c := range []struct{ name, sig, want string }{
		{"this$0", "Lapp/Shop;", "this@Shop"}, {"this$0", "Lapp/Outer$Mid;", "this@Mid"},
		{"label$delegate", "Lkotlin/Lazy;", "label"}, {"count", "I", "count"}, {"$delegate", "I", "$delegate"},
	} {
		if got := Lang.(language).FieldName(c.name, c.sig); got != c.want {
			t.Errorf("FieldName(%s, %s) = %s, want %s", c.name, c.sig, got, c.want)
		}
	}
}

func TestPackageAndLambdaMethod(t *testing.T) {
	if got := Lang.Package([]byte("// x\n@file:JvmName(\"U\")\npackage com.example.app\n\nfun f() {}\n")); got != "com.example.app" {
		t.Errorf("Package = %q", got)
	}
	for name, want := range map[string]int{"main$lambda$1": 1, "describeAll$lambda$0": 0} {
		if n, ok := Lang.LambdaMethod(name); !ok || n != want {
			t.Errorf("LambdaMethod(%s) = %d %v", name, n, ok)
		}
	}
	if _, ok := Lang.LambdaMethod("invoke"); ok {
		t.Error("invoke taken for an invokedynamic lambda body")
	}
}

func TestValueForm(t *testing.T) {
	vf := Lang.(lang.ValueForms)
	f := func(name, text string) lang.PrintedField { return lang.PrintedField{Name: name, Text: text} }
	for _, c := range []struct {
		sig  string
		in   []lang.PrintedField
		want string
	}{
		{"Lkotlin/Pair;", []lang.PrintedField{f("first", "1"), f("second", "a")}, "(1, a)"},
		{"Lkotlin/ranges/IntProgression;", []lang.PrintedField{f("first", "1"), f("last", "9"), f("step", "2")}, "1..9 step 2"},
		{"Lkotlin/ranges/IntProgression;", []lang.PrintedField{f("first", "10"), f("last", "1"), f("step", "-3")}, "10 downTo 1 step 3"},
		{"Lkotlin/Result;", []lang.PrintedField{{Name: "value", Text: "Failure(x)", Sig: "Lkotlin/Result$Failure;"}}, "Failure(x)"},
		{"Lkotlin/Result;", []lang.PrintedField{{Name: "value", Text: "Failure(x)", Sig: "Ljava/lang/String;"}}, "Success(Failure(x))"},
		{"Lkotlin/ranges/UIntRange;", []lang.PrintedField{f("first", "1"), f("last", "-294967296")}, "1..4000000000"},
		{"Lkotlin/ranges/UIntProgression;", []lang.PrintedField{f("first", "-294967296"), f("last", "1"), f("step", "-3")}, "4000000000 downTo 1 step 3"},
		{"Lkotlin/ranges/ULongRange;", []lang.PrintedField{f("first", "1"), f("last", "-1")}, "1..18446744073709551615"},
	} {
		if got := vf.ValueForm(c.sig, nil).Text(c.in); got != c.want {
			t.Errorf("%s %v = %q, want %q", c.sig, c.in, got, c.want)
		}
	}
	if vf.ValueForm("Lapp/Order;", nil) != nil {
		t.Error("a class's form by its signature alone")
	}
	data := vf.ValueForm("Lapp/Shop$Order;", []string{"<init>", "getId", "component1", "component2", "copy", "copy$default", "toString", "hashCode", "equals"})
	if data == nil || data.Leading != 2 || data.Text([]lang.PrintedField{f("id", "1"), f("name", "tea")}) != "Order(id=1, name=tea)" {
		t.Errorf("data class form %+v", data)
	}
	if vf.ValueForm("Lapp/Plain;", []string{"component1", "toString", "hashCode", "equals"}) != nil {
		t.Error("a class without copy read as a data class")
	}
}
