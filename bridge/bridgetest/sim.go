package bridgetest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// PassDeadline bounds a debugger's round through the monitor in the
// pass-through tests.
const PassDeadline = 90 * time.Second

// ServeSim serves a simulated VM with opts (logging to the test) on
// 127.0.0.1:port until the test ends.
func ServeSim(t testing.TB, port int, opts simvm.Options) *simvm.VM {
	t.Helper()
	opts.Logger = Logger(t)
	sv, err := simvm.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	go sv.Serve(ln)
	t.Cleanup(func() { sv.Close() })
	return sv
}

// StartSimOnly serves a simulated DDM VM (no JVM behind it) on 127.0.0.1:port.
func StartSimOnly(t testing.TB, port int) {
	t.Helper()
	ServeSim(t, port, simvm.Options{AppName: "com.example.dump", Tick: 50 * time.Millisecond})
}

// QuietVM keeps simulated device VMs from ticking and collecting during a
// test, so goroutine and socket counts settle.
var QuietVM = simvm.Options{Tick: time.Hour, GCInterval: time.Hour}

// NewDevice returns a simulated device running the named processes, and
// their pids.
func NewDevice(t testing.TB, opt simdevice.Options, names ...string) (*simdevice.Device, []int) {
	t.Helper()
	if opt.VM.Tick == 0 {
		opt.VM = QuietVM
	}
	dev := simdevice.New(opt)
	var pids []int
	for _, name := range names {
		pid, err := dev.AddProcess(simdevice.ProcessOptions{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return dev, pids
}

// CheckSimHprof checks a dump against what ddm/simvm streams: a complete
// Android HPROF file ("JAVA PROFILE 1.0.3", 4-byte ids, an "app" heap) of its
// simulated heap, taken between from and to.
func CheckSimHprof(t testing.TB, b []byte, from, to time.Time) {
	t.Helper()
	h, err := hprof.Parse(bytes.NewReader(b), hprof.Options{})
	if err != nil {
		t.Fatalf("heap dump of %d bytes: %v", len(b), err)
	}
	if h.Format != "JAVA PROFILE 1.0.3" || h.IDSize != 4 || !h.Android || h.NumObjects() < 10 {
		t.Errorf("heap dump: %s, %d-byte ids, Android %v, %d objects", h.Format, h.IDSize, h.Android, h.NumObjects())
	}
	if ms := h.Timestamp.UnixMilli(); ms < from.UnixMilli() || ms > to.UnixMilli() {
		t.Errorf("hprof timestamp %d outside %d..%d", ms, from.UnixMilli(), to.UnixMilli())
	}
}

// CheckHotSpotHprof parses a HotSpot dump and checks it holds the running
// program's heap.
func CheckHotSpotHprof(t testing.TB, b []byte) *hprof.Heap {
	t.Helper()
	h, err := hprof.Parse(bytes.NewReader(b), hprof.Options{})
	if err != nil {
		t.Fatalf("heap dump of %d bytes: %v", len(b), err)
	}
	var strs int64
	for _, c := range h.Histogram() {
		if c.Class == "java.lang.String" {
			strs = c.Instances
		}
	}
	if h.Format != "JAVA PROFILE 1.0.2" || h.IDSize != 8 || strs < 1000 {
		t.Errorf("heap dump: %s, %d-byte ids, %d Strings: want a HotSpot dump of a running program", h.Format, h.IDSize, strs)
	}
	return h
}

const idleJava = `public class Idle { public static void main(String[] a) throws Exception { System.out.println("READY"); Thread.sleep(Long.MAX_VALUE); } }`

// StartIdle starts a JVM that does nothing (so timings measure transport)
// with its agent at addr.
func StartIdle(t testing.TB, addr string) *jvmtest.JVM {
	dir, err := jvmtest.CompileFiles(context.Background(), map[string][]byte{"Idle.java": []byte(idleJava)})
	if err != nil {
		t.Fatal(err)
	}
	vm, err := jvmtest.Start(context.Background(), jvmtest.Options{ClassPath: []string{dir}, MainClass: "Idle", ReadyLine: "READY", Address: addr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vm.Close() })
	return vm
}

// LogLines is a zerolog writer that keeps the lines for a test to wait on.
type LogLines struct {
	mu    sync.Mutex
	lines []string
	T     testing.TB
}

func (l *LogLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.lines = append(l.lines, string(p))
	l.mu.Unlock()
	l.T.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// Has says whether a line holds every one of subs.
func (l *LogLines) Has(subs ...string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
next:
	for _, line := range l.lines {
		for _, s := range subs {
			if !strings.Contains(line, s) {
				continue next
			}
		}
		return true
	}
	return false
}
