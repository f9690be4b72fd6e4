package access

import (
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// listenUnixPrivate listens on a unix socket created mode 0600 from the
// start, whatever the umask: the socket's mode is set (fchmod) before bind
// creates its file, which takes that mode minus the umask, so no other
// user can connect in the instant before a chmod (issue 42: under umask
// 000 another user reached a control socket created 0777 then chmodded).
// Closing the listener removes the file, as net.Listen's does.
func listenUnixPrivate(path string) (net.Listener, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close() // FileListener keeps a dup
	if err := unix.Fchmod(fd, 0o600); err != nil {
		return nil, os.NewSyscallError("fchmod", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		return nil, os.NewSyscallError("bind", err)
	}
	if err := unix.Listen(fd, unix.SOMAXCONN); err != nil {
		os.Remove(path)
		return nil, os.NewSyscallError("listen", err)
	}
	ln, err := net.FileListener(f)
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	ul, ok := ln.(*net.UnixListener)
	if !ok {
		ln.Close()
		os.Remove(path)
		return nil, os.ErrInvalid
	}
	ul.SetUnlinkOnClose(true)
	return ul, nil
}
