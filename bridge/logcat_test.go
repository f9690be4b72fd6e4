package bridge

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// logDevice starts a current device with one app behind Debian's real adb
// server and a monitor following it; it returns them once the app is
// monitored.
func logDevice(t *testing.T, name string) (*Monitor, *simdevice.Device, string, int) {
	t.Helper()
	srv := adbtest.StartServer(t)
	vmo := quietVM
	vmo.Profile = simvm.ProfileCurrent
	dev := simdevice.New(simdevice.Options{VM: vmo, Model: "Log_Sim", Features: simdevice.CurrentFeatures})
	pid, _ := dev.AddProcess(simdevice.ProcessOptions{Name: name})
	m := startMonitor(t, deviceOptions(t, srv.Client.Addr))
	serial := srv.Connect(t, dev)
	waitFor(t, 60*time.Second, "the app monitored", func() bool {
		e, _ := entry(m, DeviceAddr(serial, pid))
		return e.DDM && !e.Listed
	})
	return m, dev, serial, pid
}

// TestLogcatFollowsTheApp: an app's log lines through the real adb server,
// its pid's only, in order, with their levels; the level and tag filter;
// and after the app restarts, the new process's lines with its new pid.
func TestLogcatFollowsTheApp(t *testing.T) {
	t.Parallel()
	m, dev, serial, pid := logDevice(t, "com.example.log")
	other, _ := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.other"})
	dev.Log(pid, pid, "I", "Early", "before the subscription")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	subscribe := func(f LogFilter) (chan LogBatch, context.CancelFunc) {
		t.Helper()
		got := make(chan LogBatch, 100)
		sctx, stop := context.WithCancel(ctx)
		first, err := m.Logcat(sctx, DeviceAddr(serial, pid), f, func(b LogBatch) { got <- b }, nil)
		if err != nil {
			t.Fatal(err)
		}
		if first.PID != pid {
			t.Fatalf("subscription: %+v", first)
		}
		return got, stop
	}
	// until reads lines until one says msg.
	until := func(got chan LogBatch, msg string) (lines []adb.LogLine, pids []int) {
		t.Helper()
		deadline := time.After(90 * time.Second)
		for {
			select {
			case b := <-got:
				pids = append(pids, b.PID)
				for _, l := range b.Lines {
					lines = append(lines, l)
					if l.Message == msg {
						return lines, pids
					}
				}
			case <-deadline:
				t.Fatalf("no line %q; got %+v", msg, lines)
			}
		}
	}

	all, stopAll := subscribe(LogFilter{})
	warn, stopWarn := subscribe(LogFilter{Level: "W", Tags: []string{"App"}})
	for i, level := range []string{"V", "D", "I", "W", "E", "F"} {
		dev.Log(pid, pid+1, level, "App", fmt.Sprintf("%s line %d", level, i))
		dev.Log(other, other, "E", "App", "another app's")
	}
	dev.Log(pid, pid, "E", "Other", "another tag")
	dev.Log(pid, pid, "I", "App", "end")
	lines, _ := until(all, "end")
	var seen []string
	for _, l := range lines {
		if l.PID != pid {
			t.Errorf("a line of pid %d: %+v", l.PID, l)
		}
		seen = append(seen, l.Level+":"+l.Message)
	}
	if want := "I:before the subscription V:V line 0 D:D line 1 I:I line 2 W:W line 3 E:E line 4 F:F line 5 E:another tag I:end"; !strings.HasSuffix(strings.Join(seen, " "), want) {
		t.Errorf("lines:\n%s\nwant them to end\n%s", strings.Join(seen, " "), want)
	}
	dev.Log(pid, pid, "W", "App", "warned")
	lines, _ = until(warn, "warned")
	seen = seen[:0]
	for _, l := range lines {
		seen = append(seen, l.Level+":"+l.Message)
	}
	if want := "W:W line 3 E:E line 4 F:F line 5 W:warned"; strings.Join(seen, " ") != want {
		t.Errorf("level W, tag App: %s, want %s", strings.Join(seen, " "), want)
	}
	stopWarn()

	// The app restarts: its new process's lines, with the new pid.
	if err := dev.RemoveProcess(pid); err != nil {
		t.Fatal(err)
	}
	dev.Log(pid, pid, "I", "App", "the old process is gone")
	next, err := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.log"})
	if err != nil || next == pid {
		t.Fatalf("restart: pid %d, %v", next, err)
	}
	dev.Log(next, next, "I", "App", "started again")
	lines, pids := until(all, "started again")
	if last := lines[len(lines)-1]; last.PID != next || pids[len(pids)-1] != next {
		t.Errorf("after the restart: %+v in a batch of pid %d, want pid %d", last, pids[len(pids)-1], next)
	}
	stopAll()
}

// TestLogcatFlood: an app logging 100 000 lines a second while the
// subscriber does not read at all, then reads: the monitor's memory stays
// flat (the queue is bounded), drops are counted, and the VM still answers
// DDM meanwhile. It logs the heap and RSS figures it measured.
func TestLogcatFlood(t *testing.T) {
	t.Parallel()
	m, dev, serial, pid := logDevice(t, "com.example.flood")
	v, err := m.VM(DeviceAddr(serial, pid))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	release := make(chan struct{})
	var delivered, dropped atomic.Int64
	var batches atomic.Int64
	_, err = m.Logcat(ctx, v.ID(), LogFilter{}, func(b LogBatch) {
		<-release // a subscriber that does not read
		delivered.Add(int64(len(b.Lines)))
		dropped.Add(b.Dropped)
		batches.Add(1)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	base, baseRSS := heap(), rss(t)
	const rate, seconds = 100_000, 5
	msg := strings.Repeat("x", 80)
	var produced int64
	start := time.Now()
	var peak, peakRSS uint64
	for s := 0; s < seconds*100; s++ { // 1000 lines every 10 ms
		for i := range rate / 100 {
			dev.Log(pid, pid, "D", "Flood", msg+strconv.Itoa(i))
		}
		produced += rate / 100
		if s%50 == 0 {
			peak, peakRSS = max(peak, heap()), max(peakRSS, rss(t))
			// Debugging goes on: a DDM round trip during the flood.
			rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
			if _, err := v.DDM().Request(rctx, &ddm.Empty{Type: ddm.FEAT}); err != nil {
				t.Errorf("FEAT during the flood: %v", err)
			}
			rcancel()
		}
		if d := time.Until(start.Add(time.Duration(s+1) * 10 * time.Millisecond)); d > 0 {
			time.Sleep(d) // pacing the producer at its rate, not waiting for a result
		}
	}
	took := time.Since(start)
	peak, peakRSS = max(peak, heap()), max(peakRSS, rss(t))
	close(release)
	dev.Log(pid, pid, "I", "Flood", "the end")
	waitFor(t, 90*time.Second, "the queued lines and the drop count delivered", func() bool {
		return dropped.Load() > 0 && delivered.Load() >= maxLogQueued
	})
	t.Logf("flood: %d lines in %v (%.0f lines/s); delivered %d, dropped %d by the monitor; heap in use %d KiB before, peak %d KiB (+%d KiB); RSS %d KiB before, peak %d KiB (+%d KiB)",
		produced, took.Round(time.Millisecond), float64(produced)/took.Seconds(), delivered.Load(), dropped.Load(),
		base>>10, peak>>10, (peak-min(peak, base))>>10, baseRSS>>10, peakRSS>>10, (peakRSS-min(peakRSS, baseRSS))>>10)
	if grown := peak - min(peak, base); grown > 64<<20 {
		t.Errorf("the heap grew by %d MiB under the flood, more than the queue's bound explains", grown>>20)
	}
	if delivered.Load()+dropped.Load() > produced+1000 {
		t.Errorf("delivered %d + dropped %d > produced %d", delivered.Load(), dropped.Load(), produced)
	}
}

// rss is this process's resident set (VmRSS), or 0 where /proc has none.
func rss(t *testing.T) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
