package bridge

import (
	"fmt"
	"testing"
	"time"
)

// The seed's three scenarios: monitor first (VM appears later), VM first,
// and a VM that dies and comes back at the same address.
func TestDiscoveryScenarios(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 3)
	vmFirst := startDemo(t, lo, false)
	m := startMonitor(t, testOptions(t, lo, 3))

	// VM first: found by the first scan.
	info := waitVM(t, m, vmFirst.Addr, 3*time.Second)
	if info.DDM || info.Waiting || info.Debugger {
		t.Errorf("HotSpot VM info = %+v, want plain JDWP, not waiting, no debugger", info)
	}
	if info.PID != vmFirst.Pid || info.Name != "DemoApp" {
		t.Errorf("pid/name = %d/%q, want %d/DemoApp", info.PID, info.Name, vmFirst.Pid)
	}
	if info.DebugPort == 0 || info.VM == "" || info.ID == "" {
		t.Errorf("info = %+v: want debugPort, vm and id", info)
	}
	if !info.Current {
		t.Errorf("the only VM should be current: %+v", info)
	}

	// Monitor first: a VM started later is found within about a second.
	start := time.Now()
	later := startDemo(t, lo+1, false)
	waitVM(t, m, later.Addr, 3*time.Second)
	t.Logf("VM started while monitoring found %v after its agent listened", time.Since(start))

	// Dies and comes back: removed at once, found again, same debugger port.
	first := waitVM(t, m, later.Addr, time.Second)
	later.Kill()
	start = time.Now()
	waitGone(t, m, later.Addr, 2*time.Second)
	t.Logf("killed VM removed after %v", time.Since(start))
	again := startDemo(t, lo+1, false)
	second := waitVM(t, m, again.Addr, 3*time.Second)
	if second.ID == first.ID {
		t.Errorf("restarted VM kept id %s", first.ID)
	}
	waitTicking(t, again, 5*time.Second)
	waitTicking(t, vmFirst, 5*time.Second)
	_ = fmt.Sprint()
}

// A suspend=y VM is shown waiting and is not resumed by the monitor.
func TestWaitingVMNotResumed(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	vm := startDemo(t, lo, true)
	m := startMonitor(t, testOptions(t, lo, 1))
	waitFor(t, 5*time.Second, "waiting VM", func() bool {
		vs := m.VMs()
		return len(vs) == 1 && vs[0].Waiting
	})
	time.Sleep(500 * time.Millisecond)
	for _, l := range vm.Stdout() {
		if l == "READY" {
			t.Fatal("the monitor let a suspend=y VM run")
		}
	}
}
