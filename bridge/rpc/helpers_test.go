package rpc

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/rs/zerolog"
)

// The control API's tests run it over a real monitor (package bridge)
// of real or simulated VMs; the helpers shared with the monitor's own
// tests are in bridgetest.

type (
	VMInfo       = bridge.VMInfo
	HeapMapJSON  = bridge.HeapMapJSON
	VMThreadDump = bridge.VMThreadDump
	DebugAddress = bridge.DebugAddress
)

const passDeadline = bridgetest.PassDeadline

// nobody is the uid a test client runs as to be another local user.
const nobody = 65534

func testLogger(t testing.TB) zerolog.Logger { return bridgetest.Logger(t) }

func freePorts(t testing.TB, n int) int { return bridgetest.FreePorts(t, n) }

func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	bridgetest.WaitFor(t, timeout, what, cond)
}

func startDemo(t testing.TB, port int, suspend bool) *jvmtest.JVM {
	t.Helper()
	return bridgetest.StartDemo(t, port, suspend)
}

func startIdle(t testing.TB, addr string) *jvmtest.JVM { return bridgetest.StartIdle(t, addr) }

func serveSim(t testing.TB, port int, opts simvm.Options) *simvm.VM {
	t.Helper()
	return bridgetest.ServeSim(t, port, opts)
}

func startSimOnly(t *testing.T, port int) {
	t.Helper()
	bridgetest.StartSimOnly(t, port)
}

func checkSimHprof(t *testing.T, b []byte, from, to time.Time) {
	t.Helper()
	bridgetest.CheckSimHprof(t, b, from, to)
}

func checkHotSpotHprof(t *testing.T, b []byte) *hprof.Heap {
	t.Helper()
	return bridgetest.CheckHotSpotHprof(t, b)
}

func newDevice(t testing.TB, opt simdevice.Options, names ...string) (*simdevice.Device, []int) {
	t.Helper()
	return bridgetest.NewDevice(t, opt, names...)
}

// testOptions scans lo..lo+n-1 fast and listens on ephemeral ports.
func testOptions(t testing.TB, lo, n int) bridge.Options {
	o := bridge.Options{
		ScanInterval:       150 * time.Millisecond,
		ProbeTimeout:       2 * time.Second,
		HoldTimeout:        10 * time.Second,
		ThreadPollInterval: 300 * time.Millisecond,
		Logger:             testLogger(t),
		TraceProxy:         bridgetest.TraceProxy(),
	}
	if n > 0 {
		o.Scan = []bridge.Range{{Host: "127.0.0.1", Lo: lo, Hi: lo + n - 1}}
	}
	return o
}

// deviceOptions are test options that follow the adb server at addr and
// scan nothing.
func deviceOptions(t testing.TB, addr string) bridge.Options {
	o := testOptions(t, 0, 0)
	o.ADB = &adb.Client{Addr: addr, NoStart: true, Logger: testLogger(t)}
	o.ADBRetry = time.Second
	return o
}

// startMonitor creates and runs a monitor for the test's lifetime.
func startMonitor(t testing.TB, o bridge.Options) *bridge.Monitor {
	t.Helper()
	m, err := bridge.New(o)
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

// waitVM waits for a monitored VM at addr and returns its info.
func waitVM(t testing.TB, m *bridge.Monitor, addr string, timeout time.Duration) VMInfo {
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

func waitGone(t testing.TB, m *bridge.Monitor, addr string, timeout time.Duration) {
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

// waitDeviceVMs waits until the VMs on serial are exactly the processes in
// want (pid → name), each named, and returns them by pid.
func waitDeviceVMs(t testing.TB, m *bridge.Monitor, serial string, want map[int]string) map[int]VMInfo {
	t.Helper()
	var got map[int]VMInfo
	waitFor(t, 10*time.Second, fmt.Sprintf("VMs %v on %s", want, serial), func() bool {
		got = map[int]VMInfo{}
		for _, v := range m.VMs() {
			if v.Serial == serial {
				got[v.PID] = v
			}
		}
		if len(got) != len(want) {
			return false
		}
		for pid, name := range want {
			if got[pid].Name != name {
				return false
			}
		}
		return true
	})
	return got
}
