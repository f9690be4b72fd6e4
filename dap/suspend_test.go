package dap

import (
	"strings"
	"testing"
	"time"

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

// others are the threads respond saw stop besides the one it was asked about.
var others = map[int]bool{}

// respond reads messages until a response of type T and returns it with
// the stops of thread th it passed (other threads' stops are left stopped:
// the next resume lets them go).
func respond[T godap.ResponseMessage](c *client, th int) (T, []*godap.StoppedEvent) {
	c.t.Helper()
	var mine []*godap.StoppedEvent
	for {
		switch m := c.next().(type) {
		case T:
			return m, mine
		case *godap.StoppedEvent:
			if m.Body.ThreadId == th {
				mine = append(mine, m)
			} else {
				others[m.Body.ThreadId] = true
			}
		case *godap.ErrorResponse:
			c.t.Fatalf("error response %s", mustJSON(m))
		}
	}
}

// awaitStop reads messages until thread th stops, continuing the other
// threads that stop meanwhile.
func awaitStop(c *client, th int) *godap.StoppedEvent {
	c.t.Helper()
	for {
		switch m := c.next().(type) {
		case *godap.StoppedEvent:
			if m.Body.ThreadId == th {
				return m
			}
			c.send("continue", map[string]any{"threadId": m.Body.ThreadId})
		case *godap.ContinueResponse:
		case *godap.ErrorResponse:
			c.t.Fatalf("error response %s", mustJSON(m))
		case *godap.TerminatedEvent:
			c.t.Fatalf("the program ended before thread %d stopped", th)
		}
	}
}

// TestStepInThreadPool steps through a method all four pool threads run at
// once, with a breakpoint in it, stopping only the thread that hits
// (suspendAllThreads false): the other threads' hits are reported (and
// continued, each alone) and every step of the first thread completes, on
// the next line.
func TestStepInThreadPool(t *testing.T) {
	file := source(t, "Orders.java")
	clear(others)
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Orders", "args", "2", "suspendAllThreads", false))
	c.setBreakpoints(file, bp(t, "Orders.java", "step-a"))
	c.configurationDone()
	first := expect[*godap.StoppedEvent](c)
	if first.Body.Reason != "breakpoint" || first.Body.AllThreadsStopped {
		t.Fatalf("stopped %s, want a breakpoint stopping its thread alone", mustJSON(first.Body))
	}
	th := first.Body.ThreadId
	for _, want := range []string{"step-b", "step-c", "step-d"} {
		c.send("next", map[string]any{"threadId": th})
		_, stops := respond[*godap.NextResponse](c, th)
		if len(stops) == 0 {
			stops = append(stops, awaitStop(c, th))
		}
		if s := stops[0].Body; s.Reason != "step" || len(stops) != 1 {
			t.Fatalf("after next: stops %s, want one step", mustJSON(stops))
		}
		c.send("stackTrace", map[string]any{"threadId": th})
		r, _ := respond[*godap.StackTraceResponse](c, th)
		frameAt(t, r.Body.StackFrames[0], "Orders.step", line(t, "Orders.java", want))
	}
	c.send("setBreakpoints", map[string]any{"source": map[string]any{"path": file}, "breakpoints": []any{}})
	respond[*godap.SetBreakpointsResponse](c, th)
	others[th] = true
	for o := range others {
		c.send("continue", map[string]any{"threadId": o})
		if r, _ := respond[*godap.ContinueResponse](c, th); r.Body.AllThreadsContinued {
			t.Errorf("continue of thread %d alone: %s", o, mustJSON(r.Body))
		}
	}
	for {
		if _, ok := c.next().(*godap.ExitedEvent); ok {
			break
		}
	}
}

// TestStepInThreadPoolAllSuspended steps a pool thread while the other
// three hit a breakpoint in the same method, every stop suspending the VM:
// each other thread's hit is reported and continued, and the step is not
// dropped: it ends in a step stop of its own thread.
func TestStepInThreadPoolAllSuspended(t *testing.T) {
	file := source(t, "Orders.java")
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Orders", "args", "2"))
	c.setBreakpoints(file, bp(t, "Orders.java", "step-a"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	c.send("next", map[string]any{"threadId": th})
	// Stops read while a resume's response is awaited were resumed by it.
	pending, interrupted := 1, 0
	for {
		switch m := c.next().(type) {
		case *godap.NextResponse, *godap.ContinueResponse:
			pending--
			continue
		case *godap.StoppedEvent:
			if m.Body.ThreadId == th {
				if m.Body.Reason != "step" {
					t.Fatalf("thread %d stopped %s, want the end of its step", th, mustJSON(m.Body))
				}
				t.Logf("the step completed after %d other threads' stops", interrupted)
				c.send("setBreakpoints", map[string]any{"source": map[string]any{"path": file}, "breakpoints": []any{}})
				respond[*godap.SetBreakpointsResponse](c, th)
				// One continue resumes every stop reported so far; stops
				// already on their way are continued too (a continue that
				// finds the VM running fails harmlessly).
				c.send("continue", map[string]any{"threadId": th})
				for {
					switch m := c.next().(type) {
					case *godap.ExitedEvent:
						return
					case *godap.StoppedEvent:
						c.send("continue", map[string]any{"threadId": m.Body.ThreadId})
					}
				}
			}
			interrupted++
			if pending == 0 {
				c.send("continue", map[string]any{"threadId": m.Body.ThreadId})
				pending++
			}
		case *godap.ErrorResponse:
			t.Fatalf("error response %s", mustJSON(m))
		case *godap.TerminatedEvent:
			t.Fatalf("the program ended and thread %d's step never did", th)
		}
	}
}

// TestConditionBlockedByLock stops a pool thread inside its synchronized
// block, stopping only that thread, while another thread keeps hitting a
// breakpoint whose condition calls a method that needs the same lock: the
// condition times out with a message saying so instead of freezing, the
// stopped thread can still be inspected, an evaluation that blocks the same
// way and is cancelled leaves the thread with errors in words until the
// method returns, and the program runs to its end once continued.
func TestConditionBlockedByLock(t *testing.T) {
	file := source(t, "Orders.java")
	c := startSession(t, Config{EvalTimeout: 2 * time.Second})
	c.initialize()
	c.launch(launchArgs(t, "Orders", "args", []string{"1", "audit"}, "suspendAllThreads", false))
	c.setBreakpoints(file, bp(t, "Orders.java", "ledger"), bp(t, "Orders.java", "audit", "condition", "Orders.ledgerNow() < 0"))
	c.configurationDone()
	var x int
	for x == 0 {
		if e, ok := c.next().(*godap.StoppedEvent); ok {
			x = e.Body.ThreadId
		}
	}
	// The auditor's condition now waits for the lock x holds.
	c.skip["output"] = false
	for {
		if o, ok := c.next().(*godap.OutputEvent); ok && strings.Contains(o.Body.Output, "did not finish") {
			if !strings.Contains(o.Body.Output, "Orders.ledgerNow()") && !strings.Contains(o.Body.Output, "ledgerNow") {
				t.Errorf("timeout message %q does not name the method", o.Body.Output)
			}
			break
		}
	}
	c.skip["output"] = true
	frames := c.stackTrace(x)
	frameAt(t, frames[0], "Orders.work", line(t, "Orders.java", "ledger"))
	if v := c.evaluate(frames[0].Id, "order.total() + 0").Result; v == "" {
		t.Errorf("evaluate in the stopped thread: empty")
	}
	c.send("continue", map[string]any{"threadId": x})
	// The others stop in the synchronized block in turn; the auditor never does.
	for {
		switch m := c.next().(type) {
		case *godap.StoppedEvent:
			if m.Body.Reason != "breakpoint" || len(m.Body.HitBreakpointIds) != 1 || m.Body.HitBreakpointIds[0] != 1 {
				t.Fatalf("stop %s, want the synchronized block's breakpoint", mustJSON(m.Body))
			}
			c.send("continue", map[string]any{"threadId": m.Body.ThreadId})
		case *godap.ExitedEvent:
			if m.Body.ExitCode != 0 {
				t.Errorf("exit code %d", m.Body.ExitCode)
			}
			return
		case *godap.ErrorResponse:
			t.Fatalf("error response %s", mustJSON(m))
		}
	}
}

// TestThisOnce stops in an instance method of a record compiled with -g,
// where javac lists this among the local variables: Locals shows it once.
func TestThisOnce(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Orders", "args", "1"))
	c.setBreakpoints(source(t, "Orders.java"), bp(t, "Orders.java", "total", "condition", "id == 300"))
	c.configurationDone()
	th := until[*godap.StoppedEvent](c, "a stop in Order.total", nil).Body.ThreadId
	locals, frames := c.locals(th)
	frameAt(t, frames[0], frames[0].Name, line(t, "Orders.java", "total"))
	c.send("scopes", map[string]any{"frameId": frames[0].Id})
	n := 0
	for _, v := range c.variables(expect[*godap.ScopesResponse](c).Body.Scopes[0].VariablesReference) {
		if v.Name == "this" {
			n++
		}
	}
	if n != 1 || !strings.Contains(locals["this"].Value, "Order") {
		t.Errorf("%d variables named this; Locals %s", n, mustJSON(locals))
	}
	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
}

// TestBreakpointOnLineWithoutCode moves breakpoints on comment lines to the
// next line with code: at once in the loaded main class, and by a breakpoint
// event when the nested record class loads.
func TestBreakpointOnLineWithoutCode(t *testing.T) {
	file := source(t, "Orders.java")
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Orders", "args", "1"))
	bps := c.setBreakpoints(file,
		bp(t, "Orders.java", "gap-work", "condition", "worker == 2"),
		bp(t, "Orders.java", "gap-kind", "condition", "id == 200"))
	work, kind := line(t, "Orders.java", "gap-work"), line(t, "Orders.java", "gap-kind")
	if len(bps) != 2 || !bps[0].Verified || bps[0].Line != work+1 || bps[1].Verified {
		t.Fatalf("breakpoints %s: want the first moved to line %d, the second waiting for its class", mustJSON(bps), work+1)
	}
	c.configurationDone()
	seen, moved := map[int]bool{}, false
	for len(seen) < 2 {
		switch m := c.next().(type) {
		case *godap.BreakpointEvent:
			if b := m.Body.Breakpoint; b.Id != bps[1].Id || !b.Verified || b.Line != kind+1 {
				t.Fatalf("breakpoint event %s, want id %d verified at line %d", mustJSON(m.Body), bps[1].Id, kind+1)
			}
			if seen[kind+1] {
				t.Fatalf("the breakpoint event came after the stop")
			}
			moved = true
		case *godap.StoppedEvent:
			f := c.stackTrace(m.Body.ThreadId)[0]
			seen[f.Line] = true
			if f.Line != work+1 && f.Line != kind+1 {
				t.Fatalf("stopped at %s:%d", f.Name, f.Line)
			}
			c.send("continue", map[string]any{"threadId": m.Body.ThreadId})
		case *godap.TerminatedEvent:
			t.Fatalf("ended having stopped at lines %v", seen)
		}
	}
	if !moved {
		t.Error("no breakpoint event for the record's breakpoint")
	}
}

// TestAbandonedEvaluation runs an evaluation whose method waits for a lock
// another stopped thread holds, past the request's deadline: the request
// fails saying the method goes on running, the thread's evaluations fail in
// words while it runs, and the thread is back, stopped, once the lock is
// released and the method returns. (A cancelled evaluate takes the same
// path.)
func TestAbandonedEvaluation(t *testing.T) {
	file := source(t, "Orders.java")
	c := startSession(t, Config{RequestTimeout: 5 * time.Second})
	c.initialize()
	c.launch(launchArgs(t, "Orders", "args", "1", "suspendAllThreads", false))
	c.setBreakpoints(file, bp(t, "Orders.java", "ledger"), bp(t, "Orders.java", "hit", "condition", "worker == 0"))
	c.configurationDone()
	var stops []int
	for len(stops) < 2 {
		if e, ok := c.next().(*godap.StoppedEvent); ok {
			stops = append(stops, e.Body.ThreadId)
		}
	}
	// The others wait for the lock: no more events until x goes on.
	x, y := stops[0], stops[1]
	if f := c.stackTrace(x)[0]; f.Line != line(t, "Orders.java", "ledger") {
		x, y = y, x
	}
	yf := c.stackTrace(y)[0]
	frameAt(t, yf, "Orders.work", line(t, "Orders.java", "hit"))
	if _, e := c.evaluateIn(yf.Id, "repl", "Orders.ledgerNow()"); e == nil || !strings.Contains(e.Body.Error.Format, "goes on running") {
		t.Fatalf("evaluate of a method that waits for a lock: %s", mustJSON(e))
	}
	if _, e := c.evaluateIn(yf.Id, "repl", "Orders.ledgerNow() + 1"); e == nil || !strings.Contains(e.Body.Error.Format, "still running a method of an evaluation that was cancelled or timed out") {
		t.Fatalf("evaluate while the cancelled one runs: %s", mustJSON(e))
	}
	// Let the lock go: no more stops in the synchronized block.
	c.setBreakpoints(file)
	c.send("continue", map[string]any{"threadId": x})
	expect[*godap.ContinueResponse](c)
	deadline := time.Now().Add(60 * time.Second)
	for done := false; !done; {
		if time.Now().After(deadline) {
			t.Fatal("the thread did not come back from the abandoned evaluation")
		}
		seq := c.send("stackTrace", map[string]any{"threadId": y})
		var st *godap.StackTraceResponse
		for st == nil {
			switch m := c.next().(type) {
			case *godap.StackTraceResponse:
				st = m
			case *godap.ErrorResponse:
				if m.RequestSeq != seq {
					continue
				}
				// Explained in words: the method still running, or (as
				// it returns, before the VM suspends the thread again)
				// the thread running.
				if f := m.Body.Error.Format; !strings.Contains(f, "still running a method of an evaluation") && !strings.Contains(f, "(the thread is running") {
					t.Fatalf("stackTrace while the method runs: %s", mustJSON(m))
				}
				if time.Now().After(deadline) {
					t.Fatal("the thread did not come back from the abandoned evaluation")
				}
				time.Sleep(20 * time.Millisecond)
				seq = c.send("stackTrace", map[string]any{"threadId": y})
			}
		}
		yf = st.Body.StackFrames[0]
		frameAt(t, yf, "Orders.work", line(t, "Orders.java", "hit"))
		seq = c.send("evaluate", map[string]any{"expression": "Orders.ledgerNow() >= 0", "frameId": yf.Id, "context": "repl"})
	read:
		for {
			switch m := c.next().(type) {
			case *godap.EvaluateResponse:
				if m.Body.Result != "true" {
					t.Errorf("evaluate after the method returned: %s", m.Body.Result)
				}
				done = true
				break read
			case *godap.ErrorResponse:
				if m.RequestSeq == seq {
					break read
				}
			}
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the thread did not come back from the cancelled evaluation")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.send("disconnect", nil)
	for {
		if _, ok := c.next().(*godap.DisconnectResponse); ok {
			break
		}
	}
}

// TestLambdaSteps steps into a lambda a stream calls and out of it again:
// into the lambda's body (not the hidden proxy class, not the JDK), and
// back out to the program's line (not the stream's internals).
func TestLambdaSteps(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Orders", "args", "1"))
	c.setBreakpoints(source(t, "Orders.java"), bp(t, "Orders.java", "stream", "condition", "worker == 1"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	c.setBreakpoints(source(t, "Orders.java"))
	stream := line(t, "Orders.java", "stream")
	c.send("stepIn", map[string]any{"threadId": th})
	expect[*godap.StepInResponse](c)
	c.expectStop("step")
	frames := c.stackTrace(th)
	top := frames[0]
	if !strings.HasPrefix(top.Name, "Orders.lambda$work$") || top.Line != stream {
		t.Fatalf("stepIn stopped in %s:%d, want the lambda at line %d", top.Name, top.Line, stream)
	}
	// The lambda's proxy frame is named after its class, never an address.
	proxies := 0
	for _, f := range frames {
		if strings.Contains(f.Name, "0x") || f.Source != nil && strings.Contains(f.Source.Name, "0x") {
			t.Errorf("frame %q (source %s) shows an address", f.Name, mustJSON(f.Source))
		}
		if strings.HasPrefix(f.Name, "Orders$$Lambda") {
			proxies++
		}
	}
	if proxies == 0 {
		t.Errorf("no Orders$$Lambda proxy frame among %s", mustJSON(frames))
	}
	c.send("stepOut", map[string]any{"threadId": th})
	expect[*godap.StepOutResponse](c)
	c.expectStop("step")
	frameAt(t, c.stackTrace(th)[0], "Orders.work", stream)
	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
}

// TestColumnBreakpoints lists the breakpoint locations of a line holding a
// lambda (the line, and the lambda's body) and stops at each: a breakpoint
// at the line's start in the enclosing method only, one at the lambda in the
// lambda only.
func TestColumnBreakpoints(t *testing.T) {
	file := source(t, "Orders.java")
	stream := line(t, "Orders.java", "stream")
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Orders", "args", "1"))
	c.send("breakpointLocations", map[string]any{"source": map[string]any{"path": file}, "line": stream})
	locs := expect[*godap.BreakpointLocationsResponse](c).Body.Breakpoints
	if len(locs) != 2 || locs[0].Line != stream || locs[1].Line != stream || locs[1].Column <= locs[0].Column {
		t.Fatalf("breakpoint locations of line %d: %s", stream, mustJSON(locs))
	}
	bps := c.setBreakpoints(file,
		map[string]any{"line": stream, "column": locs[0].Column, "condition": "worker == 1"},
		map[string]any{"line": stream, "column": locs[1].Column, "condition": "worker == 1 && i == 2"})
	if len(bps) != 2 || !bps[0].Verified || !bps[1].Verified {
		t.Fatalf("column breakpoints %s", mustJSON(bps))
	}
	c.configurationDone()
	for _, want := range []string{"Orders.work", "Orders.lambda$work$"} {
		ev := c.expectStop("breakpoint")
		th := ev.Body.ThreadId
		top := c.stackTrace(th)[0]
		if !strings.HasPrefix(top.Name, want) || top.Line != stream || len(ev.Body.HitBreakpointIds) != 1 {
			t.Fatalf("stopped in %s:%d (breakpoints %v), want %s at line %d", top.Name, top.Line, ev.Body.HitBreakpointIds, want, stream)
		}
		c.send("continue", map[string]any{"threadId": th})
		expect[*godap.ContinueResponse](c)
	}
	c.expectEnd(0)
}
