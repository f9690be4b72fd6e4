package bridge

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/demoapp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// testLogger logs to the test at info level (BRIDGE_TEST_LOG=debug|trace for more).
func testLogger(t testing.TB) zerolog.Logger {
	lvl := zerolog.InfoLevel
	if s := os.Getenv("BRIDGE_TEST_LOG"); s != "" {
		if l, err := zerolog.ParseLevel(s); err == nil {
			lvl = l
		}
	}
	return zerolog.New(zerolog.NewTestWriter(t)).Level(lvl).With().Timestamp().Logger()
}

var portMu sync.Mutex
var lastPort = 20000 + os.Getpid()%12000

// freePorts returns n consecutive loopback ports that are free right now.
// They come from below Linux's ephemeral range (32768 up), so no connection
// made meanwhile, by this or a parallel test process, is given one of them
// as its local port before the VM under test binds it.
func freePorts(t testing.TB, n int) int {
	t.Helper()
	portMu.Lock()
	defer portMu.Unlock()
	for tries := 0; tries < 200; tries++ {
		lastPort += n + 7
		if lastPort+n > 32000 {
			lastPort = 20000
		}
		base := lastPort
		ok := true
		var lns []net.Listener
		for p := base; p < base+n; p++ {
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				ok = false
				break
			}
			lns = append(lns, ln)
		}
		for _, ln := range lns {
			ln.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free port range")
	return 0
}

// testOptions scans lo..lo+n-1 fast and listens on ephemeral ports.
func testOptions(t testing.TB, lo, n int) Options {
	o := Options{
		ScanInterval:       150 * time.Millisecond,
		ProbeTimeout:       2 * time.Second,
		HoldTimeout:        10 * time.Second,
		ThreadPollInterval: 300 * time.Millisecond,
		Logger:             testLogger(t),
		TraceProxy:         os.Getenv("BRIDGE_TEST_LOG") == "trace",
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

// waitFor polls cond until it holds or the timeout passes. The timeout says
// how long the wait normally takes; it is raised to a minute so that a loaded
// machine only makes the test slower, never red.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	timeout = max(timeout, time.Minute)
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
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
	jvmtest.RequireJava(t)
	o := jvmtest.Options{Suspend: suspend}
	if port != 0 {
		o.Address = fmt.Sprintf("127.0.0.1:%d", port)
	}
	vm, err := demoapp.Start(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		vm.Close()
		if t.Failed() {
			t.Logf("DemoApp stdout tail: %s", tail(vm.Stdout(), 5))
			t.Logf("DemoApp stderr tail: %s", tail(vm.Stderr(), 20))
		}
	})
	return vm
}

func tail(lines []string, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// lastTick returns the last TICK value DemoApp printed, or -1.
func lastTick(vm *jvmtest.JVM) int {
	lines := vm.Stdout()
	for i := len(lines) - 1; i >= 0; i-- {
		if n, ok := strings.CutPrefix(lines[i], "TICK "); ok {
			v, _ := strconv.Atoi(n)
			return v
		}
	}
	return -1
}

// waitTicking checks that the app makes progress: a TICK above the current one.
func waitTicking(t testing.TB, vm *jvmtest.JVM, timeout time.Duration) {
	t.Helper()
	start := lastTick(vm)
	waitFor(t, timeout, fmt.Sprintf("DemoApp to progress past TICK %d", start), func() bool { return lastTick(vm) > start })
}
