package kotlin

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java"
	"github.com/ddmbridge/ddmbridge/jdwp/smap"
)

// Lang is the Kotlin language.
var Lang lang.Language = language{}

type language struct{}

func (language) Name() string         { return "Kotlin" }
func (language) Extensions() []string { return []string{".kt"} }
func (language) Engine() lang.Engine  { return engine{} }

// Classes of a .kt file: its facade and top-level types and what kotlinc
// nests under them, each confirmed by its SourceFile attribute.
func (language) Classes(file string) lang.Classes { return ReadFile(file) }

// NoCode reports whether a line holds no statement: blank, a comment,
// braces or parentheses only, or a package, import or file annotation.
func (language) NoCode(text string) bool {
	l := strings.TrimSpace(text)
	if java.Lang.NoCode(l) {
		return true
	}
	for _, p := range []string{"package ", "import ", "@file:"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// smapTimeout bounds reading a class's source map for Locate, which the
// seam gives no context.
const smapTimeout = 30 * time.Second

// Locate maps a location through the Kotlin stratum of its class's source
// map: a line past the file's end (an inlined body) reads as the inline
// function's file and line. Without a map, or for a line no section
// covers, the class's own file in its package's directory and its JVM line.
func (language) Locate(at lang.Located) lang.Where {
	own := java.Lang.Locate(at)
	if at.SMAP == nil || at.Line <= 0 {
		return own
	}
	ctx, cancel := context.WithTimeout(context.Background(), smapTimeout)
	defer cancel()
	text, err := at.SMAP(ctx)
	if err != nil || text == "" {
		return own
	}
	s := parsed(text)
	if s == nil {
		return own
	}
	st := s.Stratum("Kotlin")
	if st == nil {
		st = s.Stratum(s.DefaultStratum)
	}
	if st == nil {
		return own
	}
	f, line, ok := st.Map(at.Line)
	if !ok {
		return own
	}
	return lang.Where{Rel: SourceRel(*f, at.ClassSig), Line: line}
}

// SourceRel is the path of a source map's file relative to a source root:
// the directory of the class the map names for it ("+ 2 _Collections.kt /
// kotlin/collections/CollectionsKt___CollectionsKt" is
// kotlin/collections/_Collections.kt), else the package of the class at
// hand.
func SourceRel(f smap.File, classSig string) string {
	dir := path.Dir(f.Path)
	if f.Path == "" {
		dir = path.Dir(javalang.InternalName(classSig))
	}
	if dir == "." || dir == "" {
		return f.Name
	}
	return dir + "/" + f.Name
}

// The decoded source maps by their text: a class's map is read once per
// class by the mirror, and decoded here once per distinct text.
var (
	smapMu    sync.Mutex
	smapCache = map[string]*smap.SMAP{}
)

const smapCacheMax = 4096

func parsed(text string) *smap.SMAP {
	smapMu.Lock()
	defer smapMu.Unlock()
	if s, ok := smapCache[text]; ok {
		return s
	}
	s, err := smap.Parse(text)
	if err != nil {
		s = nil
	}
	if len(smapCache) >= smapCacheMax {
		clear(smapCache) // bounded: a session with more distinct maps decodes again
	}
	smapCache[text] = s
	return s
}

// Variable shows a variable as the Kotlin source names it; compiler-made
// ones are hidden.
func (language) Variable(name string) (string, bool) { return VariableName(name) }

// VariableName is Kotlin's naming of a local of the class file's variable
// table: ok false hides it.
func VariableName(name string) (string, bool) {
	switch {
	case strings.HasPrefix(name, "$i$f$"), strings.HasPrefix(name, "$i$a$"):
		return "", false // inline markers: which inline function or lambda this code came from
	case name == "$completion", name == "$result", name == "$continuation", name == "$i":
		return "", false // a suspend function's machinery
	}
	for strings.HasSuffix(name, "$iv") {
		name = strings.TrimSuffix(name, "$iv") // a variable of an inlined function's body
	}
	if strings.HasPrefix(name, "$this$") && len(name) > len("$this$") {
		return "this@" + strings.TrimPrefix(name, "$this$"), true
	}
	if strings.HasSuffix(name, "$delegate") && len(name) > len("$delegate") {
		return strings.TrimSuffix(name, "$delegate"), true
	}
	if name == "" {
		return "", false
	}
	return name, true
}

// FrameClass names a class in a frame as Kotlin reads it: its nested
// classes dotted (Shop$Companion → Shop.Companion, Crate$Factory →
// Crate.Factory, Shop$Till → Shop.Till), as far as the names are classes'
// (they begin with a capital letter); what the compiler made of a
// function keeps its binary name after them (MainKt$main$square$1,
// Shop$Companion$open$1 → Shop.Companion$open$1).
func (language) FrameClass(simple string) string {
	parts := strings.Split(simple, "$")
	out := parts[0]
	i := 1
	for ; i < len(parts); i++ {
		p := parts[i]
		if p == "" || p[0] < 'A' || p[0] > 'Z' {
			break
		}
		out += "." + p
	}
	for ; i < len(parts); i++ {
		out += "$" + parts[i]
	}
	return out
}

// Variables names a frame's variables as Variable does, but for the
// receiver of an inline lambda that kotlinc named after the lambda
// ($this$describe_u24lambda_u241, Kotlin 2): it reads this@apply, labelled
// by the lambda's marker $i$a$-apply-… nearest to it in the variable table
// (the pairing evaluation uses for this@apply).
func (language) Variables(names []string) (shown []string, ok []bool) {
	shown, ok = make([]string, len(names)), make([]bool, len(names))
	for i, name := range names {
		shown[i], ok[i] = VariableName(name)
	}
	for j, r := range names {
		if !strings.HasPrefix(r, "$this$") || !strings.Contains(r, "lambda") {
			continue
		}
		label, dist := "", len(names)+1
		for i, m := range names {
			rest, found := strings.CutPrefix(m, "$i$a$-")
			if !found {
				continue
			}
			l, _, found := strings.Cut(rest, "-")
			if !found || l == "" {
				continue
			}
			d := max(i-j, j-i)
			if d < dist || d == dist && j > i {
				label, dist = l, d
			}
		}
		if label != "" {
			shown[j] = "this@" + label
		}
	}
	return shown, ok
}

// Inlines says kotlinc inlines code across files (inline functions and the
// lambdas passed to them), which the debugger's breakpoints follow through
// the callers' source maps.
func (language) Inlines() bool { return true }

// Inlined says whether a location is code inlined into its method (its JVM
// line maps, in the Kotlin stratum, to a file other than the class's own):
// then fn names the inline function (from the innermost live $i$f$ marker
// among markers, the names of the variables live at the location; "" when
// none says) and callSite is where the method called it (the KotlinDebug
// stratum). A front end shows the inline function as a frame of its own
// above the caller, as IntelliJ does.
func (language) Inlined(at lang.Located, markers []string) (fn string, callSite lang.Where, ok bool) {
	if at.SMAP == nil || at.Line <= 0 {
		return "", lang.Where{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), smapTimeout)
	defer cancel()
	text, err := at.SMAP(ctx)
	if err != nil || text == "" {
		return "", lang.Where{}, false
	}
	s := parsed(text)
	if s == nil {
		return "", lang.Where{}, false
	}
	k, dbg := s.Stratum("Kotlin"), s.Stratum("KotlinDebug")
	if k == nil || dbg == nil || len(k.Files) == 0 {
		return "", lang.Where{}, false
	}
	f, _, mapped := k.Map(at.Line)
	if !mapped || f.ID == k.Files[0].ID {
		return "", lang.Where{}, false
	}
	cf, cl, mapped := dbg.Map(at.Line)
	if !mapped {
		return "", lang.Where{}, false
	}
	for _, m := range markers {
		if name, found := strings.CutPrefix(m, "$i$f$"); found {
			fn = name // the variable table lists inner markers after outer ones
		}
	}
	return fn, lang.Where{Rel: SourceRel(*cf, at.ClassSig), Line: cl}, true
}

// InlinedFrames is Inlined at every level of inline functions inlined into
// each other (f inlined into main, f's body calling inline g): frames,
// top first, are each inline function with where its code stands — the
// innermost at the location itself (its At left zero: the front end reads
// the location as it does any), each outer one at its call of the next,
// the line its code had just before the inner function's $i$f$ marker came
// alive (lineAt gives a code index's JVM line), through the Kotlin stratum
// — and callSite is where the method called the outermost (KotlinDebug).
// markers are the variables live at the location with their starts. When
// the location is in a lambda passed to one of them (a live $i$a$ marker
// starts inside the outermost), or the markers do not say, it is Inlined's
// one level.
func (l language) InlinedFrames(at lang.Located, markers []lang.Marker, lineAt func(codeIndex uint64) int) (frames []lang.InlineFrame, callSite lang.Where, ok bool) {
	names := make([]string, len(markers))
	for i, m := range markers {
		names[i] = m.Name
	}
	fn, callSite, ok := l.Inlined(at, names)
	if !ok {
		return nil, callSite, false
	}
	one := []lang.InlineFrame{{Fn: fn}}
	var fns []lang.Marker // the live $i$f$ markers, outermost first
	for _, m := range markers {
		if strings.HasPrefix(m.Name, "$i$f$") {
			fns = append(fns, m)
		}
	}
	slices.SortStableFunc(fns, func(a, b lang.Marker) int { return cmp.Compare(a.Start, b.Start) })
	if len(fns) > 0 {
		// The innermost is the one that came alive last: kotlinc's variable
		// table lists a nested inline function's marker before its caller's.
		one[0].Fn = strings.TrimPrefix(fns[len(fns)-1].Name, "$i$f$")
	}
	if len(fns) < 2 || lineAt == nil {
		return one, callSite, true
	}
	for _, m := range markers {
		if strings.HasPrefix(m.Name, "$i$a$") && m.Start > fns[0].Start {
			return one, callSite, true // code of a lambda passed to one of them: whose frame it is the markers do not say
		}
	}
	s := l.parsedSMAP(at)
	if s == nil {
		return one, callSite, true
	}
	k := s.Stratum("Kotlin")
	frames = make([]lang.InlineFrame, len(fns))
	frames[0] = lang.InlineFrame{Fn: strings.TrimPrefix(fns[len(fns)-1].Name, "$i$f$")}
	for i := len(fns) - 2; i >= 0; i-- {
		inner := fns[i+1]
		if inner.Start == 0 {
			return one, callSite, true
		}
		f, line, mapped := k.Map(lineAt(inner.Start - 1))
		if !mapped {
			return one, callSite, true
		}
		frames[len(fns)-1-i] = lang.InlineFrame{Fn: strings.TrimPrefix(fns[i].Name, "$i$f$"), At: lang.Where{Rel: SourceRel(*f, at.ClassSig), Line: line}}
	}
	return frames, callSite, true
}

// parsedSMAP is the location's class's source map, decoded (nil when none).
func (language) parsedSMAP(at lang.Located) *smap.SMAP {
	if at.SMAP == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), smapTimeout)
	defer cancel()
	text, err := at.SMAP(ctx)
	if err != nil || text == "" {
		return nil
	}
	return parsed(text)
}

// HiddenFrame says a frame of a method kotlinc made is hidden from stacks
// by default: a function's $default (it fills in default arguments and
// calls the function), an access$ accessor, a bridge.
func (language) HiddenFrame(method string, bridge bool) bool {
	return bridge || strings.HasSuffix(method, "$default") || strings.HasPrefix(method, "access$")
}

// FieldName shows a field kotlinc made under its source's name: this$0 (an
// inner class's outer instance) as this@Outer, x$delegate as x.
func (language) FieldName(name, typeSig string) string {
	if name == "this$0" && strings.HasPrefix(typeSig, "L") {
		outer := strings.TrimSuffix(javalang.SimpleName(javalang.TypeName(typeSig)), ";")
		if i := strings.LastIndexAny(outer, ".$"); i >= 0 {
			outer = outer[i+1:]
		}
		return "this@" + outer
	}
	if n, ok := strings.CutSuffix(name, "$delegate"); ok && n != "" {
		return n
	}
	return name
}

// LazyValueField names the field in which kotlin.Lazy's implementations
// keep their value (SynchronizedLazyImpl._value …), "" for other classes:
// a property or local delegated by lazy { … } (x$delegate) is shown as that
// value once initialized, read from the field with no code run.
func (language) LazyValueField(classSig string) string {
	switch classSig {
	case "Lkotlin/SynchronizedLazyImpl;", "Lkotlin/SafePublicationLazyImpl;", "Lkotlin/UnsafeLazyImpl;":
		return "_value"
	case "Lkotlin/InitializedLazyImpl;":
		return "value"
	}
	return ""
}

// LazyUninitialized is the signature of the object a lazy holds until its
// initializer ran.
func (language) LazyUninitialized(sig string) bool { return sig == "Lkotlin/UNINITIALIZED_VALUE;" }

// Package is the package a .kt file declares (with or without ';'), read
// from its head.
func (language) Package(head []byte) string { return ParseFile("x.kt", head).Package }

// LambdaMethod says whether a method holds a lambda's body as Kotlin 2's
// invokedynamic lambdas are named (main$lambda$1: its number 1); a lambda
// compiled as a class (-Xlambdas=class) has its body in the class's invoke.
func (language) LambdaMethod(name string) (int, bool) {
	i := strings.LastIndex(name, "$lambda$")
	if i < 0 {
		return -1, false
	}
	n, err := strconv.Atoi(name[i+len("$lambda$"):])
	if err != nil {
		return -1, true
	}
	return n, true
}

// InlineBody says whether line of a .kt source (its text) lies in an inline
// function's declaration: code kotlinc copies into its callers, in any
// package.
func (language) InlineBody(src []byte, line int) bool { return InlineBody(src, line) }
