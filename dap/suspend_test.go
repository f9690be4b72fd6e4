package dap

import (
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// TestConditionManyThreads has four pool threads hit a breakpoint whose
// condition calls methods, together, round after round: a condition that
// never holds lets the program run to its end, a logpoint calling methods
// prints every hit, and a condition that holds for one worker stops there
// each round. Run with -count=20: it must never freeze.
func TestConditionManyThreads(t *testing.T) {
	file := source(t, "Orders.java")
	t.Run("never", func(t *testing.T) {
		c := startSession(t, Config{})
		c.initialize()
		c.launch(launchArgs(t, "Orders", "args", "5"))
		c.setBreakpoints(file, bp(t, "Orders.java", "hit", "condition", "order.total() > 100000 && order.customer().length() > 0"))
		c.configurationDone()
		expect[*godap.BreakpointEvent](c)
		c.expectEnd(0)
		if !strings.Contains(c.out.String(), "ORDERS-DONE") {
			t.Errorf("output %q", c.out.String())
		}
	})
	t.Run("logpoint", func(t *testing.T) {
		c := startSession(t, Config{})
		c.initialize()
		c.launch(launchArgs(t, "Orders", "args", "5"))
		c.setBreakpoints(file, bp(t, "Orders.java", "hit", "logMessage", "order {order.id()} total {order.total()} kind {order.kind()}"))
		c.configurationDone()
		expect[*godap.BreakpointEvent](c)
		c.expectEnd(0)
		out := c.out.String()
		if n := strings.Count(out, "order "); n != 20 || !strings.Contains(out, "order 302 total 309 kind LARGE") {
			t.Errorf("%d log lines in %q", n, out)
		}
	})
	t.Run("stops", func(t *testing.T) {
		c := startSession(t, Config{})
		c.initialize()
		c.launch(launchArgs(t, "Orders", "args", "3"))
		c.setBreakpoints(file, bp(t, "Orders.java", "hit", "condition", "order.total() > 250 && order.customer().equals(\"c3\")"))
		c.configurationDone()
		expect[*godap.BreakpointEvent](c)
		for round := 0; round < 3; round++ {
			th := c.expectStop("breakpoint").Body.ThreadId
			frames := c.stackTrace(th)
			frameAt(t, frames[0], "Orders.work", line(t, "Orders.java", "hit"))
			if v := c.evaluate(frames[0].Id, "order.id()").Result; v != []string{"300", "301", "302"}[round] {
				t.Errorf("round %d: order.id() = %s", round, v)
			}
			c.send("continue", map[string]any{"threadId": th})
			expect[*godap.ContinueResponse](c)
		}
		c.expectEnd(0)
	})
}
