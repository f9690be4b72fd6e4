package simvm

import (
	"context"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
)

// While a debugger holds every thread of the JVM behind the simulator, the
// simulated heap stands still (no allocation, no GC), and moves again once
// the JVM resumes.
func TestSimulatedHeapStillWhileJVMSuspended(t *testing.T) {
	jvm, _ := startThreadStates(t)
	vm, conn := serve(t, Options{Profile: ProfileART, JVM: jvm.Addr, PID: uint32(jvm.Pid), Tick: 20 * time.Millisecond, GCInterval: 50 * time.Millisecond})
	conn.AllowVendorCommands() // the simulated VM is Android's: it speaks DDM
	c := ddm.Attach(conn, ddm.Options{ThreadUpdates: true, Timeout: 5 * time.Second})
	defer c.Close()
	eventually(t, "the JVM's threads", func() bool { return len(threadIDs(c)) > 3 })
	state := func() (steps int, allocated uint64, gcs int, suspended bool) {
		vm.mu.Lock()
		defer vm.mu.Unlock()
		return vm.steps, vm.heap.allocBytes, vm.gcs, vm.jvmSuspendedLocked()
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := conn.Suspend(ctx); err != nil {
		t.Fatal(err)
	}
	// The simulator learns of the suspension from its next thread poll.
	eventually(t, "all threads seen suspended", func() bool { thst(t, c); _, _, _, s := state(); return s })
	steps0, alloc0, gcs0, _ := state()
	eventually(t, "ten more ticks", func() bool { s, _, _, _ := state(); return s >= steps0+10 })
	if _, alloc, gcs, _ := state(); alloc != alloc0 || gcs != gcs0 {
		t.Errorf("while suspended: allocated %d → %d bytes, GCs %d → %d", alloc0, alloc, gcs0, gcs)
	}
	if err := conn.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, "allocation after resume", func() bool { thst(t, c); _, alloc, _, _ := state(); return alloc > alloc0 })
}
