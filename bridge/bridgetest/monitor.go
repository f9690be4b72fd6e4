package bridgetest

import (
	"context"
	"testing"
	"time"
)

// What the monitor's own tests and the control API's share about a running
// monitor. bridgetest cannot name the monitor's types (package bridge's
// internal tests import it), so each package's tests keep a typed line over
// these: the monitor is a Runner made by bridge.New, its VMs a list read by
// bridge.Monitor.VMs.

// Runner is a monitor (bridge.Monitor): it runs until its context ends.
type Runner interface {
	Run(ctx context.Context) error
}

// Started makes a monitor with newM(o) (bridge.New) and runs it for the
// test's lifetime: the test's cleanup stops it and waits for Run to return.
func Started[O any, M Runner](t testing.TB, newM func(O) (M, error), o O) M {
	t.Helper()
	m, err := newM(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return m
}

// FastTimings sets a test monitor's timings (bridge.Options' fields of
// these names): it scans every 150 ms, probes for 2 s, holds a VM 10 s and
// polls threads every 300 ms.
func FastTimings(scanInterval, probeTimeout, holdTimeout, threadPollInterval *time.Duration) {
	*scanInterval = 150 * time.Millisecond
	*probeTimeout = 2 * time.Second
	*holdTimeout = 10 * time.Second
	*threadPollInterval = 300 * time.Millisecond
}

// WaitListed waits (WaitFor) until list, read anew each time, has an entry
// that match accepts, and returns it.
func WaitListed[V any](t testing.TB, timeout time.Duration, what string, list func() []V, match func(V) bool) V {
	t.Helper()
	var found V
	WaitFor(t, timeout, what, func() bool {
		for _, v := range list() {
			if match(v) {
				found = v
				return true
			}
		}
		return false
	})
	return found
}

// WaitUnlisted waits (WaitFor) until no entry of list matches.
func WaitUnlisted[V any](t testing.TB, timeout time.Duration, what string, list func() []V, match func(V) bool) {
	t.Helper()
	WaitFor(t, timeout, what, func() bool {
		for _, v := range list() {
			if match(v) {
				return false
			}
		}
		return true
	})
}

// WaitNamed waits (WaitFor) until the entries of list are exactly the
// processes in want (pid → name, as pidName reads an entry), each named,
// and returns them by pid.
func WaitNamed[V any](t testing.TB, timeout time.Duration, what string, list func() []V, pidName func(V) (int, string), want map[int]string) map[int]V {
	t.Helper()
	var got map[int]V
	WaitFor(t, timeout, what, func() bool {
		got = map[int]V{}
		names := map[int]string{}
		for _, v := range list() {
			pid, name := pidName(v)
			got[pid], names[pid] = v, name
		}
		if len(got) != len(want) {
			return false
		}
		for pid, name := range want {
			if names[pid] != name {
				return false
			}
		}
		return true
	})
	return got
}
