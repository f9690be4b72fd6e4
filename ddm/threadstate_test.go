package ddm

import (
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Every JDWP status survives the round trip through its DDM state, and the
// DDM states JDWP cannot name fall to the nearest it can.
func TestThreadStateJDWP(t *testing.T) {
	for _, st := range []jdwp.ThreadStatus{jdwp.ThreadZombie, jdwp.ThreadRunning, jdwp.ThreadSleeping, jdwp.ThreadMonitor, jdwp.ThreadWait} {
		if got := ThreadStateFromJDWP(st).JDWP(); got != st {
			t.Errorf("%v → %v → %v", st, ThreadStateFromJDWP(st), got)
		}
	}
	for ddmState, want := range map[ThreadState]jdwp.ThreadStatus{ThreadVMWait: jdwp.ThreadWait, ThreadNative: jdwp.ThreadRunning, ThreadInitializing: jdwp.ThreadRunning} {
		if got := ddmState.JDWP(); got != want {
			t.Errorf("%v.JDWP() = %v, want %v", ddmState, got, want)
		}
	}
	if got := ThreadStateFromJDWP(jdwp.ThreadStatus(99)); got != ThreadRunning {
		t.Errorf("unknown JDWP status → %v, want running", got)
	}
}
