package dap

import (
	"context"
	"os"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// A breakpoint on a line without code (blank, a comment, a lone brace)
// moves to the next line with code, as Java IDEs do, when the class holding
// that code is loaded; the breakpoint event
// that verifies it carries the line it moved to. A line with code that no
// loaded class has is left alone: its code may be in a class not loaded yet
// (an anonymous class's body, say).

// noCodeLine reports whether line of the source at path holds no statement:
// blank, a comment, or braces only. An unreadable file says no.
func noCodeLine(path string, line int) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	if line < 1 || line > len(lines) {
		return false
	}
	l := strings.TrimSpace(lines[line-1])
	if l == "" || strings.HasPrefix(l, "//") || strings.HasPrefix(l, "/*") || strings.HasPrefix(l, "*") {
		return true
	}
	return strings.Trim(l, "{}); \t") == ""
}

// nextCodeLine returns the first line after line with code in class, with
// the locations to break at there, when every source line in between holds
// no code either (so the breakpoint does not jump into another method or a
// class not loaded yet); otherwise line and no locations.
func (d *debuggee) nextCodeLine(ctx context.Context, class jdwp.ReferenceTypeID, path string, line int) (int, []jdwp.Location, error) {
	ms, err := d.vm.Methods(ctx, class)
	if err != nil {
		return 0, nil, err
	}
	next := 0
	for _, m := range ms {
		if m.ModBits&(jdwp.AccNative|jdwp.AccAbstract) != 0 {
			continue
		}
		lt, err := d.vm.LineTable(ctx, class, m.ID)
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
		if !noCodeLine(path, l) {
			return line, nil, nil
		}
	}
	locs, err := d.lineLocations(ctx, class, next)
	return next, locs, err
}
