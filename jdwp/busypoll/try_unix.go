//go:build unix

package busypoll

import (
	"io"
	"net"
	"os"
	"syscall"
)

const supported = true

// try reads what the socket holds without waiting.
func (r *Reader) try(p []byte) (int, error) {
	var n int
	var rerr error
	err := r.raw.Read(func(fd uintptr) bool {
		for {
			m, e := syscall.Read(int(fd), p)
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
				rerr = errAgain
			case e != nil:
				rerr = &net.OpError{Op: "read", Net: "tcp", Source: r.nc.LocalAddr(), Addr: r.nc.RemoteAddr(), Err: os.NewSyscallError("read", e)}
			case m == 0:
				rerr = io.EOF
			default:
				n = m
			}
			return true
		}
	})
	if err != nil {
		return 0, err // closed (net.ErrClosed) or a deadline a Wake set
	}
	return n, rerr
}
