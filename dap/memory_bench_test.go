package dap

import (
	"slices"
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
// the VM's agent answers nothing else during a heap walk); and, to tell the
// VM's part, closed but right after an instanceCounts request. Goal: open ≤
// 1.05× closed. Figures are printed, not asserted; run with -benchtime 1x.
func BenchmarkStepWithMemoryView(b *testing.B) {
	c := startSession(b, Config{})
	c.initialize()
	c.launch(launchArgs(b, "MemBench", "args", []string{"1000000"}, "vmArgs", []string{"-Xmx1g"}))
	c.setBreakpoints(source(b, "MemBench.java"), bp(b, "MemBench.java", "bench-a"))
	c.configurationDone()
	th := until[*godap.StoppedEvent](c, "breakpoint stop", nil).Body.ThreadId
	c.setBreakpoints(source(b, "MemBench.java"))
	countsArrived := func() {
		until[*customEvent[InstanceCountsBody]](c, "memoryCounts", func(e *customEvent[InstanceCountsBody]) bool { return e.Body.Complete })
	}
	visible := func(on bool) {
		c.send("memoryView", map[string]any{"visible": on})
		until[*memoryViewResponse](c, "memoryView response", nil)
	}
	var closed, open, afterCounts, midCount, closedAfterCount []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Closed and open in alternating blocks, so the machine's load
		// weighs on both alike.
		for range 3 {
			for range 10 {
				closed = append(closed, c.timedStep(th))
			}
			visible(true)
			countsArrived() // made visible at a stop: counted at once
			c.timedStep(th) // the first step after a heap walk is the VM's slow one (see closed-after-a-count)
			for range 10 {
				open = append(open, c.timedStep(th))
			}
			visible(false)
		}
		visible(true)
		countsArrived()
		for range 3 {
			afterCounts = append(afterCounts, c.timedStep(th))
			countsArrived()
		}
		for range 3 {
			time.Sleep(debugger.MaxSettle + 300*time.Millisecond) // the count has started in the VM (it takes seconds here)
			midCount = append(midCount, c.timedStep(th))
		}
		visible(false)
		for range 3 {
			c.send("instanceCounts", nil)
			until[*instanceCountsResponse](c, "instanceCounts response", nil)
			closedAfterCount = append(closedAfterCount, c.timedStep(th))
		}
	}
	b.StopTimer()
	median := func(ds []time.Duration) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[len(s)/2].Microseconds()) / 1000
	}
	cl := median(closed)
	b.ReportMetric(cl, "ms/step-closed")
	b.ReportMetric(median(open), "ms/step-open")
	b.ReportMetric(median(afterCounts), "ms/step-open-after-counts")
	b.ReportMetric(median(midCount), "ms/step-open-mid-count")
	b.ReportMetric(median(closedAfterCount), "ms/step-closed-after-a-count")
	b.Logf("step latency (medians): view closed %.1f ms; open %.1f ms (%.2f×); open, right after the counts arrived %.1f ms (%.2f×); open, during a count %.1f ms (%.2f×); closed, right after an instanceCounts request %.1f ms (%.2f×) — goal ≤ 1.05×",
		cl, median(open), median(open)/cl, median(afterCounts), median(afterCounts)/cl, median(midCount), median(midCount)/cl, median(closedAfterCount), median(closedAfterCount)/cl)
}
