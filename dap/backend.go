package dap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
)

// Backend opens VM connections for attach requests.
type Backend interface {
	// OpenDebugger returns a byte stream to the VM named by target — a
	// monitored VM id, "current", or "host:port" — before the JDWP handshake
	// (the session performs it).
	OpenDebugger(ctx context.Context, target string) (net.Conn, error)
	// DDM returns the DDM client of the VM named by target, or nil when the VM
	// is not DDM-aware or the backend doesn't monitor it.
	DDM(target string) *ddm.Client
}

// DirectBackend is the backend of a stand-alone session: it dials host:port
// targets over TCP and knows no monitored VMs, so DDM returns nil and the
// session attaches DDM on its own connection.
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

// DDM returns nil: a direct backend monitors nothing.
func (DirectBackend) DDM(string) *ddm.Client { return nil }

// openWithRetry calls OpenDebugger until it succeeds, fails with something
// other than a refused connection, or ctx ends, so an attach may start just
// before its VM does. When ctx ends, even in the middle of a dial (a loaded
// machine may take that long), the error says in words what to check.
func openWithRetry(ctx context.Context, b Backend, target string) (net.Conn, error) {
	const hint = "is the VM started with -agentlib:jdwp=transport=dt_socket,server=y,address=...?"
	refused := false
	for {
		nc, err := b.OpenDebugger(ctx, target)
		if err == nil {
			return nc, nil
		}
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			refused = true
		case ctx.Err() != nil && refused:
			return nil, fmt.Errorf("connect to %s: connection refused until the timeout — %s", target, hint)
		case ctx.Err() != nil:
			return nil, fmt.Errorf("connect to %s: no answer before the timeout (%v) — %s", target, err, hint)
		default:
			return nil, fmt.Errorf("connect to %s: %w", target, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("connect to %s: connection refused until the timeout — %s", target, hint)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// processJDWPAddress returns the host:port a local JVM's JDWP agent listens
// on, read from its command line (/proc/PID/cmdline).
func processJDWPAddress(pid int) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("process %d: no such process (or no /proc on this system)", pid)
		}
		return "", fmt.Errorf("process %d: read its command line: %w", pid, err)
	}
	return jdwpAddressFromArgs(pid, strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"))
}

// jdwpAddressFromArgs finds -agentlib:jdwp=... (or -Xrunjdwp:...) in a JVM's
// arguments and returns the address its server listens on.
func jdwpAddressFromArgs(pid int, args []string) (string, error) {
	var opts string
	found := false
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-agentlib:jdwp="):
			opts, found = strings.TrimPrefix(a, "-agentlib:jdwp="), true
		case strings.HasPrefix(a, "-Xrunjdwp:"):
			opts, found = strings.TrimPrefix(a, "-Xrunjdwp:"), true
		}
	}
	if !found {
		return "", fmt.Errorf("process %d has no JDWP agent: start it with -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=PORT", pid)
	}
	kv := map[string]string{}
	for _, part := range strings.Split(opts, ",") {
		k, v, _ := strings.Cut(part, "=")
		kv[k] = v
	}
	if kv["server"] != "y" {
		return "", fmt.Errorf("process %d's JDWP agent connects out (server=n), it does not listen: restart it with server=y", pid)
	}
	if t := kv["transport"]; t != "" && t != "dt_socket" {
		return "", fmt.Errorf("process %d's JDWP agent uses transport %q; only dt_socket can be attached", pid, t)
	}
	addr := kv["address"]
	if addr == "" {
		return "", fmt.Errorf("process %d's JDWP agent has no fixed address (it picked a random port); restart it with address=PORT", pid)
	}
	host, port := "127.0.0.1", addr
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		host, port = addr[:i], addr[i+1:]
		switch host {
		case "", "*", "0.0.0.0", "localhost":
			host = "127.0.0.1"
		}
	}
	if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
		return "", fmt.Errorf("process %d's JDWP agent address %q has no usable port (address=0 picks a random one; restart it with a fixed port)", pid, addr)
	}
	return net.JoinHostPort(host, port), nil
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
