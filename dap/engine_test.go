package dap

import (
	"fmt"
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// stopAt launches mainClass with a breakpoint at marker and returns the
// stopped thread and its top frame.
func stopAt(t *testing.T, c *client, mainClass, file, marker string, extra ...any) (int, godap.StackFrame) {
	t.Helper()
	c.initialize()
	c.launch(launchArgs(t, mainClass, extra...))
	if bps := c.setBreakpoints(source(t, file), bp(t, file, marker)); len(bps) != 1 || !bps[0].Verified {
		t.Fatalf("breakpoint in the loaded main class: %s", mustJSON(bps))
	}
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	frames := c.stackTrace(th)
	frameAt(t, frames[0], frames[0].Name, line(t, file, marker))
	return th, frames[0]
}

func (c *client) evaluateIn(frame int, context, expression string) (godap.EvaluateResponseBody, *godap.ErrorResponse) {
	c.t.Helper()
	c.send("evaluate", map[string]any{"expression": expression, "frameId": frame, "context": context})
	switch m := c.next().(type) {
	case *godap.EvaluateResponse:
		return m.Body, nil
	case *godap.ErrorResponse:
		return godap.EvaluateResponseBody{}, m
	default:
		c.t.Fatalf("evaluate %s: got %s", expression, mustJSON(m))
	}
	return godap.EvaluateResponseBody{}, nil
}

// TestEvaluateEngine evaluates Java expressions in a HotSpot frame: fields
// by simple and qualified names, calls with overloads, varargs,
// constructors, casts, instanceof, toString in concatenations, thrown
// exceptions, and hovers that do not run methods.
func TestEvaluateEngine(t *testing.T) {
	c := startSession(t, Config{})
	th, top := stopAt(t, c, "Engine", "Engine.java", "work")
	for expr, want := range map[string]string{
		"local + arg":                             "83",
		"count + Engine.count":                    "6",
		"java.lang.Integer.MAX_VALUE":             "2147483647",
		"Integer.MIN_VALUE - 1":                   "2147483647",
		"Engine.Inner.depth * 10":                 "20",
		"Inner.depth":                             "2",
		"nums.length + nums[2]":                   "6",
		"pick(1)":                                 `"int"`,
		"pick(1L)":                                `"long"`,
		"pick('c')":                               `"int"`,
		"pick(2.5f)":                              `"double"`,
		"pick(boxed)":                             `"Integer"`,
		"pick(text)":                              `"Object"`,
		"pick((Object) boxed)":                    `"Integer"`,
		"Engine.pick(1, 2L)":                      `"int,long"`,
		"sum(1, 2, 3) + sum()":                    "6",
		"twice(local)":                            "84",
		"this.twice(wide > 50 ? 3 : 4)":           "6",
		"greet(\"you\")":                          `"hi you"`,
		"greet(name).length()":                    "8",
		"\"e=\" + this + \",\" + next":            `"e=Engine(10),Engine(20)"`,
		"new Engine(7).twice(3)":                  "6",
		"new Engine(7).toString()":                `"Engine(7)"`,
		"obj instanceof java.util.List":           "true",
		"obj instanceof String":                   "false",
		"((java.util.List) obj).size()":           "1",
		"list.get(0)":                             `"a"`,
		"list.contains(\"a\") && !list.isEmpty()": "true",
		"(int) wide / 3":                          "33",
		"String.valueOf(ch) + ch":                 `"xx"`,
		"Math.max(local, 100)":                    "100",
		"Integer.toHexString(255)":                `"ff"`,
		"label.toUpperCase()":                     `"ENGINE"`,
		"(Integer) 5 + boxed":                     "6",
	} {
		body, errResp := c.evaluateIn(top.Id, "repl", expr)
		if errResp != nil {
			t.Errorf("evaluate %s: %s", expr, errResp.Body.Error.Format)
			continue
		}
		if body.Result != want {
			t.Errorf("evaluate %s = %s, want %s", expr, body.Result, want)
		}
	}

	// Errors name the failing part.
	for expr, want := range map[string]string{
		"fail(\"now\") + 1":    `fail("now"): java.lang.IllegalArgumentException thrown: bad: now`,
		"(String) obj":         "ClassCastException: class java.util.ArrayList cannot be cast to class java.lang.String",
		"Engine.pick(1, 1)":    "the call is ambiguous",
		"twice(\"x\")":         "no Engine.twice(String) matches the arguments; there is Engine.twice(int)",
		"nope.field + 1":       `nope: "nope": no local variable`,
		"next.next.value":      "NullPointerException: next.next is null",
		"Engine.Inner.missing": "has no static field missing",
		"new Nowhere()":        "no loaded class is called Nowhere",
	} {
		_, errResp := c.evaluateIn(top.Id, "repl", expr)
		if errResp == nil || !strings.Contains(errResp.Body.Error.Format, want) {
			t.Errorf("evaluate %s: error %s, want %q", expr, mustJSON(errResp), want)
		}
	}

	// Results are expandable.
	body, _ := c.evaluateIn(top.Id, "watch", "new Engine(5)")
	if body.Result != "Engine(5)" || body.VariablesReference == 0 { // Engine overrides toString
		t.Fatalf("new Engine(5): %+v", body)
	}
	if fields := byName(c.variables(body.VariablesReference)); fields["value"].Value != "5" {
		t.Errorf("fields of new Engine(5): %s", mustJSON(fields))
	}

	// Hover runs no methods, but reads fields and uses String in Go.
	if _, e := c.evaluateIn(top.Id, "hover", "twice(2)"); e == nil || !strings.Contains(e.Body.Error.Format, "evaluateHoverMethods") {
		t.Errorf("hover twice(2): %s", mustJSON(e))
	}
	if b, e := c.evaluateIn(top.Id, "hover", "name.length() + value"); e != nil || b.Result != "15" {
		t.Errorf("hover name.length() + value: %+v %s", b, mustJSON(e))
	}
	if b, e := c.evaluateIn(top.Id, "hover", `"" + this`); e != nil || !strings.HasPrefix(b.Result, `"Engine@`) {
		t.Errorf("hover \"\" + this: %+v %s", b, mustJSON(e))
	}
	if b, _ := c.evaluateIn(top.Id, "clipboard", "this"); b.Result != "Engine(10)" {
		t.Errorf("clipboard this: %+v", b)
	}

	// Locals still read after invocations (frame ids are renewed).
	locals, _ := c.locals(th)
	if locals["local"].Value != "42" || locals["text"].Value != `"t"` {
		t.Errorf("locals after invocations: %s", mustJSON(locals))
	}

	// A condition and a logpoint that run methods.
	c.setBreakpoints(source(t, "Engine.java"),
		bp(t, "Engine.java", "after-set", "logMessage", "twice={twice(value)} this={this} list={list}"),
		bp(t, "Engine.java", "print", "condition", "greet(name).endsWith(\"first\") && twice(value) == 86"))
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	c.expectStop("breakpoint")
	if !strings.Contains(c.out.String(), "twice=84 this=Engine(42) list=[a]") {
		t.Errorf("logpoint output %q", c.out.String())
	}
	c.send("disconnect", map[string]any{"terminateDebuggee": true})
	expect[*godap.DisconnectResponse](c)
}

// TestSetVariable sets locals, fields, statics, array elements and boxed
// values with type conversion, through setVariable and setExpression, and
// the program sees the new values.
func TestSetVariable(t *testing.T) {
	c := startSession(t, Config{})
	th, top := stopAt(t, c, "Engine", "Engine.java", "work")
	c.send("scopes", map[string]any{"frameId": top.Id})
	scopes := expect[*godap.ScopesResponse](c).Body.Scopes
	set := func(ref int, name, value string) godap.SetVariableResponseBody {
		t.Helper()
		c.send("setVariable", map[string]any{"variablesReference": ref, "name": name, "value": value})
		return expect[*godap.SetVariableResponse](c).Body
	}
	locals := byName(c.variables(scopes[0].VariablesReference))
	if r := set(scopes[0].VariablesReference, "wide", "42"); r.Value != "42" || r.Type != "long" {
		t.Errorf("set wide: %+v", r)
	}
	if r := set(scopes[0].VariablesReference, "ch", "'c'"); r.Value != "'c'" {
		t.Errorf("set ch: %+v", r)
	}
	if r := set(scopes[0].VariablesReference, "text", `"new " + arg`); r.Value != `"new 41"` {
		t.Errorf("set text: %+v", r)
	}
	if r := set(scopes[0].VariablesReference, "local", "local * 2"); r.Value != "84" {
		t.Errorf("set local: %+v", r)
	}
	this := locals["this"]
	if r := set(this.VariablesReference, "name", `"second"`); r.Value != `"second"` {
		t.Errorf("set this.name: %+v", r)
	}
	if r := set(this.VariablesReference, "boxed", "7"); r.Value != "7" || r.Type != "Integer" {
		t.Errorf("set this.boxed: %+v", r)
	}
	fields := byName(c.variables(this.VariablesReference))
	if r := set(fields["nums"].VariablesReference, "[1]", "20"); r.Value != "20" {
		t.Errorf("set nums[1]: %+v", r)
	}
	if r := set(scopes[1].VariablesReference, "count", "9"); r.Value != "9" {
		t.Errorf("set count: %+v", r)
	}
	// Conversions that do not hold.
	for _, tc := range [][3]string{
		{"wide", `"x"`, "a String cannot be stored in a long"},
		{"local", "2.5", "2.5 is not a int; cast it"},
		{"ch", "100000", "100000 does not fit in a char"},
		{"this", "null", "this cannot be assigned"},
	} {
		c.send("setVariable", map[string]any{"variablesReference": scopes[0].VariablesReference, "name": tc[0], "value": tc[1]})
		c.expectError(ErrUnableToSetVariable, tc[2])
	}
	// setExpression.
	c.send("setExpression", map[string]any{"expression": "this.letter", "value": "'q'", "frameId": top.Id})
	if r := expect[*godap.SetExpressionResponse](c).Body; r.Value != "'q'" {
		t.Errorf("setExpression this.letter: %+v", r)
	}
	c.send("setExpression", map[string]any{"expression": "Engine.count", "value": "count + 1", "frameId": top.Id})
	if r := expect[*godap.SetExpressionResponse](c).Body; r.Value != "10" {
		t.Errorf("setExpression Engine.count: %+v", r)
	}
	c.send("setExpression", map[string]any{"expression": "twice(1)", "value": "1", "frameId": top.Id})
	c.expectError(ErrUnableToSetVariable, "only a variable, a field or an array element can be assigned")
	if r := c.evaluate(top.Id, "letter + \",\" + wide + ch + local"); r.Result != `"q,42c84"` {
		t.Errorf("after the sets: %s", r.Result)
	}

	c.setBreakpoints(source(t, "Engine.java"), bp(t, "Engine.java", "print"))
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	c.expectStop("breakpoint")
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	c.expectEnd(0)
	if want := "work 84 42 c new 41 85 second 7 20 10 [a]"; !strings.Contains(c.out.String(), want) {
		t.Errorf("program output %q lacks %q", c.out.String(), want)
	}
}

// TestCompletions completes members after a dot (fields and methods of the
// runtime type, statics after a class name) and names in the frame.
func TestCompletions(t *testing.T) {
	c := startSession(t, Config{})
	_, top := stopAt(t, c, "Engine", "Engine.java", "work")
	complete := func(text string) map[string]godap.CompletionItem {
		t.Helper()
		c.send("completions", map[string]any{"frameId": top.Id, "text": text, "column": len(text) + 1})
		m := map[string]godap.CompletionItem{}
		for _, it := range expect[*godap.CompletionsResponse](c).Body.Targets {
			m[it.Label] = it
		}
		return m
	}
	got := complete("1 + this.na")
	if it, ok := got["name"]; !ok || len(got) != 1 || it.Type != "field" || it.Start != 10 || it.Length != 2 {
		t.Errorf("this.na: %s", mustJSON(got))
	}
	got = complete("list.")
	for _, want := range []string{"add(Object)", "size()", "get(int)", "isEmpty()", "elementData", "hashCode()"} {
		if _, ok := got[want]; !ok {
			t.Errorf("list. lacks %s", want)
		}
	}
	if got["size()"].Text != "size()" || got["get(int)"].Text != "get(" {
		t.Errorf("method texts: %s %s", mustJSON(got["size()"]), mustJSON(got["get(int)"]))
	}
	got = complete("Math.ma")
	if _, ok := got["max(int, int)"]; !ok || len(got) != 4 {
		t.Errorf("Math.ma: %s", mustJSON(got))
	}
	got = complete("nums.")
	if _, ok := got["length"]; !ok {
		t.Errorf("nums.: %s", mustJSON(got))
	}
	got = complete("lo")
	if _, ok := got["local"]; !ok || got["local"].Type != "variable" {
		t.Errorf("lo: %s", mustJSON(got))
	}
	got = complete("")
	for _, want := range []string{"arg", "text", "this", "value", "count", "twice(int)", "pick(int)"} {
		if _, ok := got[want]; !ok {
			t.Errorf("scope completions lack %s", want)
		}
	}
	c.send("disconnect", map[string]any{"terminateDebuggee": true})
	expect[*godap.DisconnectResponse](c)
}

// TestHexCancelProgress formats integers in hex on request, shows progress
// for a long evaluation and cancels it.
func TestHexCancelProgress(t *testing.T) {
	c := startSession(t, Config{})
	c.send("initialize", map[string]any{"adapterID": "ddmbridge", "pathFormat": "path", "linesStartAt1": true, "columnsStartAt1": true, "supportsProgressReporting": true})
	expect[*godap.InitializeResponse](c)
	c.launch(launchArgs(t, "Engine"))
	c.setBreakpoints(source(t, "Engine.java"), bp(t, "Engine.java", "work"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	top := c.stackTrace(th)[0]
	for expr, want := range map[string]string{"local": "0x2a", "-1": "0xffffffff", "wide": "0x64", "(byte) -2": "0xfe", "ch": "'x'", "2.5": "2.5"} {
		c.send("evaluate", map[string]any{"expression": expr, "frameId": top.Id, "format": map[string]any{"hex": true}})
		if r := expect[*godap.EvaluateResponse](c).Body; r.Result != want {
			t.Errorf("hex %s = %s, want %s", expr, r.Result, want)
		}
	}
	c.send("scopes", map[string]any{"frameId": top.Id})
	scopes := expect[*godap.ScopesResponse](c).Body.Scopes
	c.send("variables", map[string]any{"variablesReference": scopes[0].VariablesReference, "format": map[string]any{"hex": true}})
	if v := byName(expect[*godap.VariablesResponse](c).Body.Variables); v["arg"].Value != "0x29" {
		t.Errorf("hex variables: arg = %s", v["arg"].Value)
	}

	c.send("stackTrace", map[string]any{"threadId": th, "levels": 1, "format": map[string]any{"parameters": true, "parameterNames": true, "parameterValues": true, "hex": true, "line": true}})
	if f := expect[*godap.StackTraceResponse](c).Body.StackFrames[0]; f.Name != fmt.Sprintf("Engine.work(arg = 0x29) line %d", line(t, "Engine.java", "work")) {
		t.Errorf("formatted frame %q", f.Name)
	}

	seq := c.send("evaluate", map[string]any{"expression": "slow()", "frameId": top.Id, "context": "repl"})
	start := expect[*godap.ProgressStartEvent](c)
	if start.Body.RequestId != seq || !start.Body.Cancellable || start.Body.Title != "Evaluating slow()" {
		t.Errorf("progressStart %+v", start.Body)
	}
	c.send("cancel", map[string]any{"progressId": start.Body.ProgressId})
	var gotCancel, gotEnd, gotErr bool
	for !(gotCancel && gotEnd && gotErr) {
		switch m := c.next().(type) {
		case *godap.CancelResponse:
			gotCancel = true
		case *godap.ProgressEndEvent:
			gotEnd = m.Body.ProgressId == start.Body.ProgressId
		case *godap.ErrorResponse:
			gotErr = m.RequestSeq == seq && m.Message == "cancelled"
			if !gotErr {
				t.Fatalf("error response %s", mustJSON(m))
			}
		default:
			t.Fatalf("unexpected %s", mustJSON(m))
		}
	}
	c.send("disconnect", map[string]any{"terminateDebuggee": true})
	expect[*godap.DisconnectResponse](c)
}
