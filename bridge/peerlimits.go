package bridge

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/hostproc"
)

// What a peer (a VM, an adb server) may make the monitor do: how many
// streams it opens to one device and how fast, how soon it adopts again a
// VM that keeps dying.
const (
	// maxDeviceStreams bounds the processes of one device the monitor
	// follows: each holds one jdwp:PID stream while monitored. A device
	// that lists more (a malicious adb server listing 10,000 pids) has the
	// rest listed but not monitored until followed ones leave.
	maxDeviceStreams = 128
	// deviceOpenEvery spaces the jdwp:PID streams opened to one device
	// (20 a second), after a burst of deviceOpenBurst.
	deviceOpenEvery = 50 * time.Millisecond
	deviceOpenBurst = 32
	// stableLife is how long a VM (or an adb session) must last to count as
	// working: one that ends sooner makes the next attempt back off.
	stableLife = 5 * time.Second
)

// openLimiter spaces the stream opens to one device: every deviceOpenEvery,
// after a burst.
type openLimiter struct {
	mu   sync.Mutex
	next time.Time
}

// wait returns when the next open may go, or ctx's error.
func (l *openLimiter) wait(ctx context.Context) error {
	l.mu.Lock()
	now := time.Now()
	at := now.Add(-deviceOpenBurst * deviceOpenEvery)
	if l.next.After(at) {
		at = l.next
	}
	l.next = at.Add(deviceOpenEvery)
	l.mu.Unlock()
	d := time.Until(at)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// limiter returns the open limiter of a device.
func (w *adbWatch) limiter(serial string) *openLimiter {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.limits == nil {
		w.limits = map[string]*openLimiter{}
	}
	l := w.limits[serial]
	if l == nil {
		l = &openLimiter{}
		w.limits[serial] = l
	}
	return l
}

// shortLived is what the monitor remembers of a scanned VM that went away
// soon after it was found: when its address may be probed again, and the id
// it keeps if the same process comes back.
type shortLived struct {
	id    string
	pid   int
	fails int
	until time.Time
}

// noteGone remembers a scanned VM that lasted less than stableLife, so
// that its address is probed again only after a backoff (2 s doubling to
// 5 min) and, if the same process answers, the VM keeps its id. A VM that
// lasted longer is forgotten.
func (m *Monitor) noteGone(v *VM, info VMInfo) {
	if v.from.serial != "" || v.from.dial == nil {
		return // device VMs: their followers back off (adbWatch.follow)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	if m.recent == nil {
		m.recent = map[string]*shortLived{}
	}
	if time.Since(v.since) >= stableLife {
		delete(m.recent, v.addr)
		return
	}
	r := m.recent[v.addr]
	if r == nil || r.pid != info.PID {
		r = &shortLived{}
		m.recent[v.addr] = r
	}
	r.id, r.pid = v.id, info.PID
	r.fails++
	d := 2 * m.opts.ScanInterval
	for i := 1; i < r.fails && d < maxProbeBackoff; i++ {
		d *= 2
	}
	d = min(d, maxProbeBackoff)
	r.until = time.Now().Add(d)
	m.log.Warn().Str("vm", v.id).Str("addr", v.addr).Int("pid", info.PID).Int("times", r.fails).Dur("retryIn", d).
		Msg("the VM went away soon after it was found; its port is left alone for a while")
}

// recentlyGone says whether addr waits after a short-lived VM.
func (m *Monitor) recentlyGone(addr string, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.recent[addr]
	return r != nil && r.until.After(now)
}

// keptID is the id a VM adopted at addr over nc keeps: a short-lived VM's,
// when the same process is back there; else "".
func (m *Monitor) keptID(addr string, nc net.Conn) string {
	m.mu.Lock()
	r := m.recent[addr]
	m.mu.Unlock()
	if r == nil || r.pid <= 0 {
		return ""
	}
	if pid, _ := hostproc.Peer(nc); pid == r.pid {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.idTaken(r.id) {
			return ""
		}
		return r.id
	}
	return ""
}

// idTaken says whether a VM or a listed process has id (m.mu held).
func (m *Monitor) idTaken(id string) bool {
	if m.vms[id] != nil {
		return true
	}
	for _, d := range m.devProcs {
		if d.id == id {
			return true
		}
	}
	return false
}
