package rpc

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
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

func newDevice(t testing.TB, opt simdevice.Options, names ...string) (*simdevice.Device, []int) {
	t.Helper()
	return bridgetest.NewDevice(t, opt, names...)
}

// testOptions scans lo..lo+n-1 fast and listens on ephemeral ports.
func testOptions(t testing.TB, lo, n int) bridge.Options {
	o := bridge.Options{Logger: testLogger(t), TraceProxy: bridgetest.TraceProxy()}
	bridgetest.FastTimings(&o.ScanInterval, &o.ProbeTimeout, &o.HoldTimeout, &o.ThreadPollInterval)
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
	return bridgetest.Started(t, bridge.New, o)
}

// waitVM waits for a monitored VM at addr and returns its info.
func waitVM(t testing.TB, m *bridge.Monitor, addr string, timeout time.Duration) VMInfo {
	t.Helper()
	return bridgetest.WaitListed(t, timeout, "VM at "+addr, m.VMs, func(v VMInfo) bool { return v.Address == addr })
}

// waitGone waits until the monitor lists no VM at addr.
func waitGone(t testing.TB, m *bridge.Monitor, addr string, timeout time.Duration) {
	t.Helper()
	bridgetest.WaitUnlisted(t, timeout, "VM at "+addr+" to be removed", m.VMs, func(v VMInfo) bool { return v.Address == addr })
}

// waitDeviceVMs waits until the VMs on serial are exactly the processes in
// want (pid → name), each named, and returns them by pid.
func waitDeviceVMs(t testing.TB, m *bridge.Monitor, serial string, want map[int]string) map[int]VMInfo {
	t.Helper()
	onDevice := func() []VMInfo { return slices.DeleteFunc(m.VMs(), func(v VMInfo) bool { return v.Serial != serial }) }
	pidName := func(v VMInfo) (int, string) { return v.PID, v.Name }
	return bridgetest.WaitNamed(t, 10*time.Second, fmt.Sprintf("VMs %v on %s", want, serial), onDevice, pidName, want)
}
