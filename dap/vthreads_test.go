package dap

import (
	"archive/zip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/dap/ext"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
	godap "github.com/google/go-dap"
)

var (
	java21Once sync.Once
	java21Dir  string
	java21Err  error
)

// fixtures21 compiles testdata/java21 with the javac of the JDK 21+ of
// the tests and returns that JDK's home and the class directory.
func fixtures21(t testing.TB) (home, classes string) {
	t.Helper()
	home = jvmtest.ModernJDK(t)
	java21Once.Do(func() {
		files := map[string][]byte{}
		ents, err := os.ReadDir(filepath.Join("testdata", "java21"))
		if err != nil {
			java21Err = err
			return
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join("testdata", "java21", e.Name()))
			if err != nil {
				java21Err = err
				return
			}
			files[e.Name()] = b
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		java21Dir, java21Err = jvmtest.CompileWith(ctx, home, files)
	})
	if java21Err != nil {
		t.Fatal(java21Err)
	}
	return home, java21Dir
}

func source21(t testing.TB, name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", "java21", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func line21(t testing.TB, file, marker string) int {
	t.Helper()
	b, err := os.ReadFile(source21(t, file))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasSuffix(strings.TrimSpace(l), "// @"+marker) {
			return i + 1
		}
	}
	t.Fatalf("no line marked @%s in %s", marker, file)
	return 0
}

// threadsNow sends threads and returns the list.
func (c *client) threadsNow() []godap.Thread {
	c.t.Helper()
	c.send("threads", nil)
	return until[*godap.ThreadsResponse](c, "threads response", nil).Body.Threads
}

// TestVirtualThreadsJDK25 debugs 10,000 unnamed virtual threads on a JDK
// 21+ (Temurin 25 here) launched with javaHome, as VS Code does: a
// conditional breakpoint stops one virtual thread while the others live;
// the thread is listed (virtual#<id>, marked virtual, its carrier named),
// its stack, scopes and variables are read, Thread.currentThread() is
// evaluated in it, it steps, and pause all and resume work; the thread
// start events are the platform threads' alone (PlatformThreadsOnly).
func TestVirtualThreadsJDK25(t *testing.T) {
	home, classes := fixtures21(t)
	const n = 10000
	end := filepath.Join(t.TempDir(), "end")
	c := startSession(t, Config{})
	c.initialize()
	c.launch(map[string]any{"mainClass": "VThreads", "classPaths": []string{classes}, "sourcePaths": []string{source21(t, "")},
		"javaHome": home, "args": []string{"10000", end}})
	file := source21(t, "VThreads.java")
	if bps := c.setBreakpoints(file, map[string]any{"line": line21(t, "VThreads.java", "vt-cond"), "condition": "k == 4200"}); len(bps) != 1 || !bps[0].Verified {
		t.Fatalf("conditional breakpoint: %s", mustJSON(bps))
	}
	c.configurationDone()
	stop := c.expectStop("breakpoint")
	th := stop.Body.ThreadId

	listed := func(when string) godap.Thread {
		t.Helper()
		threads := c.threadsNow()
		if len(threads) > 200 {
			t.Errorf("%s: %d threads listed, want the platform threads and the met ones only", when, len(threads))
		}
		for _, x := range threads {
			if x.Id == th {
				return x
			}
		}
		t.Fatalf("%s: the stopped virtual thread %d is not listed: %s", when, th, mustJSON(threads))
		return godap.Thread{}
	}
	vt := listed("at the breakpoint")
	t.Logf("the stopped virtual thread: %q", vt.Name)
	if !strings.HasPrefix(vt.Name, "virtual#") || !strings.Contains(vt.Name, "(virtual, on ") {
		t.Errorf("the stopped virtual thread is called %q, want virtual#<id> (virtual, on <carrier>)", vt.Name)
	}
	locals, frames := c.locals(th)
	frameAt(t, frames[0], "VThreads.work", line21(t, "VThreads.java", "vt-cond"))
	if locals["k"].Value != "4200" {
		t.Errorf("k = %q, want 4200 (the condition)", locals["k"].Value)
	}
	if r := c.evaluate(frames[0].Id, "Thread.currentThread().isVirtual()"); r.Result != "true" {
		t.Errorf("Thread.currentThread().isVirtual() = %q", r.Result)
	}
	if r := c.evaluate(frames[0].Id, `"virtual#" + Thread.currentThread().threadId()`); !strings.HasPrefix(vt.Name, strings.Trim(r.Result, `"`)+" ") {
		t.Errorf("the thread's id %s is not the one its name %q says", r.Result, vt.Name)
	}

	c.send("next", map[string]any{"threadId": th})
	until[*godap.NextResponse](c, "next response", nil)
	if s := c.expectStop("step"); s.Body.ThreadId != th {
		t.Fatalf("the step stopped thread %d, want %d", s.Body.ThreadId, th)
	}
	listed("after the step")
	frames = c.stackTrace(th)
	frameAt(t, frames[0], "VThreads.work", line21(t, "VThreads.java", "vt-next"))

	c.setBreakpoints(file)
	c.send("continue", map[string]any{"threadId": th})
	until[*godap.ContinueResponse](c, "continue response", nil)
	c.skip["output"] = false
	until[*godap.OutputEvent](c, "the program's ALL line", func(o *godap.OutputEvent) bool {
		return strings.Contains(o.Body.Output, "ALL 10000 WORKED")
	})
	c.skip["output"] = true

	c.send("pause", map[string]any{"threadId": th})
	until[*godap.PauseResponse](c, "pause response", nil)
	c.expectStop("pause")
	listed("paused")
	frames = c.stackTrace(th)
	if len(frames) == 0 {
		t.Fatal("no frames of the paused virtual thread")
	}

	if err := os.WriteFile(end, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c.send("continue", map[string]any{"threadId": th})
	until[*godap.ContinueResponse](c, "continue response", nil)
	c.expectEnd(0)
	if !strings.Contains(c.out.String(), "DONE ") {
		t.Errorf("the program did not finish: %s", c.out.String())
	}
	if started := c.skipped["thread"]; started > 200 {
		t.Errorf("%d thread events for a program of %d virtual threads: want the platform threads' alone", started, n)
	}
}

// attachParked starts VParked with n virtual threads on the JDK 21+ whose
// agent lists virtual threads (includevirtualthreads=y), attaches and
// stops in main.
func attachParked(t testing.TB, n int) (*client, int) {
	t.Helper()
	home, classes := fixtures21(t)
	vm := jvmtest.StartT(t, jvmtest.Options{JavaHome: home, ClassPath: []string{classes}, MainClass: "VParked",
		Args: []string{strconv.Itoa(n)}, AgentOptions: "includevirtualthreads=y", VMArgs: []string{"-Xss256k"},
		ReadyLine: "READY", Timeout: 3 * time.Minute})
	c := startSession(t, Config{})
	c.initialize()
	c.attach(map[string]any{"port": vm.Port, "sourcePaths": []string{source21(t, "")}})
	c.setBreakpointsRunning(source21(t, "VParked.java"), map[string]any{"line": line21(t, "VParked.java", "vp-tick")})
	stop := c.configurationDoneAndStop("breakpoint", nil)
	return c, stop.Body.ThreadId
}

// TestVirtualThreadsListedByTheAgent attaches to a JDK 21+ VM whose agent
// lists its 10,000 virtual threads: threads lists the platform threads
// alone and says in the console how many virtual threads it left out;
// virtualThreads pages through them all, grouped by stack (the two stacks
// VParked parks its threads in), with names as the threads request gives.
func TestVirtualThreadsListedByTheAgent(t *testing.T) {
	const n = 10000
	c, main := attachParked(t, n)
	threads := c.threadsNow()
	c.skip["output"] = false
	until[*godap.OutputEvent](c, "the console line saying how many virtual threads were left out", func(o *godap.OutputEvent) bool {
		return strings.Contains(o.Body.Output, strconv.Itoa(n)+" more virtual threads")
	})
	c.skip["output"] = true
	if len(threads) > 100 {
		t.Errorf("%d threads listed, want the platform threads", len(threads))
	}
	found := false
	for _, th := range threads {
		found = found || th.Id == main && th.Name == "main"
	}
	if !found {
		t.Errorf("main (%d) not listed: %s", main, mustJSON(threads))
	}

	seen := map[int]bool{}
	stacks := map[string]int{}
	for start := 0; ; {
		c.send("virtualThreads", map[string]any{"start": start, "count": 4000})
		body := until[*ext.VirtualThreadsResponse](c, "virtualThreads response", nil).Body
		if body.Total != n || !body.Listed {
			t.Fatalf("virtualThreads: total %d listed %v, want %d listed", body.Total, body.Listed, n)
		}
		for _, g := range body.Groups {
			names := make([]string, len(g.Frames))
			for i, f := range g.Frames {
				names[i] = f.Name
			}
			stacks[strings.Join(names, " < ")] += g.Count
			for _, th := range g.Threads {
				if seen[th.Id] || !strings.HasPrefix(th.Name, "virtual#") {
					t.Errorf("thread %s named twice or not virtual#<id>", mustJSON(th))
				}
				seen[th.Id] = true
			}
		}
		if start += body.Count; body.Count == 0 || start >= body.Total {
			break
		}
	}
	deeper, direct := 0, 0
	for stack, count := range stacks {
		switch {
		case strings.Contains(stack, "CountDownLatch.await < VParked.deeper < VParked.park <"):
			deeper += count
		case strings.Contains(stack, "CountDownLatch.await < VParked.park <"):
			direct += count
		}
	}
	if deeper != n/2 || direct != n/2 {
		t.Errorf("stacks: %d in deeper, %d in park, want %d each; groups: %v", deeper, direct, n/2, stacks)
	}
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect response", nil)
}

// BenchmarkThreadsVirtual measures the threads request VS Code sends at
// every stop, with the agent listing 100,000 virtual threads alive; the
// reference is the same request with none (ratio printed). Target:
// 100 ms.
func BenchmarkThreadsVirtual(b *testing.B) {
	var ref float64
	for _, n := range []int{0, 100000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			c, _ := attachParked(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.send("threads", nil)
				until[*godap.ThreadsResponse](c, "threads response", nil)
			}
			b.StopTimer()
			ms := float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
			b.ReportMetric(ms, "ms/threads")
			if n == 0 {
				ref = ms
			} else if ref > 0 {
				b.ReportMetric(ms/ref, "x-of-none")
			}
			c.send("disconnect", map[string]any{"terminateDebuggee": true})
			until[*godap.DisconnectResponse](c, "disconnect response", nil)
		})
	}
}

// TestUncaughtExceptionInVirtualThread: with the default "uncaught"
// filter, an exception that ends a virtual thread stops where it was
// thrown and says it is uncaught, though the JDK's VirtualThread.run
// catches it; the program's caught exception does not stop.
func TestUncaughtExceptionInVirtualThread(t *testing.T) {
	home, classes := fixtures21(t)
	c := startSession(t, Config{})
	c.initialize()
	c.launch(map[string]any{"mainClass": "VBoom", "classPaths": []string{classes}, "sourcePaths": []string{source21(t, "")}, "javaHome": home})
	c.send("setExceptionBreakpoints", map[string]any{"filters": []string{"uncaught"}})
	expect[*godap.SetExceptionBreakpointsResponse](c)
	c.configurationDone()
	stop := c.expectStop("exception")
	if stop.Body.Text != "java.lang.IllegalStateException: boom in virtual: on purpose" || !strings.Contains(stop.Body.Description, "uncaught") {
		t.Errorf("stop %s, want the IllegalStateException, uncaught", mustJSON(stop.Body))
	}
	frames := c.stackTrace(stop.Body.ThreadId)
	frameAt(t, frames[0], "VBoom.fail", line21(t, "VBoom.java", "vb-throw"))
	found := false
	for _, th := range c.threadsNow() {
		found = found || th.Id == stop.Body.ThreadId && strings.HasPrefix(th.Name, "raw-virtual (virtual")
	}
	if !found {
		t.Errorf("the virtual thread raw-virtual is not listed as virtual")
	}
	c.send("continue", map[string]any{"threadId": stop.Body.ThreadId})
	until[*godap.ContinueResponse](c, "continue response", nil)
	c.expectEnd(0)
	if out := c.out.String(); !strings.Contains(out, "caught For input string") || !strings.Contains(out, `Exception in thread "raw-virtual" java.lang.IllegalStateException`) || !strings.Contains(out, "END") {
		t.Errorf("output:\n%s", out)
	}
}

// TestJDK25ClassFiles debugs class files of the JDK 21+'s own version
// (major 69 on JDK 25) in its VM: hot code replace of a class javac 25
// wrote, a lambda evaluated in the VM (dap/fngen's class defined there),
// the step-in targets of a line with a record pattern switch's callee,
// and the outline of a class without source.
func TestJDK25ClassFiles(t *testing.T) {
	home, classes := fixtures21(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	src, err := os.ReadFile(source21(t, "Modern25.java"))
	if err != nil {
		t.Fatal(err)
	}
	changed, err := jvmtest.CompileWith(ctx, home, map[string][]byte{"Modern25.java": []byte(strings.Replace(string(src), "total += describe(", "total = 4242 + 0 * describe(", 1))})
	if err != nil {
		t.Fatal(err)
	}
	extra, err := jvmtest.CompileWith(ctx, home, map[string][]byte{"NoSrc.java": []byte(noSrc)})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(classes, "Modern25.class")); err != nil || len(b) < 8 || int(b[6])<<8|int(b[7]) < 65 {
		t.Fatalf("Modern25.class is not of JDK 21 or later: %v", err)
	}
	c := startSession(t, Config{})
	c.codec.RegisterEvent("hotCodeReplace", func() godap.Message { return &customEvent[HotCodeReplaceBody]{} })
	c.initialize()
	c.launch(map[string]any{"mainClass": "Modern25", "classPaths": []string{classes, extra}, "sourcePaths": []string{source21(t, "")}, "javaHome": home})
	c.configurationDone()
	c.waitOutput("READY")

	c.send("redefineClasses", map[string]any{"classFiles": []string{filepath.Join(changed, "Modern25.class")}})
	ev := until[*customEvent[HotCodeReplaceBody]](c, "hotCodeReplace event", nil)
	if resp := until[*redefineClassesResponse](c, "redefineClasses response", nil); !ev.Body.Success || !resp.Body.Success {
		t.Fatalf("hot code replace: event %s response %s", mustJSON(ev.Body), mustJSON(resp.Body))
	}
	file := source21(t, "Modern25.java")
	c.setBreakpointsRunning(file, map[string]any{"line": line21(t, "Modern25.java", "m25-tick")})
	stop := c.expectStop("breakpoint")
	c.send("continue", map[string]any{"threadId": stop.Body.ThreadId})
	until[*godap.ContinueResponse](c, "continue response", nil)
	stop = c.expectStop("breakpoint")
	top := c.stackTrace(stop.Body.ThreadId)[0]
	if r := c.evaluate(top.Id, "total"); r.Result != "4242" {
		t.Errorf("total after the new tick ran: %s", r.Result)
	}
	if r, e := c.evaluateIn(top.Id, "repl", "java.util.stream.IntStream.range(0, 4).map(x -> x * i + 1).sum()"); e != nil || r.Result == "" {
		t.Errorf("a lambda evaluated in the JDK 25 VM: %s %s", mustJSON(r), mustJSON(e))
	} else {
		i := c.evaluate(top.Id, "i").Result
		n, _ := strconv.Atoi(i)
		if want := strconv.Itoa(6*n + 4); r.Result != want {
			t.Errorf("lambda sum with i=%s: %s, want %s", i, r.Result, want)
		}
	}
	c.send("stepInTargets", map[string]any{"frameId": top.Id})
	var labels []string
	for _, tg := range until[*godap.StepInTargetsResponse](c, "stepInTargets response", nil).Body.Targets {
		labels = append(labels, tg.Label)
	}
	if l := strings.Join(labels, ", "); !strings.Contains(l, "Modern25.describe(Object)") || !strings.Contains(l, "Point") {
		t.Errorf("step-in targets: %s", l)
	}
	if r, e := c.evaluateIn(top.Id, "repl", `Class.forName("NoSrc").getName()`); e != nil || r.Result != `"NoSrc"` {
		t.Fatalf("load NoSrc: %s %s", mustJSON(r), mustJSON(e))
	}
	c.send("loadedSources", nil)
	var nosrc *godap.Source
	for _, s := range until[*godap.LoadedSourcesResponse](c, "loadedSources response", nil).Body.Sources {
		if s.Name == "NoSrc.java" {
			nosrc = &s
		}
	}
	if nosrc == nil || nosrc.SourceReference == 0 {
		t.Fatalf("NoSrc's source %s, want an outline reference", mustJSON(nosrc))
	}
	c.send("source", map[string]any{"sourceReference": nosrc.SourceReference, "source": nosrc})
	text := until[*godap.SourceResponse](c, "source response", nil).Body.Content
	for _, want := range []string{"public int length() // ()I", "getfield        NoSrc.value:[B", "static {}"} {
		if !strings.Contains(text, want) {
			t.Errorf("NoSrc's outline (javac 25) lacks %q:\n%.2000s", want, text)
		}
	}
	c.send("disconnect", map[string]any{"terminateDebuggee": true})
	until[*godap.DisconnectResponse](c, "disconnect response", nil)
}

// TestLaunchWithEachJavaHome launches the fixtures (javac 17's class
// files) with "javaHome" set to each JDK 17+ of the machine
// (localjvm.InstalledJDKs): the VM runs on that JDK (its java.home), and the
// JDK's classes show that JDK's own sources (its lib/src.zip) although
// sourcePaths are set.
func TestLaunchWithEachJavaHome(t *testing.T) {
	jvmtest.RequireJava(t)
	var homes []string
	for _, j := range localjvm.InstalledJDKs() {
		if j.Version >= 17 {
			homes = append(homes, j.Home)
		}
	}
	if len(homes) == 0 {
		t.Fatal("no JDK 17+ in /usr/lib/jvm, JAVA_HOME or ~/.sdkman/candidates/java, though java runs the tests")
	}
	for _, home := range homes {
		t.Run(filepath.Base(home), func(t *testing.T) {
			c := startSession(t, Config{})
			_, top := stopAt(t, c, "Basic", "Basic.java", "call-add", "javaHome", home)
			r := c.evaluate(top.Id, `System.getProperty("java.home")`)
			got, _ := filepath.EvalSymlinks(strings.Trim(r.Result, `"`))
			want, _ := filepath.EvalSymlinks(home)
			if got != want {
				t.Fatalf("java.home %s, want %s", r.Result, home)
			}
			c.send("loadedSources", nil)
			var str *godap.Source
			for _, s := range until[*godap.LoadedSourcesResponse](c, "loadedSources response", nil).Body.Sources {
				if s.Name == "String.java" && s.Origin == "src.zip" {
					str = &s
				}
			}
			zipPath := filepath.Join(home, "lib", "src.zip")
			want21, err := readZipEntry(zipPath, "java.base/java/lang/String.java")
			if err != nil {
				t.Logf("%s has no sources (%v): not compared", home, err)
			} else if str == nil {
				t.Errorf("no String.java from src.zip among the loaded sources")
			} else {
				c.send("source", map[string]any{"sourceReference": str.SourceReference, "source": str})
				if text := until[*godap.SourceResponse](c, "source response", nil).Body.Content; text != string(want21) {
					t.Errorf("String.java is not %s's (%d bytes, want %d)", zipPath, len(text), len(want21))
				}
			}
			c.send("disconnect", map[string]any{"terminateDebuggee": true})
			until[*godap.DisconnectResponse](c, "disconnect response", nil)
		})
	}
}

func readZipEntry(path, name string) ([]byte, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	f, err := z.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// TestVirtualThreadsManyStops: a breakpoint a hundred of 10,000 virtual
// threads hit, several at once, driven as VS Code does at every stop
// (threads, stackTrace, scopes, variables, continue): each stopped
// virtual thread is listed, its k is a multiple of 100, and the program
// ends normally once the breakpoint is cleared.
func TestVirtualThreadsManyStops(t *testing.T) {
	home, classes := fixtures21(t)
	end := filepath.Join(t.TempDir(), "end")
	c := startSession(t, Config{})
	c.initialize()
	c.launch(map[string]any{"mainClass": "VThreads", "classPaths": []string{classes}, "sourcePaths": []string{source21(t, "")},
		"javaHome": home, "args": []string{"10000", end}})
	file := source21(t, "VThreads.java")
	c.setBreakpoints(file, map[string]any{"line": line21(t, "VThreads.java", "vt-cond")})
	c.configurationDone()
	ks := map[string]bool{}
	// Several threads stop at once: the stop of another thread may come
	// between any request and its response (VS Code shows it), so every
	// answer is waited for with until, which passes over those stops.
	for i := 0; i < 8; i++ {
		stop := until[*godap.StoppedEvent](c, "a stop", nil)
		if stop.Body.Reason != "breakpoint" {
			t.Fatalf("stop %s", mustJSON(stop.Body))
		}
		th := stop.Body.ThreadId
		listed := false
		for _, x := range c.threadsNow() {
			listed = listed || x.Id == th && strings.Contains(x.Name, "(virtual")
		}
		if !listed {
			t.Fatalf("stop %d: the stopped virtual thread %d is not listed", i, th)
		}
		c.send("stackTrace", map[string]any{"threadId": th})
		frames := until[*godap.StackTraceResponse](c, "stackTrace response", nil).Body.StackFrames
		c.send("scopes", map[string]any{"frameId": frames[0].Id})
		scopes := until[*godap.ScopesResponse](c, "scopes response", nil).Body.Scopes
		c.send("variables", map[string]any{"variablesReference": scopes[0].VariablesReference})
		locals := byName(until[*godap.VariablesResponse](c, "variables response", nil).Body.Variables)
		frameAt(t, frames[0], "VThreads.work", line21(t, "VThreads.java", "vt-cond"))
		k, err := strconv.Atoi(locals["k"].Value)
		if err != nil || k%100 != 0 || ks[locals["k"].Value] {
			t.Fatalf("stop %d: k = %q (seen %v)", i, locals["k"].Value, ks)
		}
		ks[locals["k"].Value] = true
		if i == 7 {
			c.send("setBreakpoints", map[string]any{"source": map[string]any{"path": file}, "breakpoints": []any{}})
			until[*godap.SetBreakpointsResponse](c, "setBreakpoints response", nil)
		}
		c.send("continue", map[string]any{"threadId": th})
		until[*godap.ContinueResponse](c, "continue response", nil)
	}
	if err := os.WriteFile(end, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c.expectEnd(0)
	if !strings.Contains(c.out.String(), "DONE ") {
		t.Errorf("the program did not finish: %s", c.out.String())
	}
}

// BenchmarkPauseVirtual measures pause all (pause → stopped, then the
// threads request VS Code sends) with the agent listing 100,000 virtual
// threads alive, and apart from it the resume before it (continue, then
// a threads request that waits behind the VM's Resume: HotSpot's agent
// resumes each virtual thread it lists); the reference is the same with
// none (ratios printed).
func BenchmarkPauseVirtual(b *testing.B) {
	var refPause, refResume float64
	for _, n := range []int{0, 100000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			c, th := attachParked(b, n)
			c.send("setBreakpoints", map[string]any{"source": map[string]any{"path": source21(b, "VParked.java")}, "breakpoints": []any{}})
			until[*godap.SetBreakpointsResponse](c, "setBreakpoints response", nil)
			var resume time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				start := time.Now()
				c.send("continue", map[string]any{"threadId": th})
				until[*godap.ContinueResponse](c, "continue response", nil)
				c.send("threads", nil)
				until[*godap.ThreadsResponse](c, "threads response", nil)
				resume += time.Since(start)
				b.StartTimer()
				c.send("pause", map[string]any{"threadId": th})
				until[*godap.StoppedEvent](c, "the pause's stop", nil)
				c.send("threads", nil)
				until[*godap.ThreadsResponse](c, "threads response", nil)
			}
			b.StopTimer()
			ms := float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
			rms := float64(resume.Microseconds()) / 1000 / float64(b.N)
			b.ReportMetric(ms, "ms/pause+threads")
			b.ReportMetric(rms, "ms/resume")
			if n == 0 {
				refPause, refResume = ms, rms
			} else if refPause > 0 && refResume > 0 {
				b.ReportMetric(ms/refPause, "pause-x-of-none")
				b.ReportMetric(rms/refResume, "resume-x-of-none")
			}
			c.send("disconnect", map[string]any{"terminateDebuggee": true})
			until[*godap.DisconnectResponse](c, "disconnect response", nil)
		})
	}
}

// TestAttachShowsTheVMsOwnJDKSources attaches (zero-config sources, no
// sourcePaths) to a JDK 21+ VM while java on PATH is another JDK: the
// JDK's classes show the attached VM's own src.zip (its java.home), not
// the JDK the adapter would find by itself.
func TestAttachShowsTheVMsOwnJDKSources(t *testing.T) {
	home, classes := fixtures21(t)
	want, err := readZipEntry(filepath.Join(home, "lib", "src.zip"), "java.base/java/lang/String.java")
	if err != nil {
		t.Fatalf("the JDK 21+ of the tests has no sources to compare: %v", err)
	}
	vm := jvmtest.StartT(t, jvmtest.Options{JavaHome: home, ClassPath: []string{classes}, MainClass: "VParked", Args: []string{"4"}, ReadyLine: "READY"})
	c := startSession(t, Config{})
	c.initialize()
	c.attach(map[string]any{"port": vm.Port, "workspaceFolders": []string{source21(t, "")}})
	c.setBreakpointsRunning(source21(t, "VParked.java"), map[string]any{"line": line21(t, "VParked.java", "vp-tick")})
	c.configurationDoneAndStop("breakpoint", nil)
	c.send("loadedSources", nil)
	var str *godap.Source
	for _, s := range until[*godap.LoadedSourcesResponse](c, "loadedSources response", nil).Body.Sources {
		if s.Name == "String.java" {
			str = &s
		}
	}
	if str == nil || str.SourceReference == 0 || str.Origin != "src.zip" {
		t.Fatalf("String.java %s, want a reference into src.zip", mustJSON(str))
	}
	c.send("source", map[string]any{"sourceReference": str.SourceReference, "source": str})
	if text := until[*godap.SourceResponse](c, "source response", nil).Body.Content; text != string(want) {
		t.Errorf("String.java is not %s's own (%d bytes, want %d)", home, len(text), len(want))
	}
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect response", nil)
}
