package dap

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/dap/ext"
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

// coroutinesList sends the coroutines request.
func (c *client) coroutinesList(args map[string]any) ext.CoroutinesBody {
	c.t.Helper()
	c.send("coroutines", args)
	return expect[*ext.CoroutinesResponse](c).Body
}

// Without kotlinx-coroutines' debug probes the coroutines request lists the
// coroutine the stopped threads run, from their continuations, and says
// so: chainC's coroutine, named by its context ("chain"), running on
// Dispatchers.Default, its stack the thread's frames above the resume and
// its async stack.
func TestKotlinCoroutinesFromThreads(t *testing.T) {
	c, kc := ktSession(t, kotlintest.Indy, "args", []string{"--chain"})
	file := filepath.Join(kc.Sources, "app", "Coroutines.kt")
	c.setBreakpoints(file, ktBP(t, "app/Coroutines.kt", "chainCAfter"))
	th := c.ktStop(c.ktConfigurationDone(), "the stop in chainC").Body.ThreadId
	body := c.coroutinesList(map[string]any{})
	if body.Source != ext.CoroutinesFromContinuations || !strings.Contains(body.Note, "not installed") {
		t.Errorf("source %q note %q, want %q and why", body.Source, body.Note, ext.CoroutinesFromContinuations)
	}
	if body.Total != 1 || len(body.Coroutines) != 1 {
		t.Fatalf("coroutines %s, want the one chainC runs", mustJSON(body))
	}
	co := body.Coroutines[0]
	if !strings.HasPrefix(co.Name, "chain#") || co.State != ext.CoroutineRunning || co.Dispatcher != "Dispatchers.Default" || co.ThreadID != th {
		t.Errorf("coroutine %s, want chain#…, running on Dispatchers.Default in thread %d", mustJSON(co), th)
	}
	var names []string
	for _, f := range co.Frames {
		names = append(names, f.Name)
	}
	joined := strings.Join(names, " | ")
	if len(co.Frames) < 4 || !strings.HasPrefix(co.Frames[0].Name, "CoroutinesKt.chainC") || !strings.Contains(joined, "CoroutinesKt.chainB |") || !strings.Contains(joined, "CoroutinesKt.chainA") {
		t.Errorf("frames %s, want chainC's, then chainB and chainA", joined)
	}
	if f := co.Frames[0]; f.Line != kotlintest.Line(t, "app/Coroutines.kt", "chainCAfter") {
		t.Errorf("top frame at line %d", f.Line)
	}
	c.ktContinue(th)
	until[*godap.TerminatedEvent](c, "the program's end", nil)
}

// With kotlinx-coroutines' debug probes installed (-javaagent: the core
// jar) the coroutines request lists every coroutine from the registry and
// says so: 20 workers suspended in gate.await(), each named, its stack the
// launch lambda at the await's line.
func TestKotlinCoroutinesFromDebugProbes(t *testing.T) {
	p := kotlintest.Require(t)
	const n = 20
	c, kc := ktSession(t, kotlintest.Indy, "args", []string{"--many", strconv.Itoa(n)}, "vmArgs", []string{"-javaagent:" + p.Coroutines})
	file := filepath.Join(kc.Sources, "app", "Coroutines.kt")
	c.setBreakpoints(file, ktBP(t, "app/Coroutines.kt", "manyReady"))
	th := c.ktStop(c.ktConfigurationDone(), "the stop with the workers launched").Body.ThreadId
	body := c.coroutinesList(map[string]any{})
	if body.Source != ext.CoroutinesFromDebugProbes || body.Note != "" {
		t.Fatalf("source %q note %q, want %q", body.Source, body.Note, ext.CoroutinesFromDebugProbes)
	}
	workers := 0
	await := kotlintest.Line(t, "app/Coroutines.kt", "manyAwait")
	for _, co := range body.Coroutines {
		if !strings.HasPrefix(co.Name, "worker-") {
			continue
		}
		workers++
		if co.State != ext.CoroutineSuspended || len(co.Frames) == 0 || co.Frames[0].Line != await || co.Frames[0].Source == nil {
			t.Errorf("worker %s, want suspended at line %d", mustJSON(co), await)
		}
	}
	if workers != n || body.Total != len(body.Coroutines) || body.Total < n+2 {
		t.Errorf("%d workers of %d coroutines (total %d), want %d and runBlocking's and the idle one", workers, len(body.Coroutines), body.Total, n)
	}
	// A page: two from the third, no frames.
	page := c.coroutinesList(map[string]any{"start": 2, "count": 2, "frames": 0})
	if page.Total != body.Total || page.Start != 2 || len(page.Coroutines) != 2 || page.Coroutines[0].ID != body.Coroutines[2].ID || len(page.Coroutines[0].Frames) != 0 {
		t.Errorf("page %s", mustJSON(page))
	}
	c.ktContinue(th)
	until[*godap.TerminatedEvent](c, "the program's end", nil)
}
