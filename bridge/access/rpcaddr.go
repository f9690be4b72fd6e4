package access

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// DefaultRPCAddr is the per-user control socket: unix:$XDG_RUNTIME_DIR/ddmbridge.sock,
// or unix:/tmp/ddmbridge-$UID/ddmbridge.sock when there is no runtime dir.
func DefaultRPCAddr() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return "unix:" + filepath.Join(d, "ddmbridge.sock")
		}
	}
	return "unix:" + filepath.Join(fallbackRuntimeDir(), "ddmbridge.sock")
}

// fallbackRuntimeDir is the per-user directory used when there is no
// XDG_RUNTIME_DIR: /tmp/ddmbridge-$UID. Anyone can create a name in /tmp, so
// it is trusted only if this user owns it and no one else may enter it.
func fallbackRuntimeDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("ddmbridge-%d", os.Getuid()))
}

// checkRuntimeDir refuses a fallback runtime directory that another user
// could have planted or can write to. Other directories are the user's
// choice and are not checked.
func checkRuntimeDir(dir string) error {
	if filepath.Clean(dir) != fallbackRuntimeDir() {
		return nil
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("runtime directory %s: %w", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("runtime directory %s is not a directory (%v): remove it, or set XDG_RUNTIME_DIR or pass --rpc", dir, fi.Mode().Type())
	case ok && int(st.Uid) != os.Getuid():
		return fmt.Errorf("runtime directory %s belongs to uid %d, not to you (uid %d): another user may have planted it; remove it, or set XDG_RUNTIME_DIR or pass --rpc", dir, st.Uid, os.Getuid())
	case fi.Mode().Perm() != 0o700:
		return fmt.Errorf("runtime directory %s has mode %v, want 0700 (drwx------): others could reach or replace its sockets; `chmod 700 %s`", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// CleanStaleSockets removes sockets in dir whose names match pattern (as
// filepath.Match) that nothing listens on any more: left by monitors that
// were killed. It returns the paths removed.
func CleanStaleSockets(dir, pattern string) []string {
	if err := checkRuntimeDir(dir); err != nil {
		return nil
	}
	names, _ := filepath.Glob(filepath.Join(dir, pattern))
	var removed []string
	for _, name := range names {
		if fi, err := os.Lstat(name); err != nil || fi.Mode().Type() != os.ModeSocket {
			continue
		}
		c, err := net.Dial("unix", name)
		if err == nil {
			c.Close()
			continue
		}
		if errors.Is(err, syscall.ECONNREFUSED) && os.Remove(name) == nil {
			removed = append(removed, name)
		}
	}
	return removed
}

// ParseRPCAddr splits a control address: "unix:PATH", "tcp:HOST:PORT", a
// path (containing a slash) or HOST:PORT. Empty means DefaultRPCAddr.
func ParseRPCAddr(addr string) (network, address string, err error) {
	if addr == "" {
		addr = DefaultRPCAddr()
	}
	switch {
	case strings.HasPrefix(addr, "unix:"):
		network, address = "unix", strings.TrimPrefix(addr, "unix:")
	case strings.HasPrefix(addr, "tcp:"):
		network, address = "tcp", strings.TrimPrefix(addr, "tcp:")
	case strings.Contains(addr, "/"):
		network, address = "unix", addr
	default:
		network, address = "tcp", addr
	}
	if address == "" {
		return "", "", fmt.Errorf("control address %q: empty %s address (want unix:PATH or tcp:HOST:PORT)", addr, network)
	}
	if network == "tcp" {
		if _, _, err := net.SplitHostPort(address); err != nil {
			return "", "", fmt.Errorf("control address %q: %v (want tcp:HOST:PORT)", addr, err)
		}
	}
	return network, address, nil
}

// ListenRPC listens on a control address. A unix socket is created mode 0600
// (its directory 0700 if the monitor creates it; a stale socket left by a
// dead monitor is replaced); a TCP address must be loopback unless
// allowRemote, and other local users' connections are refused. It is Listen
// with default options.
func ListenRPC(addr string, allowRemote bool) (net.Listener, error) {
	return Listen(addr, ListenOptions{AllowRemote: allowRemote})
}

func listenAddr(addr string, allowRemote bool) (net.Listener, error) {
	network, address, err := ParseRPCAddr(addr)
	if err != nil {
		return nil, err
	}
	if network == "tcp" {
		host, _, _ := net.SplitHostPort(address)
		ip := net.ParseIP(host)
		if !allowRemote && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, fmt.Errorf("control address %s is not loopback: the control API can start and stop VMs' debugging; pass --allow-remote to really expose it", address)
		}
		ln, err := net.Listen("tcp", address)
		if err != nil {
			return nil, fmt.Errorf("listen %s: %w", address, err)
		}
		return ln, nil
	}
	dir := filepath.Dir(address)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("control socket directory %s: %w", dir, err)
		}
	}
	if err := checkRuntimeDir(dir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(address); err == nil {
		c, err := net.Dial("unix", address)
		if err == nil {
			c.Close()
			return nil, fmt.Errorf("control socket %s is in use: is another `ddmbridge serve` running? (use --rpc to pick another address)", address)
		}
		os.Remove(address) // stale
	}
	ln, err := listenUnixPrivate(address)
	if err != nil {
		return nil, fmt.Errorf("listen unix %s: %w", address, err)
	}
	if err := os.Chmod(address, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control socket %s: %w", address, err)
	}
	return ln, nil
}

// DialRPCConn connects to a control address.
func DialRPCConn(ctx context.Context, addr string) (net.Conn, error) {
	network, address, err := ParseRPCAddr(addr)
	if err != nil {
		return nil, err
	}
	if network == "unix" {
		if err := checkRuntimeDir(filepath.Dir(address)); err != nil {
			return nil, fmt.Errorf("connect to the monitor: %w", err)
		}
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, fmt.Errorf("connect to the monitor at %s:%s: %w — is `ddmbridge serve` running (with the same --rpc)?", network, address, err)
	}
	return c, nil
}
