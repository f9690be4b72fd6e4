package dap

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/dap/ext"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/kotlin/kotlintest"
	godap "github.com/google/go-dap"
)

// BenchmarkKotlinCoroutinesList is issue 37's figure: the coroutines
// request listing 1,000 coroutines (suspended in gate.await(), each with
// its stack) from kotlinx-coroutines' debug probes (-javaagent: the core
// jar), in one stop: ms/list on average, ms/first for the stop's first
// list (no object's type known yet), ms/noframes with frames 0. Target:
// 200 ms. Reported, never asserted.
func BenchmarkKotlinCoroutinesList(b *testing.B) {
	p := kotlintest.Require(b)
	const n = 1000
	kc := kotlintest.CompileFixtureT(b, kotlintest.Indy)
	c := startSession(b, Config{})
	c.initialize()
	c.launch(map[string]any{"mainClass": kotlintest.FixtureMain, "classPaths": kc.ClassPath, "sourcePaths": []string{kc.Sources},
		"args": []string{"--many", strconv.Itoa(n)}, "vmArgs": []string{"-javaagent:" + p.Coroutines}})
	c.setBreakpoints(filepath.Join(kc.Sources, "app", "Coroutines.kt"), ktBP(b, "app/Coroutines.kt", "manyReady"))
	c.ktStop(c.ktConfigurationDone(), "the stop with the workers launched")
	list := func(args map[string]any) (ext.CoroutinesBody, time.Duration) {
		start := time.Now()
		body := c.coroutinesList(args)
		d := time.Since(start)
		if body.Source != ext.CoroutinesFromDebugProbes || body.Total < n || len(body.Coroutines) < n {
			b.Fatalf("%s: %d of %d coroutines (%s)", body.Source, len(body.Coroutines), body.Total, body.Note)
		}
		return body, d
	}
	body, first := list(map[string]any{})
	if len(body.Coroutines[n/2].Frames) == 0 {
		b.Fatalf("coroutine %s has no frames", mustJSON(body.Coroutines[n/2]))
	}
	var noFrames time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		list(map[string]any{})
		b.StopTimer()
		_, d := list(map[string]any{"frames": 0})
		noFrames += d
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/list")
	b.ReportMetric(float64(first.Microseconds())/1000, "ms/first")
	b.ReportMetric(float64(noFrames.Microseconds())/1000/float64(b.N), "ms/noframes")
}

// BenchmarkKotlinStopInSuspend is issue 37's other figure: what a stop in a
// suspend function (chainC after it resumed: the async stack of chainB,
// chainA and the runBlocking lambda is read) costs from the stopped event
// to the top frame's variables (stackTrace, scopes, variables), beside the
// same stop in a plain function three calls deep (plainC), alternately in
// one program. ms/added is the difference. Target: 20 ms added. Reported,
// never asserted.
func BenchmarkKotlinStopInSuspend(b *testing.B) {
	kc := kotlintest.CompileFixtureT(b, kotlintest.Indy)
	c := startSession(b, Config{})
	c.initialize()
	c.launch(map[string]any{"mainClass": kotlintest.FixtureMain, "classPaths": kc.ClassPath, "sourcePaths": []string{kc.Sources},
		"args": []string{"--chainLoop", strconv.Itoa(b.N + 1)}})
	c.setBreakpoints(filepath.Join(kc.Sources, "app", "Coroutines.kt"), ktBP(b, "app/Coroutines.kt", "chainCAfter"), ktBP(b, "app/Coroutines.kt", "plainCAfter"))
	stop := c.ktStop(c.ktConfigurationDone(), "the first stop in chainC")
	toVariables := func(th int) (time.Duration, bool) {
		start := time.Now()
		frames := c.stackTrace(th)
		c.send("scopes", map[string]any{"frameId": frames[0].Id})
		scopes := expect[*godap.ScopesResponse](c).Body.Scopes
		if vars := c.variables(scopes[0].VariablesReference); len(vars) == 0 {
			b.Fatal("no locals")
		}
		_, async := asyncFrames(frames)
		return time.Since(start), async
	}
	// The first round warms the caches (classes, class files) of both.
	next := func() int {
		c.ktContinue(stop.Body.ThreadId)
		stop = until[*godap.StoppedEvent](c, "the next stop", nil)
		return stop.Body.ThreadId
	}
	toVariables(stop.Body.ThreadId)
	toVariables(next())
	var suspend, plain time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, async := toVariables(next())
		if !async {
			b.Fatal("the stop in chainC shows no async stack")
		}
		suspend += d
		d, async = toVariables(next())
		if async {
			b.Fatal("the stop in plainC shows an async stack")
		}
		plain += d
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(suspend), "ms/suspend")
	b.ReportMetric(ms(plain), "ms/plain")
	b.ReportMetric(ms(suspend)-ms(plain), "ms/added")
}
