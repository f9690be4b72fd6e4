package bridge

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A plain HotSpot VM on this machine reports its threads' Linux thread ids
// and CPU times from /proc, like a DDM VM's THST: the busy thread's CPU time
// grows, the sleeping one's does not, and each tid is a native thread of the
// VM's process named after the Java thread.
func TestPlainVMNativeThreads(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	jvm := startDemo(t, lo, false)
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, jvm.Addr, 5*time.Second)
	if info.PID != jvm.Pid {
		t.Fatalf("VM pid %d, want %d", info.PID, jvm.Pid)
	}
	v, _ := m.VM(info.ID)
	byName := func() map[string]ThreadInfo {
		ts, err := v.Threads(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]ThreadInfo{}
		for _, x := range ts {
			out[x.Name] = x
		}
		return out
	}
	first := byName()
	// cruncher spins 300 ms of every 500: wait until it has used at least
	// 10 ticks of CPU since the first sample, however long a loaded machine
	// takes; sleeper, awake 20 ms of every 720, must have used far less.
	var second map[string]ThreadInfo
	cpu := func(m map[string]ThreadInfo, name string) uint64 {
		return uint64(m[name].UTime) + uint64(m[name].STime)
	}
	waitFor(t, time.Minute, "cruncher to use CPU", func() bool {
		second = byName()
		return runtime.GOOS != "linux" || cpu(second, "cruncher")-cpu(first, "cruncher") >= 10
	})
	if runtime.GOOS != "linux" {
		for _, x := range second {
			if x.TID != 0 || x.UTime+x.STime != 0 {
				t.Errorf("%s: tid %d, CPU %d without /proc", x.Name, x.TID, x.UTime+x.STime)
			}
		}
		return
	}
	for _, name := range []string{"cruncher", "sleeper", "main"} {
		x, ok := second[name]
		if !ok || x.TID == 0 {
			t.Fatalf("thread %q: %+v (found %v)", name, x, ok)
		}
		if x.TID != first[name].TID {
			t.Errorf("%s: tid %d, then %d", name, first[name].TID, x.TID)
		}
		comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/comm", jvm.Pid, x.TID))
		if err != nil {
			t.Fatalf("%s: tid %d is no thread of pid %d: %v", name, x.TID, jvm.Pid, err)
		}
		if c := strings.TrimSpace(string(comm)); name != "main" && c != name {
			t.Errorf("%s: tid %d is named %q", name, x.TID, c)
		}
	}
	if second["main"].TID == uint32(jvm.Pid) {
		t.Error("main matched to the primordial thread")
	}
	busy := cpu(second, "cruncher") - cpu(first, "cruncher")
	idle := cpu(second, "sleeper") - cpu(first, "sleeper")
	t.Logf("CPU between the samples: cruncher %d ticks, sleeper %d", busy, idle)
	if idle > busy/4 {
		t.Errorf("CPU ticks between the samples: cruncher %d, sleeper %d", busy, idle)
	}
}
