//go:build linux

package bridge

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// procStatusKB reads a figure of /proc/self/status in KiB (VmRSS, VmHWM).
func procStatusKB(t *testing.T, field string) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// TestManyRequestsDebuggerDies (issue 42.5): a debugger sets 100,000 event
// requests through the monitor while another debugger is attached; past
// the cap (20,000 per debugger) they are refused OUT_OF_MEMORY with a
// warning. When it dies its requests are cleared within the cleanup
// window, the monitor's memory stays flat (its peak RSS over the cleanup
// is printed) and a new debugger gets in.
func TestManyRequestsDebuggerDies(t *testing.T) {
	logs := &bridgetest.LogLines{T: t}
	o := testOptions(t, 0, 0)
	o.Logger = zerolog.New(logs).Level(zerolog.WarnLevel)
	m := startMonitor(t, o)
	id, _ := launchAdopted(t, m, true)
	v, err := m.VM(id)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", v.Info().DebugPort)
	stay, err := jdwp.Dial(t.Context(), addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stay.Close()
	a, err := jdwp.Dial(t.Context(), addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	const total = 100000
	var set, refused atomic.Int32
	var other atomic.Value
	next := atomic.Int32{}
	var wg sync.WaitGroup
	start := time.Now()
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= total; i = next.Add(1) {
				_, err := a.SetRequest(t.Context(), jdwp.EventClassPrepare, jdwp.SuspendNone, jdwp.ClassMatch(fmt.Sprintf("no.such.C%d", i)))
				var ce *jdwp.CommandError
				switch {
				case err == nil:
					set.Add(1)
				case errors.As(err, &ce) && ce.Code == jdwp.ErrOutOfMemory:
					refused.Add(1)
				default:
					other.Store(err)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d requests set, %d refused in %v", set.Load(), refused.Load(), time.Since(start).Round(time.Millisecond))
	if err, _ := other.Load().(error); err != nil {
		t.Fatal(err)
	}
	if set.Load() != 20000 || refused.Load() != total-20000 {
		t.Fatalf("%d set, %d refused; want 20000 set and the rest refused", set.Load(), refused.Load())
	}
	if !logs.Has("as many event requests as one debugger may have") {
		t.Error("no warning about the refused requests")
	}

	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // resets VmHWM
	rss := procStatusKB(t, "VmRSS")
	died := time.Now()
	a.Close()
	waitFor(t, 2*time.Minute, "the cleanup after the dead debugger", func() bool {
		return v.mux.Sessions() == 1
	})
	cleaned := time.Since(died)
	hwm := procStatusKB(t, "VmHWM")
	c, err := jdwp.Dial(t.Context(), addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Version(t.Context()); err != nil {
		t.Fatal(err)
	}
	joined := time.Since(died)
	t.Logf("monitor RSS %d MiB before the debugger died, peak %d MiB during its cleanup (%v); a new debugger answered %v after the death",
		rss>>10, hwm>>10, cleaned.Round(time.Millisecond), joined.Round(time.Millisecond))
	if logs.Has("left in the VM") {
		t.Error("requests were left in the VM")
	}
	if grow := hwm - rss; grow > 128<<10 {
		t.Errorf("the monitor's RSS grew by %d MiB during the cleanup", grow>>10)
	}
}
