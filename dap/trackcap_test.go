package dap

import (
	"strings"
	"testing"

	godap "github.com/google/go-dap"

	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
)

// TestTrackInstancesCap (issue 42.6): at most debugger.MaxTracked classes
// are tracked at once (trackInstances on 5,000 classes took 407 s, each a
// heap walk at every stop); one more is refused in words, and untracking
// one lets another in.
func TestTrackInstancesCap(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Alloc"))
	c.setBreakpoints(source(t, "Alloc.java"), bp(t, "Alloc.java", "first"))
	c.configurationDone()
	c.expectStop("breakpoint")
	all := c.instanceCounts("")
	if len(all) <= debugger.MaxTracked+1 {
		t.Fatalf("%d classes with instances; the test needs more than %d", len(all), debugger.MaxTracked+1)
	}
	track := func(name string, on bool) (string, bool) {
		c.send("trackInstances", map[string]any{"className": name, "track": on})
		for {
			switch r := c.next().(type) {
			case *trackInstancesResponse:
				return "", true
			case *godap.ErrorResponse:
				return r.Body.Error.Format, false
			}
		}
	}
	for _, cc := range all[:debugger.MaxTracked] {
		if msg, ok := track(cc.Name, true); !ok {
			t.Fatalf("track %s: %s", cc.Name, msg)
		}
	}
	extra := all[debugger.MaxTracked].Name
	if msg, ok := track(extra, true); ok || !strings.Contains(msg, "classes are tracked already") {
		t.Fatalf("tracking class %d: %v %q; want it refused in words", debugger.MaxTracked+1, ok, msg)
	}
	if _, ok := track(all[0].Name, false); !ok {
		t.Fatal("untrack failed")
	}
	if msg, ok := track(extra, true); !ok {
		t.Fatalf("after untracking one: %s", msg)
	}
}
