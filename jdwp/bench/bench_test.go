package bench

import (
	"context"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// smallTarget starts a BenchTarget small enough for a test run.
func smallTarget(t *testing.T) *jvmtest.JVM {
	t.Helper()
	jvmtest.RequireJava(t)
	return jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: []string{"-Dthreads=12", "-Ddepth=6", "-Dobjects=300"}})
}

// TestWorkloadsMatchJDI runs every workload with the client and with the JDI
// reference harness on one debuggee: the item counts must agree, as the shared
// benchmark requires, and the debuggee must be left running for the next client.
func TestWorkloadsMatchJDI(t *testing.T) {
	vm := smallTarget(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	want := map[string]int{"objects": 300, "step": StepCount}
	for _, w := range Workloads {
		t.Run(w.Name, func(t *testing.T) {
			ours, err := Run(ctx, vm.Addr, w, nil)
			if err != nil {
				t.Fatalf("ddmbridge: %v", err)
			}
			if ours.Client != "ddmbridge" || ours.Workload != w.Name || ours.Seconds <= 0 {
				t.Errorf("result %+v: want client ddmbridge, workload %s, positive seconds", ours, w.Name)
			}
			jdi, err := jvmtest.RunJDI(ctx, vm.Addr, w.Name)
			if err != nil {
				t.Fatalf("JDI: %v", err)
			}
			// The VM is live between the runs: the main thread keeps running, so
			// its stack (and the frames and locals counted on it) may differ by a
			// few, and the JIT, lambda forms or the JDI attach itself may load a
			// class. So our client counts before and after JDI, and JDI's count
			// must lie between the two (within the main thread's slack).
			after, err := Run(ctx, vm.Addr, w, nil)
			if err != nil {
				t.Fatalf("ddmbridge (second run): %v", err)
			}
			slack := map[string]int{"threaddump": 6, "locals": 24}[w.Name]
			lo, hi := min(ours.Items, after.Items), max(ours.Items, after.Items)
			if jdi.Items < lo-slack || jdi.Items > hi+slack {
				t.Errorf("items: ddmbridge %d then %d, JDI %d between them (allowed difference %d)", ours.Items, after.Items, jdi.Items, slack)
			}
			if n, ok := want[w.Name]; ok && ours.Items != n {
				t.Errorf("items = %d, want %d", ours.Items, n)
			}
			if ours.Items == 0 {
				t.Errorf("no items counted")
			}
			t.Logf("%s: ddmbridge %.4fs, JDI %.4fs (%d items)", w.Name, ours.Seconds, jdi.Seconds, ours.Items)
		})
	}
	// Each floor reads what its workload reads: the same item counts (within
	// the live VM's slack, as above).
	for _, w := range Workloads {
		name := Floor(w.Name)
		if name == "" {
			continue
		}
		floor, _ := Lookup(name)
		fr, err := Run(ctx, vm.Addr, floor, nil)
		wr, err2 := Run(ctx, vm.Addr, w, nil)
		slack := map[string]int{"classes": 2, "threaddump": 6, "locals": 24}[w.Name]
		if err != nil || err2 != nil || fr.Items == 0 || fr.Items-wr.Items > slack || wr.Items-fr.Items > slack {
			t.Errorf("%s %+v (%v) vs %s %+v (%v)", name, fr, err, w.Name, wr, err2)
		}
	}
	// The debuggee still runs: its main thread keeps stepping, so a fresh
	// threaddump sees it and the step workload can hit its breakpoint again.
	step, _ := Lookup("step")
	if _, err := Run(ctx, vm.Addr, step, nil); err != nil {
		t.Fatalf("debuggee not left running after the runs: %v", err)
	}
}

func TestRoundTrip(t *testing.T) {
	vm := smallTarget(t)
	r, err := RoundTrip(context.Background(), vm.Addr, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Items != 50 || r.RawUS <= 0 || r.ClientUS <= 0 || r.Workload != "roundtrip" {
		t.Errorf("unexpected result %+v", r)
	}
}

func TestLookup(t *testing.T) {
	for _, w := range Workloads {
		got, err := Lookup(w.Name)
		if err != nil || got.Name != w.Name {
			t.Errorf("Lookup(%q) = %v, %v", w.Name, got.Name, err)
		}
	}
	if _, err := Lookup("nope"); err == nil {
		t.Error("Lookup of an unknown workload: no error")
	}
}
