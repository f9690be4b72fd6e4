package dap

import (
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	godap "github.com/google/go-dap"
)

// step steps over one line as an editor does (next, the stop, the top
// frames) and returns how long that took.
func (c *client) timedStep(th int) time.Duration {
	c.t.Helper()
	t0 := time.Now()
	c.send("next", map[string]any{"threadId": th})
	until[*godap.NextResponse](c, "next response", nil)
	until[*godap.StoppedEvent](c, "step stop", nil)
	c.send("stackTrace", map[string]any{"threadId": th, "levels": 20})
	until[*godap.StackTraceResponse](c, "stackTrace response", nil)
	return time.Since(t0)
}

// BenchmarkStepWithMemoryView measures step latency (next → stopped →
// stackTrace, as an editor steps) on a heap of a million objects, whose
// instance counts take the VM seconds: with the memory view closed; open
// and stepping at once after each stop (faster than the settle time: no
// count starts); open and stepping once the stop's counts arrived; and
// open, stepping while the stop's count runs in the VM (the worst case:
// the VM's agent answers nothing else during a heap walk). Goal: open ≤
// 1.05× closed. Figures are printed, not asserted; run with -benchtime 1x.
func BenchmarkStepWithMemoryView(b *testing.B) {
	c := startSession(b, Config{})
	c.initialize()
	c.launch(launchArgs(b, "MemBench", "args", []string{"1000000"}, "vmArgs", []string{"-Xmx1g"}))
	c.setBreakpoints(source(b, "MemBench.java"), bp(b, "MemBench.java", "bench-a"))
	c.configurationDone()
	th := until[*godap.StoppedEvent](c, "breakpoint stop", nil).Body.ThreadId
	c.setBreakpoints(source(b, "MemBench.java"))
	const steps = 20
	mean := func(f func() time.Duration, n int) time.Duration {
		var sum time.Duration
		for range n {
			sum += f()
		}
		return sum / time.Duration(n)
	}
	countsArrived := func() {
		until[*customEvent[InstanceCountsBody]](c, "memoryCounts", func(e *customEvent[InstanceCountsBody]) bool { return e.Body.Complete })
	}
	var closed, open, afterCounts, midCount time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		closed += mean(func() time.Duration { return c.timedStep(th) }, steps)

		c.send("memoryView", map[string]any{"visible": true})
		until[*memoryViewResponse](c, "memoryView response", nil)
		countsArrived() // made visible at a stop: counted at once
		open += mean(func() time.Duration { return c.timedStep(th) }, steps)
		afterCounts += mean(func() time.Duration {
			countsArrived()
			return c.timedStep(th)
		}, 3)
		countsArrived()
		midCount += mean(func() time.Duration {
			time.Sleep(debugger.DefaultSettle + 50*time.Millisecond) // the count has started in the VM
			return c.timedStep(th)
		}, 3)
		c.send("memoryView", map[string]any{"visible": false})
		until[*memoryViewResponse](c, "memoryView response", nil)
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(closed), "ms/step-closed")
	b.ReportMetric(ms(open), "ms/step-open")
	b.ReportMetric(ms(afterCounts), "ms/step-open-after-counts")
	b.ReportMetric(ms(midCount), "ms/step-open-mid-count")
	b.Logf("step latency: view closed %.1f ms; open %.1f ms (%.2f×); open, after the counts arrived %.1f ms (%.2f×); open, during a count %.1f ms (%.2f×) — goal ≤ 1.05×",
		ms(closed), ms(open), ms(open)/ms(closed), ms(afterCounts), ms(afterCounts)/ms(closed), ms(midCount), ms(midCount)/ms(closed))
}
