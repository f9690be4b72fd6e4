package dap

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// TestFailedLaunchLeavesNoToast: a launch whose JVM exits at once fails
// with the JVM's own words (the one error to show); the threads request
// VS Code sends next gets an empty list, not a "No debuggee" error, and an
// evaluation without a debuggee is answered without asking for a
// notification.
func TestFailedLaunchLeavesNoToast(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.send("threads", nil)
	if r := expect[*godap.ThreadsResponse](c); !r.Success || len(r.Body.Threads) != 0 {
		t.Errorf("threads before launch: %s, want an empty list", mustJSON(r))
	}
	c.send("launch", launchArgs(t, "Basic", "vmArgs", []string{"-XX:+NoSuchOptionAnywhere"}))
	if e := c.expectError(ErrFailedToLaunch, "exited with code 1 before its debug agent connected"); !e.Body.Error.ShowUser || !strings.Contains(e.Body.Error.Format, "NoSuchOptionAnywhere") {
		t.Errorf("the failed launch does not ask to be shown: %s", mustJSON(e.Body))
	}
	c.send("threads", nil)
	if r := expect[*godap.ThreadsResponse](c); !r.Success || len(r.Body.Threads) != 0 {
		t.Errorf("threads after a failed launch: %s, want an empty list", mustJSON(r))
	}
	c.send("evaluate", map[string]any{"expression": "1", "context": "repl"})
	if e := c.expectError(ErrNoDebuggee, "send launch or attach first"); e.Body.Error.ShowUser {
		t.Errorf("an evaluation without a debuggee asks for a notification: %s", mustJSON(e.Body))
	}
	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
}

// TestAttachClosedPort: nothing listens at the port, so the attach fails
// at once saying how to start the VM, although its timeout is ten minutes
// (the client gives up reading after one); with waitForVM it keeps trying
// until its timeout.
func TestAttachClosedPort(t *testing.T) {
	port := freePort(t)
	c := startSession(t, Config{})
	c.initialize()
	c.send("attach", map[string]any{"port": port, "timeout": 600000})
	e := c.expectError(ErrFailedToAttach, "nothing is listening")
	for _, want := range []string{"-agentlib:jdwp=transport=dt_socket,server=y", "waitForVM"} {
		if !strings.Contains(e.Body.Error.Format, want) {
			t.Errorf("attach to a closed port: %q lacks %q", e.Body.Error.Format, want)
		}
	}
	c.send("attach", map[string]any{"port": port, "timeout": 300, "waitForVM": true})
	c.expectError(ErrFailedToAttach, "connection refused until the timeout")
	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
}

// TestShowUser: which error responses ask the client for a notification.
func TestShowUser(t *testing.T) {
	eval := func(ctx string) godap.RequestMessage {
		return &godap.EvaluateRequest{Arguments: godap.EvaluateArguments{Context: ctx}}
	}
	for _, tc := range []struct {
		id   int
		m    godap.RequestMessage
		want bool
	}{
		{ErrUnableToEvaluate, eval("repl"), false},
		{ErrUnableToEvaluate, eval("watch"), false},
		{ErrUnableToEvaluate, eval("hover"), false},
		{ErrUnableToEvaluate, eval("clipboard"), true},
		{ErrNotStopped, eval("repl"), false},
		{ErrUnableToComplete, &godap.CompletionsRequest{}, false},
		{ErrUnableToListVariables, &godap.VariablesRequest{}, false},
		{ErrUnableToSetBreakpoints, &godap.BreakpointLocationsRequest{}, false},
		{ErrUnableToDataBreakpoint, &godap.DataBreakpointInfoRequest{}, false},
		{ErrUnableToRedefine, nil, false},
		{ErrNoDebuggee, &godap.ThreadsRequest{}, false},
		{ErrCancelled, nil, false},
		{ErrNoDDM, nil, false},
		{ErrUnableToSetBreakpoints, &godap.SetBreakpointsRequest{}, true},
		{ErrFailedToLaunch, &godap.LaunchRequest{}, true},
		{ErrUnableToResume, &godap.NextRequest{}, true},
	} {
		if got := showUser(tc.id, tc.m); got != tc.want {
			t.Errorf("error %d answering %T: showUser %v, want %v", tc.id, tc.m, got, tc.want)
		}
	}
}

// TestEditorsDocConfigs checks the launch.json of docs/editors.md as the
// adapter will: every configuration there is valid.
func TestEditorsDocConfigs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "editors.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "```jsonc\n")
	if start < 0 {
		t.Fatal("docs/editors.md has no launch.json (a jsonc block)")
	}
	block := doc[start+len("```jsonc\n"):]
	block = block[:strings.Index(block, "```")]
	var launch struct {
		Configurations []json.RawMessage `json:"configurations"`
	}
	if err := json.Unmarshal([]byte(block), &launch); err != nil {
		t.Fatalf("the launch.json of docs/editors.md: %v", err)
	}
	if len(launch.Configurations) == 0 {
		t.Fatal("the launch.json of docs/editors.md has no configurations")
	}
	for _, c := range launch.Configurations {
		var h struct{ Type, Request string }
		json.Unmarshal(c, &h)
		if h.Type != "ddmbridge" {
			t.Errorf("configuration %s: type %q, want ddmbridge", c, h.Type)
		}
		if err := CheckConfig(h.Request, c); err != nil {
			t.Errorf("configuration %s: %v", c, err)
		}
	}
}
