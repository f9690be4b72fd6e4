package dap

import (
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
