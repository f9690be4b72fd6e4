package dap

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	godap "github.com/google/go-dap"
)

// compileVariant compiles a fixture with its source edited.
func compileVariant(t *testing.T, file string, edit func(string) string) string {
	t.Helper()
	src, err := os.ReadFile(source(t, file))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir, err := jvmtest.CompileFiles(ctx, map[string][]byte{file: []byte(edit(string(src)))})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHotCodeReplace redefines a running class with a changed method body,
// and reports exactly what HotSpot refuses when a method is added.
func TestHotCodeReplace(t *testing.T) {
	changed := compileVariant(t, "Loop.java", func(s string) string {
		return strings.Replace(s, "total += sq;", "total = 42;", 1)
	})
	added := compileVariant(t, "Loop.java", func(s string) string {
		return strings.Replace(s, "static void tick(int i) {", "static void extra() {}\n    static void tick(int i) {", 1)
	})
	c := startSession(t, Config{})
	c.codec.RegisterEvent("hotCodeReplace", func() godap.Message { return &customEvent[HotCodeReplaceBody]{} })
	c.initialize()
	c.launch(launchArgs(t, "Loop"))
	c.configurationDone()
	c.waitOutput("READY")

	c.send("redefineClasses", map[string]any{"directory": changed, "classFiles": []string{filepath.Join(t.TempDir(), "Missing.class")}})
	ev := expect[*customEvent[HotCodeReplaceBody]](c)
	resp := expect[*redefineClassesResponse](c)
	if !ev.Body.Success || strings.Join(ev.Body.Classes, ",") != "Loop" || len(ev.Body.Skipped) != 1 || !resp.Body.Success {
		t.Fatalf("hot code replace: event %s response %s", mustJSON(ev.Body), mustJSON(resp.Body))
	}
	// The same directory again (a build that changed nothing): nothing
	// replaced, nothing named; the unchanged class file said skipped.
	c.send("redefineClasses", map[string]any{"directory": changed})
	ev = expect[*customEvent[HotCodeReplaceBody]](c)
	expect[*redefineClassesResponse](c)
	if !ev.Body.Success || len(ev.Body.Classes) != 0 || len(ev.Body.Skipped) != 1 || ev.Body.Skipped[0].Reason != "unchanged since the last hot code replace" {
		t.Fatalf("hot code replace of unchanged class files: event %s", mustJSON(ev.Body))
	}
	c.setBreakpoints(source(t, "Loop.java"), bp(t, "Loop.java", "tick"))
	stop := c.expectStop("breakpoint")
	// The call of tick that runs to the next stop is new code, whatever the
	// machine's load: it leaves total at 42.
	c.send("continue", map[string]any{"threadId": stop.Body.ThreadId})
	expect[*godap.ContinueResponse](c)
	stop = c.expectStop("breakpoint")
	if r := c.evaluate(c.stackTrace(stop.Body.ThreadId)[0].Id, "total"); r.Result != "42" {
		t.Errorf("total after the new tick ran: %s", r.Result)
	}

	c.send("redefineClasses", map[string]any{"classFiles": []string{filepath.Join(added, "Loop.class")}})
	ev = expect[*customEvent[HotCodeReplaceBody]](c)
	if ev.Body.Success || ev.Body.Error != "ADD_METHOD_NOT_IMPLEMENTED" {
		t.Errorf("refused hot code replace event %s", mustJSON(ev.Body))
	}
	// The editor that asked reports the refusal (one toast): the error does not ask for another.
	if e := c.expectError(ErrUnableToRedefine, "hot code replace refused: adding a method is not supported by this VM (ADD_METHOD_NOT_IMPLEMENTED); classes: Loop"); e.Body.Error.ShowUser {
		t.Errorf("a refused hot code replace asks the client to show it again: %s", mustJSON(e.Body))
	}
	c.send("redefineClasses", map[string]any{})
	c.expectError(ErrUnableToRedefine, `give "classFiles" or a "directory"`)
	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
}

// waitOutput reads messages until the program has printed text.
func (c *client) waitOutput(text string) {
	c.t.Helper()
	deadline := time.Now().Add(time.Minute) // generous: load only slows the test
	for !strings.Contains(c.out.String(), text) {
		if time.Now().After(deadline) {
			c.t.Fatalf("no %q in the output %q", text, c.out.String())
		}
		c.send("threads", nil)
		expect[*godap.ThreadsResponse](c)
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAttachVM opens a child session for another VM through the client's
// startDebugging.
func TestAttachVM(t *testing.T) {
	c := startSession(t, Config{})
	c.send("initialize", map[string]any{"adapterID": "ddmbridge", "pathFormat": "path", "supportsStartDebuggingRequest": true})
	expect[*godap.InitializeResponse](c)
	seq := c.send("attachVM", map[string]any{"vm": "emulator-5554/1234"})
	req := expect[*godap.StartDebuggingRequest](c)
	conf := req.Arguments.Configuration
	if req.Arguments.Request != "attach" || conf["vm"] != "emulator-5554/1234" || conf["request"] != "attach" || conf["type"] != "ddmbridge" {
		t.Fatalf("startDebugging %s", mustJSON(req.Arguments))
	}
	c.sendRaw(mustJSON(map[string]any{"seq": 100, "type": "response", "request_seq": req.Seq, "command": "startDebugging", "success": true}))
	if r := expect[*attachVMResponse](c); r.RequestSeq != seq || !r.Success {
		t.Errorf("attachVM response %+v", r)
	}
	c.send("attachVM", map[string]any{})
	c.expectError(ErrUnableToStartDebugging, `field "vm" is required`)

	c2 := startSession(t, Config{})
	c2.initialize()
	c2.send("attachVM", map[string]any{"vm": "x"})
	c2.expectError(ErrUnableToStartDebugging, "does not announce supportsStartDebuggingRequest")
}

// TestHotCodeReplaceKeepsBreakpoints: the VM clears the breakpoints of a
// class it redefines; the adapter sets them again in the new code, so a
// breakpoint shown as verified keeps hitting after a hot code replace.
func TestHotCodeReplaceKeepsBreakpoints(t *testing.T) {
	changed := compileVariant(t, "Loop.java", func(s string) string {
		return strings.Replace(s, "total += sq;", "total = 42;", 1)
	})
	c := startSession(t, Config{})
	c.codec.RegisterEvent("hotCodeReplace", func() godap.Message { return &customEvent[HotCodeReplaceBody]{} })
	c.initialize()
	c.launch(launchArgs(t, "Loop"))
	if got := c.setBreakpoints(source(t, "Loop.java"), bp(t, "Loop.java", "tick")); len(got) != 1 {
		t.Fatalf("breakpoints %s", mustJSON(got))
	}
	c.skip["breakpoint"] = true // verified when Loop loads
	c.configurationDone()
	stop := c.expectStop("breakpoint")

	c.send("redefineClasses", map[string]any{"directory": changed})
	if ev := expect[*customEvent[HotCodeReplaceBody]](c); !ev.Body.Success {
		t.Fatalf("hot code replace: %s", mustJSON(ev.Body))
	}
	expect[*redefineClassesResponse](c)
	for range 2 { // the next two calls of tick stop, in the new code
		c.send("continue", map[string]any{"threadId": stop.Body.ThreadId})
		expect[*godap.ContinueResponse](c)
		stop = c.expectStop("breakpoint")
	}
	if r := c.evaluate(c.stackTrace(stop.Body.ThreadId)[0].Id, "total"); r.Result != "42" {
		t.Errorf("total after the new tick ran: %s", r.Result)
	}
	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
}
