//go:build !linux

package access

import (
	"net"
	"os"
	"syscall"
)

// listenUnixPrivate listens on a unix socket created under umask 0177, so
// its mode is 0600 from the start.
func listenUnixPrivate(path string) (net.Listener, error) {
	old := syscall.Umask(0o177)
	defer syscall.Umask(old)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}
