package dap

import (
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// TestInlineBreakpoints sets a breakpoint at the column of one lambda of a
// line holding several (a stream chain), and of lambdas nested in one
// another (p -> q -> p + q): each stops in its own lambda only, as many
// times as that lambda runs, with its own parameter in scope.
func TestInlineBreakpoints(t *testing.T) {
	file := source(t, "Inline.java")
	chain, nested := line(t, "Inline.java", "chain"), line(t, "Inline.java", "nested")
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Inline"))
	cols := func(l int) []int {
		c.send("breakpointLocations", map[string]any{"source": map[string]any{"path": file}, "line": l})
		var out []int
		for _, b := range expect[*godap.BreakpointLocationsResponse](c).Body.Breakpoints {
			out = append(out, b.Column)
		}
		return out
	}
	ch, ne := cols(chain), cols(nested)
	if len(ch) != 4 || len(ne) != 3 {
		t.Fatalf("breakpoint locations: line %d %v (want the line and 3 lambdas), line %d %v (the line and 2)", chain, ch, nested, ne)
	}
	// filter's lambda (y), and the inner lambda of the nested pair (q).
	bps := c.setBreakpoints(file,
		map[string]any{"line": chain, "column": ch[2]},
		map[string]any{"line": nested, "column": ne[2]})
	if len(bps) != 2 || !bps[0].Verified || !bps[1].Verified {
		t.Fatalf("inline breakpoints %s", mustJSON(bps))
	}
	c.configurationDone()
	type stop struct {
		line  int
		param string
	}
	want := []stop{{chain, "y"}, {chain, "y"}, {chain, "y"}, {nested, "q"}}
	for i, w := range want {
		ev := c.expectStop("breakpoint")
		th := ev.Body.ThreadId
		vars, frames := c.locals(th)
		top := frames[0]
		if !strings.Contains(top.Name, "lambda$") || top.Line != w.line {
			t.Fatalf("stop %d in %s:%d, want a lambda at line %d", i+1, top.Name, top.Line, w.line)
		}
		_, param := vars[w.param]
		_, x := vars["x"]
		_, z := vars["z"]
		if !param || x || z {
			t.Fatalf("stop %d at line %d: locals %s, want %s's lambda", i+1, w.line, mustJSON(vars), w.param)
		}
		c.send("continue", map[string]any{"threadId": th})
		expect[*godap.ContinueResponse](c)
	}
	c.expectEnd(0)
}
