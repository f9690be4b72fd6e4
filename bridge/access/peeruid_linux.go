package access

import (
	"errors"
	"fmt"
	"net"

	"github.com/ddmbridge/ddmbridge/jdwp/hostproc"
)

// PeerUID finds the user owning the other end of a loopback TCP connection
// accepted here: the kernel's socket table (/proc/net/tcp and tcp6, read by
// hostproc) lists the peer's socket, whose local address is c's remote one,
// with its uid.
func PeerUID(c net.Conn) (int, error) {
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return -1, fmt.Errorf("not a TCP connection")
	}
	uid, _, err := hostproc.SocketBetween(remote, local)
	if errors.Is(err, ErrNoSocket) {
		return -1, fmt.Errorf("the peer's socket %s→%s is not in the kernel's socket table: %w", remote, local, ErrNoSocket)
	}
	return uid, err
}

// ListenerUID finds the user owning the listening socket a connection made
// from here to addr reached: the kernel's socket table lists it in state
// LISTEN at addr's port, bound to addr's IP or else to any address (on
// IPv6, "::" takes IPv4 too); a socket bound to the IP itself is the one
// the kernel picks over a wildcard one.
func ListenerUID(addr *net.TCPAddr) (int, error) {
	exact, wild := -1, -1
	err := hostproc.Sockets(func(s hostproc.Socket) bool {
		switch {
		case !s.Listening || s.Local.Port != addr.Port:
		case s.Local.IP.Equal(addr.IP):
			if exact < 0 {
				exact = s.UID
			}
		case s.Local.IP.IsUnspecified():
			if wild < 0 {
				wild = s.UID
			}
		}
		return true
	})
	switch {
	case err != nil:
		return -1, err
	case exact >= 0:
		return exact, nil
	case wild >= 0:
		return wild, nil
	}
	return -1, fmt.Errorf("no listening socket at %s in the kernel's socket table: %w", addr, ErrNoSocket)
}
