package access

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/hostproc"
	"github.com/rs/zerolog"
)

// ListenOptions say who may connect to a control or DAP listener.
type ListenOptions struct {
	// AllowRemote lets a TCP address be other than loopback. Peers from
	// other hosts are then accepted: their user cannot be known.
	AllowRemote bool
	// AllowOtherUsers accepts loopback TCP connections from other local
	// users. By default they are refused (on Linux, where the peer's user
	// is known), as Delve's --only-same-user does: a control or DAP
	// connection can start programs and debug VMs as this user.
	AllowOtherUsers bool
	// Logger receives refusals and accept retries (component "bridge").
	Logger zerolog.Logger
}

// Listen listens on a control address as ListenRPC does and returns a
// listener that refuses other users' connections (see ListenOptions) and
// rides out temporary accept errors (EMFILE and the like) with a backoff
// instead of failing.
func Listen(addr string, o ListenOptions) (net.Listener, error) {
	ln, err := listenAddr(addr, o.AllowRemote)
	if err != nil {
		return nil, err
	}
	return Guard(ln, o), nil
}

// Guard wraps ln as Listen does. A listener Guard already wrapped is
// returned as it is.
func Guard(ln net.Listener, o ListenOptions) net.Listener {
	if g, ok := ln.(*guarded); ok {
		return g
	}
	return &guarded{Listener: ln, o: o, log: o.Logger.With().Str("component", "bridge").Logger(),
		closed: make(chan struct{})}
}

// guarded is a listener that retries temporary accept errors and refuses
// connections from other local users.
type guarded struct {
	net.Listener
	o         ListenOptions
	log       zerolog.Logger
	closeOnce sync.Once
	closed    chan struct{}
}

// Accept backoff, as net/http's: 5 ms doubling up to 1 s.
const (
	acceptRetryFirst = 5 * time.Millisecond
	acceptRetryMax   = time.Second
)

func (g *guarded) Accept() (net.Conn, error) {
	var delay time.Duration
	for {
		c, err := g.Listener.Accept()
		if err != nil {
			if !temporaryAcceptError(err) {
				return nil, err
			}
			if delay == 0 {
				delay = acceptRetryFirst
			} else {
				delay = min(2*delay, acceptRetryMax)
			}
			g.log.Warn().Err(err).Dur("retryIn", delay).Str("addr", g.Addr().String()).
				Msg("accept failed; retrying (out of file descriptors? raise `ulimit -n`)")
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-g.closed:
				t.Stop()
				return nil, net.ErrClosed
			}
			continue
		}
		delay = 0
		if err := g.admit(c); err != nil {
			lvl := zerolog.WarnLevel
			if errors.Is(err, errPeerGone) {
				lvl = zerolog.DebugLevel // nothing to refuse: it left before it was checked
			}
			g.log.WithLevel(lvl).Err(err).Str("addr", g.Addr().String()).Str("peer", c.RemoteAddr().String()).
				Msg("connection refused")
			c.Close()
			continue
		}
		return c, nil
	}
}

func (g *guarded) Close() error {
	g.closeOnce.Do(func() { close(g.closed) })
	return g.Listener.Close()
}

// admit checks who is at the other end of a new connection.
func (g *guarded) admit(c net.Conn) error {
	if g.o.AllowOtherUsers {
		return nil
	}
	if uc, ok := c.(*net.UnixConn); ok {
		// Its mode 0600 keeps other users out; the peer's credentials
		// (SO_PEERCRED) say so whatever the socket's mode became.
		uid, err := UnixPeerUID(uc)
		switch {
		case errors.Is(err, errors.ErrUnsupported):
			return nil
		case err != nil:
			return fmt.Errorf("cannot tell which local user connected (%v)", err)
		case uid != os.Getuid():
			return fmt.Errorf("uid %d is not this process's user (uid %d): only the same user may connect; pass --allow-other-users to accept other local users", uid, os.Getuid())
		}
		return nil
	}
	remote, ok := c.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return nil
	}
	if !remote.IP.IsLoopback() {
		return nil // only with AllowRemote: a remote peer's user is unknowable
	}
	uid, err := PeerUID(c)
	if errors.Is(err, errors.ErrUnsupported) {
		return nil // this system does not tell
	}
	if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
		return fmt.Errorf("out of file descriptors, cannot check which local user connected (%v); raise `ulimit -n`", err)
	}
	if errors.Is(err, ErrNoSocket) {
		// The peer's socket left the table: it closed the connection
		// already (a client that connects and closes at once).
		return fmt.Errorf("%w (%v)", errPeerGone, err)
	}
	if err != nil {
		return fmt.Errorf("cannot tell which local user connected (%v); pass --allow-other-users to accept anyone who can reach the port", err)
	}
	if uid != os.Getuid() {
		return fmt.Errorf("uid %d is not this process's user (uid %d): only the same user may connect; pass --allow-other-users to accept other local users", uid, os.Getuid())
	}
	return nil
}

// ErrNoSocket: the kernel's socket table has no such socket (the peer or
// listener is on another host, or gone); hostproc's, which reads the table.
var ErrNoSocket = hostproc.ErrNoSocket

// errPeerGone: a connection's peer closed it before its user was checked.
var errPeerGone = errors.New("the peer closed the connection before its user could be checked")

// temporaryAcceptError says whether an accept error passes with time: out
// of descriptors or buffers, or a connection aborted before it was accepted.
func temporaryAcceptError(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.EINTR, syscall.EAGAIN, syscall.EPROTO, syscall.EPERM} {
		if errors.Is(err, e) {
			return true
		}
	}
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}
