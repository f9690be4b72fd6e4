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
	time.Sleep(1500 * time.Millisecond)
	second := byName()
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
	busy := second["cruncher"].UTime + second["cruncher"].STime - first["cruncher"].UTime - first["cruncher"].STime
	idle := second["sleeper"].UTime + second["sleeper"].STime - first["sleeper"].UTime - first["sleeper"].STime
	t.Logf("CPU over 1.5 s: cruncher %d ticks, sleeper %d", busy, idle)
	if busy < 10 || idle > busy/4 {
		t.Errorf("CPU ticks over 1.5 s: cruncher %d, sleeper %d", busy, idle)
	}
}
