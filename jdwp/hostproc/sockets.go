package hostproc

import (
	"errors"
	"net"
)

// ErrNoSocket: the kernel's socket table has no such socket (its peer or
// listener is on another host, or gone).
var ErrNoSocket = errors.New("no such socket")

// Socket is one row of the kernel's TCP socket tables (/proc/net/tcp and
// tcp6).
type Socket struct {
	Local, Remote *net.TCPAddr
	Listening     bool   // in state LISTEN
	UID           int    // its owner
	Inode         string // what a process's fd links to ("socket:[INODE]"); "0" when no process holds it (TIME_WAIT)
}
