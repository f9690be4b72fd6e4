package dap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
)

// Backend opens VM connections for attach requests.
type Backend interface {
	// OpenDebugger returns a byte stream to the VM named by target — a
	// monitored VM id, "current", or "host:port" — before the JDWP handshake
	// (the session performs it).
	OpenDebugger(ctx context.Context, target string) (net.Conn, error)
	// DDMFeed returns the one poller of DDM data of the VM named by target
	// (the session watches through it, sharing it with the monitor's other
	// clients), or nil when the VM is not DDM-aware or the backend doesn't
	// monitor it.
	DDMFeed(target string) *ddm.Feed
}

// DirectBackend is the backend of a stand-alone session: it dials host:port
// targets over TCP and knows no monitored VMs, so DDMFeed returns nil and the
// session attaches DDM, and a feed of its own, on its own connection.
type DirectBackend struct{}

// OpenDebugger dials target, which must be host:port.
func (DirectBackend) OpenDebugger(ctx context.Context, target string) (net.Conn, error) {
	if _, _, err := net.SplitHostPort(target); err != nil {
		return nil, fmt.Errorf("%q is not host:port, and monitored VMs (vm ids, \"current\") need the ddmbridge monitor: run 'ddmbridge serve' and attach through it", target)
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", target)
	if err != nil {
		return nil, err
	}
	return nc, nil
}

// DDMFeed returns nil: a direct backend monitors nothing.
func (DirectBackend) DDMFeed(string) *ddm.Feed { return nil }

// openWithRetry calls OpenDebugger until it succeeds, fails with something
// other than a refused connection, or ctx ends, so an attach may start just
// before its VM does. When ctx ends, even in the middle of a dial (a loaded
// machine may take that long), the error says in words what to check.
//
// A refused connection is retried only when waitRefused is set (a launch,
// or an attach with "waitForVM"): otherwise nothing listens and nothing
// will, and the attach fails at once saying how to start the VM.
func openWithRetry(ctx context.Context, b Backend, target string, waitRefused bool) (net.Conn, error) {
	var why error // the last refusal, explained
	for {
		nc, err := b.OpenDebugger(ctx, target)
		if err == nil {
			return nc, nil
		}
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			// A local VM whose agent refuses connections has a debugger: no
			// use waiting. Nothing listening may be a VM still starting.
			why = localjvm.Explain(target, err)
			if errors.Is(why, localjvm.ErrHasDebugger) {
				return nil, fmt.Errorf("connect to %s: %w", target, why)
			}
			if !waitRefused {
				return nil, fmt.Errorf(`connect to %s: %w (to start the attach before the VM, set "waitForVM": true)`, target, why)
			}
		case (ctx.Err() != nil || isTimeout(err)) && why != nil:
			return nil, fmt.Errorf("connect to %s: connection refused until the timeout: %w", target, why)
		case ctx.Err() != nil || isTimeout(err):
			// A dial can give up on the context's deadline a moment before
			// the context itself says so (a busy machine): the same case.
			// The time may have run out before any dial was answered: one
			// more look tells a closed port from a silent one.
			if why := explainSilence(target); why != nil {
				return nil, fmt.Errorf("connect to %s: %w", target, why)
			}
			return nil, fmt.Errorf("connect to %s: no answer before the timeout (%v) — is the VM started with -agentlib:jdwp=transport=dt_socket,server=y,address=...?", target, err)
		default:
			return nil, fmt.Errorf("connect to %s: %w", target, localjvm.Explain(target, err))
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("connect to %s: connection refused until the timeout: %w", target, why)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// explainSilence dials a host:port target once more, briefly, after the
// attach's time ran out with no answer: when the port is closed (or held by
// a local JVM serving another debugger), it returns why, else nil.
func explainSilence(target string) error {
	if _, _, err := net.SplitHostPort(target); err != nil {
		return nil // a monitored VM's id
	}
	c, err := net.DialTimeout("tcp", target, 2*time.Second)
	if err == nil {
		c.Close()
		return nil
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return localjvm.Explain(target, err)
	}
	return nil
}

// isTimeout reports whether err is a deadline running out (a dial's i/o
// timeout or the context's own deadline).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout())
}

// processJDWPAddress returns the host:port a local JVM's JDWP agent listens
// on, read from its command line (/proc/PID/cmdline).
func processJDWPAddress(pid int) (string, error) {
	p, err := localjvm.Get(pid)
	return p.Address, err
}

// jdwpAddressFromArgs finds -agentlib:jdwp=... (or -Xrunjdwp:...) in a JVM's
// arguments and returns the address its server listens on.
func jdwpAddressFromArgs(pid int, args []string) (string, error) {
	return localjvm.AgentAddress(pid, args)
}

// AndroidLauncher is implemented by backends that reach Android devices (the monitor with adb).
type AndroidLauncher interface {
	// LaunchAndroid installs (apkFile, if set) and starts the app waiting for a debugger, waits for its VM and returns the attach target (a monitored VM id). progress reports what it is waiting for.
	LaunchAndroid(ctx context.Context, req AndroidLaunch, progress func(message string)) (target string, err error)
}

// AndroidLaunch is what a launch request with "packageName" asks of an
// AndroidLauncher (see LaunchConfig for each field).
type AndroidLaunch struct {
	Device, Package, Activity string
	AmStartArgs               []string
	APK                       string
}

// errNoAndroid is the launch error of a backend that cannot reach devices.
var errNoAndroid = errors.New("launching Android apps needs the monitor: run ddmbridge serve (adb devices are found automatically) and connect through it")
