// Package busypoll reads a socket by polling it for a short while before
// parking, when data is due soon, and hands the turn between readers without
// waking an OS thread.
//
// A goroutine parked on a socket is woken through the network poller; on a
// machine whose idle CPUs sleep (any laptop, every virtual machine) that wake
// costs about as much as a whole JDWP round trip on an idle VM (20–100 µs
// here). A relay in the middle of a round trip parks twice — once waiting for
// the command, once for the reply — and so roughly doubles it.
//
// A Reader whose data is due ("hot", as its owner says) polls the socket
// instead of parking, for up to its spin time. A relay gives each direction a
// Reader and makes exactly one of them hot at a time: the reader for the VM
// while a command is in flight, the reader for the debugger while none is.
// When the turn passes, the relay calls Wake on the reader whose turn it now
// is: that reader, parked on the network poller, is made runnable by the
// running goroutine (a Go-level hand-off, no thread wake-up) and starts
// polling. The cost is one busy CPU while packets flow, bounded by the spin
// time after the last one, and nothing while idle.
//
// It pays only where cores sit idle. Where every core is busy, a polling
// reader takes a core from the threads it waits for: measured through the
// bridge on a 2-core VM, a trivial round trip was 1.2× faster with both
// cores idle and 3× slower with one core busy. So it is opt-in.
package busypoll

import (
	"errors"
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
)

// Reader reads from a connection; see the package comment. It owns the
// connection's read deadline: callers must not set one while it is in use.
// Connections without a descriptor (pipes) and a zero spin read plainly.
type Reader struct {
	nc   net.Conn
	spin time.Duration
	hot  func() bool

	resolved bool            // raw was looked up (on the first Read)
	raw      syscall.RawConn // nil: read plainly

	parked atomic.Bool // the reader is (about to be) parked on the socket
	poked  atomic.Bool // Wake set a deadline to unpark it

	polled, parks atomic.Int64 // reads that got their data polling / parked
}

// NewReader returns a Reader on nc that polls for up to spin while hot
// reports data due; a nil hot counts as always true. The descriptor is looked
// up on the first Read, so a connection that holds reads back until it is
// ready (as the bridge's does) can be passed before it is.
func NewReader(nc net.Conn, spin time.Duration, hot func() bool) *Reader {
	return &Reader{nc: nc, spin: spin, hot: hot}
}

var (
	errAgain  = errors.New("busypoll: nothing yet")       // the socket had nothing to read
	errTimeUp = errors.New("busypoll: spin time is over") // nothing came within the spin time
)

// aLongTimeAgo is a read deadline in the past: it unparks a parked read.
var aLongTimeAgo = time.Unix(1, 0)

func (r *Reader) isHot() bool { return r.hot == nil || r.hot() }

// Read reads into p. It is not safe for concurrent use (one reader goroutine).
func (r *Reader) Read(p []byte) (int, error) {
	if !r.resolved {
		r.resolved = true
		if sc, ok := r.nc.(syscall.Conn); ok && r.spin > 0 && supported {
			r.raw, _ = sc.SyscallConn()
		}
	}
	if r.raw == nil || len(p) == 0 {
		return r.nc.Read(p)
	}
	spent := false // polled for the whole spin time while hot
	for {
		if !spent && r.isHot() {
			n, err := r.poll(p)
			switch {
			case err == errTimeUp:
				spent = true
			case err == errAgain: // the turn passed elsewhere
			case r.unpoked(err):
				continue
			default:
				r.polled.Add(1)
				return n, err
			}
		}
		// Park. A Wake before parked is set is caught by the check after it;
		// one after it unparks the read.
		r.parked.Store(true)
		if !spent && r.isHot() {
			r.parked.Store(false)
			continue
		}
		r.parks.Add(1)
		n, err := r.nc.Read(p)
		r.parked.Store(false)
		if r.unpoked(err) {
			spent = false
			continue
		}
		return n, err
	}
}

// unpoked clears a deadline Wake set and says whether err came from it (the
// read is then retried).
func (r *Reader) unpoked(err error) bool {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		if r.poked.Load() {
			r.unpoke() // the data came first; the poke may still land: clear it
		}
		return false
	}
	r.unpoke()
	return true
}

func (r *Reader) unpoke() {
	r.poked.Store(false)
	r.nc.SetReadDeadline(time.Time{})
}

// Wake tells the reader that data is due (its hot function now says so): a
// reader parked on the socket is unparked and polls. Safe for concurrent use;
// cheap when the reader is not parked.
func (r *Reader) Wake() {
	if r.parked.Load() && r.poked.CompareAndSwap(false, true) {
		r.nc.SetReadDeadline(aLongTimeAgo)
	}
}

// poll reads what arrives within the spin time while the reader stays hot;
// errAgain if nothing did (the turn passed), errTimeUp if the time is up.
func (r *Reader) poll(p []byte) (int, error) {
	start := time.Now()
	for {
		n, err := r.try(p)
		if err != errAgain {
			return n, err
		}
		switch {
		case time.Since(start) >= r.spin:
			return 0, errTimeUp
		case !r.isHot():
			return 0, errAgain
		}
		runtime.Gosched() // anything runnable on this P goes first
	}
}
