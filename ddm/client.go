package ddm

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/rs/zerolog"
)

// Transport is the part of a JDWP connection a [Client] needs: send a command
// and wait for its reply's data. The connection pairs replies with commands by
// JDWP id; a JDWP error reply comes back as an error whose type is an unsigned
// integer code (jdwp.ErrorCode). A *jdwp.Conn satisfies it; VM-initiated 0xC7
// command packets reach the client through [Client.HandlePacket], e.g.
//
//	conn.HandleCommandSet(ddm.CommandSet, func(_ *jdwp.Conn, p *jdwp.Packet) { client.HandlePacket(p.ID, p.Cmd, p.Data) })
//
// which is what [Attach] does.
type Transport interface {
	Command(ctx context.Context, set, cmd byte, data []byte) ([]byte, error)
}

// queuer is a transport that queues a command on the caller's goroutine
// (a *jdwp.Conn): requests then reach the VM in the order Send was called,
// which matters to the VM ("report heap segments", then "GC").
type queuer interface {
	Start(cmd jdwp.Cmd, data []byte) (*jdwp.Call, error)
	Forget(call *jdwp.Call)
}

// Handler receives chunks from a VM. isReply is true for chunks that came in a
// reply to one of this client's requests, and msgID is then the client's
// request number (see [Request.ID]); for unsolicited chunks msgID is the JDWP
// id of the VM's packet. Handlers may run concurrently with each other.
type Handler interface {
	HandleChunk(c *Client, t Type, data []byte, isReply bool, msgID uint32)
}

// HandlerFunc adapts a function to [Handler].
type HandlerFunc func(c *Client, t Type, data []byte, isReply bool, msgID uint32)

// HandleChunk calls f.
func (f HandlerFunc) HandleChunk(c *Client, t Type, data []byte, isReply bool, msgID uint32) {
	f(c, t, data, isReply, msgID)
}

// ConnectionListener is told when the DDM session starts and ends.
type ConnectionListener interface {
	Connected(c *Client)
	Disconnected(c *Client)
}

// Options configures a [Client].
type Options struct {
	Logger      zerolog.Logger // component "ddm" is added
	TraceChunks bool           // log every chunk at trace level, kind "ddm.chunk"
	TraceData   bool           // hex-dump every chunk at trace level, kind "ddm.data"

	// Timeout bounds the wait for each reply; 0 means 5 s (ddmlib's default).
	// A reply may be empty, late or never come: the request then completes
	// with ErrTimeout and the id is forgotten.
	Timeout time.Duration
	// MaxInflated bounds ZLIB chunks; 0 means DefaultMaxInflated.
	MaxInflated int
	// ThreadUpdates and HeapUpdates are what the client asks for once the VM
	// is ready, like ddmlib's preferences: THEN(1), and HPIF(3) instead of HPIF(0).
	ThreadUpdates bool
	HeapUpdates   bool
}

// Errors from requests.
var (
	ErrTimeout = errors.New("ddm: no reply before the deadline (the VM may not answer this request)")
	ErrClosed  = errors.New("ddm: client closed")
	ErrNotDDM  = errors.New("ddm: the VM rejected HELO with a JDWP error: it does not speak DDM")
)

// Reply is the outcome of a request.
type Reply struct {
	Chunks []Chunk // the reply's chunks; none for an empty reply
	Msg    Message // the first chunk decoded, or nil
	Err    error   // *FailError, ErrTimeout, ErrClosed, a JDWP error or a decode error
}

// Request is an outstanding request.
type Request struct {
	ID   uint32 // the client's request number, passed to handlers as msgID
	Type Type
	done chan struct{}
	rep  Reply
}

// Done is closed when the request completes.
func (r *Request) Done() <-chan struct{} { return r.done }

// Wait returns the reply, or ctx's error if it ends first.
func (r *Request) Wait(ctx context.Context) (Reply, error) {
	select {
	case <-r.done:
		return r.rep, nil
	case <-ctx.Done():
		return Reply{}, ctx.Err()
	}
}

// Client is the server side of a DDM session with one VM (the seed's Client):
// it sends requests without blocking, dispatches every chunk the VM sends to
// the handler registered for its type, and keeps a [ClientData] model up to
// date through the default handlers.
type Client struct {
	t    Transport
	opt  Options
	log  zerolog.Logger
	data *ClientData

	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.RWMutex
	handlers  map[Type]Handler
	unknown   Handler
	streams   map[Type]func(int64) ChunkSink // StreamChunks
	listeners []ConnectionListener
	pending   map[uint32]*Request
	notDDM    bool

	nextID    atomic.Uint32
	readyOnce sync.Once
	ready     chan struct{}
	hello     *Request // Start's HELO
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// FirstRequestID is where request numbers start (ddmlib's JDWP id range).
const FirstRequestID = 0x40000000

// NewClient returns a client riding t. Call Start to begin the session.
func NewClient(t Transport, opt Options) *Client {
	if opt.Timeout <= 0 {
		opt.Timeout = 5 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		t: t, opt: opt, data: NewClientData(),
		log:      opt.Logger.With().Str("component", "ddm").Logger(),
		ctx:      ctx,
		cancel:   cancel,
		handlers: map[Type]Handler{},
		pending:  map[uint32]*Request{},
		ready:    make(chan struct{}),
	}
	c.nextID.Store(FirstRequestID - 1)
	c.unknown = HandlerFunc(func(c *Client, t Type, data []byte, isReply bool, msgID uint32) {
		// The seed: unrecognised types are quietly ignored by the server; we log them.
		c.log.Warn().Str("type", t.String()).Int("len", len(data)).Bool("reply", isReply).Msg("ignoring unknown DDM chunk type")
	})
	return c
}

// Data returns the VM model the default handlers keep up to date.
func (c *Client) Data() *ClientData { return c.data }

// Handle registers h for chunk type t, replacing the default (which decodes
// the chunk and applies it to Data). Use [Client.Apply] from h to keep both.
func (c *Client) Handle(t Type, h Handler) {
	c.mu.Lock()
	c.handlers[t] = h
	c.mu.Unlock()
}

// HandleUnknown sets the handler for chunk types without a layout; the default logs a warning.
func (c *Client) HandleUnknown(h Handler) {
	c.mu.Lock()
	c.unknown = h
	c.mu.Unlock()
}

// Listen adds a connection listener; Start and Close call it.
func (c *Client) Listen(l ConnectionListener) {
	c.mu.Lock()
	c.listeners = append(c.listeners, l)
	c.mu.Unlock()
}

// Ready is closed when the first DDM packet of any kind arrives from the VM.
func (c *Client) Ready() <-chan struct{} { return c.ready }

// Speaks waits for the VM's answer to Start's HELO and reports whether it
// speaks DDM: false when it refused HELO (a plain JDWP VM), did not answer in
// the request timeout, or ctx ended first. A client whose HELO was sent by
// its owner rather than by Start speaks DDM: owners hand out only such.
func (c *Client) Speaks(ctx context.Context) bool {
	c.mu.RLock()
	hello := c.hello
	c.mu.RUnlock()
	if hello == nil {
		return true
	}
	rep, err := hello.Wait(ctx)
	return err == nil && rep.Err == nil
}

// Pending returns the number of requests still waiting for a reply.
func (c *Client) Pending() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.pending)
}

// Start notifies the listeners and sends ddmlib's greeting: HELO(1), FEAT and
// MPRQ, without waiting for replies.
func (c *Client) Start() {
	c.mu.RLock()
	ls := append([]ConnectionListener(nil), c.listeners...)
	c.mu.RUnlock()
	for _, l := range ls {
		l.Connected(c)
	}
	hello := c.Send(&HelloRequest{ServerVersion: 1}, nil)
	c.mu.Lock()
	c.hello = hello
	c.mu.Unlock()
	c.Send(&Empty{Type: FEAT}, nil)
	c.Send(&Empty{Type: MPRQ}, nil)
}

// Close fails the pending requests with ErrClosed, waits for their
// goroutines and notifies the listeners. It does not close the transport.
func (c *Client) Close() {
	c.closeOnce.Do(func() {
		c.mu.Lock() // Send adds to wg under mu only while ctx is live
		c.cancel()
		c.mu.Unlock()
		c.wg.Wait()
		c.mu.RLock()
		ls := append([]ConnectionListener(nil), c.listeners...)
		c.mu.RUnlock()
		for _, l := range ls {
			l.Disconnected(c)
		}
	})
}

// Send sends m to the VM and returns at once. done, if not nil, is called
// with the reply from the request's goroutine; reply chunks also go to the
// handlers registered for their types, with isReply set.
func (c *Client) Send(m Message, done func(Reply)) *Request {
	ch := Encode(m)
	r := &Request{ID: c.nextID.Add(1), Type: ch.Type, done: make(chan struct{})}
	c.mu.Lock()
	notDDM := c.notDDM && ch.Type != HELO
	if c.ctx.Err() == nil && !notDDM {
		c.pending[r.ID] = r
		c.wg.Add(1)
	}
	c.mu.Unlock()
	switch {
	case c.ctx.Err() != nil:
		c.complete(r, Reply{Err: ErrClosed}, done)
		return r
	case notDDM:
		c.complete(r, Reply{Err: ErrNotDDM}, done)
		return r
	}
	c.trace("send", ch, r.ID, false)
	q, ordered := c.t.(queuer)
	var call *jdwp.Call
	var err error
	if ordered {
		call, err = q.Start(jdwp.CmdDDMChunk, EncodeChunks(ch))
	}
	go func() {
		defer c.wg.Done()
		ctx, cancel := context.WithTimeout(c.ctx, c.opt.Timeout)
		defer cancel()
		var data []byte
		switch {
		case !ordered:
			data, err = c.t.Command(ctx, CommandSet, Command, EncodeChunks(ch))
		case err == nil:
			if data, err = call.Wait(ctx); ctx.Err() != nil {
				q.Forget(call)
			}
		}
		c.complete(r, c.reply(r, data, err), done)
	}()
	return r
}

// Request sends m and waits for the reply: the decoded first chunk, nil for an
// empty reply, a *FailError for FAIL.
func (c *Client) Request(ctx context.Context, m Message) (Message, error) {
	r := c.Send(m, nil)
	rep, err := r.Wait(ctx)
	if err != nil {
		return nil, err
	}
	return rep.Msg, rep.Err
}

func (c *Client) complete(r *Request, rep Reply, done func(Reply)) {
	c.mu.Lock()
	delete(c.pending, r.ID)
	c.mu.Unlock()
	r.rep = rep
	close(r.done)
	if done != nil {
		done(rep)
	}
}

// reply turns a transport result into a Reply and dispatches its chunks.
func (c *Client) reply(r *Request, data []byte, err error) Reply {
	switch {
	case err == nil:
	case c.ctx.Err() != nil:
		return Reply{Err: ErrClosed}
	case errors.Is(err, context.DeadlineExceeded):
		c.log.Debug().Str("type", r.Type.String()).Uint32("req", r.ID).Dur("timeout", c.opt.Timeout).Msg("no reply; forgetting request")
		return Reply{Err: fmt.Errorf("%w: %s after %v", ErrTimeout, r.Type, c.opt.Timeout)}
	case r.Type == HELO && errors.Is(err, jdwp.ErrVendorCommand):
		// Not sent: the VM has not been identified as one that speaks DDM.
		c.mu.Lock()
		c.notDDM = true
		c.mu.Unlock()
		c.markReady()
		c.log.Debug().Err(err).Msg("HELO not sent: the VM is not known to speak DDM; not sending further DDM requests")
		return Reply{Err: fmt.Errorf("%w: %w", ErrNotDDM, err)}
	default:
		if code, ok := jdwpErrorCode(err); ok {
			if r.Type == HELO {
				// Mark the VM non-DDM before it is marked ready, so the ready
				// step sends nothing more to a VM that refused HELO.
				c.mu.Lock()
				c.notDDM = true
				c.mu.Unlock()
				c.markReady()
				c.log.Debug().Uint64("jdwp_error", code).Msg("VM answered HELO with a JDWP error (a plain JDWP VM, e.g. HotSpot); not sending further DDM requests")
				return Reply{Err: fmt.Errorf("%w (JDWP error %d)", ErrNotDDM, code)}
			}
			c.markReady() // ddmlib: any DDM packet, error replies included, makes the VM ready
		}
		return Reply{Err: fmt.Errorf("ddm: %s request: %w", r.Type, err)}
	}
	c.markReady()
	chunks, perr := ParseChunks(data, ParseOptions{MaxInflated: c.opt.MaxInflated})
	rep := Reply{Chunks: chunks, Err: perr}
	for i, ch := range chunks {
		c.trace("reply", ch, r.ID, true)
		if i == 0 {
			m, derr := Decode(ch, FromVM)
			if derr != nil && rep.Err == nil {
				rep.Err = derr
			}
			rep.Msg = m
			if f, ok := m.(*Fail); ok && rep.Err == nil {
				rep.Err = f.Err(r.Type)
			}
		}
		c.dispatch(ch, true, r.ID)
	}
	if perr != nil {
		c.log.Warn().Err(perr).Str("type", r.Type.String()).Msg("malformed DDM reply")
	}
	return rep
}

// jdwpErrorCode recognises a JDWP error reply from a transport: an error
// whose dynamic type is an unsigned integer (jdwp.ErrorCode), possibly wrapped.
func jdwpErrorCode(err error) (uint64, bool) {
	for e := err; e != nil; e = errors.Unwrap(e) {
		v := reflect.ValueOf(e)
		switch v.Kind() {
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
			return v.Uint(), true
		}
	}
	return 0, false
}

// HandlePacket takes a VM-initiated DDM command packet (command set 0xC7): its
// JDWP id, command and data. The chunks go to their handlers; nothing is sent
// back, since a server never answers VM-originated DDM packets.
func (c *Client) HandlePacket(id uint32, cmd byte, data []byte) {
	if cmd != Command {
		c.log.Warn().Uint32("id", id).Uint8("cmd", cmd).Msg("ignoring command-set 0xC7 packet with an unknown command")
		return
	}
	c.markReady()
	chunks, err := ParseChunks(data, ParseOptions{MaxInflated: c.opt.MaxInflated})
	for _, ch := range chunks {
		c.trace("event", ch, id, false)
		c.dispatch(ch, false, id)
	}
	if err != nil {
		c.log.Warn().Err(err).Uint32("id", id).Msg("malformed DDM packet from the VM")
	}
}

func (c *Client) dispatch(ch Chunk, isReply bool, msgID uint32) {
	c.mu.RLock()
	h, ok := c.handlers[ch.Type]
	unknown := c.unknown
	c.mu.RUnlock()
	switch {
	case ok:
	case Known(ch.Type, FromVM):
		h = HandlerFunc(func(c *Client, t Type, data []byte, _ bool, _ uint32) { c.Apply(Chunk{t, data}) })
	default:
		h = unknown
	}
	defer func() {
		if p := recover(); p != nil {
			c.log.Error().Interface("panic", p).Str("type", ch.Type.String()).Msg("DDM chunk handler panicked")
		}
	}()
	h.HandleChunk(c, ch.Type, ch.Data, isReply, msgID)
}

// Apply decodes a VM→server chunk and applies it to the model, logging what
// cannot be decoded. Custom handlers call it to keep the default behaviour.
func (c *Client) Apply(ch Chunk) {
	m, err := Decode(ch, FromVM)
	if err == nil {
		_, err = c.data.Apply(m)
	}
	if err != nil {
		c.log.Warn().Err(err).Str("type", ch.Type.String()).Msg("DDM chunk rejected")
	}
}

// markReady runs ddmlib's client-ready step once: THEN(1) when thread updates
// are wanted, HPIF(3) when heap updates are. ddmlib sends HPIF(0) otherwise;
// that only restates a fresh VM's default, and current Android has no HPIF
// handler at all, so it is not sent.
func (c *Client) markReady() {
	c.readyOnce.Do(func() {
		close(c.ready)
		if c.opt.ThreadUpdates {
			c.Send(&ThreadNotify{Enable: true}, nil)
		}
		if c.opt.HeapUpdates {
			c.Send(&HeapInfoRequest{When: WhenEveryGC}, nil)
		}
	})
}

func (c *Client) trace(dir string, ch Chunk, id uint32, reply bool) {
	if c.opt.TraceChunks {
		c.log.Trace().Str("kind", "ddm.chunk").Str("dir", dir).Str("type", ch.Type.String()).Int("len", len(ch.Data)).Uint32("id", id).Bool("reply", reply).Msg("chunk")
	}
	if c.opt.TraceData {
		c.log.Trace().Str("kind", "ddm.data").Str("type", ch.Type.String()).Str("hex", hex.EncodeToString(ch.Data)).Msg("chunk data")
	}
}

// Convenience requests, as ddmlib's Client offers them.

// RequestThreadStatus asks for a THST table; the model is updated when it arrives.
func (c *Client) RequestThreadStatus() *Request { return c.Send(&ThreadStatusRequest{}, nil) }

// SetThreadUpdates turns THCR/THDE/THNM notifications on or off; off clears the model's threads.
func (c *Client) SetThreadUpdates(on bool) *Request {
	if !on {
		c.data.ClearThreads()
	}
	return c.Send(&ThreadNotify{Enable: on}, nil)
}

// RequestStack asks for one thread's stack (STKL).
func (c *Client) RequestStack(threadID uint32) *Request {
	return c.Send(&StackRequest{ThreadID: threadID}, nil)
}

// RequestHeapInfo sends HPIF with the given 'when'.
func (c *Client) RequestHeapInfo(when uint8) *Request {
	return c.Send(&HeapInfoRequest{When: when}, nil)
}

// GC asks the VM to collect (HPGC).
func (c *Client) GC() *Request { return c.Send(&Empty{Type: HPGC}, nil) }

// SetHeapSegments enables or disables HPSG (perObject: HPSO) dumps after every GC.
func (c *Client) SetHeapSegments(on, perObject bool) *Request {
	var when, what uint8
	if on {
		when = 1
	}
	if perObject {
		what = 1
	}
	return c.Send(&SegmentRequest{When: when, What: what}, nil)
}
