package dap

import (
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// TestFunctionBreakpoints sets function breakpoints by simple name, with
// Java and JNI signatures, in classes that load later, and stops in each.
func TestFunctionBreakpoints(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Basic"))
	c.send("setFunctionBreakpoints", map[string]any{"breakpoints": []map[string]any{
		{"name": "Basic.twice", "condition": "x > 5"},
		{"name": "Later.run(int)"},
		{"name": "Later.Inner.touch(I)V"},
		{"name": "Basic.add(String)"},
		{"name": "nonsense"},
	}})
	bps := expect[*godap.SetFunctionBreakpointsResponse](c).Body.Breakpoints
	if len(bps) != 5 || !bps[0].Verified || !strings.Contains(bps[1].Message, "when one loads") || !strings.Contains(bps[4].Message, "Class.method") {
		t.Fatalf("function breakpoints %s", mustJSON(bps))
	}
	c.configurationDone()
	stopIn := func(id int, name, file, marker string) int {
		t.Helper()
		if id == bps[0].Id { // in the main class: verified when set
			stop := c.expectStop("function breakpoint")
			frameAt(t, c.stackTrace(stop.Body.ThreadId)[0], name, line(t, file, marker))
			c.send("continue", map[string]any{"threadId": stop.Body.ThreadId})
			expect[*godap.ContinueResponse](c)
			return stop.Body.ThreadId
		}
		ev := expect[*godap.BreakpointEvent](c)
		if ev.Body.Breakpoint.Id != id || !ev.Body.Breakpoint.Verified || ev.Body.Breakpoint.Line != line(t, file, marker) ||
			ev.Body.Breakpoint.Source == nil || ev.Body.Breakpoint.Source.Path != source(t, file) {
			t.Fatalf("breakpoint event %s", mustJSON(ev.Body))
		}
		stop := c.expectStop("function breakpoint")
		if len(stop.Body.HitBreakpointIds) != 1 || stop.Body.HitBreakpointIds[0] != id {
			t.Errorf("stop %+v", stop.Body)
		}
		frameAt(t, c.stackTrace(stop.Body.ThreadId)[0], name, line(t, file, marker))
		c.send("continue", map[string]any{"threadId": stop.Body.ThreadId})
		expect[*godap.ContinueResponse](c)
		return stop.Body.ThreadId
	}
	stopIn(bps[0].Id, "Basic.twice", "Basic.java", "twice-first")
	stopIn(bps[1].Id, "Later.run", "Later.java", "later")
	stopIn(bps[2].Id, "Later$Inner.touch", "Later.java", "inner")
	c.expectEnd(0)
}

// TestDataBreakpoints watches a field of one object for writes, then for
// reads, and tells what changed.
func TestDataBreakpoints(t *testing.T) {
	c := startSession(t, Config{})
	th, top := stopAt(t, c, "Engine", "Engine.java", "work")
	c.send("scopes", map[string]any{"frameId": top.Id})
	scopes := expect[*godap.ScopesResponse](c).Body.Scopes
	locals := byName(c.variables(scopes[0].VariablesReference))
	info := func(ref int, name string) godap.DataBreakpointInfoResponseBody {
		t.Helper()
		c.send("dataBreakpointInfo", map[string]any{"variablesReference": ref, "name": name})
		return expect[*godap.DataBreakpointInfoResponse](c).Body
	}
	if b := info(scopes[0].VariablesReference, "local"); b.DataId != nil || !strings.Contains(b.Description, "only fields") {
		t.Errorf("data breakpoint on a local: %+v", b)
	}
	if b := info(scopes[1].VariablesReference, "count"); b.DataId == nil || b.Description != "Engine.count" {
		t.Errorf("data breakpoint on a static: %+v", b)
	}
	value := info(locals["this"].VariablesReference, "value")
	if value.DataId == nil || !strings.HasPrefix(value.Description, "Engine.value of (id=") || len(value.AccessTypes) != 3 {
		t.Fatalf("data breakpoint info for this.value: %+v", value)
	}
	setData := func(access string) int {
		t.Helper()
		c.send("setDataBreakpoints", map[string]any{"breakpoints": []map[string]any{{"dataId": value.DataId, "accessType": access}}})
		bps := expect[*godap.SetDataBreakpointsResponse](c).Body.Breakpoints
		if len(bps) != 1 || !bps[0].Verified {
			t.Fatalf("data breakpoints %s", mustJSON(bps))
		}
		return bps[0].Id
	}
	id := setData("write")
	next := func(marker, text string) {
		t.Helper()
		c.send("continue", map[string]any{"threadId": th})
		expect[*godap.ContinueResponse](c)
		stop := c.expectStop("data breakpoint")
		if stop.Body.Text != text || len(stop.Body.HitBreakpointIds) != 1 || stop.Body.HitBreakpointIds[0] != id {
			t.Errorf("stop %+v, want text %q", stop.Body, text)
		}
		frameAt(t, c.stackTrace(stop.Body.ThreadId)[0], c.stackTrace(stop.Body.ThreadId)[0].Name, line(t, "Engine.java", marker))
	}
	next("work", "Engine.value = 42 (was 10)")
	next("after-set", "Engine.value = 43 (was 42)")
	id = setData("read")
	next("print", "Engine.value read: 43")
	next("touch-read", "Engine.value read: 43")
	c.send("setDataBreakpoints", map[string]any{"breakpoints": []map[string]any{}})
	expect[*godap.SetDataBreakpointsResponse](c)
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	c.expectEnd(0)
	if !strings.Contains(c.out.String(), "end 44 21") {
		t.Errorf("output %q", c.out.String())
	}
}

// TestFunctionBreakpointInherited: Element.attr(String), declared in
// Element's superclass Node, binds when Element loads and stops for an
// Element's call alone, not for another subclass's.
func TestFunctionBreakpointInherited(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Inherit"))
	c.send("setFunctionBreakpoints", map[string]any{"breakpoints": []map[string]any{{"name": "Element.attr(String)"}}})
	bps := expect[*godap.SetFunctionBreakpointsResponse](c).Body.Breakpoints
	if len(bps) != 1 {
		t.Fatalf("function breakpoints %s", mustJSON(bps))
	}
	// Element loads as the program runs: the breakpoint event may come
	// before configurationDone's response or after it, the stop after it.
	c.send("configurationDone", nil)
	verified := bps[0].Verified
	var stop *godap.StoppedEvent
	for done := false; !done || stop == nil; {
		switch m := c.next().(type) {
		case *godap.ConfigurationDoneResponse:
			done = true
		case *godap.BreakpointEvent:
			if !m.Body.Breakpoint.Verified || m.Body.Breakpoint.Line != line(t, "Inherit.java", "node-attr") {
				t.Fatalf("breakpoint event %s", mustJSON(m.Body))
			}
			verified = true
		case *godap.StoppedEvent:
			stop = m
		default:
			t.Fatalf("got %s, want configurationDone's response, a breakpoint event and a stop", mustJSON(m))
		}
	}
	if !verified || stop.Body.Reason != "function breakpoint" {
		t.Fatalf("stop %s (verified: %v)", mustJSON(stop.Body), verified)
	}
	locals, frames := c.locals(stop.Body.ThreadId)
	frameAt(t, frames[0], "Inherit$Node.attr", line(t, "Inherit.java", "node-attr"))
	if locals["key"].Value != `"elem"` {
		t.Errorf("stopped with key %s, want the Element's call (\"elem\")", locals["key"].Value)
	}
	c.send("continue", map[string]any{"threadId": stop.Body.ThreadId})
	expect[*godap.ContinueResponse](c)
	c.expectEnd(0)
	if out := c.out.String(); !strings.Contains(out, "text=4") || !strings.Contains(out, "elem=4") {
		t.Errorf("output:\n%s", out)
	}
}
