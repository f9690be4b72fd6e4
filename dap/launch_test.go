package dap

import (
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// TestLaunchMessageOrder drives a launch from initialize to exit and checks
// every message in order: a breakpoint in the main class (loaded before
// launch answers) is verified at once; breakpoints in classes not loaded
// yet start unverified and are verified by breakpoint events when their
// class loads.
func TestLaunchMessageOrder(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Basic"))

	bps := c.setBreakpoints(source(t, "Basic.java"), bp(t, "Basic.java", "call-add"))
	if len(bps) != 1 || !bps[0].Verified || bps[0].Line != line(t, "Basic.java", "call-add") {
		t.Fatalf("Basic breakpoint: %+v", bps)
	}
	later := c.setBreakpoints(source(t, "Later.java"), bp(t, "Later.java", "later"), bp(t, "Later.java", "inner"))
	if len(later) != 2 || later[0].Verified || later[1].Verified {
		t.Fatalf("Later breakpoints: %+v", later)
	}
	c.configurationDone()

	stop := c.expectStop("breakpoint")
	if len(stop.Body.HitBreakpointIds) != 1 || stop.Body.HitBreakpointIds[0] != bps[0].Id {
		t.Fatalf("stopped at breakpoints %v, want [%d]", stop.Body.HitBreakpointIds, bps[0].Id)
	}
	c.send("threads", nil)
	threads := expect[*godap.ThreadsResponse](c).Body.Threads
	found := false
	for _, th := range threads {
		if th.Id == stop.Body.ThreadId {
			found = th.Name == "main (breakpoint)"
			if !found {
				t.Errorf("stopped thread is %q", th.Name)
			}
		}
	}
	if !found {
		t.Fatalf("thread %d not among %+v", stop.Body.ThreadId, threads)
	}
	frames := c.stackTrace(stop.Body.ThreadId)
	frameAt(t, frames[0], "Basic.main", line(t, "Basic.java", "call-add"))
	if frames[0].Source == nil || frames[0].Source.Path != source(t, "Basic.java") {
		t.Errorf("source of the top frame: %+v", frames[0].Source)
	}

	c.send("continue", map[string]any{"threadId": stop.Body.ThreadId})
	if !expect[*godap.ContinueResponse](c).Body.AllThreadsContinued {
		t.Error("continue did not say all threads continued")
	}
	// Later loads: both of its breakpoints (one in the nested class) turn verified.
	ev := expect[*godap.BreakpointEvent](c)
	if ev.Body.Breakpoint.Id != later[0].Id || !ev.Body.Breakpoint.Verified {
		t.Fatalf("breakpoint event for Later: %s", mustJSON(ev.Body))
	}
	stop = c.expectStop("breakpoint")
	frames = c.stackTrace(stop.Body.ThreadId)
	frameAt(t, frames[0], "Later.run", line(t, "Later.java", "later"))
	frameAt(t, frames[1], "Basic.main", line(t, "Basic.java", "call-later"))

	c.send("continue", map[string]any{"threadId": stop.Body.ThreadId})
	expect[*godap.ContinueResponse](c)
	ev = expect[*godap.BreakpointEvent](c)
	if ev.Body.Breakpoint.Id != later[1].Id || !ev.Body.Breakpoint.Verified {
		t.Fatalf("breakpoint event for Later.Inner: %s", mustJSON(ev.Body))
	}
	stop = c.expectStop("breakpoint")
	frameAt(t, c.stackTrace(stop.Body.ThreadId)[0], "Later$Inner.touch", line(t, "Later.java", "inner"))
	c.send("continue", map[string]any{"threadId": stop.Body.ThreadId})
	expect[*godap.ContinueResponse](c)
	c.expectEnd(0)
	if !strings.Contains(c.out.String(), "done 20 50") {
		t.Errorf("program output %q lacks its last line", c.out.String())
	}
	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
}

// TestStepping steps into, over and out of methods.
func TestStepping(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Basic"))
	c.setBreakpoints(source(t, "Basic.java"), bp(t, "Basic.java", "call-add"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId

	step := func(command string, name, marker string, offset int) {
		t.Helper()
		c.send(command, map[string]any{"threadId": th})
		if r := expect[godap.ResponseMessage](c).GetResponse(); !r.Success || r.Command != command {
			t.Fatalf("%s: response %+v", command, r)
		}
		c.expectStop("step")
		frameAt(t, c.stackTrace(th)[0], name, line(t, "Basic.java", marker)+offset)
	}
	step("stepIn", "Basic.add", "add-first", 0)
	step("next", "Basic.add", "add-first", 1)
	step("next", "Basic.add", "add-return", 0)
	step("stepOut", "Basic.main", "call-add", 0)
	step("next", "Basic.main", "call-twice", 0)
	step("stepIn", "Basic.twice", "twice-first", 0)
	step("stepOut", "Basic.main", "call-twice", 0)
	step("next", "Basic.main", "loop", -1)
	// Step into a JDK method is skipped: println's argument building runs
	// StringBuilder code, which step-into passes over.
	c.send("disconnect", map[string]any{"terminateDebuggee": true})
	expect[*godap.DisconnectResponse](c)
}

// TestStopOnEntry stops at the first line of main.
func TestStopOnEntry(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Basic", "stopOnEntry", true))
	c.configurationDone()
	stop := c.expectStop("entry")
	frameAt(t, c.stackTrace(stop.Body.ThreadId)[0], "Basic.main", line(t, "Basic.java", "main-first"))
	c.send("continue", map[string]any{"threadId": stop.Body.ThreadId})
	expect[*godap.ContinueResponse](c)
	c.expectEnd(0)
}

// TestConditionHitLog covers a conditional breakpoint, a hit count and a
// logpoint on one line, replaced in turn while stopped.
func TestConditionHitLog(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Basic"))
	file := source(t, "Basic.java")
	c.setBreakpoints(file, bp(t, "Basic.java", "loop", "condition", "i == 3 && counter > 5"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	locals, frames := c.locals(th)
	if locals["i"].Value != "3" || locals["counter"].Value != "" {
		// counter is a static, not a local
		if locals["i"].Value != "3" {
			t.Fatalf("stopped with i = %s, want 3", locals["i"].Value)
		}
	}
	if r := c.evaluate(frames[0].Id, "counter + i * 10"); r.Result != "38" || r.Type != "int" {
		t.Errorf("counter + i * 10 = %s (%s), want 38", r.Result, r.Type)
	}

	// Hit count: the second hit from now is i == 5.
	bps := c.setBreakpoints(file, bp(t, "Basic.java", "loop", "hitCondition", "2"))
	if !bps[0].Verified {
		t.Fatalf("hit-count breakpoint: %+v", bps[0])
	}
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	c.expectStop("breakpoint")
	if locals, _ := c.locals(th); locals["i"].Value != "5" {
		t.Fatalf("hit condition 2 stopped with i = %s, want 5", locals["i"].Value)
	}

	// A logpoint prints and never stops.
	c.setBreakpoints(file, bp(t, "Basic.java", "loop", "logMessage", "i={i} counter={counter} half={i / 2.0} {missing}"))
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	var logs []string
	c.skip["output"] = false
	c.skip["thread"] = true
	for {
		m := c.next()
		if o, ok := m.(*godap.OutputEvent); ok {
			if o.Body.Category == "console" {
				logs = append(logs, strings.TrimSpace(o.Body.Output))
				if o.Body.Source == nil || o.Body.Line != line(t, "Basic.java", "loop") {
					t.Errorf("logpoint output without its location: %s", mustJSON(o.Body))
				}
			}
			continue
		}
		if _, ok := m.(*godap.ExitedEvent); !ok {
			t.Fatalf("got %s while logging", mustJSON(m))
		}
		break
	}
	expect[*godap.TerminatedEvent](c)
	want := []string{"i=6 counter=20 half=3.0", "i=7 counter=26 half=3.5", "i=8 counter=33 half=4.0", "i=9 counter=41 half=4.5"}
	if len(logs) != len(want) {
		t.Fatalf("logpoint printed %q", logs)
	}
	for i, w := range want {
		if !strings.HasPrefix(logs[i], w+" {missing: ") {
			t.Errorf("log %d: %q, want %q and an error for {missing}", i, logs[i], w)
		}
	}
}

// TestUncaughtException stops on the uncaught exception only, then the program dies of it.
func TestUncaughtException(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Boom"))
	c.send("setExceptionBreakpoints", map[string]any{"filters": []string{"uncaught"}})
	expect[*godap.SetExceptionBreakpointsResponse](c)
	c.configurationDone()
	stop := c.expectStop("exception")
	if stop.Body.Text != "java.lang.IllegalStateException: boom: on purpose" {
		t.Errorf("exception text %q", stop.Body.Text)
	}
	frames := c.stackTrace(stop.Body.ThreadId)
	frameAt(t, frames[0], "Boom.fail", line(t, "Boom.java", "throw"))
	frameAt(t, frames[1], "Boom.middle", line(t, "Boom.java", "throw")+4)
	c.send("exceptionInfo", map[string]any{"threadId": stop.Body.ThreadId})
	info := expect[*godap.ExceptionInfoResponse](c).Body
	if info.ExceptionId != "java.lang.IllegalStateException" || info.Description != "boom: on purpose" {
		t.Errorf("exceptionInfo %+v", info)
	}
	c.send("continue", map[string]any{"threadId": stop.Body.ThreadId})
	expect[*godap.ContinueResponse](c)
	c.expectEnd(1)
	if out := c.out.String(); !strings.Contains(out, "caught boom: caught") || !strings.Contains(out, "Exception in thread \"main\" java.lang.IllegalStateException: boom: on purpose") {
		t.Errorf("output:\n%s", out)
	}
}
