package dap

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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
			// chainC's continuation's invokeSuspend (no line: it only calls
			// chainC) is hidden; the async frames are shown as any frame
			// (VS Code folds "subtle" ones away).
			if strings.Contains(frames[1].Name, "invokeSuspend") || frames[1].Line < 0 {
				t.Errorf("frame under chainC %q at line %d, want the continuation's invokeSuspend hidden", frames[1].Name, frames[1].Line)
			}
			for _, f := range async[:3] {
				if f.PresentationHint != "" {
					t.Errorf("async frame %q hinted %q", f.Name, f.PresentationHint)
				}
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

// probesList asks for the coroutine list until it comes from kotlinx-coroutines'
// debug probes, for at most three minutes. On a heavily loaded machine the
// probes' first dump (interpreted, its classes loading) can outlast the
// adapter's bound on a method run for it (RegistryTimeout): the list then
// falls back and says why in its note, the method runs on in its thread, which
// stops again when it returns, and a later request — a user's refresh of the
// view — gets the probes' list. Each fallback is logged; the last answer is
// returned whatever its source, for the caller to judge.
func (c *client) probesList(args map[string]any) ext.CoroutinesBody {
	c.t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		body := c.coroutinesList(args)
		if body.Source == ext.CoroutinesFromDebugProbes || time.Now().After(deadline) {
			return body
		}
		c.t.Logf("the list came from %q, not the debug probes (%s): asking again", body.Source, body.Note)
		time.Sleep(time.Second) // polling: the method's return is not announced
	}
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

// Without the debug probes, the coroutines no thread runs are found
// through the job trees of those the stopped threads run: stopped in
// runBlocking's body (--family), the list holds every coroutine the
// program names as its descendants (it prints them), each suspended one
// with its stack (sleepIn at its delay, then its launch lambda), the one
// on Dispatchers.Default named so, the lazy one created; in both lambda
// modes.
func TestKotlinCoroutinesFromJobs(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) { ktFamilyList(t, mode, 0) })
	}
}

// A job with more children than the list reads one by one (40 under
// "crowd", past readAheadAfter's 32: on HotSpot every child handle is then
// read at once) lists the same coroutines as the program prints, each
// crowd child named and suspended at its delay.
func TestKotlinCoroutinesFromJobsLongList(t *testing.T) {
	ktFamilyList(t, kotlintest.Indy, 40)
}

// ktFamilyList stops the --family fixture (with crowd children under
// "crowd") in runBlocking's body and checks the list without the debug
// probes against the names the program prints.
func ktFamilyList(t *testing.T, mode kotlintest.Lambdas, crowd int) {
	args := []string{"--family"}
	if crowd > 0 {
		args = append(args, "--crowd", strconv.Itoa(crowd))
	}
	c, kc := ktSession(t, mode, "args", args)
	c.setBreakpoints(filepath.Join(kc.Sources, "app", "Coroutines.kt"), ktBP(t, "app/Coroutines.kt", "familyReady"))
	c.skip["output"] = false
	c.send("configurationDone", nil)
	var printed string
	var stop *godap.StoppedEvent
	for stop == nil {
		switch m := c.next().(type) {
		case *godap.OutputEvent:
			if out, ok := strings.CutPrefix(m.Body.Output, "family: "); ok {
				printed = strings.TrimSpace(out)
			}
		case *godap.StoppedEvent:
			stop = m
		}
	}
	if printed == "" {
		// The program's output and the VM's events come by different
		// roads: its line may follow the stop.
		until(c, "the program's family line", func(m *godap.OutputEvent) bool {
			out, ok := strings.CutPrefix(m.Body.Output, "family: ")
			printed = strings.TrimSpace(out)
			return ok
		})
	}
	c.skip["output"] = true
	body := c.coroutinesList(map[string]any{})
	if body.Source != ext.CoroutinesFromJobs || !strings.Contains(body.Note, "not installed") {
		t.Errorf("source %q note %q, want %q and why", body.Source, body.Note, ext.CoroutinesFromJobs)
	}
	byName := map[string]ext.Coroutine{}
	var listed []string
	for _, co := range body.Coroutines {
		name, _, _ := strings.Cut(co.Name, "#")
		byName[name] = co
		if name != "family" {
			listed = append(listed, name)
		}
	}
	slices.Sort(listed)
	want := []string{"answer", "default-sleeper", "grandchild", "lazy", "parent", "sleeper-0", "sleeper-1"}
	sleepers := []string{"sleeper-0", "sleeper-1", "default-sleeper", "answer", "grandchild"}
	if crowd > 0 {
		want = append(want, "crowd")
		for i := range crowd {
			want = append(want, fmt.Sprintf("crowd-%d", i))
			sleepers = append(sleepers, fmt.Sprintf("crowd-%d", i))
		}
	}
	slices.Sort(want)
	if w := strings.Join(want, " "); printed != w || strings.Join(listed, " ") != printed {
		t.Errorf("listed %q, the program printed %q (want %q)", listed, printed, w)
	}
	if f := byName["family"]; f.State != ext.CoroutineRunning || f.ThreadID != stop.Body.ThreadId {
		t.Errorf("family %s, want running in thread %d", mustJSON(f), stop.Body.ThreadId)
	}
	delayLine := kotlintest.Line(t, "app/Coroutines.kt", "familyDelay")
	for _, name := range sleepers {
		co := byName[name]
		if co.State != ext.CoroutineSuspended || len(co.Frames) < 2 || co.Frames[0].Line != delayLine || !strings.Contains(co.Frames[0].Name, "sleepIn") || co.Frames[0].Source == nil {
			t.Errorf("%s: %s, want suspended in sleepIn at line %d, then its lambda", name, mustJSON(co), delayLine)
		}
	}
	if d := byName["default-sleeper"].Dispatcher; d != "Dispatchers.Default" {
		t.Errorf("default-sleeper's dispatcher %q", d)
	}
	if d := byName["sleeper-0"].Dispatcher; d != "BlockingEventLoop" {
		t.Errorf("sleeper-0's dispatcher %q, want runBlocking's BlockingEventLoop", d)
	}
	// awaitCancellation is a suspend function of its own (Delay.kt).
	if p := byName["parent"]; p.State != ext.CoroutineSuspended || len(p.Frames) < 2 || !strings.Contains(p.Frames[0].Name, "awaitCancellation") || p.Frames[1].Line != kotlintest.Line(t, "app/Coroutines.kt", "familyParent") {
		t.Errorf("parent %s, want suspended in awaitCancellation, called at its line", mustJSON(p))
	}
	if l := byName["lazy"]; l.State != ext.CoroutineCreated || len(l.Frames) != 0 {
		t.Errorf("lazy %s, want created, no frames", mustJSON(l))
	}
	c.ktContinue(stop.Body.ThreadId)
	until[*godap.TerminatedEvent](c, "the program's end", nil)
}

// With kotlinx-coroutines' debug probes installed (-javaagent: the core
// jar) the coroutines request lists every coroutine from the registry and
// says so: 20 workers suspended in gate.await(), each named, its stack the
// launch lambda at the await's line.
func TestKotlinCoroutinesFromDebugProbes(t *testing.T) {
	p := kotlintest.Require(t)
	const n = 20
	// Creation stacks are off by default since kotlinx-coroutines 1.7: on.
	c, kc := ktSession(t, kotlintest.Indy, "args", []string{"--many", strconv.Itoa(n)}, "vmArgs", []string{"-javaagent:" + p.Coroutines, "-Dkotlinx.coroutines.debug.enable.creation.stack.trace=true"})
	file := filepath.Join(kc.Sources, "app", "Coroutines.kt")
	c.setBreakpoints(file, ktBP(t, "app/Coroutines.kt", "manyReady"))
	th := c.ktStop(c.ktConfigurationDone(), "the stop with the workers launched").Body.ThreadId
	body := c.probesList(map[string]any{})
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
	checkCreationStacks(t, c, body, n)
	c.ktContinue(th)
	until[*godap.TerminatedEvent](c, "the program's end", nil)
}

// stepAnyThread sends a step and returns the step's stop and the frames
// of its thread (a step over a suspension point may end on another
// thread than it began on).
func (c *client) stepAnyThread(command string, th int) (int, []godap.StackFrame) {
	c.t.Helper()
	c.send(command, map[string]any{"threadId": th})
	if r := expect[godap.ResponseMessage](c).GetResponse(); !r.Success {
		c.t.Fatalf("%s: %+v", command, r)
	}
	stop := until[*godap.StoppedEvent](c, "the step's stop", nil)
	if stop.Body.Reason != "step" {
		c.t.Fatalf("stopped %s, want the step's stop", mustJSON(stop.Body))
	}
	return stop.Body.ThreadId, c.stackTrace(stop.Body.ThreadId)
}

// Step over a suspension point lands on the next line of the same
// coroutine after it resumes, on whichever Dispatchers.Default thread
// resumes it: over delay(20) in chainC (which may or may not suspend),
// over yield() (which always does), and over chainB's call of chainC,
// which suspends inside chainC and resumes chainB through its
// continuation. The locals read at each landing are the function's.
func TestKotlinStepOverSuspension(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			c, kc := ktSession(t, mode, "args", []string{"--chain"})
			file := filepath.Join(kc.Sources, "app", "Coroutines.kt")
			c.setBreakpoints(file, ktBP(t, "app/Coroutines.kt", "chainB"))
			th := c.ktStop(c.ktConfigurationDone(), "the stop in chainB").Body.ThreadId
			c.setBreakpoints(file)
			th, frames := c.stepAnyThread("next", th)
			ktFrameAt(t, kc, frames[0], "app/Coroutines.kt", "chainBAfter")
			c.send("scopes", map[string]any{"frameId": frames[0].Id})
			scopes := expect[*godap.ScopesResponse](c).Body.Scopes
			if vars := byName(c.variables(scopes[0].VariablesReference)); vars["r"].Value != "105" || vars["half"].Value != "10" {
				t.Errorf("chainB's locals after the resume %s, want r=105, half=10", mustJSON(vars))
			}
			c.ktContinue(th)
			until[*godap.TerminatedEvent](c, "the program's end", nil)
		})
	}
	c, kc := ktSession(t, kotlintest.Indy, "args", []string{"--chain"})
	file := filepath.Join(kc.Sources, "app", "Coroutines.kt")
	c.setBreakpoints(file, ktBP(t, "app/Coroutines.kt", "chainCDelay"))
	th := c.ktStop(c.ktConfigurationDone(), "the stop in chainC").Body.ThreadId
	c.setBreakpoints(file)
	th, frames := c.stepAnyThread("next", th)
	ktFrameAt(t, kc, frames[0], "app/Coroutines.kt", "chainCYield")
	th, frames = c.stepAnyThread("next", th)
	ktFrameAt(t, kc, frames[0], "app/Coroutines.kt", "chainCAfter")
	if _, ok := asyncFrames(frames); !ok {
		t.Errorf("after the resume, no async stack: %s", mustJSON(frames))
	}
	c.ktContinue(th)
	until[*godap.TerminatedEvent](c, "the program's end", nil)
}

// Where a continuation's class file is out of reach (an app on a device,
// a remote VM: here the files are removed from the class path once the
// classes are loaded), the async stack is named by running the runtime's
// own metadata reader (DebugMetadataKt) in the stopped thread, on the
// invocation road: the same functions, lines and spilled locals.
func TestKotlinAsyncStackWithoutClassFiles(t *testing.T) {
	kc := kotlintest.CompileFixtureT(t, kotlintest.Indy)
	classes := t.TempDir()
	if err := os.CopyFS(classes, os.DirFS(kc.Classes)); err != nil {
		t.Fatal(err)
	}
	cp := append([]string{classes}, kc.ClassPath[1:]...)
	c := startSession(t, Config{})
	c.initialize()
	c.launch(map[string]any{"mainClass": kotlintest.FixtureMain, "classPaths": cp, "sourcePaths": []string{kc.Sources}, "args": []string{"--chain"}})
	c.setBreakpoints(filepath.Join(kc.Sources, "app", "Coroutines.kt"), ktBP(t, "app/Coroutines.kt", "chainCAfter"))
	th := c.ktStop(c.ktConfigurationDone(), "the stop in chainC").Body.ThreadId
	for _, name := range []string{"CoroutinesKt$chainA$1.class", "CoroutinesKt$chainB$1.class"} {
		if err := os.Remove(filepath.Join(classes, "app", name)); err != nil {
			t.Fatal(err)
		}
	}
	frames := c.stackTrace(th)
	async, ok := asyncFrames(frames)
	if !ok || len(async) < 2 {
		t.Fatalf("async stack %s", mustJSON(frames))
	}
	ktFrameAt(t, kc, async[0], "app/Coroutines.kt", "chainB")
	ktFrameAt(t, kc, async[1], "app/Coroutines.kt", "chainA")
	if !strings.HasSuffix(async[0].Name, ".chainB") {
		t.Errorf("async frame %q, want chainB", async[0].Name)
	}
	if b := c.scopeVars(async[0].Id); b["n"] != "2" || b["half"] != "10" {
		t.Errorf("chainB's spilled locals %v, want n=2, half=10", b)
	}
	c.ktContinue(th)
	until[*godap.TerminatedEvent](c, "the program's end", nil)
}

// Where the VM lists a class's instances (HotSpot), a coroutine of a tree
// no stopped thread runs (GlobalScope's) is listed too, suspended at its
// await, and the list says it comes from the VM's coroutine objects.
func TestKotlinCoroutinesFromInstances(t *testing.T) {
	c, kc := ktSession(t, kotlintest.Indy, "args", []string{"--family", "--global"})
	c.setBreakpoints(filepath.Join(kc.Sources, "app", "Coroutines.kt"), ktBP(t, "app/Coroutines.kt", "familyReady"))
	th := c.ktStop(c.ktConfigurationDone(), "the stop in the family's runBlocking").Body.ThreadId
	body := c.coroutinesList(map[string]any{})
	if body.Source != ext.CoroutinesFromInstances {
		t.Errorf("source %q, want %q", body.Source, ext.CoroutinesFromInstances)
	}
	names := map[string]ext.Coroutine{}
	for _, co := range body.Coroutines {
		name, _, _ := strings.Cut(co.Name, "#")
		if _, dup := names[name]; dup {
			t.Errorf("%s listed twice", name)
		}
		names[name] = co
	}
	g, ok := names["global"]
	if !ok || g.State != ext.CoroutineSuspended || len(g.Frames) == 0 || g.Frames[0].Line != kotlintest.Line(t, "app/Coroutines.kt", "globalAwait") || g.Dispatcher != "Dispatchers.Default" {
		t.Errorf("global %s, want suspended at its await on Dispatchers.Default", mustJSON(g))
	}
	for _, name := range []string{"family", "sleeper-0", "grandchild", "lazy"} {
		if _, ok := names[name]; !ok {
			t.Errorf("%s not listed: %s", name, mustJSON(body))
		}
	}
	c.ktContinue(th)
	until[*godap.TerminatedEvent](c, "the program's end", nil)
}

// With kotlinx-coroutines-debug's DebugProbes installed by the app
// (DebugProbes.install() with enableCreationStackTraces, the debug jar,
// byte-buddy and JNA on the class path) the list is the registry's and each
// worker's creation stack shows its launch.
func TestKotlinCoroutinesFromDebugArtifact(t *testing.T) {
	p := kotlintest.Require(t)
	const n = 5
	kc := kotlintest.CompileFixtureT(t, kotlintest.Indy)
	cp := append(slices.Clone(kc.ClassPath), p.CoroutinesDebug)
	for _, jar := range p.Compiler { // the debug jar's byte-buddy, its agent, and JNA its attach needs here
		if base := filepath.Base(jar); strings.HasPrefix(base, "byte-buddy") || strings.HasPrefix(base, "jna") {
			cp = append(cp, jar)
		}
	}
	// byte-buddy attaches its agent to the VM itself (JDK 9+: allowed by the property).
	c, _ := ktSession(t, kotlintest.Indy, "classPaths", cp, "args", []string{"--installProbes", "--many", strconv.Itoa(n)}, "vmArgs", []string{"-Djdk.attach.allowAttachSelf=true"})
	c.setBreakpoints(filepath.Join(kc.Sources, "app", "Coroutines.kt"), ktBP(t, "app/Coroutines.kt", "manyReady"))
	th := c.ktStop(c.ktConfigurationDone(), "the stop with the workers launched").Body.ThreadId
	body := c.probesList(map[string]any{})
	if body.Source != ext.CoroutinesFromDebugProbes || body.Total < n+2 {
		t.Fatalf("source %q note %q total %d, want %q and every coroutine", body.Source, body.Note, body.Total, ext.CoroutinesFromDebugProbes)
	}
	checkCreationStacks(t, c, body, n)
	c.ktContinue(th)
	until[*godap.TerminatedEvent](c, "the program's end", nil)
}

// checkCreationStacks asks for the creation stacks (DebugProbes record
// them when enableCreationStackTraces is on): each worker's shows the launch call in the fixture's
// runBlocking lambda, at its line, with its source; without asking, none
// comes.
func checkCreationStacks(t *testing.T, c *client, without ext.CoroutinesBody, n int) {
	t.Helper()
	for _, co := range without.Coroutines {
		if co.CreationStack != nil {
			t.Fatalf("%s has a creation stack not asked for", co.Name)
		}
	}
	body := c.coroutinesList(map[string]any{"creationStacks": true})
	launchLine := kotlintest.Line(t, "app/Coroutines.kt", "manyLaunch")
	workers := 0
	for _, co := range body.Coroutines {
		if !strings.HasPrefix(co.Name, "worker-") {
			continue
		}
		workers++
		found := false
		for _, f := range co.CreationStack {
			if f.Line == launchLine && f.Source != nil && filepath.Base(f.Source.Path) == "Coroutines.kt" && strings.Contains(f.Name, "CoroutinesKt") {
				found = true
			}
			if strings.HasPrefix(f.Name, "_COROUTINE") {
				t.Errorf("%s: the artificial frame %s is shown", co.Name, f.Name)
			}
		}
		if !found {
			t.Errorf("%s: creation stack %s, want the launch at Coroutines.kt:%d", co.Name, mustJSON(co.CreationStack), launchLine)
			break
		}
	}
	if workers != n {
		t.Errorf("%d workers with creation stacks asked, want %d", workers, n)
	}
}

// In a frame of an async stack (a suspended function's continuation, which
// has no JVM frame) the Debug Console evaluates over the variables the
// continuation keeps, under the source's names, with the suspend
// function's class's functions and calls run in the stopped thread, as
// VS Code asks (stackTrace, then evaluate with the async frame's id);
// what needs a JVM frame (assigning) and the label frame are refused with
// a reason. The label frame is sent as a label: no source, line 0 (VS Code
// then shows its name alone), no scopes.
func TestKotlinEvaluateInAsyncFrame(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			c, kc := ktSession(t, mode, "args", []string{"--chain"})
			c.setBreakpoints(filepath.Join(kc.Sources, "app", "Coroutines.kt"), ktBP(t, "app/Coroutines.kt", "chainCAfter"))
			th := c.ktStop(c.ktConfigurationDone(), "the stop in chainC after delay").Body.ThreadId
			frames := c.stackTrace(th)
			async, ok := asyncFrames(frames)
			if !ok || len(async) < 2 {
				t.Fatalf("no async stack: %s", mustJSON(frames))
			}
			label := frames[len(frames)-len(async)-1]
			if raw := mustJSON(label); label.Line != 0 || label.Column != 0 || strings.Contains(raw, `"source"`) || label.PresentationHint != "label" {
				t.Errorf("the label frame %s, want presentationHint label, no source, line 0", raw)
			}
			c.send("scopes", map[string]any{"frameId": label.Id})
			if sc := expect[*godap.ScopesResponse](c).Body.Scopes; len(sc) != 0 {
				t.Errorf("the label frame's scopes %s, want none", mustJSON(sc))
			}
			if _, errResp := c.evaluateIn(label.Id, "repl", "1 + 1"); errResp == nil || !strings.Contains(errResp.Body.Error.Format, "label") {
				t.Errorf("evaluate in the label frame: %s, want refused as a label", mustJSON(errResp))
			}
			b, a := async[0].Id, async[1].Id
			for _, x := range []struct {
				frame      int
				expr, want string
			}{
				{b, "n", "2"}, {b, "half", "10"}, {b, "n + half * 2", "22"}, {b, `"$n/${half}"`, `"2/10"`},
				{b, "if (half > n) half - n else 0", "8"}, {b, "n in 1..3", "true"},
				{b, "plainC(n)", "103"}, // a top-level function of the suspend function's file, run in the stopped thread
				{a, "n", "1"}, {a, "tag", `"a1"`}, {a, "tag.length", "2"}, {a, "tag.uppercase()", `"A1"`},
				{a, "tag + n", `"a11"`}, {a, "tag == \"a1\"", "true"},
			} {
				body, errResp := c.evaluateIn(x.frame, "repl", x.expr)
				switch {
				case errResp != nil:
					t.Errorf("%s in %d: %s, want %s", x.expr, x.frame, errResp.Body.Error.Format, x.want)
				case body.Result != x.want:
					t.Errorf("%s in %d = %s, want %s", x.expr, x.frame, body.Result, x.want)
				}
			}
			// A hover there runs no code: the spilled values themselves.
			if body, errResp := c.evaluateIn(b, "hover", "half"); errResp != nil || body.Result != "10" {
				t.Errorf("hover half = %s / %s, want 10", mustJSON(body), mustJSON(errResp))
			}
			for _, x := range []struct{ expr, why string }{{"this", "no this"}, {"nope", "nope"}} {
				if _, errResp := c.evaluateIn(b, "repl", x.expr); errResp == nil || !strings.Contains(errResp.Body.Error.Format, x.why) {
					t.Errorf("%s in chainB's frame: %s, want an error saying %q", x.expr, mustJSON(errResp), x.why)
				}
			}
			c.ktContinue(th)
			until[*godap.TerminatedEvent](c, "the program's end", nil)
		})
	}
}

// A member suspend function's frame in an async stack shows and evaluates
// with its receiver (the continuation's this$0): this in its Locals, this
// and its properties by name in expressions.
func TestKotlinEvaluateInMemberAsyncFrame(t *testing.T) {
	c, kc := ktSession(t, kotlintest.Indy, "args", []string{"--member"})
	c.setBreakpoints(filepath.Join(kc.Sources, "app", "Values.kt"), ktBP(t, "app/Values.kt", "memberInner"))
	th := c.ktStop(c.ktConfigurationDone(), "the stop in inner after yield").Body.ThreadId
	frames := c.stackTrace(th)
	async, ok := asyncFrames(frames)
	if !ok || len(async) < 1 || !strings.HasSuffix(async[0].Name, "Tally.outer") {
		t.Fatalf("async stack %s, want Tally.outer first", mustJSON(frames))
	}
	ktFrameAt(t, kc, async[0], "app/Values.kt", "memberOuter")
	if vars := c.scopeVars(async[0].Id); vars["k"] != "2" || vars["base"] != "42" || !strings.Contains(vars["this"], "Tally") {
		t.Errorf("outer's Locals %v, want this (a Tally), k=2, base=42", vars)
	}
	for _, x := range []struct{ expr, want string }{
		{"k", "2"}, {"base", "42"}, {"this.start", "40"}, {"start + base", "82"}, {"this === this", "true"},
	} {
		body, errResp := c.evaluateIn(async[0].Id, "repl", x.expr)
		switch {
		case errResp != nil:
			t.Errorf("%s: %s, want %s", x.expr, errResp.Body.Error.Format, x.want)
		case body.Result != x.want:
			t.Errorf("%s = %s, want %s", x.expr, body.Result, x.want)
		}
	}
	c.ktContinue(th)
	until[*godap.TerminatedEvent](c, "the program's end", nil)
}

// A companion's suspend function in an async stack reads as its JVM frame
// would, as Kotlin names it: Tally.Companion.twiceOf (was
// Tally$Companion.twiceOf), at the line it suspended on, above the
// runBlocking lambda.
func TestKotlinCompanionAsyncFrameName(t *testing.T) {
	c, kc := ktSession(t, kotlintest.Indy, "args", []string{"--companion"})
	c.setBreakpoints(filepath.Join(kc.Sources, "app", "Values.kt"), ktBP(t, "app/Values.kt", "settleAfter"))
	th := c.ktStop(c.ktConfigurationDone(), "the stop in settle after yield").Body.ThreadId
	frames := c.stackTrace(th)
	async, ok := asyncFrames(frames)
	if !ok || len(async) < 1 || !strings.HasSuffix(async[0].Name, "Tally.Companion.twiceOf") {
		t.Fatalf("async stack %s, want Tally.Companion.twiceOf first", mustJSON(frames))
	}
	ktFrameAt(t, kc, async[0], "app/Values.kt", "companionCall")
	c.ktContinue(th)
	until[*godap.TerminatedEvent](c, "the program's end", nil)
}
