package bridge

import (
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// testLogger logs to the test at info level (BRIDGE_TEST_LOG=debug|trace for more).
func testLogger(t testing.TB) zerolog.Logger { return bridgetest.Logger(t) }

// freePorts returns n consecutive loopback ports that are free right now
// (bridgetest.FreePorts).
func freePorts(t testing.TB, n int) int { return bridgetest.FreePorts(t, n) }

// testOptions scans lo..lo+n-1 fast and listens on ephemeral ports.
func testOptions(t testing.TB, lo, n int) Options {
	o := Options{Logger: testLogger(t), TraceProxy: bridgetest.TraceProxy()}
	bridgetest.FastTimings(&o.ScanInterval, &o.ProbeTimeout, &o.HoldTimeout, &o.ThreadPollInterval)
	if n > 0 {
		o.Scan = []Range{{Host: "127.0.0.1", Lo: lo, Hi: lo + n - 1}}
	}
	return o
}

// startMonitor creates and runs a monitor for the test's lifetime.
func startMonitor(t testing.TB, o Options) *Monitor {
	t.Helper()
	return bridgetest.Started(t, New, o)
}

// waitFor polls cond until it holds or the timeout passes, raised to a
// minute (bridgetest.WaitFor).
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	bridgetest.WaitFor(t, timeout, what, cond)
}

// waitVM waits for a monitored VM at addr and returns its info.
func waitVM(t testing.TB, m *Monitor, addr string, timeout time.Duration) VMInfo {
	t.Helper()
	return bridgetest.WaitListed(t, timeout, "VM at "+addr, m.VMs, func(v VMInfo) bool { return v.Address == addr })
}

// waitGone waits until the monitor lists no VM at addr.
func waitGone(t testing.TB, m *Monitor, addr string, timeout time.Duration) {
	t.Helper()
	bridgetest.WaitUnlisted(t, timeout, "VM at "+addr+" to be removed", m.VMs, func(v VMInfo) bool { return v.Address == addr })
}

// startDemo starts DemoApp with its agent on 127.0.0.1:port (0: any).
func startDemo(t testing.TB, port int, suspend bool) *jvmtest.JVM {
	t.Helper()
	return bridgetest.StartDemo(t, port, suspend)
}

func tail(lines []string, n int) string { return bridgetest.Tail(lines, n) }

// lastTick returns the last TICK value DemoApp printed, or -1.
func lastTick(vm *jvmtest.JVM) int { return bridgetest.LastTick(vm) }

// waitTicking checks that the app makes progress: a TICK above the current one.
func waitTicking(t testing.TB, vm *jvmtest.JVM, timeout time.Duration) {
	t.Helper()
	bridgetest.WaitTicking(t, vm, timeout)
}

// nobody is the uid a test client runs as to be another local user.
const nobody = 65534
