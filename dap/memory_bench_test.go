package dap

import (
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
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
// instance counts take the VM a second or more: with the memory view
// closed, and open, stepping faster than the settle time (no count starts).
// A heap walk leaves the VM slower for a step or two (caches, the tags it
// set), whoever asked for it, so both series start after one, and the
// first step after a walk is reported on its own. Then the cases the view
// costs the VM: open, stepping once a stop's counts arrived, and stepping
// while a count runs (the worst: HotSpot's agent answers nothing else
// during a heap walk). Goal: open ≤ 1.05× closed. Figures are printed, not
// asserted; run with -benchtime 1x.
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
	var closed, open, afterWalk, afterCounts, midCount []time.Duration
	var quartets []float64
	median := func(ds []time.Duration) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[len(s)/2].Microseconds()) / 1000
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Closed and open in blocks ordered ABBA ABBA, so neither the
		// machine's load nor a block's place weighs on one more than the
		// other; each block after a heap walk.
		for k := range 16 {
			isOpen := k%4 == 1 || k%4 == 2
			series := &closed
			if isOpen {
				series = &open
				visible(true)
				countsArrived() // made visible at a stop: counted at once
			} else {
				c.send("instanceCounts", nil) // closed: counted because asked
				until[*instanceCountsResponse](c, "instanceCounts response", nil)
			}
			afterWalk = append(afterWalk, c.timedStep(th))
			c.timedStep(th)
			for range 12 {
				*series = append(*series, c.timedStep(th))
			}
			if isOpen {
				visible(false)
			}
			if k%4 == 3 { // a quartet done: its open/closed ratio, the load alike on both
				quartets = append(quartets, median(open[len(open)-24:])/median(closed[len(closed)-24:]))
			}
		}
		visible(true)
		countsArrived()
		for range 3 {
			afterCounts = append(afterCounts, c.timedStep(th))
			countsArrived()
		}
		for range 3 {
			time.Sleep(debugger.MaxSettle + 300*time.Millisecond) // the count has started in the VM (it takes a second or more here)
			midCount = append(midCount, c.timedStep(th))
		}
		visible(false)
	}
	b.StopTimer()
	slices.Sort(quartets)
	paired := quartets[len(quartets)/2]
	cl := median(closed)
	b.ReportMetric(cl, "ms/step-closed")
	b.ReportMetric(median(open), "ms/step-open")
	b.ReportMetric(paired, "open/closed-paired")
	b.ReportMetric(median(afterWalk), "ms/step-after-a-walk")
	b.ReportMetric(median(afterCounts), "ms/step-open-after-counts")
	b.ReportMetric(median(midCount), "ms/step-open-mid-count")
	b.Logf("step latency (medians): view closed %.2f ms; open %.2f ms (%.2f×; the median of the four ABBA quartets' own ratios %.2f×, %.2f–%.2f; goal ≤ 1.05×). The VM's part: the first step after a heap walk %.1f ms (%.2f×); open, right after a stop's counts arrived %.1f ms (%.2f×); open, during a count %.0f ms (%.0f×)",
		cl, median(open), median(open)/cl, paired, quartets[0], quartets[len(quartets)-1], median(afterWalk), median(afterWalk)/cl, median(afterCounts), median(afterCounts)/cl, median(midCount), median(midCount)/cl)
}

// BenchmarkStepAfterUntrack measures step latency (as timedStep) before
// tracking the new instances of 100 classes, while they are tracked (each
// stop lists them all: heap walks), and after untracking them (issue 42.6:
// stepping stayed 20× slower until the session ended). Each figure is a
// ratio to a reference: a second session, on a VM of its own that is never
// tracked, stepped in turn with the first (ABBA), so the machine's load
// weighs on both alike; the ratio of each pair is taken, and their median
// reported. Goal: after untracking, the ratio before tracking (1.0 within
// noise). Then what stays is HotSpot's own, shown apart: every heap walk
// (each class listed at each stop while tracked, each count) leaves the VM
// a disposed JVMTI environment that every change of event requests (a step
// makes several) walks, per thread, until a garbage collection while no
// thread is stopped at an event (docs/memory.md): the same steps after 100
// more stops whose instances are counted (no object ids kept) say what
// that costs, and the same after a collection while the program ran
// (jcmd GC.run, then a pause). Figures are printed, not asserted; run with -benchtime 1x.
func BenchmarkStepAfterUntrack(b *testing.B) {
	start := func() (*client, int) {
		c := startSession(b, Config{})
		c.initialize()
		c.launch(launchArgs(b, "MemBench", "args", []string{"100000"}))
		c.setBreakpoints(source(b, "MemBench.java"), bp(b, "MemBench.java", "bench-a"))
		c.configurationDone()
		th := until[*godap.StoppedEvent](c, "breakpoint stop", nil).Body.ThreadId
		c.setBreakpoints(source(b, "MemBench.java"))
		return c, th
	}
	ref, refTh := start()
	c, th := start()
	// paired steps both sessions 2n times in ABBA order and returns the
	// median step of each and the median of the pairs' ratios.
	paired := func(n int) (subject, reference time.Duration, ratio float64) {
		var ss, rs []time.Duration
		var ratios []float64
		for i := range n {
			var s, r time.Duration
			if i%2 == 0 {
				s = c.timedStep(th)
				r = ref.timedStep(refTh)
			} else {
				r = ref.timedStep(refTh)
				s = c.timedStep(th)
			}
			ss, rs = append(ss, s), append(rs, r)
			ratios = append(ratios, float64(s)/float64(r))
		}
		slices.Sort(ss)
		slices.Sort(rs)
		slices.Sort(ratios)
		return ss[n/2], rs[n/2], ratios[n/2]
	}
	track := func(names []string, on bool) {
		for _, n := range names {
			c.send("trackInstances", map[string]any{"className": n, "track": on})
			for done := false; !done; {
				switch c.next().(type) {
				case *trackInstancesResponse, *godap.ErrorResponse:
					done = true
				}
			}
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		paired(4) // both warm
		before, beforeRef, beforeRatio := paired(30)
		var names []string
		for _, cc := range c.instanceCounts("") {
			names = append(names, cc.Name)
		}
		names = names[:min(debugger.MaxTracked, len(names))]
		track(names, true)
		for range 3 { // stops whose tracking work is done
			c.timedStep(th)
			c.send("instances", map[string]any{"className": names[0], "new": true})
			until[*instancesResponse](c, "instances response", nil)
		}
		tracking, _, trackingRatio := paired(15) // faster than the work: stops whose listings are cut short
		track(names, false)
		after, afterRef, afterRatio := paired(30)
		for range 100 { // the VM's residue: heap walks that leave no id held
			c.send("instanceCounts", nil)
			until[*instanceCountsResponse](c, "instanceCounts response", nil)
			c.timedStep(th)
		}
		_, _, walksRatio := paired(30)
		// A garbage collection while the program runs (no thread stopped
		// at an event) lets HotSpot free those environments.
		c.send("continue", map[string]any{"threadId": th})
		until[*godap.ContinueResponse](c, "continue response", nil)
		jcmd, err := localjvm.FindTool("jcmd")
		if err != nil {
			b.Fatal(err)
		}
		if out, err := exec.Command(jcmd, strconv.Itoa(c.pid), "GC.run").CombinedOutput(); err != nil {
			b.Fatalf("jcmd GC.run: %v %s", err, out)
		}
		c.send("pause", map[string]any{"threadId": th})
		until[*godap.StoppedEvent](c, "pause stop", nil)
		c.timedStep(th)
		_, _, gcRatio := paired(30)
		b.ReportMetric(beforeRatio, "ratio-before")
		b.ReportMetric(afterRatio, "ratio-after-untrack")
		b.ReportMetric(float64(after.Microseconds())/1000, "ms/step-after-untrack")
		b.ReportMetric(walksRatio, "ratio-after-100-counts")
		b.ReportMetric(gcRatio, "ratio-after-a-gc-running")
		b.Logf("step latency (medians) and its ratio to the never-tracked VM's step taken in turn (the median of the pairs' ratios): before tracking %v (reference %v) %.2f×; tracking %d classes %v %.1f×; after untracking them %v (reference %v) %.2f× (goal: the ratio before tracking). HotSpot's own residue: after 100 more stops counted %.2f×; after a GC while the program ran %.2f×",
			before, beforeRef, beforeRatio, len(names), tracking, trackingRatio, after, afterRef, afterRatio, walksRatio, gcRatio)
	}
}
