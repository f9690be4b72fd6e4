package jdwp

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// Trace selects what a connection logs at trace level, after the Harmony agent's
// CMD/PACK/DATA/EVENT trace kinds.
type Trace uint8

const (
	TraceCmd    Trace = 1 << iota // each command sent and its reply, with the round-trip time
	TracePacket                   // the header of every packet read or written
	TraceData                     // a hex dump of every packet's data
	TraceEvent                    // every decoded event
)

// Options configure a connection. The zero value is usable.
type Options struct {
	// Logger receives the connection's logs; the zero Logger discards them.
	Logger zerolog.Logger
	// Trace selects trace-level logging.
	Trace Trace
	// MaxPacketSize bounds the length field of packets read whole; 0 means
	// DefaultMaxPacketSize. A reply to Forward passed on in parts is not
	// bounded by it (nothing holds it whole), nor a VM-initiated command a
	// LargeCommandHandler takes in parts.
	MaxPacketSize int
	// MaxEventBacklog bounds the event sets a subscriber has not taken yet
	// (and the event packets waiting for the id sizes); 0 means
	// DefaultMaxEventBacklog. Their packets' data is bounded by
	// MaxEventBacklogBytes. Past either, the connection fails with
	// ErrEventBacklog: a VM that floods events, or stops reading while a
	// subscriber waits on it, cannot make the process hold them all.
	MaxEventBacklog int
	// HandshakeTimeout bounds the JDWP handshake; 0 means 10 seconds.
	HandshakeTimeout time.Duration
	// RequestTimeout, if non-zero, bounds every call whose context has no earlier deadline.
	RequestTimeout time.Duration
	// IDSizes, if set, are used instead of asking the VM (VirtualMachine.IDSizes).
	IDSizes *IDSizes
	// Preload sends Preload's commands (IDSizes, Version, CapabilitiesNew)
	// in the handshake's write, before the VM's answer to it: one round
	// trip less to a VM over a slow link. Every known transport reads the
	// 14 handshake bytes alone and leaves what follows for its packet
	// reader: HotSpot's dt_socket, ART's adbconnection and dt_fd_forward
	// (Android 9 and later), the JDWP of ART before them and of Dalvik. The
	// three commands are ones every agent implements.
	Preload bool
}

// ErrClosed is returned by calls on a connection closed by Close.
var ErrClosed = errors.New("jdwp: connection closed")

// ConnError is the error pending and later calls fail with once the connection is gone.
type ConnError struct {
	Addr  string
	Cause error
}

func (e *ConnError) Error() string {
	if errors.Is(e.Cause, io.EOF) {
		return fmt.Sprintf("jdwp connection to %s lost: the VM closed the connection (did it exit?)", e.Addr)
	}
	return fmt.Sprintf("jdwp connection to %s lost: %v", e.Addr, e.Cause)
}

func (e *ConnError) Unwrap() error { return e.Cause }

// CommandHandler handles a VM-initiated command packet of a command set other than
// Event (64), for example a DDM chunk (set 0xC7). It runs on the reader goroutine:
// it must not block, and must not wait for replies on the same connection. It may
// answer with Conn.Reply(p.ID, ...).
type CommandHandler func(c *Conn, p *Packet)

// Conn is one JDWP connection to a VM, seen from the debugger side. A single reader
// goroutine routes replies to their callers by id, events to subscribers and other
// VM-initiated commands to handlers; a single writer goroutine coalesces outgoing
// packets, so many calls may be in flight at once. All methods are safe for
// concurrent use.
type Conn struct {
	nc   net.Conn
	addr string
	opts Options
	log  zerolog.Logger

	nextID atomic.Uint32

	mu         sync.Mutex
	pending    map[uint32]*Call
	handlers   map[byte]CommandHandler
	large      map[byte]LargeCommandHandler // HandleLargeCommands
	subs       []*Subscription
	evq        []*Packet   // event packets waiting for id sizes
	early      []*EventSet // event sets that arrived before the first subscription
	subscribed bool        // Subscribe was called at least once
	err        error       // set once, when the connection is gone

	out  *PacketWriter // commands and replies to the VM
	done chan struct{} // closed when the connection is gone

	sizesOnce sync.Mutex
	sizes     atomic.Pointer[IDSizes]
	caps      atomic.Pointer[Capabilities]
	version   atomic.Pointer[VersionInfo]
	disposed  atomic.Bool // set by Dispose: the VM closing the connection is then expected
	readIdle  atomic.Pointer[func()]
	vendorOK  atomic.Bool  // AllowVendorCommands: the VM was identified as speaking vendor sets
	rtt       atomic.Int64 // RoundTrip's estimate, in nanoseconds (0: no reply yet)
	// pre are Preload's calls sent with the handshake (Options.Preload),
	// set before the reader starts and never after.
	pre     []*Call
	preRead atomic.Bool // Preload has read pre's answers
}

// Dial connects to a VM listening at addr (host:port) and performs the handshake.
func Dial(ctx context.Context, addr string, opts *Options) (*Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("attach %s: %w — is the VM started with -agentlib:jdwp=transport=dt_socket,server=y,address=%s?", addr, err, addr)
		}
		return nil, fmt.Errorf("attach %s: %w", addr, err)
	}
	c, err := Handshake(ctx, nc, opts)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("attach %s: %w", addr, err)
	}
	return c, nil
}

// Accept waits on ln for a VM that attaches to the debugger (a VM started with
// -agentlib:jdwp=...,server=n,address=HOST:PORT) and performs the handshake.
func Accept(ctx context.Context, ln net.Listener, opts *Options) (*Conn, error) {
	nc, err := AcceptConn(ctx, ln)
	if err != nil {
		return nil, err
	}
	c, err := Handshake(ctx, nc, opts)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("VM from %s: %w", nc.RemoteAddr(), err)
	}
	return c, nil
}

// AcceptConn waits for one connection on ln until ctx ends, without the
// handshake (a caller may hand the connection on). A connection that
// arrives after ctx ended is closed.
func AcceptConn(ctx context.Context, ln net.Listener) (net.Conn, error) {
	type res struct {
		nc  net.Conn
		err error
	}
	ch := make(chan res, 1)
	go func() { nc, err := ln.Accept(); ch <- res{nc, err} }()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("listen %s: %w", ln.Addr(), r.err)
		}
		return r.nc, nil
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.nc != nil {
				r.nc.Close()
			}
		}()
		return nil, fmt.Errorf("listen %s: no VM attached: %w", ln.Addr(), ctx.Err())
	}
}

// Handshake performs the debugger side of the JDWP handshake on nc (write
// "JDWP-Handshake", expect it echoed) within the handshake timeout and returns the
// connection. On failure nc is left open for the caller to close.
func Handshake(ctx context.Context, nc net.Conn, opts *Options) (*Conn, error) {
	o := optionsOrZero(opts)
	deadline := time.Now().Add(o.HandshakeTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	nc.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	c := newConn(nc, o)
	out := []byte(HandshakeString)
	if o.Preload {
		out = c.queuePreload(out)
	}
	if _, err := nc.Write(out); err != nil {
		return nil, fmt.Errorf("handshake: %w", err)
	}
	buf := make([]byte, len(HandshakeString))
	if n, err := io.ReadFull(nc, buf); err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("handshake: %w", ctx.Err())
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("handshake: peer closed the connection after %d of %d bytes (another debugger attached already?)", n, len(HandshakeString))
		}
		return nil, fmt.Errorf("handshake: %w", err)
	}
	if string(buf) != HandshakeString {
		return nil, fmt.Errorf("handshake: peer answered %q, not %q — not a JDWP VM", buf, HandshakeString)
	}
	if !stop() {
		return nil, fmt.Errorf("handshake: %w", ctx.Err())
	}
	nc.SetDeadline(time.Time{})
	c.run()
	return c, nil
}

// queuePreload books Preload's commands as pending calls of c (whose
// reader has not started) and appends their packets to out.
func (c *Conn) queuePreload(out []byte) []byte {
	for _, cmd := range preloadCmds {
		call := &Call{Cmd: cmd, ID: c.NewID(), ch: make(chan struct{}), sent: time.Now()}
		c.pending[call.ID] = call
		c.pre = append(c.pre, call)
		p := Packet{ID: call.ID, CmdSet: cmd.Set, Cmd: cmd.Cmd}
		c.traceOut(&p)
		out = p.AppendTo(out)
	}
	return out
}

// NewConn wraps nc, whose handshake is already done, and starts its reader and writer.
func NewConn(nc net.Conn, opts *Options) *Conn {
	c := newConn(nc, optionsOrZero(opts))
	c.run()
	return c
}

// newConn wraps nc without starting the reader and the writer (run).
func newConn(nc net.Conn, o Options) *Conn {
	c := &Conn{
		nc:       nc,
		addr:     nc.RemoteAddr().String(),
		opts:     o,
		log:      o.Logger,
		pending:  map[uint32]*Call{},
		handlers: map[byte]CommandHandler{},
		done:     make(chan struct{}),
	}
	c.out = NewPacketWriter(nc, &WriterOptions{OnError: func(err error) { c.fail(fmt.Errorf("write: %w", err)) }})
	if o.IDSizes != nil {
		s := *o.IDSizes
		c.sizes.Store(&s)
	}
	return c
}

// run starts the reader and the writer.
func (c *Conn) run() {
	go c.readLoop()
	go c.out.Run(c.done)
}

func optionsOrZero(opts *Options) Options {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = 10 * time.Second
	}
	if o.MaxPacketSize <= 0 {
		o.MaxPacketSize = DefaultMaxPacketSize
	}
	if o.MaxEventBacklog <= 0 {
		o.MaxEventBacklog = DefaultMaxEventBacklog
	}
	return o
}

// Addr is the VM's address.
func (c *Conn) Addr() string { return c.addr }

// Done is closed when the connection is gone.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection is gone, or nil while it is up.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection. Pending calls fail with ErrClosed. It does not send
// VirtualMachine.Dispose: call Dispose first to leave the VM running cleanly.
func (c *Conn) Close() error {
	c.fail(ErrClosed)
	return nil
}

// fail records the first cause, closes the socket and fails every pending call.
func (c *Conn) fail(cause error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	if cause == ErrClosed {
		c.err = ErrClosed
	} else {
		c.err = &ConnError{Addr: c.addr, Cause: cause}
	}
	pending := c.pending
	c.pending = nil
	subs := c.subs
	c.subs = nil
	err := c.err
	c.mu.Unlock()
	c.out.Close()
	c.nc.Close()
	close(c.done)
	for _, call := range pending {
		call.finish(nil, err)
	}
	for _, s := range subs {
		s.close()
	}
	if cause != ErrClosed {
		c.log.Debug().Err(cause).Str("addr", c.addr).Msg("connection lost")
	}
}

// Call is a command in flight.
type Call struct {
	ID    uint32
	Cmd   Cmd
	sent  time.Time
	ch    chan struct{}
	reply *Packet
	err   error
	done  func(*Call) // StartFunc's callback
	recv  Receiver    // Forward's receiver
	// late takes the reply that comes after its caller gave up (set, under
	// the connection's lock, only while the call is pending).
	late func(*Packet)
}

func (call *Call) finish(p *Packet, err error) {
	call.reply, call.err = p, err
	close(call.ch)
	switch {
	case call.late != nil:
		call.late(p)
	case call.done != nil:
		call.done(call)
	case call.recv != nil:
		call.recv.Finished(call)
	}
}

// Done is closed when the reply arrived or the call failed.
func (call *Call) Done() <-chan struct{} { return call.ch }

// Wait waits for the reply and returns its data. A JDWP error reply is returned as
// a *CommandError.
func (call *Call) Wait(ctx context.Context) ([]byte, error) {
	select {
	case <-call.ch:
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", call.Cmd, ctx.Err())
	}
	if call.err != nil {
		return nil, fmt.Errorf("%s: %w", call.Cmd, call.err)
	}
	if call.reply.Error != ErrNone {
		return nil, &CommandError{Command: call.Cmd.String(), Code: call.reply.Error}
	}
	return call.reply.Data, nil
}

// Reply returns the raw reply packet once Done is closed (nil if the call failed).
func (call *Call) Reply() *Packet { return call.reply }

// Start sends a command without waiting for its reply.
func (c *Conn) Start(cmd Cmd, data []byte) (*Call, error) { return c.start(nil, cmd, data) }

// StartFunc is Start for proxies: done is called with the finished call on
// the goroutine that finishes it (the reader's, or the one that saw the
// connection fail), so it must not block. With a non-nil ctx the calling
// goroutine writes the packet itself, like Command.
func (c *Conn) StartFunc(ctx context.Context, cmd Cmd, data []byte, done func(*Call)) (*Call, error) {
	return c.startFunc(ctx, cmd, data, done, false)
}

// QueueFunc is StartFunc that only queues the command: it goes out with the
// next write on the connection (Flush, or any call that writes). A proxy
// queues a burst of commands this way and writes them at once.
func (c *Conn) QueueFunc(cmd Cmd, data []byte, done func(*Call)) (*Call, error) {
	return c.startFunc(nil, cmd, data, done, true)
}

// StreamMin is the data size from which a forwarded command's reply goes
// to its Receiver in parts, as it arrives.
const StreamMin = 4 << 10

// A Receiver takes the reply of a command a proxy forwards (Forward).
type Receiver interface {
	// ReplyPart is given a reply of StreamMin data bytes or more part by
	// part as it arrives, on the connection's reader goroutine, so that a
	// proxy passes the first part on while the VM still sends the rest (a
	// reply forwarded whole waits for its last byte: a bare relay does
	// not). hdr is the reply's header (no Data), size the length of its
	// data and off the part's offset in it; part is valid only during the
	// call. It must not block.
	ReplyPart(hdr *Packet, size, off int, part []byte)
	// Finished is called once, like StartFunc's done, when the call
	// finished or failed; the reply's Data is nil if it came in parts. A
	// call that fails in the middle of a reply in parts had ReplyPart
	// called for some of it.
	Finished(*Call)
}

// Forward sends a command for a proxy: its reply goes to rcv, in parts if
// it is large. With a non-nil ctx the calling goroutine writes the command
// (like StartFunc); with a nil ctx it is only queued (like QueueFunc).
func (c *Conn) Forward(ctx context.Context, cmd Cmd, data []byte, rcv Receiver) (*Call, error) {
	return c.send(ctx, &Call{Cmd: cmd, recv: rcv}, data, ctx == nil)
}

// Flush writes what is queued on the calling goroutine, until ctx ends (see
// PacketWriter.Drain).
func (c *Conn) Flush(ctx context.Context) { c.out.Drain(ctx) }

// start queues a command; with a non-nil ctx the calling goroutine writes it,
// until ctx ends (see PacketWriter.Drain).
func (c *Conn) start(ctx context.Context, cmd Cmd, data []byte) (*Call, error) {
	return c.startFunc(ctx, cmd, data, nil, false)
}

func (c *Conn) startFunc(ctx context.Context, cmd Cmd, data []byte, done func(*Call), queueOnly bool) (*Call, error) {
	return c.send(ctx, &Call{Cmd: cmd, done: done}, data, queueOnly)
}

// send queues call's command and writes it (see start).
func (c *Conn) send(ctx context.Context, call *Call, data []byte, queueOnly bool) (*Call, error) {
	cmd := call.Cmd
	if err := c.checkCmd(cmd); err != nil {
		return nil, err
	}
	call.ch = make(chan struct{})
	call.ID = c.NewID()
	p := Packet{ID: call.ID, CmdSet: cmd.Set, Cmd: cmd.Cmd, Data: data}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	c.pending[call.ID] = call
	call.sent = time.Now()
	c.mu.Unlock()
	c.out.Queue(&p) // after fail, dropped: the call is failed already
	c.traceOut(&p)
	switch {
	case queueOnly:
	case ctx != nil:
		c.out.Drain(ctx)
	default:
		c.out.Kick()
	}
	return call, nil
}

// startCall sends cmd for call (whose fields it sets), its data encoded by
// enc straight into the writer's output. The writer goroutine is woken only
// when no write is under way: during a burst the write in progress takes
// each command queued meanwhile with it, so the burst goes out in a few
// large writes.
func (c *Conn) startCall(call *Call, cmd Cmd, sizes *IDSizes, enc func(*Writer)) error {
	if err := c.checkCmd(cmd); err != nil {
		return err
	}
	call.Cmd, call.ch, call.ID = cmd, make(chan struct{}), c.NewID()
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", cmd, err)
	}
	c.pending[call.ID] = call
	call.sent = time.Now()
	c.mu.Unlock()
	if c.opts.Trace&(TracePacket|TraceData) != 0 {
		// Traced packets are logged whole: encode on the side.
		w := Writer{Sizes: sizes}
		if enc != nil {
			enc(&w)
		}
		p := Packet{ID: call.ID, CmdSet: cmd.Set, Cmd: cmd.Cmd, Data: w.Buf}
		c.out.Queue(&p)
		c.traceOut(&p)
		c.out.Kick()
		return nil
	}
	// After fail, nothing is queued: the call is failed already.
	if !c.out.queueCommand(call.ID, cmd, sizes, enc) {
		c.out.Kick()
	}
	return nil
}

// Command sends a command and waits for the reply data. The context bounds the
// wait; on cancellation the late reply is discarded when it arrives.
func (c *Conn) Command(ctx context.Context, set, cmd byte, data []byte) ([]byte, error) {
	return c.command(ctx, Cmd{set, cmd}, data)
}

func (c *Conn) command(ctx context.Context, cmd Cmd, data []byte) ([]byte, error) {
	return c.commandLate(ctx, cmd, data, nil)
}

// commandLate is command whose reply, if it comes after ctx ended, goes to
// late (run on the reader goroutine: it must not block) instead of being
// discarded; late gets nil if the connection fails first.
func (c *Conn) commandLate(ctx context.Context, cmd Cmd, data []byte, late func(*Packet)) ([]byte, error) {
	if c.opts.RequestTimeout > 0 {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, c.opts.RequestTimeout)
			defer cancel()
		}
	}
	call, err := c.start(ctx, cmd, data)
	if err != nil {
		return nil, err
	}
	if f, ok := ctx.Value(queuedKey{}).(func()); ok {
		f()
	}
	b, err := call.Wait(ctx)
	if err != nil && ctx.Err() != nil {
		if late == nil {
			c.forget(call.ID)
			return b, err
		}
		c.mu.Lock()
		_, pending := c.pending[call.ID]
		if pending {
			call.late = late // the reader takes the call under this lock: it sees late
		}
		c.mu.Unlock()
		if !pending { // the reply is being handed over: finish closes ch, then it is ours
			<-call.ch
			late(call.reply)
		}
	}
	return b, err
}

type queuedKey struct{}

// WithQueued returns a context whose command, sent with Conn.Command or any
// of the typed calls, runs f once it is queued on the connection, before
// its reply is awaited: every command sent after f runs reaches the VM
// after it. An owner of suspension uses it to hold back a resume until an
// invocation command is on its way.
func WithQueued(ctx context.Context, f func()) context.Context {
	if f == nil {
		return ctx
	}
	return context.WithValue(ctx, queuedKey{}, f)
}

// Forget drops a started call whose reply is no longer wanted (its caller
// gave up waiting): a late reply is then discarded.
func (c *Conn) Forget(call *Call) { c.forget(call.ID) }

func (c *Conn) forget(id uint32) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// NewID returns a fresh packet id for a command sent on this connection.
func (c *Conn) NewID() uint32 { return c.nextID.Add(1) }

// Reply answers a VM-initiated command packet.
func (c *Conn) Reply(id uint32, code ErrorCode, data []byte) error {
	return c.Send(&Packet{ID: id, Flags: FlagReply, Error: code, Data: data})
}

// Send writes a raw packet. Replies to it, if any, are not routed to the caller:
// use Start or Command for commands that expect a reply.
func (c *Conn) Send(p *Packet) error {
	if p.Flags&FlagReply == 0 {
		if err := c.checkCmd(Cmd{p.CmdSet, p.Cmd}); err != nil {
			return err
		}
	}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.mu.Unlock()
	c.out.Queue(p)
	c.traceOut(p)
	c.out.Kick()
	return nil
}

// AllowVendorCommands lets the connection send command sets and commands
// outside the standard ranges (set or command byte 0x80 and up, command 0),
// such as DDM's set 0xC7. Call it only once the VM has shown it speaks them:
// by what it says about itself (VirtualMachine.Version; see
// VersionInfo.Android) or by where it came from (an adb device's VMs are
// ART). Until then such commands fail with ErrVendorCommand and nothing is
// sent: HotSpot's agent reads before its command table for any byte of 0x80
// and up (JDK-8382537) and crashes, 17.0.21 included.
func (c *Conn) AllowVendorCommands() { c.vendorOK.Store(true) }

// VendorCommandsAllowed reports whether AllowVendorCommands was called.
func (c *Conn) VendorCommandsAllowed() bool { return c.vendorOK.Load() }

// checkCmd refuses a vendor command to a VM not known to speak it.
func (c *Conn) checkCmd(cmd Cmd) error {
	if cmd.Standard() || c.vendorOK.Load() {
		return nil
	}
	return &VendorCommandError{Cmd: cmd, Addr: c.addr}
}

// OnReadIdle sets f to run on the reader goroutine whenever it has handled
// every packet it read and is about to wait for more. A proxy that queues
// the replies of a burst (StartFunc's callbacks) writes them then, in one
// write and without a goroutine hand-off. f must not block.
func (c *Conn) OnReadIdle(f func()) { c.readIdle.Store(&f) }

// HandleCommandSet registers h for VM-initiated commands of set (any set but Event).
// Commands of a set with no handler are answered NOT_IMPLEMENTED and logged, so
// the VM never waits for a reply that cannot come.
func (c *Conn) HandleCommandSet(set byte, h CommandHandler) {
	c.mu.Lock()
	c.handlers[set] = h
	c.mu.Unlock()
}

func (c *Conn) readLoop() {
	r := bufio.NewReaderSize(c.nc, 64<<10)
	for {
		if r.Buffered() == 0 {
			if f := c.readIdle.Load(); f != nil {
				(*f)()
			}
		}
		p, err := c.readPacket(r)
		if p == nil && err == nil {
			continue // a reply or command passed on in parts
		}
		if err != nil {
			if errors.Is(err, net.ErrClosed) && c.Err() != nil {
				return
			}
			if c.disposed.Load() {
				c.fail(ErrClosed)
				return
			}
			c.fail(err)
			return
		}
		c.traceIn(p)
		if p.IsReply() {
			c.mu.Lock()
			call := c.pending[p.ID]
			delete(c.pending, p.ID)
			c.mu.Unlock()
			if call == nil {
				c.log.Debug().Uint32("id", p.ID).Msg("reply to no pending command (cancelled?), dropped")
				continue
			}
			c.traceReply(call, p, len(p.Data))
			c.noteRoundTrip(call.sent)
			call.finish(p, nil)
			continue
		}
		if p.CmdSet == SetEvent && p.Cmd == 100 {
			c.dispatchEvents(p)
			continue
		}
		c.mu.Lock()
		h := c.handlers[p.CmdSet]
		c.mu.Unlock()
		if h != nil {
			h(c, p)
			continue
		}
		c.log.Warn().Str("cmd", CommandName(p.CmdSet, p.Cmd)).Uint32("id", p.ID).Int("len", len(p.Data)).
			Msg("VM sent a command nobody handles; answering NOT_IMPLEMENTED")
		c.Reply(p.ID, ErrNotImplemented, nil)
	}
}

// RoundTrip is the link's round-trip time as the replies show it: a low
// estimate (it follows a faster reply at once and a slower one slowly, so
// a reply that queued behind a burst, or behind a VM busy with a slow
// command, says little); 0 before any reply. Over loopback it is tens of
// microseconds; over adb and a device farm, milliseconds: what a client
// prefetches may depend on it.
func (c *Conn) RoundTrip() time.Duration { return time.Duration(c.rtt.Load()) }

// noteRoundTrip folds a reply to a command sent at sent into RoundTrip.
func (c *Conn) noteRoundTrip(sent time.Time) {
	if sent.IsZero() {
		return
	}
	d := int64(time.Since(sent))
	for {
		old := c.rtt.Load()
		est := d
		if old > 0 && d > old {
			est = old + (d-old)/32
		}
		if c.rtt.CompareAndSwap(old, est) {
			return
		}
	}
}

// readPacket reads the next packet; a large reply to a Forward call goes to
// its receiver as it arrives instead (nil packet, nil error), and so does a
// large VM-initiated command a LargeCommandHandler takes.
//
// MaxPacketSize bounds every packet read whole; a reply passed on in parts
// has no bound but JDWP's own (a signed 32-bit length), since it is never
// held whole: a proxy forwards any size the VM sends.
func (c *Conn) readPacket(r *bufio.Reader) (*Packet, error) {
	p, n, err := readHeaderBuffered(r, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	if p.IsReply() && n >= StreamMin {
		c.mu.Lock()
		call := c.pending[p.ID]
		if call != nil && call.recv != nil {
			delete(c.pending, p.ID)
		} else {
			call = nil
		}
		c.mu.Unlock()
		if call != nil {
			return nil, c.passOn(r, call, &p, n)
		}
	}
	if !p.IsReply() && n >= StreamMin {
		if handled, err := c.commandInParts(r, &p, n); handled {
			return nil, err
		}
	}
	if HeaderSize+n > c.opts.MaxPacketSize {
		return nil, fmt.Errorf("%w: length field %d > %d (%s)", ErrPacketTooLarge, HeaderSize+n, c.opts.MaxPacketSize, &p)
	}
	if err := readData(r, &p, n); err != nil {
		return nil, err
	}
	return &p, nil
}

// passOn hands a reply of n data bytes to call's receiver part by part, as
// the parts arrive, and finishes the call.
func (c *Conn) passOn(r *bufio.Reader, call *Call, p *Packet, n int) error {
	c.tracePacket("in", p, n)
	for off := 0; off < n; {
		if r.Buffered() == 0 {
			if f := c.readIdle.Load(); f != nil {
				(*f)() // what others queued goes out before this goroutine waits
			}
			if _, err := r.Peek(1); err != nil {
				err = truncated(p, n, err)
				c.fail(err)
				call.finish(nil, c.Err())
				return err
			}
		}
		part, _ := r.Peek(min(n-off, r.Buffered()))
		call.recv.ReplyPart(p, n, off, part)
		r.Discard(len(part))
		off += len(part)
	}
	c.traceReply(call, p, n)
	call.finish(p, nil)
	return nil
}

// traceReply logs a command's reply of n data bytes with its round trip.
func (c *Conn) traceReply(call *Call, p *Packet, n int) {
	if c.opts.Trace&TraceCmd != 0 {
		c.log.Trace().Str("kind", "cmd").Str("cmd", call.Cmd.String()).Uint32("id", p.ID).
			Stringer("err", p.Error).Dur("rtt", time.Since(call.sent)).Int("len", n).Msg("reply")
	}
}

func (c *Conn) traceOut(p *Packet) { c.tracePacket("out", p, len(p.Data)) }
func (c *Conn) traceIn(p *Packet)  { c.tracePacket("in", p, len(p.Data)) }

// tracePacket logs a packet of n data bytes: its Data, or none yet for a
// reply passed on in parts.
func (c *Conn) tracePacket(dir string, p *Packet, n int) {
	if c.opts.Trace&(TracePacket|TraceData) == 0 {
		return
	}
	e := c.log.Trace().Str("kind", "packet").Str("dir", dir).Uint32("id", p.ID)
	if p.IsReply() {
		e = e.Bool("reply", true).Stringer("err", p.Error)
	} else {
		e = e.Str("cmd", CommandName(p.CmdSet, p.Cmd))
	}
	e = e.Int("len", n)
	if len(p.Data) < n {
		e = e.Bool("inParts", true)
	}
	if c.opts.Trace&TraceData != 0 {
		d := p.Data
		if len(d) > 4096 {
			d = d[:4096]
		}
		e = e.Str("data", hex.EncodeToString(d))
	}
	e.Msg("packet")
}

// IDSizes returns the VM's id sizes, asking the VM once (VirtualMachine.IDSizes).
func (c *Conn) IDSizes(ctx context.Context) (IDSizes, error) {
	if s := c.sizes.Load(); s != nil {
		return *s, nil
	}
	if c.awaitPreload(ctx); c.sizes.Load() != nil {
		return *c.sizes.Load(), nil
	}
	c.sizesOnce.Lock()
	defer c.sizesOnce.Unlock()
	if s := c.sizes.Load(); s != nil {
		return *s, nil
	}
	b, err := c.command(ctx, CmdVMIDSizes, nil)
	if err != nil {
		return IDSizes{}, err
	}
	s, err := DecodeIDSizes(b)
	if err != nil {
		return IDSizes{}, err
	}
	c.sizes.Store(&s)
	return s, nil
}

// awaitPreload waits for the answers of the Preload sent with the
// handshake, if it was (Options.Preload), rather than asking again.
func (c *Conn) awaitPreload(ctx context.Context) {
	if c.pre != nil && !c.preRead.Load() {
		c.Preload(ctx) // an error is the caller's to meet when it asks itself
	}
}

// DecodeIDSizes reads a VirtualMachine.IDSizes reply (as a proxy sees it
// pass) and checks the sizes are usable.
func DecodeIDSizes(reply []byte) (IDSizes, error) {
	r := NewReader(reply, nil)
	s := IDSizes{FieldID: int(r.Int32()), MethodID: int(r.Int32()), ObjectID: int(r.Int32()), ReferenceTypeID: int(r.Int32()), FrameID: int(r.Int32())}
	if err := r.Err(); err != nil {
		return IDSizes{}, fmt.Errorf("VirtualMachine.IDSizes: %w", err)
	}
	if err := s.Validate(); err != nil {
		return IDSizes{}, fmt.Errorf("VirtualMachine.IDSizes: %w", err)
	}
	return s, nil
}

// SetIDSizes sets the id sizes without asking the VM (for example from a reply seen
// by a proxy).
func (c *Conn) SetIDSizes(s IDSizes) error {
	if err := s.Validate(); err != nil {
		return err
	}
	c.sizes.Store(&s)
	return nil
}

// sized returns the id sizes for encoding, fetching them if needed.
func (c *Conn) sized(ctx context.Context) (*IDSizes, error) {
	if s := c.sizes.Load(); s != nil {
		return s, nil
	}
	// The caller's WithQueued callback is its own command's, not this one's.
	if _, err := c.IDSizes(context.WithValue(ctx, queuedKey{}, nil)); err != nil {
		return nil, err
	}
	return c.sizes.Load(), nil
}

// do runs one typed command: enc writes the command data (may be nil), dec reads
// the reply (may be nil). Decoding errors name the command.
func (c *Conn) do(ctx context.Context, cmd Cmd, enc func(*Writer), dec func(*Reader)) error {
	return c.doLate(ctx, cmd, enc, dec, nil)
}

// doObjects is do for a command whose reply is a list of tagged objects
// (read by dec with readTaggedObjects): the agent counts every id it sends
// as held by the debugger until VirtualMachine.DisposeObjects, so a reply
// that comes after its caller gave up has its ids given back, never left
// held. HotSpot's agent walks every held id at each VM-wide suspend and
// resume: ids nobody can dispose (their reply was dropped) kept each step
// slower for the rest of the session (issue 42.6).
func (c *Conn) doObjects(ctx context.Context, cmd Cmd, enc func(*Writer), dec func(*Reader)) error {
	return c.doLate(ctx, cmd, enc, dec, func(s *IDSizes, p *Packet) {
		if p == nil || p.Error != ErrNone {
			return
		}
		r := Reader{Sizes: s, b: p.Data}
		objs := readTaggedObjects(&r)
		if r.err != nil || len(objs) == 0 {
			return
		}
		refs := make([]ObjectRefCount, len(objs))
		for i, o := range objs {
			refs[i] = ObjectRefCount{Object: o.ID, Count: 1}
		}
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := c.DisposeObjects(ctx, refs); err != nil {
				c.log.Debug().Err(err).Str("cmd", cmd.String()).Int("objects", len(refs)).Msg("give back the ids of a reply that came after its caller gave up")
			}
		}()
	})
}

// doLate is do whose reply, if it comes after ctx ended, goes to late
// (with the id sizes it is read with).
func (c *Conn) doLate(ctx context.Context, cmd Cmd, enc func(*Writer), dec func(*Reader), late func(*IDSizes, *Packet)) error {
	s, err := c.sized(ctx)
	if err != nil {
		return err
	}
	var data []byte
	if enc != nil {
		w := Writer{Sizes: s}
		enc(&w)
		data = w.Buf
	}
	var lateReply func(*Packet)
	if late != nil {
		lateReply = func(p *Packet) { late(s, p) }
	}
	b, err := c.commandLate(ctx, cmd, data, lateReply)
	if err != nil {
		return err
	}
	if dec != nil {
		r := Reader{Sizes: s, b: b}
		dec(&r)
		if r.err != nil {
			return fmt.Errorf("%s: bad reply: %w", cmd, r.err)
		}
	}
	return nil
}
