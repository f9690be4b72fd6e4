package jvmtest

import (
	"context"
	"fmt"
	"log"
	"testing"
)

func TestJDIWorkloads(t *testing.T) {
	t.Parallel()
	const threads, depth, objects = 20, 10, 500
	vm := StartBenchTargetT(t, Options{VMArgs: []string{
		fmt.Sprintf("-Dthreads=%d", threads), fmt.Sprintf("-Ddepth=%d", depth), fmt.Sprintf("-Dobjects=%d", objects),
	}})
	// One debuggee serves every run, as in the benchmark.
	for _, w := range BenchWorkloads {
		r, err := RunJDI(t.Context(), vm.Addr, w)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v", r)
		if r.Client != "jdi" || r.Workload != w || r.Seconds <= 0 {
			t.Errorf("%s: result %+v", w, r)
		}
		var ok bool
		switch w {
		case "classes":
			ok = r.Items > 100
		case "threaddump":
			ok = r.Items > threads*depth
		case "locals":
			// park frames hold 4 arguments and up to 4 locals each.
			ok = r.Items > threads*depth*4
		case "objects":
			ok = r.Items == objects
		case "step":
			ok = r.Items == 300
		}
		if !ok {
			t.Errorf("%s: implausible item count %d", w, r.Items)
		}
	}
	if _, err := RunJDI(t.Context(), vm.Addr, "nonsense"); err == nil {
		t.Error("RunJDI accepted an unknown workload")
	}
}

// Start the benchmark debuggee at a small size and run one JDI workload
// against it.
func ExampleStartBenchTarget() {
	ctx := context.Background()
	vm, err := StartBenchTarget(ctx, Options{VMArgs: []string{"-Dthreads=20", "-Ddepth=10", "-Dobjects=500"}})
	if err != nil {
		log.Fatal(err)
	}
	defer vm.Close()
	r, err := RunJDI(ctx, vm.Addr, "objects")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %s: %d items in %.3fs\n", r.Client, r.Workload, r.Items, r.Seconds)
}
