package debugger

import (
	"context"
	"sort"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// Breakpoints by column in a language whose compiler inlines lambdas into
// their callers (Kotlin: `orders.forEach { … }`, `map { … }`, `let { … }`).
//
// The lambdas of a line (in source order, with the call each is passed
// to) are matched to their code among the file's loaded classes:
//   - a lambda inlined into its caller is the caller's code inside the
//     scope of a marker variable naming the inline function
//     ($i$a$-forEach-…: the variable table gives the code range; a lambda
//     an inline function calls twice has two ranges), whose code begins on
//     the line — or, for a lambda whose body starts on a later line
//     (`forEach { o ->`), whose code just before its range is the line's
//     (through the KotlinDebug stratum when that is the inline function's
//     code); it is matched to the line's first lambda not yet matched
//     passed to a call of that name (and starting its body alike), and
//     stops at the first code of each range;
//   - a lambda compiled to a method (main$lambda$1, or a lambda class's
//     invoke) whose code begins on the line takes, in its number's order,
//     the lambdas the markers left.
//
// A column on a lambda stops in that lambda only: at the first code of
// the line in each of its ranges, or in its method. A column before the
// line's first lambda stops in the line's own code (the methods that are no
// lambda's). When the code does not match the line (a lambda the source
// reading missed), the breakpoint stops at every location of the line, as
// one without a column. A lambda compiled to a method whose body starts on
// a later line (`runBlocking {`, `thread {`) stops at its body's first
// code: in the lambda method that begins on the line (a suspend lambda's
// invokeSuspend), else in the one whose code begins on the first line with
// code after it. Lambdas compiled to classes (-Xlambdas=class) that
// are not loaded yet are matched as they load; of several such lambdas on
// one line not all loaded, a column on one stops in each of them, and
// once loaded they are ordered by their classes' names (kotlinc numbers
// them in source order within a name).

// LambdaInliner is a Language whose compiler inlines lambdas into their
// callers (package jdwp/lang/kotlin implements it).
type LambdaInliner interface {
	// InlinedLambda says whether a local variable marks the code of a
	// lambda inlined into its method, and names the function it was
	// passed to.
	InlinedLambda(variable string) (fn string, ok bool)
	// LambdaBody says whether a method of a class (binary name) holds a
	// lambda's body, and the number the compiler gave it (-1 for none).
	LambdaBody(class, method string) (n int, ok bool)
}

// lambdaCode is one lambda's code on a line.
type lambdaCode struct {
	class jdwp.ReferenceTypeID
	name  string // the class's binary name
	fn    string // an inlined lambda's function ("" for a method)
	n     int    // a method lambda's number
	start uint64 // an inlined lambda's first code index
	later bool   // an inlined lambda opened on the line whose code starts on a later one
	// A method lambda's first and last lines (for one opened on the line
	// whose body starts on a later one).
	first, last int
	locs        []jdwp.Location
	// body is a method lambda's first code on a line after its first (a
	// suspend lambda's invokeSuspend begins on its opening line, the
	// dispatch of its states, then runs its body).
	body []jdwp.Location
}

// byLambdaColumn keeps, of the locations locs of line in class (a file in a
// language that inlines lambdas), those of the code the column stands in.
// Callers hold bpMu.
func (t *Target) byLambdaColumn(ctx context.Context, li LambdaInliner, f *sourceFile, class jdwp.ReferenceTypeID, locs []jdwp.Location, line, column int) []jdwp.Location {
	spans := f.lang.Lambdas(SourceLine(f.path, line))
	if len(spans) == 0 {
		return locs
	}
	var methods, inlined, after []lambdaCode
	for c, name := range f.classes {
		m, in, a := t.lambdaCodeOn(ctx, li, c, name, line)
		methods = append(methods, m...)
		inlined = append(inlined, in...)
		after = append(after, a...)
	}
	pos := f.lang.LambdaAt(spans, column)
	if column < spans[0].Arrow || pos < 0 {
		// The line's own code: the locations of methods that are no lambda's.
		return ownCode(locs, methods)
	}
	sort.SliceStable(methods, func(a, b int) bool {
		if methods[a].name != methods[b].name {
			return methods[a].name < methods[b].name
		}
		return methods[a].n < methods[b].n
	})
	match, rank, nMethods, ok := matchInlined(spans, inlined)
	if !ok {
		return locs // code the source reading did not find: the whole line
	}
	var target []lambdaCode
	switch {
	case match[pos] < 0 && spans[pos].Later && nMethods == 0 && len(methods) > 0:
		// Its method begins on the line (a suspend lambda's invokeSuspend):
		// its body's first code.
		for _, m := range methods {
			m.locs = m.body
			target = append(target, m)
		}
	case match[pos] < 0 && spans[pos].Later:
		target = t.bodyAfter(f, line, after)
	case match[pos] >= 0:
		target = []lambdaCode{inlined[match[pos]]}
	case len(methods) == nMethods || nMethods == 1 && len(methods) > 0:
		if nMethods == 1 {
			target = methods
		} else {
			target = []lambdaCode{methods[rank[pos]]}
		}
	case len(methods) > nMethods:
		return locs
	default:
		// Not all of the line's method lambdas are loaded (lambda classes):
		// which one is which is known once they are; meanwhile each of them.
		target = methods
	}
	var out []jdwp.Location
	for _, c := range target {
		if c.class == class {
			out = append(out, c.locs...)
		}
	}
	return out
}

// ownCode keeps, of locs, those in no lambda method's code (a column before
// the line's first lambda).
func ownCode(locs []jdwp.Location, methods []lambdaCode) []jdwp.Location {
	var out []jdwp.Location
	for _, loc := range locs {
		lambda := false
		for _, m := range methods {
			for _, l := range m.locs {
				lambda = lambda || l == loc
			}
		}
		if !lambda {
			out = append(out, loc)
		}
	}
	return out
}

// matchInlined sorts the code of the lambdas inlined on a line by where it
// starts and pairs it with the line's lambdas (spans, in source order):
// each to the next code inlined into a call of its callee's name (and
// starting its body alike). match[i] is the index in inlined of span i's
// code, or -1 for a lambda compiled to a method, rank[i] then its rank
// among the nMethods such; ok is false when code is left over (a lambda
// the source reading missed).
func matchInlined(spans []lang.Lambda, inlined []lambdaCode) (match, rank []int, nMethods int, ok bool) {
	sort.SliceStable(inlined, func(a, b int) bool { return inlined[a].start < inlined[b].start })
	used := make([]bool, len(inlined))
	match = make([]int, len(spans))
	rank = make([]int, len(spans))
	for i, s := range spans {
		match[i] = -1
		for j, in := range inlined {
			if !used[j] && s.Callee != "" && in.fn == s.Callee && in.later == s.Later {
				used[j], match[i] = true, j
				break
			}
		}
		if match[i] < 0 && !s.Later {
			rank[i] = nMethods
			nMethods++
		}
	}
	for _, u := range used {
		if !u {
			return match, rank, nMethods, false
		}
	}
	return match, rank, nMethods, true
}

// byLambdaColumnInlined is byLambdaColumn in a class that inlines the
// file's inline function (name, not of the file), where the body's line
// line became JVM line out: the lambdas inlined into that copy of the body
// (map { … } and filter { … } in an inline function's body) are matched
// to their markers' scopes as in the file's own classes, and a column on
// one stops in its scopes only; a column before the line's first lambda
// stops in the line's own code. A lambda compiled to a method (copied into
// the inlining class under a name of its own) or whose body starts on a
// later line is not matched here: its column stops at every location of
// the line there, as does one whose code does not match the line.
func (t *Target) byLambdaColumnInlined(ctx context.Context, li LambdaInliner, f *sourceFile, class jdwp.ReferenceTypeID, name string, locs []jdwp.Location, line, out, column int) []jdwp.Location {
	spans := f.lang.Lambdas(SourceLine(f.path, line))
	if len(spans) == 0 {
		return locs
	}
	methods, inlined, _ := t.lambdaCodeOn(ctx, li, class, name, out)
	pos := f.lang.LambdaAt(spans, column)
	if column < spans[0].Arrow || pos < 0 {
		return ownCode(locs, methods)
	}
	match, _, _, ok := matchInlined(spans, inlined)
	if !ok || match[pos] < 0 {
		return locs
	}
	return inlined[match[pos]].locs
}

// lambdaCodeOn finds in class the lambdas whose code begins on line: its
// lambda methods, and the lambdas inlined into its methods with code on the
// line (a method's variable table is read once, cached, for each method
// with code there).
func (t *Target) lambdaCodeOn(ctx context.Context, li LambdaInliner, class jdwp.ReferenceTypeID, name string, line int) (methods, inlined, after []lambdaCode) {
	ms, err := t.VM.Methods(ctx, class)
	if err != nil {
		return nil, nil, nil
	}
	tables := make([]mirror.Lines, len(ms))
	onLine := make([]bool, len(ms))
	mirror.Parallel(len(ms), func(i int) error {
		if ms[i].ModBits&(jdwp.AccNative|jdwp.AccAbstract) != 0 {
			return nil
		}
		tables[i], _ = t.VM.LineTable(ctx, class, ms[i].ID)
		for _, e := range tables[i].Lines {
			onLine[i] = onLine[i] || int(e.Line) == line
		}
		return nil
	})
	vars := make([]mirror.Variables, len(ms))
	mirror.Parallel(len(ms), func(i int) error {
		if onLine[i] {
			vars[i], _ = t.VM.VariableTable(ctx, class, ms[i].ID)
		}
		return nil
	})
	for i, m := range ms {
		lt := tables[i]
		if n, ok := li.LambdaBody(name, m.Name); ok && m.ModBits&jdwp.AccBridge == 0 && !onLine[i] {
			if first := firstLine(lt); first > line {
				last := first
				for _, e := range lt.Lines {
					last = max(last, int(e.Line))
				}
				after = append(after, lambdaCode{class: class, name: name, n: n, first: first, last: last, locs: firstOfLine(class, m.ID, lt, first, 0, ^uint64(0))})
			}
		}
		if !onLine[i] {
			continue
		}
		if n, ok := li.LambdaBody(name, m.Name); ok && m.ModBits&jdwp.AccBridge == 0 {
			if firstLine(lt) == line {
				methods = append(methods, lambdaCode{class: class, name: name, n: n, locs: firstOfLine(class, m.ID, lt, line, 0, ^uint64(0)), body: firstAfter(class, m.ID, lt, line)})
			}
		}
		// The inlined lambdas: each marker's ranges, grouped by its name.
		type scope struct{ from, to uint64 }
		byName := map[string][]scope{}
		var names []string
		fns := map[string]string{}
		for _, v := range vars[i].Variables {
			fn, ok := li.InlinedLambda(v.Name)
			if !ok {
				continue
			}
			if _, seen := byName[v.Name]; !seen {
				names = append(names, v.Name)
			}
			byName[v.Name] = append(byName[v.Name], scope{v.CodeIndex, v.CodeIndex + uint64(v.Length)})
			fns[v.Name] = fn
		}
		for _, n := range names {
			scopes := byName[n]
			sort.Slice(scopes, func(a, b int) bool { return scopes[a].from < scopes[b].from })
			first := lineAt(lt, scopes[0].from)
			later := first != line && scopes[0].from > 0 && t.callLine(ctx, class, lineAt(lt, scopes[0].from-1)) == line
			if first != line && !later {
				continue // a lambda opened on another line
			}
			c := lambdaCode{class: class, name: name, fn: fns[n], start: scopes[0].from, later: later}
			for _, s := range scopes {
				if later || lineAt(lt, s.from) == line {
					c.locs = append(c.locs, jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: class, Method: m.ID, Index: s.from})
				} else {
					c.locs = append(c.locs, firstOfLine(class, m.ID, lt, line, s.from, s.to)...)
				}
			}
			inlined = append(inlined, c)
		}
	}
	return methods, inlined, after
}

// bodyAfter picks, of the lambda methods whose code begins after line, the
// body of a lambda opened on line whose body starts on a later one: the
// method whose first line is the first line with code after it (the lines
// between hold none), the widest of those (a lambda nested at the body's
// start begins there too). None when its method is not loaded (a lambda
// class): it binds as it loads.
func (t *Target) bodyAfter(f *sourceFile, line int, after []lambdaCode) []lambdaCode {
	first := 0
	for _, c := range after {
		if first == 0 || c.first < first {
			first = c.first
		}
	}
	for l := line + 1; l < first; l++ {
		if !t.noCodeLine(f.path, l) {
			return nil
		}
	}
	var out []lambdaCode
	for _, c := range after {
		switch {
		case c.first != first:
		case len(out) == 0 || c.last > out[0].last:
			out = []lambdaCode{c}
		case c.last == out[0].last:
			out = append(out, c)
		}
	}
	return out
}

// lineAt is the line of the code at index in a line table (that of the
// last entry at or before it; 0 when none).
func lineAt(lt mirror.Lines, index uint64) int {
	best, line := uint64(0), 0
	for _, e := range lt.Lines {
		if e.CodeIndex <= index && (line == 0 || e.CodeIndex >= best) {
			best, line = e.CodeIndex, int(e.Line)
		}
	}
	return line
}

// firstLine is the line of a method's first entry.
func firstLine(lt mirror.Lines) int {
	best, line := uint64(0), 0
	for _, e := range lt.Lines {
		if line == 0 || e.CodeIndex < best {
			best, line = e.CodeIndex, int(e.Line)
		}
	}
	return line
}

// firstOfLine is the location of the first entry of line within [from, to)
// of a method's line table (none when it has none there).
func firstOfLine(class jdwp.ReferenceTypeID, method jdwp.MethodID, lt mirror.Lines, line int, from, to uint64) []jdwp.Location {
	best, found := uint64(0), false
	for _, e := range lt.Lines {
		if int(e.Line) == line && e.CodeIndex >= from && e.CodeIndex < to && (!found || e.CodeIndex < best) {
			best, found = e.CodeIndex, true
		}
	}
	if !found {
		return nil
	}
	return []jdwp.Location{{TypeTag: jdwp.TypeTagClass, Class: class, Method: method, Index: best}}
}

// callLine is the line of the file a JVM line of class stands for at a
// call: itself, or, for code inlined there (a line past the file's end),
// the line of the call it was inlined for (the KotlinDebug stratum).
func (t *Target) callLine(ctx context.Context, class jdwp.ReferenceTypeID, line int) int {
	if l, ok, err := t.VM.MapLine(ctx, class, "KotlinDebug", line); err == nil && ok {
		return l.Line
	}
	return line
}

// firstAfter is the location of a method's first code (by index) on a line
// after line (none when it has none).
func firstAfter(class jdwp.ReferenceTypeID, method jdwp.MethodID, lt mirror.Lines, line int) []jdwp.Location {
	best, found := uint64(0), false
	for _, e := range lt.Lines {
		if int(e.Line) > line && (!found || e.CodeIndex < best) {
			best, found = e.CodeIndex, true
		}
	}
	if !found {
		return nil
	}
	return []jdwp.Location{{TypeTag: jdwp.TypeTagClass, Class: class, Method: method, Index: best}}
}
