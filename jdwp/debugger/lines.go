package debugger

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Where a breakpoint on a source line lands.
//
// A breakpoint on a line without code (blank, a comment, a lone brace)
// moves to the next line with code, as Java IDEs do, when the class holding
// that code is loaded. A line with code that no loaded class has is left
// alone: its code may be in a class not loaded yet (an anonymous class's
// body, say).
//
// Inline breakpoints. A line holding lambdas has code in several methods:
// the enclosing one and each lambda's body (lambda$…). BreakpointLocations
// offers the start of the line and the body of each lambda on it; a
// breakpoint with a column before the first arrow stops in the enclosing
// method only, one at a lambda's body in that lambda only. javac numbers a
// class's lambda methods as it translates them, inner lambdas before the
// lambda that holds them (post-order: in `p -> q -> p + q` the q lambda is
// lambda$main$4 and the p lambda lambda$main$5), so the lambdas of one line
// are matched to their arrows by walking the line's lambdas in that order.
// When the line's lambdas and the methods with code on it do not match one
// to one (a block lambda whose body starts on the next line, a compiler
// that numbers otherwise), a column in a lambda stops in every lambda body
// of the line.
//
// A language whose compiler inlines lambdas into their callers (Kotlin)
// matches a column otherwise: columns.go.

// noCodeLine reports whether line of the source at path holds no
// statement, as the file's language reads it (Java: blank, a comment, or
// braces only). An unreadable file says no.
func (t *Target) noCodeLine(path string, line int) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	if line < 1 || line > len(lines) {
		return false
	}
	return t.langs().ForFile(path).NoCode(lines[line-1])
}

// nextCodeLine returns the first line after line with code in class, with
// the locations to break at there, when every source line in between holds
// no code either (so the breakpoint does not jump into another method or a
// class not loaded yet); otherwise line and no locations.
func (t *Target) nextCodeLine(ctx context.Context, class jdwp.ReferenceTypeID, path string, line int) (int, []jdwp.Location, error) {
	ms, err := t.VM.Methods(ctx, class)
	if err != nil {
		return 0, nil, err
	}
	next := 0
	for _, m := range ms {
		if m.ModBits&(jdwp.AccNative|jdwp.AccAbstract) != 0 {
			continue
		}
		lt, err := t.VM.LineTable(ctx, class, m.ID)
		if err != nil {
			return 0, nil, err
		}
		for _, e := range lt.Lines {
			if l := int(e.Line); l > line && (next == 0 || l < next) {
				next = l
			}
		}
	}
	if next == 0 {
		return line, nil, nil
	}
	for l := line + 1; l < next; l++ {
		if !t.noCodeLine(path, l) {
			return line, nil, nil
		}
	}
	locs, err := t.LineLocations(ctx, class, next)
	return next, locs, err
}

// SourceLine returns line (1-based) of the file at path, or "".
func SourceLine(path string, line int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	return strings.TrimRight(lines[line-1], "\r")
}

// byColumn keeps, of a line's locations, those of the method the column
// stands in: the enclosing method before the line's first arrow, else the
// lambda at the column.
func (t *Target) byColumn(ctx context.Context, locs []jdwp.Location, path string, line, column int) []jdwp.Location {
	language := t.langs().ForFile(path)
	spans := language.Lambdas(SourceLine(path, line))
	if len(spans) == 0 {
		return locs
	}
	inLambda := column >= spans[0].Arrow
	type lambdaLoc struct {
		loc jdwp.Location
		n   int
	}
	var plain []jdwp.Location
	var lambdas []lambdaLoc
	for _, loc := range locs {
		m, err := t.VM.Method(ctx, loc.Class, loc.Method)
		if err != nil {
			continue
		}
		if n, ok := language.LambdaMethod(m.Name); ok {
			lambdas = append(lambdas, lambdaLoc{loc, n})
		} else {
			plain = append(plain, loc)
		}
	}
	if !inLambda {
		return plain
	}
	all := make([]jdwp.Location, len(lambdas))
	for i, l := range lambdas {
		all[i] = l.loc
	}
	pos := language.LambdaAt(spans, column)
	if pos < 0 || len(lambdas) != len(spans) {
		return all
	}
	sort.SliceStable(lambdas, func(a, b int) bool { return lambdas[a].n < lambdas[b].n })
	for _, l := range lambdas {
		if l.n < 0 {
			return all
		}
	}
	return []jdwp.Location{lambdas[pos].loc}
}

// BreakpointLocation is a place on a line where a breakpoint can stop.
type BreakpointLocation struct{ Line, Column int }

// BreakpointLocations lists where breakpoints can stop on lines from..to
// of the source at path, in its loaded classes: the start of each line
// with code and the body of each lambda on it (1-based lines and columns).
func (t *Target) BreakpointLocations(ctx context.Context, path string, from, to int) ([]BreakpointLocation, error) {
	to = max(to, from)
	if to-from > 10000 {
		to = from + 10000
	}
	classes, err := t.ClassesOfSource(ctx, path)
	if err != nil {
		return nil, err
	}
	out := []BreakpointLocation{}
	language := t.langs().ForFile(path)
	var inliners []jdwp.ReferenceTypeID
	f := t.newSourceFile(path)
	if inlines(language) {
		for _, c := range classes {
			f.classes[c] = ""
		}
		if err := t.findInliners(ctx, f); err != nil {
			return nil, err
		}
		for c := range f.inlined {
			inliners = append(inliners, c)
		}
	}
	for l := from; l <= to; l++ {
		code := false
		for _, c := range classes {
			if locs, err := t.LineLocations(ctx, c, l); err == nil && len(locs) > 0 {
				code = true
				break
			}
		}
		for _, c := range inliners {
			if code {
				break
			}
			outs, _ := t.mappedLines(ctx, f, c, l)
			for _, o := range outs {
				if locs, err := t.LineLocations(ctx, c, o); err == nil && len(locs) > 0 {
					code = true
					break
				}
			}
		}
		if !code {
			continue
		}
		text := SourceLine(path, l)
		out = append(out, BreakpointLocation{Line: l, Column: len(text) - len(strings.TrimLeft(text, " \t")) + 1})
		for _, lambda := range language.Lambdas(text) {
			out = append(out, BreakpointLocation{Line: l, Column: lambda.Body})
		}
	}
	return out, nil
}

// ClassesOfSource returns the loaded classes compiled from a source file.
func (t *Target) ClassesOfSource(ctx context.Context, path string) ([]jdwp.ReferenceTypeID, error) {
	f := t.newSourceFile(path)
	all, err := t.VM.AllClasses(ctx)
	if err != nil {
		return nil, fmt.Errorf("list loaded classes: %w", err)
	}
	var out []jdwp.ReferenceTypeID
	for _, c := range all {
		if c.Status&jdwp.ClassPrepared != 0 && strings.HasPrefix(c.Signature, "L") && t.owns(ctx, f, javalang.TypeName(c.Signature), c.ID) {
			out = append(out, c.ID)
		}
	}
	return out, nil
}
