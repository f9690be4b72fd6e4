package bridge

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/rs/zerolog"
)

// fakeADB is a hostile adb server in Go (the real one cannot be made to
// misbehave): it speaks the host protocol (4 hex digits of length, then the
// request; OKAY or FAIL, then length-prefixed bodies) for what the monitor
// asks: host:version, host:devices-l, host:track-devices-l,
// host-serial:S:features (refused: track-jdwp is used; with apps set,
// track_app and app_info), and after host:transport:S the services
// track-jdwp, track-app and jdwp:PID (a stream that never answers the JDWP
// handshake).
type fakeADB struct {
	ln      net.Listener
	devices string // the device list (track-devices-l and devices-l)
	pids    string // track-jdwp's list
	apps    []byte // track-app's list (AppProcesses); with it the device has track_app
	garbage bool   // track-devices-l answers garbage and closes

	trackDevices atomic.Int32 // track-devices-l connections
	mu           sync.Mutex
	versionTimes []time.Time  // when each host:version came: one per session of the monitor
	jdwpOpen     atomic.Int32 // jdwp:PID streams open now
	jdwpMax      atomic.Int32 // most open at once
	jdwpTotal    atomic.Int32 // opened in all

	quit chan struct{}
	wg   sync.WaitGroup
}

func startFakeADB(t *testing.T, f *fakeADB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.ln, f.quit = ln, make(chan struct{})
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				defer nc.Close()
				done := make(chan struct{})
				defer close(done)
				go func() {
					select {
					case <-f.quit:
						nc.Close()
					case <-done:
					}
				}()
				f.serve(nc)
			}()
		}
	}()
	t.Cleanup(func() {
		close(f.quit)
		ln.Close()
		f.wg.Wait()
	})
	return ln.Addr().String()
}

func adbBody(s string) string { return fmt.Sprintf("%04x%s", len(s), s) }

func (f *fakeADB) serve(nc net.Conn) {
	r := bufio.NewReader(nc)
	for {
		req, err := adb.ReadMessage(r)
		if err != nil {
			return
		}
		switch {
		case req == "host:version":
			f.mu.Lock()
			f.versionTimes = append(f.versionTimes, time.Now())
			f.mu.Unlock()
			io.WriteString(nc, "OKAY"+adbBody("0029"))
			return
		case req == "host:devices-l":
			io.WriteString(nc, "OKAY"+adbBody(f.devices))
			return
		case req == "host:track-devices-l":
			f.trackDevices.Add(1)
			if f.garbage {
				io.WriteString(nc, "OKAYzz!?this is not a device list")
				return
			}
			io.WriteString(nc, "OKAY"+adbBody(f.devices))
			io.Copy(io.Discard, r) // until the client leaves
			return
		case strings.HasPrefix(req, "host-serial:") && strings.HasSuffix(req, ":features") && f.apps != nil:
			io.WriteString(nc, "OKAY"+adbBody(adb.FeatureTrackApp+","+adb.FeatureAppInfo))
			return
		case strings.HasPrefix(req, "host-serial:"):
			io.WriteString(nc, "FAIL"+adbBody("unknown service"))
			return
		case strings.HasPrefix(req, "host:transport:"):
			io.WriteString(nc, "OKAY")
		case req == "track-app" && f.apps != nil:
			io.WriteString(nc, "OKAY"+adbBody(string(f.apps)))
			io.Copy(io.Discard, r)
			return
		case req == "track-jdwp":
			io.WriteString(nc, "OKAY"+adbBody(f.pids))
			io.Copy(io.Discard, r)
			return
		case strings.HasPrefix(req, "jdwp:"):
			io.WriteString(nc, "OKAY")
			n := f.jdwpOpen.Add(1)
			f.jdwpTotal.Add(1)
			for {
				m := f.jdwpMax.Load()
				if n <= m || f.jdwpMax.CompareAndSwap(m, n) {
					break
				}
			}
			io.Copy(io.Discard, r) // the handshake, never answered
			f.jdwpOpen.Add(-1)
			return
		default:
			io.WriteString(nc, "FAIL"+adbBody("unknown request "+req))
			return
		}
	}
}

// TestFakeADBManyPids: an adb server listing 10,000 debuggable pids on one
// device makes the monitor open at most maxDeviceStreams jdwp: streams at
// once, at a bounded rate (issue 25: 31,000 streams in 20 s, 9,879 fds).
func TestFakeADBManyPids(t *testing.T) {
	t.Parallel()
	pids := make([]string, 10000)
	for i := range pids {
		pids[i] = fmt.Sprint(1000 + i)
	}
	f := &fakeADB{devices: "evil-1          device product:p model:Evil device:d transport_id:1\n", pids: strings.Join(pids, "\n") + "\n"}
	addr := startFakeADB(t, f)
	start := time.Now()
	m := startMonitor(t, deviceOptions(t, addr))
	// Past the bound of streams open at once: every follower has tried,
	// the first ones (their handshakes unanswered) have begun again.
	const want = 3 * maxDeviceStreams / 2
	worst := time.Duration(0)
	waitFor(t, time.Minute, fmt.Sprintf("%d jdwp streams opened", want), func() bool {
		t0 := time.Now()
		m.VMs()
		worst = max(worst, time.Since(t0))
		return f.jdwpTotal.Load() >= want
	})
	elapsed := time.Since(start)
	total, most := f.jdwpTotal.Load(), f.jdwpMax.Load()
	t.Logf("in %v: %d jdwp streams opened, at most %d at once; slowest VM list %v", elapsed, total, most, worst)
	if most > maxDeviceStreams {
		t.Errorf("%d jdwp streams open at once; the bound is %d", most, maxDeviceStreams)
	}
	if limit := int32(deviceOpenBurst + elapsed/deviceOpenEvery + 1); total > limit {
		t.Errorf("%d jdwp streams opened in %v; the rate allows %d", total, elapsed, limit)
	}
}

// TestFakeADBGarbageBacksOff: an adb server answering track-devices with
// garbage is retried with a growing backoff, not at once (issue 25: ~12
// connections a second although the docs promise backoff).
func TestFakeADBGarbageBacksOff(t *testing.T) {
	t.Parallel()
	f := &fakeADB{garbage: true}
	addr := startFakeADB(t, f)
	o := deviceOptions(t, addr)
	o.ADBRetry = 10 * time.Second
	startMonitor(t, o)
	const sessions = 5
	var at []time.Time
	waitFor(t, time.Minute, fmt.Sprintf("%d sessions with the adb server", sessions), func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		at = slices.Clone(f.versionTimes)
		return len(at) >= sessions
	})
	var gaps []time.Duration
	for i := 1; i < len(at); i++ {
		gaps = append(gaps, at[i].Sub(at[i-1]))
	}
	t.Logf("gaps between track-devices sessions: %v", gaps)
	// 250 ms doubling: 250 ms, 500 ms, 1 s, 2 s (a loaded machine only
	// makes them longer).
	for i, g := range gaps[:sessions-1] {
		if least := 250 * time.Millisecond << i; g < least*9/10 {
			t.Errorf("gap %d between sessions was %v; the backoff wants %v", i+1, g, least)
		}
	}
}

// TestFakeADBManyApps: a device whose track-app lists 4,000 debuggable
// processes gets at most maxDeviceStreams entries in the VM list, with a
// warning, as track-jdwp's pids get at most that many streams. Before, every
// listed process got an entry (and a vms/added to every client).
func TestFakeADBManyApps(t *testing.T) {
	t.Parallel()
	const n = 4000
	apps := make([]adb.AppProcess, n)
	for i := range apps {
		apps[i] = adb.AppProcess{PID: 1000 + i, Debuggable: true}
	}
	body := adb.EncodeAppProcesses(apps)
	if len(body) > 0xffff {
		t.Fatalf("%d processes take %d bytes, more than one adb message", n, len(body))
	}
	f := &fakeADB{devices: "evil-1          device product:p model:Evil device:d transport_id:1\n", apps: body}
	addr := startFakeADB(t, f)
	logs := &bridgetest.LogLines{T: t}
	o := deviceOptions(t, addr)
	o.Logger = zerolog.New(logs).Level(zerolog.InfoLevel)
	m := startMonitor(t, o)
	listed := func() (k int) {
		for _, v := range m.VMs() {
			if v.Serial == "evil-1" {
				k++
			}
		}
		return k
	}
	waitFor(t, time.Minute, "the listed processes and a warning about the rest", func() bool {
		return listed() >= maxDeviceStreams || logs.Has(`"level":"warn"`, "track-app", fmt.Sprintf(`"more":%d`, n-maxDeviceStreams))
	})
	if !logs.Has(`"level":"warn"`, "track-app", fmt.Sprintf(`"more":%d`, n-maxDeviceStreams)) {
		t.Errorf("no warning about the %d processes left out", n-maxDeviceStreams)
	}
	if k := listed(); k != maxDeviceStreams {
		t.Fatalf("%d processes of one device in the VM list; the bound is %d", k, maxDeviceStreams)
	}
}
