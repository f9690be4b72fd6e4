package debugger

import (
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// firstBodyLine on fetchOne's line table as kotlinc 2 writes it (header
// line 100 at the dispatch and after each suspension, the body's lines
// between), and on a body that shares the header's line.
func TestFirstBodyLine(t *testing.T) {
	fetchOne := []jdwp.LineEntry{{CodeIndex: 60, Line: 100}, {CodeIndex: 92, Line: 101}, {CodeIndex: 116, Line: 100}, {CodeIndex: 130, Line: 102}, {CodeIndex: 136, Line: 103}, {CodeIndex: 141, Line: 100}}
	if idx, line := firstBodyLine(fetchOne, 60, 100); idx != 92 || line != 101 {
		t.Errorf("fetchOne: %d at line %d, want 92 at line 101", idx, line)
	}
	oneLine := []jdwp.LineEntry{{CodeIndex: 0, Line: 7}, {CodeIndex: 40, Line: 7}}
	if idx, line := firstBodyLine(oneLine, 0, 7); idx != 0 || line != 7 {
		t.Errorf("one line: %d at line %d, want the header's 0 at line 7", idx, line)
	}
}
