package dap

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	godap "github.com/google/go-dap"
)

// Inline breakpoints. A line holding a lambda has code in two methods: the
// enclosing one and the lambda's body (lambda$…). breakpointLocations
// offers the start of the line and the body of each lambda on it; a
// breakpoint with a column at or after a lambda's arrow stops in the
// lambda bodies only, one before it in the enclosing method only. Without
// a column a breakpoint stops in both, as before.

// lambdaColumns returns the 1-based columns where the lambda bodies of a
// source line start (just after each "->").
func lambdaColumns(text string) []int {
	var out []int
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '-' && text[i+1] == '>' {
			j := i + 2
			for j < len(text) && text[j] == ' ' {
				j++
			}
			out = append(out, j+1)
		}
	}
	return out
}

// sourceLine returns line (1-based) of the file at path, or "".
func sourceLine(path string, line int) string {
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

// byColumn keeps the locations of the lambda bodies when column is at or
// after the line's first lambda arrow, of the other methods otherwise.
func (d *debuggee) byColumn(ctx context.Context, locs []jdwp.Location, path string, line, column int) []jdwp.Location {
	cols := lambdaColumns(sourceLine(path, line))
	if len(cols) == 0 {
		return locs
	}
	inLambda := column >= cols[0]-3 // the arrow itself counts
	var out []jdwp.Location
	for _, loc := range locs {
		m, err := d.vm.Method(ctx, loc.Class, loc.Method)
		if err != nil {
			continue
		}
		if strings.HasPrefix(m.Name, "lambda$") == inLambda {
			out = append(out, loc)
		}
	}
	return out
}

func (s *session) breakpointLocations(ctx context.Context, r *godap.BreakpointLocationsRequest) (godap.BreakpointLocationsResponseBody, error) {
	d := s.dbg
	a := r.Arguments
	path := a.Source.Path
	if path == "" {
		return godap.BreakpointLocationsResponseBody{}, fmt.Errorf("source.path is required")
	}
	end := max(a.EndLine, a.Line)
	if end-a.Line > 10000 {
		end = a.Line + 10000
	}
	classes, err := d.classesOfSource(ctx, path)
	if err != nil {
		return godap.BreakpointLocationsResponseBody{}, err
	}
	out := []godap.BreakpointLocation{}
	for l := a.Line; l <= end; l++ {
		code := false
		for _, c := range classes {
			if locs, err := d.lineLocations(ctx, c, l); err == nil && len(locs) > 0 {
				code = true
				break
			}
		}
		if !code {
			continue
		}
		text := sourceLine(path, l)
		out = append(out, godap.BreakpointLocation{Line: l, Column: len(text) - len(strings.TrimLeft(text, " \t")) + 1})
		for _, c := range lambdaColumns(text) {
			out = append(out, godap.BreakpointLocation{Line: l, Column: c})
		}
	}
	return godap.BreakpointLocationsResponseBody{Breakpoints: out}, nil
}

// classesOfSource returns the loaded classes compiled from a source file.
func (d *debuggee) classesOfSource(ctx context.Context, path string) ([]jdwp.ReferenceTypeID, error) {
	top := classForSource(path)
	all, err := d.vm.AllClasses(ctx)
	if err != nil {
		return nil, fmt.Errorf("list loaded classes: %w", err)
	}
	f := &sourceFile{class: top}
	var out []jdwp.ReferenceTypeID
	for _, c := range all {
		if c.Status&jdwp.ClassPrepared != 0 && strings.HasPrefix(c.Signature, "L") && f.owns(javalang.TypeName(c.Signature)) {
			out = append(out, c.ID)
		}
	}
	return out, nil
}
