package debugger

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// memBench starts dap's MemBench fixture (a heap of a million objects) and
// connects to it, the VM suspended.
func memBench(b *testing.B) *jdwp.Conn {
	b.Helper()
	jvmtest.RequireJava(b)
	src, err := os.ReadFile("../../dap/testdata/java/MemBench.java")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir, err := jvmtest.CompileFiles(ctx, map[string][]byte{"MemBench.java": src})
	if err != nil {
		b.Fatal(err)
	}
	vm := jvmtest.StartT(b, jvmtest.Options{ClassPath: []string{dir}, MainClass: "MemBench", ReadyLine: "READY", VMArgs: []string{"-Xmx1g"}})
	conn, err := jdwp.Dial(ctx, vm.Addr, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	if err := conn.Suspend(ctx); err != nil {
		b.Fatal(err)
	}
	return conn
}

// countable returns the loaded classes that can have instances of their
// own (not interfaces): what the VM's own InstanceCounts is asked of.
func countable(ctx context.Context, b *testing.B, conn *jdwp.Conn) []jdwp.ReferenceTypeID {
	b.Helper()
	classes, err := conn.AllClasses(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var ids []jdwp.ReferenceTypeID
	for _, c := range classes {
		if c.TypeTag != jdwp.TypeTagInterface {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// BenchmarkCountsRefresh measures a refresh of the memory view at a stop
// (Memory.Counts at a new stop: the loaded classes listed, their instances
// counted, deltas computed) against the VM's own InstanceCounts of the same
// classes, over a heap of a million objects. Goal: refresh ≤ 1.1× the VM's.
// Figures are printed (ms/refresh, ms/InstanceCounts, ratio), not asserted.
func BenchmarkCountsRefresh(b *testing.B) {
	conn := memBench(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	stops := NewStops()
	m := NewMemory(conn, stops, MemoryConfig{Context: ctx})
	ids := countable(ctx, b, conn)
	var refresh, vm time.Duration
	n := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		stops.Stop(1, "breakpoint") // a new stop each time: nothing reused
		t0 := time.Now()
		cs, err := m.Counts(ctx, "")
		if err != nil || len(cs) == 0 {
			b.Fatalf("counts: %d, %v", len(cs), err)
		}
		t1 := time.Now()
		if _, err := conn.InstanceCounts(ctx, ids); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		stops.ResumedAll()
		refresh += t1.Sub(t0)
		vm += t2.Sub(t1)
		n++
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
	b.ReportMetric(ms(refresh), "ms/refresh")
	b.ReportMetric(ms(vm), "ms/InstanceCounts")
	b.ReportMetric(float64(refresh)/float64(vm), "refresh/vm")
	b.Logf("%d classes: refresh %.1f ms, the VM's InstanceCounts %.1f ms, ratio %.2f (goal ≤ 1.1)", len(ids), ms(refresh), ms(vm), float64(refresh)/float64(vm))
}

// BenchmarkCountsShownFirst measures the background refresh of a visible
// view that shows the 20 most numerous classes, stop after stop, against
// the VM's InstanceCounts of all the classes at once: whether the plan
// counted the shown classes first (a trial, then only if that brought them
// at most half as late), when the shown classes arrived and when all had.
// Figures are printed, not asserted; run with -benchtime 6x or more.
func BenchmarkCountsShownFirst(b *testing.B) {
	conn := memBench(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	stops := NewStops()
	type arrival struct {
		at       time.Time
		complete bool
	}
	got := make(chan arrival, 4)
	m := NewMemory(conn, stops, MemoryConfig{Context: ctx, Settle: -1, OnCounts: func(_ []ClassCount, complete bool) {
		got <- arrival{time.Now(), complete}
	}})
	stops.Stop(1, "breakpoint")
	cs, err := m.Counts(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	var shown []string
	for _, c := range cs[:min(20, len(cs))] {
		shown = append(shown, c.Name)
	}
	stops.ResumedAll()
	for len(got) > 0 { // the setup's own count
		<-got
	}
	m.SetVisible(true, shown)
	ids := countable(ctx, b, conn)
	type stop struct {
		split          bool
		shown, all, vm time.Duration
	}
	var seen []stop
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var st stop
		t0 := time.Now()
		stops.Stop(1, "breakpoint")
		for done := false; !done; {
			a := <-got
			if a.complete {
				st.all = a.at.Sub(t0)
				done = true
			} else {
				st.split, st.shown = true, a.at.Sub(t0)
			}
		}
		if !st.split {
			st.shown = st.all
		}
		t1 := time.Now()
		if _, err := conn.InstanceCounts(ctx, ids); err != nil {
			b.Fatal(err)
		}
		st.vm = time.Since(t1)
		stops.ResumedAll()
		seen = append(seen, st)
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	var all, vm, allTrials, vmTrials time.Duration
	n := 0
	for i, st := range seen {
		allTrials += st.all
		vmTrials += st.vm
		how := "one command"
		if st.split {
			how = "shown first"
		}
		b.Logf("stop %d (%s): shown after %.0f ms, all after %.0f ms; the VM's InstanceCounts of all %.0f ms (all/vm %.2f)", i+1, how, ms(st.shown), ms(st.all), ms(st.vm), ms(st.all)/ms(st.vm))
		if !st.split {
			all += st.all
			vm += st.vm
			n++
		}
	}
	if n > 0 {
		b.ReportMetric(ms(all)/float64(n), "ms/refresh")
		b.ReportMetric(ms(vm)/float64(n), "ms/InstanceCounts")
		b.ReportMetric(float64(all)/float64(vm), "refresh/vm")
		b.Logf("%d classes, 20 shown, the stops counted in one command: refresh %.0f ms, the VM's InstanceCounts %.0f ms, ratio %.2f (goal ≤ 1.1); over all %d stops, the trials too: %.2f",
			len(ids), ms(all)/float64(n), ms(vm)/float64(n), float64(all)/float64(vm), len(seen), float64(allTrials)/float64(vmTrials))
	}
}
