package bridge

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Range is a workstation port range to scan for VMs: every port from Lo to Hi
// (inclusive) on Host.
type Range struct {
	Host   string
	Lo, Hi int
}

func (r Range) String() string {
	if r.Lo == r.Hi {
		return net.JoinHostPort(r.Host, strconv.Itoa(r.Lo))
	}
	return fmt.Sprintf("%s-%d", net.JoinHostPort(r.Host, strconv.Itoa(r.Lo)), r.Hi)
}

// DefaultScan is the seed's workstation range.
var DefaultScan = []Range{{Host: "127.0.0.1", Lo: 8000, Hi: 8040}}

// ParseRanges parses a comma-separated list of HOST:LO-HI or HOST:PORT
// ranges ("127.0.0.1:8000-8040,localhost:5005"); IPv6 hosts go in brackets.
func ParseRanges(s string) ([]Range, error) {
	var out []Range
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		host, ports, err := net.SplitHostPort(part)
		if err != nil {
			return nil, fmt.Errorf("scan range %q: want HOST:LO-HI, e.g. 127.0.0.1:8000-8040: %v", part, err)
		}
		if host == "" {
			host = "127.0.0.1"
		}
		lo, hi, found := strings.Cut(ports, "-")
		if !found {
			hi = lo
		}
		l, err1 := strconv.Atoi(lo)
		h, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || l < 1 || h > 65535 || l > h {
			return nil, fmt.Errorf("scan range %q: ports must be LO-HI with 1 <= LO <= HI <= 65535", part)
		}
		if h-l >= 4096 {
			return nil, fmt.Errorf("scan range %q: %d ports is too many to probe every interval (at most 4096)", part, h-l+1)
		}
		out = append(out, Range{Host: host, Lo: l, Hi: h})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("scan range %q: empty", s)
	}
	return out, nil
}

// Options configure a [Monitor]. The zero value scans nothing and listens on
// ephemeral loopback ports; [DefaultOptions] gives the seed's ports.
type Options struct {
	// Scan lists the port ranges probed for VMs. Empty disables scanning
	// (VMs can still be added with Monitor.Connect).
	Scan []Range
	// ScanInterval is the time between probes of a free port; 0 means 1 s, so
	// a VM that starts listening is found within about a second.
	ScanInterval time.Duration
	// ProbeTimeout bounds connecting to and handshaking with a probed port;
	// 0 means 2 s.
	ProbeTimeout time.Duration

	// DebugPortBase is the first per-VM debugger port; VMs get the lowest
	// free port from there (a VM that comes back at the same address gets
	// its old port again when free). 0 means ephemeral ports; negative
	// disables per-VM ports.
	DebugPortBase int
	// CurrentPort is the port that leads to the current VM. 0 means an
	// ephemeral port; negative disables it.
	CurrentPort int
	// AllowRemote makes the debugger ports listen on every interface instead
	// of loopback only. A JDWP port is remote code execution: callers must
	// warn loudly.
	AllowRemote bool
	// AllowOtherUsers adopts VMs whose JDWP agent another local user runs.
	// By default (on Linux, where the listening socket's owner is known) the
	// monitor adopts only this user's VMs: anyone can listen in the scan
	// range, and a VM of another user could feed the monitor anything.
	// It also lets other local users connect to the monitor's JDWP ports
	// (per-VM, current-VM), which by default refuse them: a debugger runs
	// code in the VM as the VM's user.
	AllowOtherUsers bool
	// HoldTimeout is how long a debugger connecting to the current-VM port
	// while no VM is current is held waiting for one; 0 means 30 s.
	HoldTimeout time.Duration
	// RestartHold is how long a VM's debugger port stays open after the VM
	// is gone (it keeps its number for the address), holding a debugger that
	// connects meanwhile until a VM is back at the address; 0 means 5 s. It
	// also bounds the monitor's reconnect to an agent it reset.
	RestartHold time.Duration

	// ThreadPollInterval is the thread-update period: JDWP polling for plain
	// VMs, THST polling for DDM VMs; 0 means 2 s.
	ThreadPollInterval time.Duration
	// RequestTimeout bounds the monitor's own requests to a VM; 0 means 5 s.
	RequestTimeout time.Duration
	// CleanupTimeout bounds the cleanup after a debugger leaves; 0 means 10 s.
	// Clearing its event requests has that long; releasing its suspensions
	// and pins as long again.
	CleanupTimeout time.Duration
	// MaxRequestsPerDebugger bounds the event requests one debugger may
	// have set at once through the monitor (what its leaving makes the
	// monitor clear); past it EventRequest.Set is answered OUT_OF_MEMORY
	// with a warning. 0 means 20,000.
	MaxRequestsPerDebugger int
	// DebuggerWriteTimeout bounds one write to a debugger: one that stops
	// reading for that long while output waits for it is dropped; 0 means 30 s.
	DebuggerWriteTimeout time.Duration

	// ADB, when not nil, is the adb server whose devices the monitor follows
	// (serve: on by default, --adb ADDR, --no-adb): every debuggable process
	// of every online device becomes a VM at address SERIAL/PID, and the
	// devices are listed (Monitor.Devices). The client's own settings apply:
	// it starts a local server when none runs unless NoStart.
	ADB *adb.Client
	// ADBRetry is the longest wait between attempts to reach the adb server
	// after it went away or could not be started (attempts back off from
	// 250 ms); 0 means 10 s. A process whose JDWP stream cannot be opened
	// (another debugger holds it) is retried on the same schedule.
	ADBRetry time.Duration

	// Logger receives the monitor's logs (component "bridge" is added).
	Logger zerolog.Logger
	// TraceProxy logs every debugger packet and its id remapping (kind
	// "bridge.proxy"); TraceScan logs every probe (kind "bridge.scan").
	TraceProxy, TraceScan bool
	// JDWP are the options of the VM connections (logger and trace kinds).
	JDWP jdwp.Options
	// TraceChunks and TraceData are passed to the DDM clients.
	TraceChunks, TraceData bool
}

// DefaultOptions are the seed's: scan 127.0.0.1:8000-8040, per-VM ports from
// 8600, the current VM on 8700.
func DefaultOptions() Options {
	return Options{Scan: DefaultScan, DebugPortBase: 8600, CurrentPort: 8700}
}

func (o *Options) setDefaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.ScanInterval, time.Second)
	def(&o.ProbeTimeout, 2*time.Second)
	def(&o.HoldTimeout, 30*time.Second)
	def(&o.RestartHold, 5*time.Second)
	def(&o.ThreadPollInterval, 2*time.Second)
	def(&o.RequestTimeout, 5*time.Second)
	def(&o.CleanupTimeout, 10*time.Second)
	if o.MaxRequestsPerDebugger <= 0 {
		o.MaxRequestsPerDebugger = 20000
	}
	def(&o.DebuggerWriteTimeout, 30*time.Second)
	def(&o.ADBRetry, 10*time.Second)
}

// listenHost is where debugger listeners bind.
func (o *Options) listenHost() string {
	if o.AllowRemote {
		return ""
	}
	return "127.0.0.1"
}
