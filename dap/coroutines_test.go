package dap

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/lang/kotlin/kotlintest"
	godap "github.com/google/go-dap"
)

// asyncFrames returns the frames after the "Async stack trace" label, and
// whether there was one.
func asyncFrames(frames []godap.StackFrame) ([]godap.StackFrame, bool) {
	for i, f := range frames {
		if f.Name == asyncLabel {
			if f.PresentationHint != "label" || f.Source != nil {
				return nil, false
			}
			return frames[i+1:], true
		}
	}
	return nil, false
}

// scopeVars returns the Locals of a frame as name → value.
func (c *client) scopeVars(frameID int) map[string]string {
	c.t.Helper()
	c.send("scopes", map[string]any{"frameId": frameID})
	scopes := expect[*godap.ScopesResponse](c).Body.Scopes
	if len(scopes) == 0 {
		c.t.Fatalf("frame %d has no scopes", frameID)
	}
	out := map[string]string{}
	for _, v := range c.variables(scopes[0].VariablesReference) {
		out[v.Name] = v.Value
	}
	return out
}

// Stopped in chainC after its delay resumed it (on a Dispatchers.Default
// thread), the Call Stack continues past chainC's frames with the async
// stack: a label frame, then chainB and chainA (and the runBlocking lambda)
// at the lines they suspended on, read from the continuations with no code
// run; each async frame's Locals are its spilled variables under the
// source's names; in both lambda modes.
func TestKotlinAsyncStack(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			c, kc := ktSession(t, mode, "args", []string{"--chain"})
			file := filepath.Join(kc.Sources, "app", "Coroutines.kt")
			if bps := c.setBreakpoints(file, ktBP(t, "app/Coroutines.kt", "chainCAfter")); len(bps) != 1 {
				t.Fatalf("breakpoints: %s", mustJSON(bps))
			}
			th := c.ktStop(c.ktConfigurationDone(), "the stop in chainC after delay").Body.ThreadId
			frames := c.stackTrace(th)
			ktFrameAt(t, kc, frames[0], "app/Coroutines.kt", "chainCAfter")
			async, ok := asyncFrames(frames)
			if !ok {
				t.Fatalf("no async stack: %s", mustJSON(frames))
			}
			if len(async) < 3 {
				t.Fatalf("async stack %s, want chainB, chainA, the runBlocking lambda", mustJSON(async))
			}
			for i, want := range []struct{ name, marker string }{{"chainB", "chainB"}, {"chainA", "chainA"}} {
				f := async[i]
				if !strings.HasSuffix(f.Name, "."+want.name) {
					t.Errorf("async frame %d %q, want %s", i, f.Name, want.name)
				}
				ktFrameAt(t, kc, f, "app/Coroutines.kt", want.marker)
			}
			ktFrameAt(t, kc, async[2], "app/Coroutines.kt", "chainRoot")
			b := c.scopeVars(async[0].Id)
			if b["n"] != "2" || b["half"] != "10" {
				t.Errorf("chainB's spilled locals %v, want n=2, half=10", b)
			}
			a := c.scopeVars(async[1].Id)
			if a["n"] != "1" || !strings.Contains(a["tag"], "a1") {
				t.Errorf("chainA's spilled locals %v, want n=1, tag=\"a1\"", a)
			}
			c.ktContinue(th)
			until[*godap.TerminatedEvent](c, "the program's end", nil)
		})
	}
}
