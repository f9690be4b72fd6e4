package jdwp

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// PacketWriter coalesces the packets bound for one connection. Senders queue
// packets; whichever goroutine drains first writes everything queued in as
// few writes as possible (a burst of commands or replies becomes one
// syscall) while the others leave theirs to it, and a writer goroutine (Run)
// finishes what senders left. Conn writes its commands through one; the
// monitor's proxy writes a debugger's replies and events through another.
// All methods are safe for concurrent use.
type PacketWriter struct {
	nc   net.Conn
	raw  syscall.RawConn // nc's descriptor, for writes that must not wait; nil for pipes
	opts WriterOptions

	mu sync.Mutex
	// The queued output is segs, then buf: packets are appended to buf,
	// except the data of large ones queued with QueueShared, which is
	// written from where it is (segs then holds buf up to the header, then
	// the data) rather than copied.
	buf  []byte
	segs [][]byte
	// partLeft counts the data bytes still to come of a packet queued in
	// parts (BeginPart); meanwhile other packets are queued aside, and
	// follow it.
	partLeft int
	aside    []byte
	partDone chan struct{} // closed when partLeft drops to 0; made by a Flush that waits for it
	segLen   int           // bytes in segs
	spare    []byte        // a written buffer, for reuse
	flight   int           // bytes taken from the queue by the write under way
	writing  bool          // a goroutine is writing buf
	held     bool          // queue, write nothing (until Release)
	closed   bool
	err      error
	idle     chan struct{} // closed when the current writing ends; made by a Flush that waits for it
	now      nowWrite      // DrainNow's write, for the drain under way

	wake chan struct{} // wakes Run; capacity 1
	enc  Writer        // QueueCommand's encoder, reused under mu
}

// WriterOptions configure a PacketWriter. The zero value is usable.
type WriterOptions struct {
	// Timeout bounds a write that waits (Run's and Flush's); 0: none. A peer
	// that reads nothing for that long fails the writer.
	Timeout time.Duration
	// OnError is called once, with the first write error (not called after
	// Close). The writer writes nothing afterwards.
	OnError func(error)
	// OnWrite, if set, is called after each write, without the writer's
	// lock held (a proxy wakes senders waiting for room).
	OnWrite func()
	// Held makes the writer queue without writing until Release (a proxy
	// queues what must follow a handshake before it is done).
	Held bool
}

// nowLimit bounds DrainNow's write on a connection without a descriptor.
const nowLimit = 2 * time.Millisecond

// NewPacketWriter returns a writer for nc. Start Run on a goroutine of its
// own to finish what senders leave.
func NewPacketWriter(nc net.Conn, opts *WriterOptions) *PacketWriter {
	w := &PacketWriter{nc: nc, wake: make(chan struct{}, 1)}
	if opts != nil {
		w.opts = *opts
	}
	w.held = w.opts.Held
	if sc, ok := nc.(syscall.Conn); ok {
		w.raw, _ = sc.SyscallConn()
	}
	return w
}

// Queue appends a packet to the output; false when the writer is closed or
// failed. It does not write: call Drain, DrainNow or Kick.
func (w *PacketWriter) Queue(p *Packet) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.err != nil {
		return false
	}
	*w.tail() = p.AppendTo(*w.tail())
	return true
}

// tail is where a packet is queued: after the output, or aside while a
// packet in parts is unfinished. Called with mu held.
func (w *PacketWriter) tail() *[]byte {
	if w.partLeft > 0 {
		return &w.aside
	}
	return &w.buf
}

// BeginPart queues the header of a packet (hdr, whose Data is ignored) whose
// size data bytes follow in parts (AppendPart): a proxy passes a large
// reply on while the rest of it is still arriving. Until its last part,
// packets others queue wait aside and follow it, so the stream stays whole.
// false when the writer is closed or failed.
func (w *PacketWriter) BeginPart(hdr *Packet, size int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.err != nil || w.partLeft > 0 {
		return false
	}
	w.buf = appendHeader(w.buf, hdr, size)
	w.partLeft = size
	return true
}

// AppendPart queues the next part of the packet BeginPart began (copying
// it); with its last part, what was queued aside meanwhile follows.
func (w *PacketWriter) AppendPart(b []byte) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.err != nil {
		return false
	}
	if len(b) > w.partLeft {
		b = b[:w.partLeft]
	}
	if len(w.buf) == 0 && cap(w.spare) > cap(w.buf) {
		// The last write's buffer, done with: a large packet's parts
		// reuse it rather than grow a new one.
		w.buf, w.spare = w.spare[:0], nil
	}
	w.buf = append(w.buf, b...)
	w.partLeft -= len(b)
	if w.partLeft == 0 {
		w.buf = append(w.buf, w.aside...)
		w.aside = nil
		signal(&w.partDone)
	}
	return true
}

// SharedMin is the data size from which QueueShared queues a packet's data
// by reference.
const SharedMin = 16 << 10

// QueueShared is Queue for a packet whose data nobody modifies until it is
// written: data of SharedMin bytes or more is not copied but written from
// where it is (one copy less of a large reply a proxy forwards).
func (w *PacketWriter) QueueShared(p *Packet) bool {
	if len(p.Data) < SharedMin {
		return w.Queue(p)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.err != nil {
		return false
	}
	if w.partLeft > 0 {
		w.aside = p.AppendTo(w.aside)
		return true
	}
	w.buf = appendHeader(w.buf, p, len(p.Data))
	w.segs = append(w.segs, w.buf, p.Data)
	w.segLen += len(w.buf) + len(p.Data)
	w.buf = nil
	return true
}

// appendHeader appends p's header alone, with a length that counts size
// data bytes to follow (p's Data is not appended).
func appendHeader(b []byte, p *Packet, size int) []byte {
	h := *p
	h.Data = nil
	b = h.AppendTo(b)
	binary.BigEndian.PutUint32(b[len(b)-HeaderSize:], uint32(HeaderSize+size))
	return b
}

// queueCommand appends a command packet whose data enc encodes straight
// into the output (no buffer of its own, no copy). It does not write; it
// reports whether a write is under way that will take the packet with it
// (else the caller kicks). enc runs under the writer's lock: it must only
// encode.
func (w *PacketWriter) queueCommand(id uint32, cmd Cmd, sizes *IDSizes, enc func(*Writer)) (writing bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.err != nil {
		return true // nothing to write
	}
	dst := w.tail()
	start := len(*dst)
	b := append(*dst, 0, 0, 0, 0) // length, set below
	b = binary.BigEndian.AppendUint32(b, id)
	b = append(b, 0, cmd.Set, cmd.Cmd)
	if enc != nil {
		w.enc = Writer{Sizes: sizes, Buf: b}
		enc(&w.enc)
		b = w.enc.Buf
		w.enc = Writer{}
	}
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start))
	*dst = b
	// A drain under way checks for more under this lock before it ends.
	return w.writing
}

// QueueBytes appends raw bytes (a handshake) to the output.
func (w *PacketWriter) QueueBytes(b []byte) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.err != nil {
		return false
	}
	*w.tail() = append(*w.tail(), b...)
	return true
}

// Buffered is how many bytes are queued or in the write under way: what the
// writer holds for a peer that has not taken it yet (a bound on it bounds
// the memory a slow peer costs).
func (w *PacketWriter) Buffered() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.buf) + len(w.aside) + w.segLen + w.flight
}

// Kick wakes Run to write what is queued.
func (w *PacketWriter) Kick() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Release lets a writer created Held write, and wakes Run.
func (w *PacketWriter) Release() {
	w.mu.Lock()
	w.held = false
	w.mu.Unlock()
	w.Kick()
}

// Run writes what senders leave until done is closed.
func (w *PacketWriter) Run(done <-chan struct{}) {
	for {
		select {
		case <-w.wake:
			w.Drain(nil)
		case <-done:
			return
		}
	}
}

// Close stops the writer: what is queued is dropped and nothing more is
// written. It does not close the connection.
func (w *PacketWriter) Close() {
	w.mu.Lock()
	w.closed = true
	signal(&w.partDone)
	w.buf, w.spare, w.segs, w.segLen, w.aside, w.partLeft = nil, nil, nil, 0, nil, 0
	w.mu.Unlock()
}

// Drain writes the queued output until none is left, unless another
// goroutine is already doing so (it picks up what was queued). A sender that
// waits for an answer anyway drains on its own goroutine, which saves a
// goroutine hand-off per round trip.
//
// A sender passes its ctx (Run passes nil, and writes within the Timeout):
// if ctx ends while a write blocks (a peer that stopped reading), the write
// is cut short by a deadline, the unwritten rest goes back to the head of
// the queue and Run finishes it, so the sender returns with its context and
// the stream stays whole.
func (w *PacketWriter) Drain(ctx context.Context) {
	w.drain(ctx, false)
}

// DrainNow writes what the connection takes without waiting and leaves the
// rest to Run: for a goroutine that must not stall behind a slow peer (a
// proxy's reader of the VM connection). A connection without a descriptor
// (a pipe) gets a write bounded by a couple of milliseconds instead.
func (w *PacketWriter) DrainNow() {
	w.drain(nil, true)
}

// Flush writes everything queued, waiting for another goroutine's write to
// end, until ctx ends. It reports whether the output is all written.
func (w *PacketWriter) Flush(ctx context.Context) bool {
	for {
		w.mu.Lock()
		switch {
		case w.closed || w.err != nil || w.held:
			w.mu.Unlock()
			return false
		case w.empty() && !w.writing && w.partLeft > 0:
			// The rest of a packet in parts, and what waits aside, is
			// still to come.
			if !w.waitFor(ctx, &w.partDone) {
				return false
			}
		case w.empty() && !w.writing:
			w.mu.Unlock()
			return true
		case w.writing:
			if !w.waitFor(ctx, &w.idle) {
				return false
			}
		default:
			w.mu.Unlock()
			w.drain(ctx, false)
			if ctx.Err() != nil {
				return w.Buffered() == 0
			}
		}
	}
}

// WaitBuffered waits until at most n bytes are queued or in the write
// under way, writing them itself when no other goroutine does, until ctx
// ends; it reports whether the output got there. A proxy that passes a
// large packet on in parts (AppendPart) waits so between parts, for the
// peer to take what it holds: its memory is then bounded by n, not by the
// packet's size, as through a bare relay.
func (w *PacketWriter) WaitBuffered(ctx context.Context, n int) bool {
	for {
		w.mu.Lock()
		switch {
		case w.closed || w.err != nil || w.held:
			w.mu.Unlock()
			return false
		case len(w.buf)+len(w.aside)+w.segLen+w.flight <= n:
			w.mu.Unlock()
			return true
		case w.writing:
			if !w.waitFor(ctx, &w.idle) {
				return false
			}
		default:
			w.mu.Unlock()
			w.drain(ctx, false)
			if ctx.Err() != nil {
				return w.Buffered() <= n
			}
		}
	}
}

// waitFor releases mu, which the caller holds, and waits until *sig is
// closed (signal) or ctx ends; the first waiter makes *sig, so that a writer
// nobody waits for makes no channel.
func (w *PacketWriter) waitFor(ctx context.Context, sig *chan struct{}) bool {
	if *sig == nil {
		*sig = make(chan struct{})
	}
	ch := *sig
	w.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}

// signal wakes those waiting for *sig (waitFor), under mu.
func signal(sig *chan struct{}) {
	if *sig != nil {
		close(*sig)
		*sig = nil
	}
}

func (w *PacketWriter) drain(ctx context.Context, now bool) {
	w.mu.Lock()
	if w.writing || w.held {
		w.mu.Unlock()
		return
	}
	w.writing = true
	var stop func() bool
	var fired chan struct{}
	if ctx != nil && ctx.Done() != nil { // a context that can end (Background cannot)
		fired = make(chan struct{})
		stop = context.AfterFunc(ctx, func() {
			w.nc.SetWriteDeadline(time.Unix(1, 0))
			close(fired)
		})
	}
	var failed error
	for !w.empty() && !w.closed {
		buf, segs := w.buf, w.segs
		if len(segs) > 0 && len(buf) > 0 {
			segs = append(segs, buf)
		}
		// Hand the spare to senders and forget it, so no array is both being
		// written and appended to.
		w.buf, w.spare = w.spare[:0], nil
		w.flight = len(buf) + w.segLen
		w.segs, w.segLen = nil, 0
		w.mu.Unlock()
		n, err := w.send(buf, segs, ctx != nil, now)
		w.mu.Lock()
		w.flight = 0
		w.mu.Unlock()
		if err == nil && w.opts.OnWrite != nil {
			w.opts.OnWrite()
		}
		w.mu.Lock()
		if w.closed {
			break
		}
		cut := errors.Is(err, os.ErrDeadlineExceeded) && (stop != nil || now && w.raw == nil)
		if len(segs) > 0 {
			if cut || now && err == nil && n < lenAll(segs) {
				// Left for Run (or the next sender), ahead of what was
				// queued meanwhile.
				rest := dropFront(segs, n)
				w.segLen += lenAll(rest)
				w.segs = append(rest, w.segs...)
				defer w.Kick()
				break
			}
		} else if cut || now && err == nil && n < len(buf) {
			// Left for Run (or the next sender).
			w.buf = append(buf[n:], w.buf...)
			defer w.Kick()
			break
		}
		if err != nil {
			w.err = err
			w.buf, w.segs, w.segLen = nil, nil, 0
			failed = err
			break
		}
		if len(segs) == 0 && cap(buf) <= 1<<20 {
			w.spare = buf[:0]
		}
	}
	if stop != nil && !stop() {
		<-fired // the deadline is set: clear it before anyone writes again
		w.nc.SetWriteDeadline(time.Time{})
		defer w.Kick()
	}
	w.writing = false
	signal(&w.idle)
	w.mu.Unlock()
	if failed != nil && w.opts.OnError != nil {
		w.opts.OnError(failed)
	}
}

func (w *PacketWriter) empty() bool { return len(w.buf) == 0 && len(w.segs) == 0 }

func lenAll(segs [][]byte) int {
	n := 0
	for _, b := range segs {
		n += len(b)
	}
	return n
}

// dropFront returns segs without their first n bytes, in a new slice.
func dropFront(segs [][]byte, n int) [][]byte {
	for len(segs) > 0 && n >= len(segs[0]) {
		n -= len(segs[0])
		segs = segs[1:]
	}
	rest := make([][]byte, len(segs))
	copy(rest, segs)
	if len(rest) > 0 {
		rest[0] = rest[0][n:]
	}
	return rest
}

// send writes buf, or segs when there are several pieces (in one system
// call where it can: net.Buffers uses writev on sockets): without waiting
// (now) on a descriptor, else within a deadline armed only when one is
// needed (an armed socket timer costs a forwarded round trip about as much
// as the forwarding itself).
func (w *PacketWriter) send(buf []byte, segs [][]byte, hasCtx, now bool) (int, error) {
	if now && w.raw != nil {
		if len(segs) > 0 {
			return writevNow(w.raw, segs)
		}
		return w.now.write(w.raw, buf)
	}
	if w.armDeadline(hasCtx, now) {
		defer w.nc.SetWriteDeadline(time.Time{})
	}
	if len(segs) > 0 {
		bufs := net.Buffers(slices.Clone(segs)) // WriteTo consumes its slices
		n, err := bufs.WriteTo(w.nc)
		return int(n), err
	}
	return w.nc.Write(buf)
}

// armDeadline sets the write deadline a blocking write needs: a short one
// for a write that must not wait (now) on a connection without a
// descriptor, the writer's timeout when no context can cut the write. It
// reports whether it set one, to be cleared after the write.
func (w *PacketWriter) armDeadline(hasCtx, now bool) bool {
	switch {
	case now:
		w.nc.SetWriteDeadline(time.Now().Add(nowLimit))
	case !hasCtx && w.opts.Timeout > 0:
		w.nc.SetWriteDeadline(time.Now().Add(w.opts.Timeout))
	default:
		return false
	}
	return true
}

// writevNow writes as much of segs as the socket takes without waiting.
func writevNow(rc syscall.RawConn, segs [][]byte) (int, error) {
	const maxIov = 1024
	iov := make([]syscall.Iovec, 0, min(len(segs), maxIov))
	n := 0
	var werr error
	err := rc.Write(func(fd uintptr) bool {
		rest := segs
		for len(rest) > 0 {
			iov = iov[:0]
			want := 0
			for _, b := range rest {
				if len(iov) == maxIov {
					break
				}
				if len(b) == 0 {
					continue
				}
				v := syscall.Iovec{Base: &b[0]}
				v.SetLen(len(b))
				iov = append(iov, v)
				want += len(b)
			}
			if want == 0 {
				return true
			}
			m, _, e := syscall.Syscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)))
			runtime.KeepAlive(rest)
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
				return true // full: Run waits instead
			case e != 0:
				werr = e
				return true
			case int(m) <= 0:
				return true
			}
			n += int(m)
			rest = dropFront(rest, int(m))
		}
		return true
	})
	if werr != nil {
		return n, werr
	}
	return n, err
}

// nowWrite writes as much of a buffer as the socket takes without waiting.
// It is kept in the writer, and its step function made once, so that a
// write costs no allocation; only the drain under way uses it.
type nowWrite struct {
	buf  []byte
	n    int
	err  error
	step func(fd uintptr) bool
}

func (nw *nowWrite) write(rc syscall.RawConn, buf []byte) (int, error) {
	if nw.step == nil {
		nw.step = nw.writeFD
	}
	nw.buf, nw.n, nw.err = buf, 0, nil
	err := rc.Write(nw.step)
	n, werr := nw.n, nw.err
	nw.buf, nw.err = nil, nil
	if werr != nil {
		return n, werr
	}
	return n, err
}

func (nw *nowWrite) writeFD(fd uintptr) bool {
	for nw.n < len(nw.buf) {
		m, e := syscall.Write(int(fd), nw.buf[nw.n:])
		if m > 0 {
			nw.n += m
		}
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.EAGAIN:
			return true // full: Run waits instead
		case e != nil:
			nw.err = e
			return true
		case m <= 0:
			return true
		}
	}
	return true
}
