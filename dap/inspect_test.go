package dap

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	godap "github.com/google/go-dap"
)

// TestVariables shows values of every JDWP type, expands objects, boxed
// values and arrays, and pages through a large array.
func TestVariables(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Values"))
	c.setBreakpoints(source(t, "Values.java"), bp(t, "Values.java", "inspect"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	frames := c.stackTrace(th)
	c.send("scopes", map[string]any{"frameId": frames[0].Id})
	scopes := expect[*godap.ScopesResponse](c).Body.Scopes
	if len(scopes) != 2 || scopes[0].Name != "Locals" || scopes[1].Name != "Static" {
		t.Fatalf("scopes %s", mustJSON(scopes))
	}
	vars := c.variables(scopes[0].VariablesReference)
	if vars[0].Name != "this" {
		t.Errorf("first local is %q, want this", vars[0].Name)
	}
	locals := byName(vars)
	for name, want := range map[string][2]string{
		"bo": {"true", "boolean"}, "by": {"-8", "byte"}, "ch": {"'q'", "char"}, "sh": {"300", "short"},
		"in": {"42", "int"}, "lo": {"1099511627776", "long"}, "fl": {"1.5", "float"}, "db": {"0.25", "double"},
		"str": {`"text \"quoted\""`, "String"}, "nul": {"null", ""},
		"boxed": {"7", "Integer"}, "boxedChar": {"'z'", "Character"}, "boxedBool": {"true", "Boolean"},
	} {
		v, ok := locals[name]
		if !ok {
			t.Errorf("no local %s", name)
			continue
		}
		if v.Value != want[0] || v.Type != want[1] {
			t.Errorf("%s = %s (%s), want %s (%s)", name, v.Value, v.Type, want[0], want[1])
		}
	}
	for name, prefix := range map[string]string{
		"obj": "Object (id=", "ints": "int[250] (id=", "strs": "String[3] (id=", "grid": "long[2][] (id=",
		"list": "ArrayList (size=2)", "th": `Thread "main"`, "group": "java.lang.ThreadGroup[name=main,", "cls": "class Values",
		"loader": "ClassLoaders$AppClassLoader (id=", "this": "Values (id=",
	} {
		if v := locals[name]; !strings.HasPrefix(v.Value, prefix) || v.VariablesReference == 0 {
			t.Errorf("%s = %q (ref %d), want %s…", name, v.Value, v.VariablesReference, prefix)
		}
	}
	if locals["boxed"].VariablesReference == 0 || locals["nul"].VariablesReference != 0 || locals["in"].VariablesReference != 0 {
		t.Error("expandability wrong for boxed, null or primitive values")
	}

	// Array paging.
	ints := locals["ints"]
	if ints.IndexedVariables != 250 {
		t.Fatalf("ints has indexedVariables %d", ints.IndexedVariables)
	}
	page := c.variables(ints.VariablesReference, "filter", "indexed", "start", 100, "count", 50)
	if len(page) != 50 || page[0].Name != "[100]" || page[0].Value != "10000" || page[49].Name != "[149]" || page[49].Value != "22201" || page[0].EvaluateName != "ints[100]" {
		t.Fatalf("page [100, 150): first %+v last %+v (%d)", page[0], page[len(page)-1], len(page))
	}
	if named := c.variables(ints.VariablesReference, "filter", "named"); len(named) != 0 {
		t.Errorf("named children of an array: %+v", named)
	}
	strs := c.variables(locals["strs"].VariablesReference)
	if len(strs) != 3 || strs[0].Value != `"a"` || strs[1].Value != "null" || strs[2].Value != `"c"` {
		t.Errorf("strs elements %s", mustJSON(strs))
	}
	grid := c.variables(locals["grid"].VariablesReference)
	if len(grid) != 2 || !strings.HasPrefix(grid[0].Value, "long[2] (id=") || grid[0].IndexedVariables != 2 {
		t.Errorf("grid elements %s", mustJSON(grid))
	}

	// Objects: this's fields, inherited ones included; a boxed value's field.
	fields := byName(c.variables(locals["this"].VariablesReference))
	if fields["label"].Value != `"values"` || !strings.HasPrefix(fields["self"].Value, "Values (id=") || fields["label"].EvaluateName != "this.label" {
		t.Errorf("fields of this: %s", mustJSON(fields))
	}
	if inner := c.variables(locals["boxed"].VariablesReference); len(inner) != 1 || inner[0].Name != "value" || inner[0].Value != "7" {
		t.Errorf("fields of boxed: %s", mustJSON(inner))
	}
	th2 := byName(c.variables(locals["th"].VariablesReference))
	if th2["name"].Value != `"main"` {
		t.Errorf("Thread.name = %q (fields of Thread, inherited from nothing: %d)", th2["name"].Value, len(th2))
	}

	// Statics of the frame's class.
	statics := byName(c.variables(scopes[1].VariablesReference))
	if statics["staticLong"].Value != "1234567890123" || statics["CONST"].Value != `"constant"` {
		t.Errorf("statics %s", mustJSON(statics))
	}

	// Expressions over all of it.
	for expr, want := range map[string]string{
		"in + by * 2":              "26",
		"str.length()":             "13",
		"ints[ints.length - 1]":    "62001",
		"self.label == \"values\"": "true",
		"boxed * 6":                "42",
		"strs[1] == null && bo":    "true",
		"staticLong % 1000":        "123",
		"(char) (ch + 1)":          "'r'",
		"lo >>> 40":                "1",
		"fl * 2 + \"!\"":           `"3.0!"`,
	} {
		if r := c.evaluate(frames[0].Id, expr); r.Result != want {
			t.Errorf("evaluate %s = %s, want %s", expr, r.Result, want)
		}
	}
	c.send("evaluate", map[string]any{"expression": "ints[250]", "frameId": frames[0].Id})
	c.expectError(ErrUnableToEvaluate, "ArrayIndexOutOfBoundsException: index 250 out of bounds for length 250")
	c.send("evaluate", map[string]any{"expression": "in +", "frameId": frames[0].Id})
	c.expectError(ErrUnableToEvaluate, "syntax error")

	// References die with the stop.
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	c.expectEnd(0)
}

// TestThreadsAndPause lists several threads with their states, pauses a
// running VM and resumes it.
func TestThreadsAndPause(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Threads"))
	c.configurationDone()
	c.skip["thread"] = false
	started := map[int]bool{}
	for len(started) < 3 {
		e := expect[*godap.ThreadEvent](c)
		if e.Body.Reason == "started" {
			started[e.Body.ThreadId] = true
		}
	}
	c.skip["thread"] = true
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(c.out.String(), "THREADS-READY") {
		if time.Now().After(deadline) {
			t.Fatalf("no THREADS-READY; output %q", c.out.String())
		}
		c.send("threads", nil)
		expect[*godap.ThreadsResponse](c)
	}
	c.send("threads", nil)
	names := map[string]int{}
	for _, th := range expect[*godap.ThreadsResponse](c).Body.Threads {
		names[th.Name] = th.Id
	}
	for _, want := range []string{"waiter (waiting)", "sleeper (sleeping)", "spinner (running)"} {
		if _, ok := names[want]; !ok {
			t.Errorf("no thread %q among %v", want, names)
		}
	}
	main := 0
	for n, id := range names {
		if strings.HasPrefix(n, "main (") {
			main = id
		}
	}
	if main == 0 {
		t.Fatalf("no main thread among %v", names)
	}
	for started := range started {
		found := false
		for _, id := range names {
			found = found || id == started
		}
		if !found {
			t.Errorf("started thread %d is not listed", started)
		}
	}

	c.send("stackTrace", map[string]any{"threadId": main})
	c.expectError(ErrNotStopped, "needs the VM stopped")

	c.send("pause", map[string]any{"threadId": main})
	expect[*godap.PauseResponse](c)
	stop := c.expectStop("pause")
	if stop.Body.ThreadId != main {
		t.Errorf("paused thread %d, want main %d", stop.Body.ThreadId, main)
	}
	c.send("threads", nil)
	for _, th := range expect[*godap.ThreadsResponse](c).Body.Threads {
		if th.Id == main && th.Name != "main (paused)" {
			t.Errorf("main after pause: %q", th.Name)
		}
	}
	frames := c.stackTrace(main)
	if len(frames) == 0 || frames[len(frames)-1].Name != "Threads.main(String[])" {
		t.Errorf("main's frames after pause: %s", mustJSON(frames))
	}
	// Paging the stack: one frame from the bottom.
	c.send("stackTrace", map[string]any{"threadId": main, "startFrame": len(frames) - 1, "levels": 5})
	st := expect[*godap.StackTraceResponse](c).Body
	if len(st.StackFrames) != 1 || st.TotalFrames != len(frames) || st.StackFrames[0].Name != "Threads.main(String[])" {
		t.Errorf("paged stack: %s", mustJSON(st))
	}
	c.send("continue", map[string]any{"threadId": main})
	expect[*godap.ContinueResponse](c)
	c.send("threads", nil)
	for _, th := range expect[*godap.ThreadsResponse](c).Body.Threads {
		if th.Id == names["spinner (running)"] && th.Name != "spinner (running)" {
			t.Errorf("spinner after continue: %q", th.Name)
		}
	}
	c.send("disconnect", nil) // a launched VM is terminated by default
	expect[*godap.DisconnectResponse](c)
}

// TestProtocolErrors: unsupported, malformed and out-of-order requests get
// error responses, and a panicking handler does not end the session.
func TestProtocolErrors(t *testing.T) {
	var panicOn atomic.Value // the command whose handler panics, or ""
	panicOn.Store("")
	c := startSession(t, Config{beforeRequest: func(command string) {
		if command == panicOn.Load().(string) {
			panic("test panic")
		}
	}})
	c.initialize()
	c.send("stackTrace", map[string]any{"threadId": 1})
	c.expectError(ErrNoDebuggee, "send launch or attach first")
	c.send("noSuchCommand", nil)
	c.expectError(ErrUnsupportedCommand, `"noSuchCommand"`)
	c.send("setVariable", map[string]any{"variablesReference": 1, "name": "x", "value": "1"})
	c.expectError(ErrNoDebuggee, "setVariable needs a debuggee")
	c.send("disassemble", map[string]any{"memoryReference": "0", "instructionCount": 1})
	c.expectError(ErrUnsupportedCommand, `"disassemble"`)
	c.sendRaw(`{"seq": 50, "type": "request", "command": "next", "arguments": {"threadId": "one"}}`)
	c.expectError(ErrMalformedRequest, "next")
	c.send("launch", map[string]any{"mainClass": 5})
	c.expectError(ErrFailedToLaunch, `field "mainClass": expected a string, got a JSON number`)
	c.send("launch", map[string]any{"classPaths": []string{"x"}})
	c.expectError(ErrFailedToLaunch, `field "mainClass" is required`)
	c.send("launch", map[string]any{"mainClass": "Basic", "args": 7})
	c.expectError(ErrFailedToLaunch, `field "args": expected a string or an array of strings`)
	c.send("launch", map[string]any{"mainClass": "Basic", "console": "tty"})
	c.expectError(ErrFailedToLaunch, `field "console"`)
	c.send("launch", map[string]any{"mainClass": "Basic", "javaExec": "/nonexistent/java"})
	c.expectError(ErrFailedToLaunch, "/nonexistent/java")
	c.send("attach", map[string]any{"hostName": "127.0.0.1"})
	c.expectError(ErrFailedToAttach, `field "port" is required`)
	c.send("attach", map[string]any{"port": 1, "vm": "current"})
	c.expectError(ErrFailedToAttach, "only one of")
	c.send("attach", map[string]any{"vm": "emulator-5554"})
	c.expectError(ErrFailedToAttach, "ddmbridge serve")
	c.send("attach", map[string]any{"hostName": "127.0.0.1", "port": freePort(t), "timeout": 3000, "waitForVM": true})
	c.expectError(ErrFailedToAttach, "connection refused until the timeout")

	panicOn.Store("threads")
	c.launch(launchArgs(t, "Basic"))
	c.send("threads", nil)
	c.expectError(ErrInternal, "threads: test panic")
	panicOn.Store("")
	c.send("threads", nil)
	expect[*godap.ThreadsResponse](c)
	c.send("launch", launchArgs(t, "Basic"))
	c.expectError(ErrBadState, "already has a debuggee")
	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
}

var _ = fmt.Sprint
