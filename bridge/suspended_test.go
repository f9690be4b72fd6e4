package bridge

import (
	"bufio"
	"fmt"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// While a debugger holds a DDM VM (ART's THST has no suspension state), the
// monitor's threads show the real suspension, read over JDWP.
func TestDDMThreadsShowDebuggerSuspension(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	jvm := startDemo(t, 0, false) // outside the scan range: simvm owns it
	startSimVM(t, lo, jvm.Addr, simvm.ProfileART)
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, fmt.Sprintf("127.0.0.1:%d", lo), 5*time.Second)
	v, err := m.VM(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	cruncher := func() (ThreadInfo, bool) {
		ts, err := v.Threads(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range ts {
			if th.Name == "cruncher" {
				return th, true
			}
		}
		return ThreadInfo{}, false
	}
	waitFor(t, 60*time.Second, "the cruncher thread", func() bool { _, ok := cruncher(); return ok })
	if th, _ := cruncher(); th.Suspended {
		t.Fatalf("cruncher suspended before any debugger: %+v", th)
	}
	nc := rawDebugger(t, fmt.Sprintf("127.0.0.1:%d", info.DebugPort))
	defer nc.Close()
	r := bufio.NewReader(nc)
	command(t, nc, r, 1, 1, 8, nil) // VirtualMachine.Suspend
	waitFor(t, 60*time.Second, "cruncher shown suspended", func() bool { th, _ := cruncher(); return th.Suspended })
	command(t, nc, r, 2, 1, 9, nil) // VirtualMachine.Resume
	waitFor(t, 60*time.Second, "cruncher shown running again", func() bool { th, _ := cruncher(); return !th.Suspended })
}
