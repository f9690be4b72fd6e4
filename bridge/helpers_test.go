package bridge

import (
	"context"
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
	o := Options{
		ScanInterval:       150 * time.Millisecond,
		ProbeTimeout:       2 * time.Second,
		HoldTimeout:        10 * time.Second,
		ThreadPollInterval: 300 * time.Millisecond,
		Logger:             testLogger(t),
		TraceProxy:         bridgetest.TraceProxy(),
	}
	if n > 0 {
		o.Scan = []Range{{Host: "127.0.0.1", Lo: lo, Hi: lo + n - 1}}
	}
	return o
}

// startMonitor creates and runs a monitor for the test's lifetime.
func startMonitor(t testing.TB, o Options) *Monitor {
	t.Helper()
	m, err := New(o)
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

// waitFor polls cond until it holds or the timeout passes, raised to a
// minute (bridgetest.WaitFor).
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	bridgetest.WaitFor(t, timeout, what, cond)
}

// waitVM waits for a monitored VM at addr and returns its info.
func waitVM(t testing.TB, m *Monitor, addr string, timeout time.Duration) VMInfo {
	t.Helper()
	var info VMInfo
	waitFor(t, timeout, "VM at "+addr, func() bool {
		for _, v := range m.VMs() {
			if v.Address == addr {
				info = v
				return true
			}
		}
		return false
	})
	return info
}

func waitGone(t testing.TB, m *Monitor, addr string, timeout time.Duration) {
	t.Helper()
	waitFor(t, timeout, "VM at "+addr+" to be removed", func() bool {
		for _, v := range m.VMs() {
			if v.Address == addr {
				return false
			}
		}
		return true
	})
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
