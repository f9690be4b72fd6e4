package dap

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLaunchErrors fails the launch request itself, with the reason, for a
// mistyped main class (the JVM's own message and exit code) and for a
// classPaths entry that does not exist; the session can launch again after.
func TestLaunchErrors(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.send("launch", launchArgs(t, "Ordres"))
	e := c.expectError(ErrFailedToLaunch, "exited with code 1 before loading Ordres")
	if msg := e.Body.Error.Format; !strings.Contains(msg, "Could not find or load main class Ordres") {
		t.Errorf("launch error %q does not carry the JVM's message", msg)
	}
	missing := filepath.Join(fixtures(t), "no-such-dir")
	c.send("launch", launchArgs(t, "Orders", "classPaths", []string{fixtures(t), missing}))
	c.expectError(ErrFailedToLaunch, `classPaths entry "`+missing+`" does not exist`)
	c.launch(launchArgs(t, "Orders", "args", "1"))
	c.configurationDone()
	c.expectEnd(0)
	if !strings.Contains(c.out.String(), "ORDERS-DONE") {
		t.Errorf("output %q", c.out.String())
	}
}
