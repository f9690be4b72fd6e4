package dap

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	godap "github.com/google/go-dap"
)

// benchSession attaches a session to BenchTarget (200 parked threads with
// 40-deep stacks and a hot loop) and stops at a breakpoint in step(int).
func benchSession(b *testing.B) (*client, int) {
	b.Helper()
	vm := jvmtest.StartBenchTargetT(b, jvmtest.Options{})
	src, err := os.ReadFile("../jdwp/jvmtest/sample/BenchTarget.java")
	if err != nil {
		b.Fatal(err)
	}
	lineB := 0
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "// line B") {
			lineB = i + 1
		}
	}
	dir := b.TempDir()
	path := dir + "/BenchTarget.java"
	os.WriteFile(path, src, 0o644)
	c := startSession(b, Config{})
	c.initialize()
	c.attach(map[string]any{"port": vm.Port, "sourcePaths": []string{dir}})
	c.setBreakpoints(path, map[string]any{"line": lineB})
	c.configurationDone()
	return c, c.expectStop("breakpoint").Body.ThreadId
}

// BenchmarkStopToVariables measures what an editor waits for at a breakpoint
// hit with 200 threads: from continue (the breakpoint is hit at once in the
// hot loop) to stopped, the top frame's stack trace, scopes and locals. The
// threads list VS Code also asks for is reported separately. Target: 50 ms.
func BenchmarkStopToVariables(b *testing.B) {
	c, th := benchSession(b)
	var threads time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.send("continue", map[string]any{"threadId": th})
		expect[*godap.ContinueResponse](c)
		th = c.expectStop("breakpoint").Body.ThreadId
		frames := c.stackTrace(th)
		c.send("scopes", map[string]any{"frameId": frames[0].Id})
		scopes := expect[*godap.ScopesResponse](c).Body.Scopes
		if vars := c.variables(scopes[0].VariablesReference); len(vars) == 0 {
			b.Fatal("no locals")
		}
		b.StopTimer()
		start := time.Now()
		c.send("threads", nil)
		if n := len(expect[*godap.ThreadsResponse](c).Body.Threads); n < 200 {
			b.Fatalf("%d threads", n)
		}
		threads += time.Since(start)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/stop")
	b.ReportMetric(float64(threads.Microseconds())/1000/float64(b.N), "ms/threads")
}

// BenchmarkStep measures step latency: a next request to its stopped event
// (JDI's figure in shared/bench is about 1 ms per step).
func BenchmarkStep(b *testing.B) {
	c, th := benchSession(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.send("next", map[string]any{"threadId": th})
		expect[*godap.NextResponse](c)
		expect[*godap.ContinuedEvent](c)
		expect[*godap.StoppedEvent](c) // "breakpoint" when the step lands on line B again
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/step")
}
