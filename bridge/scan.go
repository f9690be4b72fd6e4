package bridge

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/access"
)

// notJDWPBackoff is how long a port that accepted but did not speak JDWP is
// first left alone; maxProbeBackoff bounds the doubling after each further
// failure.
const (
	notJDWPBackoff  = 30 * time.Second
	maxProbeBackoff = 5 * time.Minute
)

// probeBackoff is how long each port of the scan range is left alone after
// it failed in a way a retry a scan interval later would not mend: it did
// not speak JDWP, or spoke it and then failed (a hostile or broken
// endpoint). Each further failure doubles the wait, up to maxProbeBackoff;
// success forgets the failures. A refused or timed-out connection is no
// failure: no VM is there yet.
type probeBackoff struct {
	first time.Duration // the first wait after a VM that could not be monitored
	fails map[string]int
	until map[string]time.Time
}

func newProbeBackoff(interval time.Duration) *probeBackoff {
	return &probeBackoff{first: 2 * interval, fails: map[string]int{}, until: map[string]time.Time{}}
}

// waiting says whether addr is not to be probed at now.
func (b *probeBackoff) waiting(addr string, now time.Time) bool { return b.until[addr].After(now) }

// result records a probe's outcome and returns the wait it imposes (0: none).
func (b *probeBackoff) result(addr string, err error, now time.Time) time.Duration {
	var d time.Duration
	switch {
	case err == nil:
		delete(b.fails, addr)
		delete(b.until, addr)
		return 0
	case errors.Is(err, errNotJDWP), errors.Is(err, errOtherUser):
		d = notJDWPBackoff
	case errors.Is(err, errNotMonitorable):
		d = b.first
	default:
		return 0
	}
	n := b.fails[addr]
	b.fails[addr] = n + 1
	for i := 0; i < n && d < maxProbeBackoff; i++ {
		d *= 2
	}
	d = min(d, maxProbeBackoff)
	b.until[addr] = now.Add(d)
	return d
}

// scan probes every port of the ranges that no VM of ours holds, every
// ScanInterval. A probe that completes the handshake is not closed: probing a
// JDWP port is attaching to it (HotSpot serves one debugger, and a suspend=y
// VM would run off when that debugger left), so the probe's connection
// becomes the VM's owning connection. A monitored VM's death is seen at once
// from its connection, not from probes. A debugger waiting for a VM makes
// the scan run at once (Monitor.scanNow).
func (m *Monitor) scan(ctx context.Context) {
	defer m.wg.Done()
	if len(m.opts.Scan) == 0 {
		return
	}
	backoff := newProbeBackoff(m.opts.ScanInterval)
	results := make(chan probeResult, 64)
	t := time.NewTicker(m.opts.ScanInterval)
	defer t.Stop()
	for {
		now := time.Now()
		for _, r := range m.opts.Scan {
			for p := r.Lo; p <= r.Hi; p++ {
				addr := net.JoinHostPort(r.Host, strconv.Itoa(p))
				if backoff.waiting(addr, now) || m.recentlyGone(addr, now) || !m.claimProbe(addr) {
					continue
				}
				m.wg.Add(1)
				go func() {
					defer m.wg.Done()
					results <- probeResult{addr, m.probe(ctx, addr)}
				}()
			}
		}
		for {
			select {
			case res := <-results:
				m.endProbe(res.addr)
				if d := backoff.result(res.addr, res.err, time.Now()); d > 0 {
					m.log.Debug().Str("addr", res.addr).Err(res.err).Dur("retryIn", d).Msg("port in the scan range left alone for a while")
				}
				continue
			case <-t.C:
			case <-m.scanNow:
			case <-ctx.Done():
				return
			case <-m.stop:
				return
			}
			break
		}
	}
}

type probeResult struct {
	addr string
	err  error
}

// claimProbe reserves addr for one probe unless it is ours, monitored or
// already being probed.
func (m *Monitor) claimProbe(addr string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || m.probing[addr] != nil || m.byAddr[addr] != nil || m.own[addr] {
		return false
	}
	m.probing[addr] = make(chan struct{})
	return true
}

// endProbe releases addr's probe and wakes those waiting for its outcome.
func (m *Monitor) endProbe(addr string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ch := m.probing[addr]; ch != nil {
		close(ch)
		delete(m.probing, addr)
	}
}

var (
	errNotJDWP        = errors.New("not a JDWP agent")
	errNotMonitorable = errors.New("a JDWP agent that could not be monitored")
)

// probe connects to addr; when a JDWP agent answers the handshake, the
// connection is adopted as the VM's.
func (m *Monitor) probe(ctx context.Context, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, m.opts.ProbeTimeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if m.opts.TraceScan && !errors.Is(err, syscall.ECONNREFUSED) {
			m.log.Trace().Str("kind", "bridge.scan").Str("addr", addr).Err(err).Msg("probe")
		}
		return err
	}
	if err := m.checkVMOwner(nc); err != nil {
		nc.Close()
		m.log.Warn().Str("addr", addr).Err(err).Msg("VM not adopted")
		return err
	}
	if m.opts.TraceScan {
		m.log.Trace().Str("kind", "bridge.scan").Str("addr", addr).Msg("probe connected; handshaking")
	}
	if _, err := handshakeVM(ctx, nc, m.opts.ProbeTimeout); err != nil {
		nc.Close()
		m.log.Debug().Str("addr", addr).Err(err).Msg("port in the scan range does not speak JDWP")
		return errNotJDWP
	}
	// The VM is ours now, whatever happens below; its lifetime is not the probe's.
	from := vmOrigin{dial: func(ctx context.Context) (net.Conn, error) { return m.dialVM(ctx, addr) }, keepID: m.keptID(addr, nc)}
	if _, err := m.adoptFrom(context.WithoutCancel(ctx), nc, addr, from); err != nil {
		m.log.Warn().Str("addr", addr).Err(err).Msg("VM found but could not be monitored")
		return fmt.Errorf("%w: %v", errNotMonitorable, err)
	}
	return nil
}

// dialVM connects to the agent at addr and handshakes.
func (m *Monitor) dialVM(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if err := m.checkVMOwner(nc); err != nil {
		nc.Close()
		return nil, err
	}
	if _, err := handshakeVM(ctx, nc, m.opts.ProbeTimeout); err != nil {
		nc.Close()
		return nil, err
	}
	return nc, nil
}

// errOtherUser marks a VM the monitor does not adopt because another local
// user runs it.
var errOtherUser = errors.New("a VM of another local user")

// checkVMOwner says whether the monitor may adopt the VM nc reached, before
// a byte is exchanged with it: by default only a VM whose listening socket
// belongs to this user (Options.AllowOtherUsers: any). The scan range is
// open to every local user; a VM of another user could feed the monitor
// anything, and a monitor run as root would act on that user's files.
func (m *Monitor) checkVMOwner(nc net.Conn) error {
	if m.opts.AllowOtherUsers {
		return nil
	}
	ra, ok := nc.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return nil
	}
	uid, err := access.ListenerUID(ra)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return nil // this system does not tell
	case errors.Is(err, access.ErrNoSocket) && !ra.IP.IsLoopback():
		return nil // another host, named in the scan range: its user is not knowable
	case err != nil:
		return fmt.Errorf("%w: cannot tell which local user runs the VM at %s (%v); serve --allow-other-users adopts VMs of any user", errOtherUser, ra, err)
	case uid != os.Getuid():
		return fmt.Errorf("%w: the VM at %s listens as uid %d, not as this user (uid %d), so it is not adopted; serve --allow-other-users adopts VMs of other users", errOtherUser, ra, uid, os.Getuid())
	}
	return nil
}
