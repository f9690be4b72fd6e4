package mux

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Why a debugger session ended.
var (
	// ErrVMGone ends every session of a VM that went away; Attach returns
	// it once the multiplexer is closed.
	ErrVMGone       = errors.New("the VM is gone")
	errDisposed     = errors.New("the debugger sent VirtualMachine.Dispose")
	errDebuggerLeft = errors.New("the debugger closed the connection")
)

// handshakeTimeout bounds reading a debugger's handshake.
const handshakeTimeout = 10 * time.Second

// vmGoneFlush bounds writing to a debugger what its VM sent before it went.
const vmGoneFlush = time.Second

// Session is one debugger attached to the VM through the multiplexer.
type Session struct {
	m     *Mux
	nc    net.Conn
	from  string
	log   zerolog.Logger
	trace bool

	// out is the output to the debugger. Replies are queued on the VM
	// connection's reader goroutine as they arrive, and events after them,
	// so the debugger sees them in the VM's order.
	out *jdwp.PacketWriter

	pending atomic.Int32  // forwarded commands without a reply yet
	large   atomic.Int32  // those of them whose reply may be large (see smallReply)
	settled chan struct{} // signalled when pending drops to 0
	// flushPending: replies were queued for the VM connection's reader to
	// write when it is idle (see deliver).
	flushPending atomic.Bool
	room         chan struct{} // signalled when output is written or a reply comes: see awaitRoom
	awaiting     atomic.Bool   // awaitRoom waits on room: only then is it signalled (see signalRoom)

	mu          sync.Mutex
	requests    map[reqKey]bool              // event requests the debugger created
	reqIDs      map[int32]jdwp.SuspendPolicy // their ids and suspend policies, for routing events
	holds       holds                        // its suspensions (sessions.go)
	pins        map[jdwp.ObjectID]int
	holding     bool // it sent HoldEvents
	breakpoints bool // it created breakpoint requests
	maySuspend  bool // it may have suspended something
	sent        bool // it sent the VM a JDWP command
	pastDrain   bool // cleanup stopped waiting for in-flight calls
	setting     int  // EventRequest.Set commands without a reply yet
	released    bool // its holds were released while other debuggers stay (releaseShared)
	capped      int  // EventRequest.Set commands refused past maxRequests

	ended   atomic.Bool
	endOnce sync.Once
	done    chan struct{} // closed when the session ends
	cleaned chan struct{} // closed when the cleanup after the session is done
}

// reconnectGrace is how long a debugger arriving at an occupied VM waits
// for the current debugger's connection to turn out closed before it joins
// it.
const reconnectGrace = time.Second

type reqKey struct {
	kind jdwp.EventKind
	id   int32
}

// fwdCall is a debugger command forwarded to the VM under a fresh id: the
// receiver of its reply (jdwp.Receiver).
type fwdCall struct {
	s     *Session
	dbgID uint32
	cmd   jdwp.Cmd
	data  []byte
	// inParts: the reply came in parts (ReplyPart); begun: they are passed
	// on to the debugger.
	inParts, begun bool
}

// Attach adds a debugger to the VM, over nc, whose handshake the caller
// reads (ReadHandshake) before or after; from names it in logs and in
// Debuggers. The session starts when the caller calls Serve. One that arrives while a previous
// debugger is being cleaned up after waits for that, so that it finds the
// VM as a fresh attach would; one that arrives while another debugger is
// attached first gives that one a moment to turn out gone (it may just have
// closed its connection), then joins it (see sessions.go).
func (m *Mux) Attach(nc net.Conn, from string) (*Session, error) {
	deadline := time.NewTimer(m.opts.CleanupTimeout)
	defer deadline.Stop()
	waitedForEnd := false
	for {
		m.mu.Lock()
		select {
		case <-m.closed:
			m.mu.Unlock()
			return nil, fmt.Errorf("VM %s: %w", m.opts.ID, ErrVMGone)
		default:
		}
		var cleaning, live *Session
		for _, x := range m.dbgs {
			if x.isEnded() {
				cleaning = x
			} else if live == nil {
				live = x
			}
		}
		switch {
		case cleaning != nil:
			m.mu.Unlock()
			select {
			case <-cleaning.cleaned:
			case <-deadline.C:
				return nil, fmt.Errorf("VM %s: the previous debugger's cleanup has not finished; try again", m.opts.ID)
			}
			continue
		case live != nil && !waitedForEnd:
			m.mu.Unlock()
			waitedForEnd = true
			select {
			case <-live.done:
			case <-time.After(reconnectGrace):
			}
			continue
		}
		s := &Session{
			m: m, nc: nc, from: from, trace: m.opts.TraceProxy,
			log:      m.log.With().Str("debugger", from).Logger(),
			requests: map[reqKey]bool{}, reqIDs: map[int32]jdwp.SuspendPolicy{}, room: make(chan struct{}, 1),
			settled: make(chan struct{}, 1), cleaned: make(chan struct{}), done: make(chan struct{}),
		}
		s.out = jdwp.NewPacketWriter(nc, &jdwp.WriterOptions{
			Timeout: m.opts.DebuggerWriteTimeout,
			OnError: func(err error) { s.end(fmt.Errorf("writing to the debugger: %w", err)) },
			OnWrite: s.signalRoom,
			Held:    true, // until open: nothing may precede the handshake
		})
		s.out.QueueBytes([]byte(jdwp.HandshakeString))
		if m.waiting && m.vmStart != nil {
			// A debugger attached directly to a suspend=y VM gets VM_START
			// (SUSPEND_ALL) first; give it the one the monitor received.
			s.out.Queue(m.vmStart)
			s.holds.vm = 1
		}
		m.dbgs = append(m.dbgs, s)
		m.mu.Unlock()
		m.conn.OnReadIdle(m.flushDebuggers)
		s.log.Info().Bool("shared", live != nil).Msg("debugger attached")
		m.host.Attached()
		return s, nil
	}
}

// flushDebuggers writes the replies deliver queued, on the VM connection's
// reader goroutine once it has handled all it read: what a debugger does
// not take at once is left to its writer goroutine.
func (m *Mux) flushDebuggers() {
	var some [4]*Session
	m.mu.Lock()
	dbgs := append(some[:0], m.dbgs...)
	m.mu.Unlock()
	for _, s := range dbgs {
		if s.flushPending.Swap(false) {
			s.out.DrainNow()
		}
	}
}

func (s *Session) isEnded() bool { return s.ended.Load() }

// open lets queued output (handshake, replayed VM_START) go out and starts
// the writer.
func (s *Session) open() {
	go s.out.Run(s.done)
	s.out.Release()
}

// enqueue queues a packet for the debugger and writes it unless another
// goroutine is writing: at once, and what the debugger does not take at
// once is left to the writer (inline, on the VM connection's reader
// goroutine, which must not stall behind a slow debugger), or waiting up to
// Options.DebuggerWriteTimeout.
//
// p's data is not copied if large (PacketWriter.QueueShared): it must not
// change until written, as no reply's or event's does.
func (s *Session) enqueue(p *jdwp.Packet, inline bool) {
	if !s.out.QueueShared(p) {
		return
	}
	if inline {
		s.out.DrainNow()
	} else {
		s.out.Drain(nil)
	}
}

// flush waits until everything queued is written, or the debugger write
// timeout passed.
func (s *Session) flush() {
	ctx, cancel := context.WithTimeout(context.Background(), s.m.opts.DebuggerWriteTimeout)
	defer cancel()
	s.out.Flush(ctx)
}

// Backpressure: a debugger's next command is not read while
// maxPendingCommands of its commands whose replies may be large await the
// VM's reply, or maxPendingAll commands in all (the others have replies of a
// few bytes: smallReply), or while maxUnreadOutput bytes of output wait for
// it to read them. A debugger that sends without reading then holds a
// bounded part of the monitor's memory and of the VM's time. The VM is
// given many small commands at once: it answers a deep queue of them
// faster than bursts of a few dozen. And each burst the cap splits costs a
// round trip on a slow link: at 128, the names of 200 threads took one
// more through the monitor than directly (bench link); 512 covers what a
// debugger asks at a stop (threads, frames, a page of elements) at once.
const (
	maxPendingCommands = 512
	maxPendingAll      = 2048
	maxUnreadOutput    = 8 << 20
)

// smallReply says a command's reply, when it succeeds, is a few bytes (ids
// and numbers of fixed size, at most 32 bytes), whatever the VM's state.
func smallReply(cmd jdwp.Cmd) bool {
	switch cmd {
	case jdwp.CmdVMIDSizes, jdwp.CmdVMCapabilities, jdwp.CmdVMCapabilitiesNew, jdwp.CmdVMHoldEvents, jdwp.CmdVMReleaseEvents,
		jdwp.CmdVMCreateString, jdwp.CmdVMDisposeObjects,
		jdwp.CmdRefTypeClassLoader, jdwp.CmdRefTypeModifiers, jdwp.CmdRefTypeStatus, jdwp.CmdRefTypeClassObject,
		jdwp.CmdRefTypeClassFileVersion, jdwp.CmdRefTypeModule, jdwp.CmdClassTypeSuperclass, jdwp.CmdMethodIsObsolete,
		jdwp.CmdObjRefReferenceType, jdwp.CmdObjRefIsCollected,
		jdwp.CmdThreadStatus, jdwp.CmdThreadThreadGroup, jdwp.CmdThreadFrameCount, jdwp.CmdThreadSuspendCount,
		jdwp.CmdThreadIsVirtual, jdwp.CmdThreadCurrentContendedMonitor, jdwp.CmdThreadGroupParent,
		jdwp.CmdArrayRefLength, jdwp.CmdEventRequestSet, jdwp.CmdEventRequestClear,
		jdwp.CmdStackFrameThisObject, jdwp.CmdClassObjectReflectedType:
		return true
	}
	return false
}

// hasRoom says the debugger may send another command. Once full (again
// set), it waits until half the commands are answered, so that those
// waiting meanwhile are read, and forwarded, in bursts rather than one per
// reply.
func (s *Session) hasRoom(again bool) bool {
	if s.out.Buffered() >= maxUnreadOutput {
		return false
	}
	if again {
		return s.large.Load() <= maxPendingCommands/2 && s.pending.Load() <= maxPendingAll/2
	}
	return s.large.Load() < maxPendingCommands && s.pending.Load() < maxPendingAll
}

// awaitRoom waits until the debugger may send another command; false when
// the session ended meanwhile.
func (s *Session) awaitRoom() bool {
	if s.hasRoom(false) {
		return true
	}
	s.m.conn.Flush(context.Background()) // the commands queued so far (see handle)
	// Signals come only while awaiting is set (a write or a reply per
	// packet would otherwise wake this goroutine for nothing): it is set
	// before the condition is checked, and signallers change what it checks
	// before they look at it, so no signal is lost.
	s.awaiting.Store(true)
	defer s.awaiting.Store(false)
	for {
		if s.hasRoom(true) {
			return true
		}
		select {
		case <-s.room:
		case <-s.done:
			return false
		}
	}
}

// signalRoom wakes awaitRoom, if it waits and there is room.
func (s *Session) signalRoom() {
	if !s.awaiting.Load() || !s.hasRoom(true) {
		return
	}
	select {
	case s.room <- struct{}{}:
	default:
	}
}

// run reads the debugger's packets until it leaves.
func (s *Session) run() {
	r := bufio.NewReaderSize(s.nc, 64<<10)
	for {
		p, err := jdwp.ReadPacket(r, jdwp.DefaultMaxPacketSize)
		last := r.Buffered() == 0
		if err != nil {
			switch {
			case s.isEnded():
			case errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrClosedPipe) ||
				errors.Is(err, syscall.ECONNRESET): // a reset is a debugger leaving, not a malformed packet
				s.end(errDebuggerLeft)
			default:
				s.log.Warn().Err(err).Msg("malformed packet from the debugger; closing it (the VM stays monitored)")
				s.end(fmt.Errorf("malformed packet: %w", err))
			}
			return
		}
		if !s.awaitRoom() || !s.handle(p, last) {
			return
		}
	}
}

func (s *Session) reply(id uint32, code jdwp.ErrorCode) {
	s.enqueue(&jdwp.Packet{ID: id, Flags: jdwp.FlagReply, Error: code}, false)
}

// handle forwards one debugger packet; false ends the read loop. last says
// no more packets are buffered: then this goroutine writes the queued
// commands to the VM itself (saving a hand-off), else it leaves them to the
// connection's writer so a burst goes out in few writes.
func (s *Session) handle(p *jdwp.Packet, last bool) bool {
	forwarded := false
	defer func() {
		if last && !forwarded {
			// Commands queued before this one, answered here, wait for
			// the last of a burst to write them: this was the last.
			s.m.conn.Flush(context.Background())
		}
	}()
	if p.IsReply() {
		// Debuggers answer nothing the VM sends (events need no reply).
		s.log.Debug().Uint32("id", p.ID).Msg("ignoring a reply packet from the debugger")
		return true
	}
	cmd := jdwp.Cmd{Set: p.CmdSet, Cmd: p.Cmd}
	switch {
	case p.CmdSet != 0 && p.CmdSet == s.m.opts.HostCommandSet:
		// The host's channel (DDM) is not the debugger's.
		s.reply(p.ID, jdwp.ErrNotImplemented)
		return true
	case !cmd.Standard() && !s.m.conn.VendorCommandsAllowed():
		// A vendor command to a VM not known to speak it (HotSpot's agent
		// crashes on one): answered as an agent with the JDK-8382537 fix does.
		s.log.Debug().Uint8("set", p.CmdSet).Uint8("cmd", p.Cmd).Msg("vendor command from the debugger to a plain VM; answered NOT_IMPLEMENTED here")
		s.reply(p.ID, jdwp.ErrNotImplemented)
		return true
	case cmd == jdwp.CmdVMDispose:
		// Forwarding Dispose would end the VM's only connection: do it here.
		s.reply(p.ID, jdwp.ErrNone)
		s.flush()
		s.end(errDisposed)
		return false
	}
	if !s.shared(p, cmd) {
		return true
	}
	s.mu.Lock()
	if cmd == jdwp.CmdEventRequestSet {
		if max := s.m.opts.MaxRequestsPerDebugger; len(s.requests)+s.setting >= max {
			s.capped++
			n := s.capped
			s.mu.Unlock()
			if n == 1 || n%10000 == 0 {
				s.log.Warn().Int("limit", max).Int("refused", n).
					Msg("the debugger has as many event requests as one debugger may have; refusing more (OUT_OF_MEMORY) until it clears some")
			}
			s.reply(p.ID, jdwp.ErrOutOfMemory)
			return true
		}
		s.setting++
	}
	s.sent = true
	switch cmd {
	case jdwp.CmdVMSuspend, jdwp.CmdThreadSuspend:
		s.maySuspend = true
	case jdwp.CmdEventRequestSet:
		if kind, suspend, ok := jdwp.PeekRequest(p.Data); ok {
			s.maySuspend = s.maySuspend || suspend != jdwp.SuspendNone
			s.breakpoints = s.breakpoints || kind == jdwp.EventBreakpoint
		}
	}
	s.mu.Unlock()
	dbgID, data := p.ID, p.Data
	s.pending.Add(1)
	large := !smallReply(cmd)
	if large {
		s.large.Add(1)
	}
	// One allocation per command: the receiver holds what deliver needs.
	fc := &fwdCall{s: s, dbgID: dbgID, cmd: cmd, data: data}
	var ctx context.Context // nil: more commands are buffered, and the last of them writes them all
	if last {
		ctx = context.Background()
	}
	forwarded = true
	call, err := s.m.conn.Forward(ctx, cmd, p.Data, fc)
	if err != nil {
		if cmd == jdwp.CmdEventRequestSet {
			s.mu.Lock()
			s.setting--
			s.mu.Unlock()
		}
		s.pending.Add(-1)
		if large {
			s.large.Add(-1)
		}
		s.end(ErrVMGone)
		return false
	}
	if s.trace {
		s.log.Trace().Str("kind", "bridge.proxy").Str("dir", "debugger→vm").Str("cmd", cmd.String()).
			Uint32("id", p.ID).Uint32("vmID", call.ID).Int("len", len(p.Data)).Msg("command")
	}
	return true
}

// ReplyPart passes a large reply on to the debugger as it arrives, under
// the debugger's own id, so the debugger reads its first part while the VM
// still sends the rest, as through a bare relay. It runs on the VM
// connection's reader goroutine.
func (fc *fwdCall) ReplyPart(hdr *jdwp.Packet, size, off int, part []byte) {
	s := fc.s
	if off == 0 {
		fc.inParts = true
		fc.begun = !s.isEnded() && s.out.BeginPart(&jdwp.Packet{ID: fc.dbgID, Flags: jdwp.FlagReply, Error: hdr.Error}, size)
	}
	if !fc.begun {
		return
	}
	s.out.AppendPart(part)
	s.out.DrainNow()
	if size > maxUnreadOutput && s.out.Buffered() > maxUnreadOutput {
		s.awaitReader()
	}
}

// awaitReader holds the VM connection's reader while a reply larger than
// maxUnreadOutput outruns the debugger, until the debugger has taken half
// of what waits for it, as a bare relay would: the monitor's memory stays
// bounded whatever the reply's size (a 100 MB String). Meanwhile the VM's
// other traffic waits; a debugger that takes nothing for
// DebuggerWriteTimeout is dropped. Smaller replies never hold the reader:
// the debugger's commands are not read while they pile up (awaitRoom).
func (s *Session) awaitReader() {
	ctx, cancel := context.WithTimeout(context.Background(), s.m.opts.DebuggerWriteTimeout)
	defer cancel()
	if !s.out.WaitBuffered(ctx, maxUnreadOutput/2) && !s.isEnded() {
		s.end(fmt.Errorf("the debugger took no part of a large reply for %v", s.m.opts.DebuggerWriteTimeout))
	}
}

// Finished delivers the reply (see deliver).
func (fc *fwdCall) Finished(call *jdwp.Call) { fc.s.deliver(fc, call) }

// deliver queues a forwarded command's reply for the debugger under the
// debugger's own id, unless it was passed on in parts already. It runs on
// the VM connection's reader goroutine.
func (s *Session) deliver(fc *fwdCall, call *jdwp.Call) {
	defer func() {
		if !smallReply(fc.cmd) {
			s.large.Add(-1)
		}
		if s.pending.Add(-1) == 0 {
			select {
			case s.settled <- struct{}{}:
			default:
			}
		}
		s.signalRoom()
	}()
	rp := call.Reply()
	if rp == nil { // the VM connection failed; the VM's removal ends the session
		if fc.begun {
			// A call fails after its parts began only in the middle of
			// the reply (jdwp.Receiver): part of it went out, and
			// nothing can follow it.
			s.end(ErrVMGone)
		}
		return
	}
	s.mu.Lock()
	late := s.pastDrain
	released := late || s.released
	if fc.cmd == jdwp.CmdEventRequestSet {
		// The request leaves the count of those being set and joins the
		// session's in one step: a Set read in between would see it in
		// neither and pass the cap.
		s.setting--
		if !late && rp.Error == jdwp.ErrNone {
			s.addRequestLocked(fc, rp.Data)
		}
	}
	s.mu.Unlock()
	if released && rp.Error == jdwp.ErrNone && isInvoke(fc.cmd) {
		go s.afterLateInvoke(fc)
	}
	if rp.Error == jdwp.ErrNone {
		s.track(fc, rp.Data, late)
	} else {
		s.trackFailed(fc)
	}
	if s.trace {
		s.log.Trace().Str("kind", "bridge.proxy").Str("dir", "vm→debugger").Str("cmd", fc.cmd.String()).
			Uint32("id", fc.dbgID).Uint32("vmID", rp.ID).Stringer("err", rp.Error).Int("len", len(rp.Data)).Msg("reply")
	}
	if s.isEnded() || fc.inParts {
		return
	}
	reply := jdwp.Packet{ID: fc.dbgID, Flags: jdwp.FlagReply, Error: rp.Error, Data: rp.Data}
	if s.pending.Load() == 1 {
		// The debugger waits for this very reply: write it now.
		s.enqueue(&reply, true)
		return
	}
	// More replies are coming: the VM connection's reader writes what it
	// queued once it has read all that arrived (Mux.flushDebuggers), so a
	// burst of replies goes out in one write, as through a bare relay.
	s.out.QueueShared(&reply)
	s.flushPending.Store(true)
}

// addRequestLocked notes an event request the VM set for s (s.mu held).
func (s *Session) addRequestLocked(fc *fwdCall, reply []byte) {
	id, err := jdwp.DecodeSetRequestReply(reply)
	kind, suspend, ok := jdwp.PeekRequest(fc.data)
	if err != nil || !ok {
		return
	}
	s.requests[reqKey{kind, id}] = true
	s.reqIDs[id] = suspend
}

// track notes what a successful command changed in the VM, for the cleanup.
// late is set when the cleanup already ran: then it is undone at once.
func (s *Session) track(fc *fwdCall, reply []byte, late bool) {
	m := s.m
	switch fc.cmd {
	case jdwp.CmdEventRequestSet:
		if !late {
			return // deliver added it to s.requests (addRequestLocked)
		}
		id, err := jdwp.DecodeSetRequestReply(reply)
		kind, _, ok := jdwp.PeekRequest(fc.data)
		if err != nil || !ok {
			return
		}
		k := reqKey{kind, id}
		go m.undo(func(ctx context.Context) error { return m.conn.ClearRequest(ctx, k.kind, k.id) })
	case jdwp.CmdEventRequestClear:
		if kind, id, err := jdwp.DecodeClearRequest(fc.data); err == nil {
			s.untrack(reqKey{kind, id})
		}
	case jdwp.CmdEventRequestClearAllBreakpoints:
		s.mu.Lock()
		for k := range s.requests {
			if k.kind == jdwp.EventBreakpoint {
				delete(s.requests, k)
				delete(s.reqIDs, k.id)
			}
		}
		s.mu.Unlock()
	case jdwp.CmdVMHoldEvents, jdwp.CmdVMReleaseEvents:
		s.trackShared(fc)
	case jdwp.CmdVMIDSizes:
		if sz, err := jdwp.DecodeIDSizes(reply); err != nil {
			s.log.Warn().Err(err).Msg("VM reported unusable id sizes")
		} else if cur, err := m.conn.IDSizes(context.Background()); err != nil || cur != sz { // cached: never asks
			m.conn.SetIDSizes(sz)
		}
	case jdwp.CmdVMResume:
		m.mu.Lock()
		was := m.waiting
		m.waiting, m.vmStart = false, nil
		m.mu.Unlock()
		if was {
			s.log.Info().Msg("the debugger resumed the waiting VM")
			go m.host.Changed()
		}
	case jdwp.CmdVMSuspend:
		if late {
			go m.undo(m.conn.Resume)
		}
	case jdwp.CmdThreadSuspend:
		if late {
			if t, err := jdwp.DecodeObjectArg(fc.data, m.sizes()); err == nil {
				go m.undo(func(ctx context.Context) error { return m.conn.ResumeThread(ctx, t) })
			}
		}
	}
}

func (m *Mux) sizes() *jdwp.IDSizes {
	s, err := m.conn.IDSizes(context.Background()) // cached: set at setup or from the debugger
	if err != nil {
		return nil
	}
	return &s
}

// undo runs one late cleanup step.
func (m *Mux) undo(f func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), m.opts.RequestTimeout)
	defer cancel()
	if err := f(ctx); err != nil {
		m.log.Debug().Err(err).Msg("late cleanup step failed")
	}
}

// event forwards a VM event set to the debugger. Replies the VM sent
// before it are already queued (deliver runs on the reader goroutine).
func (s *Session) event(es *jdwp.EventSet) {
	if es.SuspendPolicy != jdwp.SuspendNone {
		s.mu.Lock()
		s.maySuspend = true
		s.mu.Unlock()
		s.countEvent(es)
	}
	if s.trace {
		s.log.Trace().Str("kind", "bridge.proxy").Str("dir", "vm→debugger").Str("cmd", "Event.Composite").
			Uint32("vmID", es.Packet.ID).Int("events", len(es.Events)).Uint8("suspend", uint8(es.SuspendPolicy)).Msg("event")
	}
	if !s.isEnded() {
		s.enqueue(es.Packet, false)
	}
}

// end closes the debugger's connection and cleans up after it.
func (s *Session) end(why error) {
	s.endOnce.Do(func() {
		s.ended.Store(true)
		close(s.done)
		if errors.Is(why, ErrVMGone) {
			// What the VM sent before it went (VM_DEATH, the last replies)
			// reaches the debugger, as it would directly.
			ctx, cancel := context.WithTimeout(context.Background(), vmGoneFlush)
			s.out.Flush(ctx)
			cancel()
		}
		s.out.Close()
		s.nc.Close()
		lvl := zerolog.InfoLevel
		if !errors.Is(why, errDisposed) && !errors.Is(why, errDebuggerLeft) && !errors.Is(why, ErrVMGone) {
			lvl = zerolog.WarnLevel
		}
		s.log.WithLevel(lvl).Str("why", why.Error()).Msg("debugger detached")
		s.m.host.Go(func() { s.cleanup(why) })
	})
}

// cleanup makes the VM what a debugger attaching next would find had it
// been attached directly.
//
// A VM the host can dial again (Options.Resettable: a plain JDWP VM the
// monitor found) gets its agent reset: the host drops its connection and
// reconnects (Host.ResetAgent), so the agent itself forgets everything the
// debugger left (ids, collection pins, HoldEvents, event requests, a
// default stratum, suspensions: a suspend=y VM runs on) and sends no
// VM_START to the next debugger, exactly as after a direct detach. This is
// the only way to reset state the multiplexer cannot see, and it costs one
// reconnect per debugger session.
//
// Other VMs (DDM VMs, whose DDM state would be lost, and VMs handed to the
// monitor's Connect) are cleaned up command by command: the debugger's
// event requests are cleared and what it suspended is resumed (a VM that
// waits for a debugger since it started with suspend=y stays suspended
// unless the debugger resumed it); then Host.CleanedUp (a draft-protocol VM
// gets DBGD). If that cleanup fails while the VM is alive, the host drops
// the connection (Host.Drop: the VM's agent then resets itself) and the
// scanner finds the VM again.
func (s *Session) cleanup(why error) {
	m := s.m
	reset := false
	defer func() {
		m.mu.Lock()
		m.dbgs = slices.DeleteFunc(m.dbgs, func(x *Session) bool { return x == s })
		m.mu.Unlock()
		close(s.cleaned)
		if reset {
			return // the VM is gone: its successor is announced
		}
		m.host.Detached()
	}()
	if errors.Is(why, ErrVMGone) || m.conn.Err() != nil {
		return
	}
	if len(m.live()) > 0 {
		// Another debugger stays: release only what this one held (its
		// requests within CleanupTimeout, then its holds within as long).
		ctx, cancel := context.WithTimeout(context.Background(), 2*m.opts.CleanupTimeout)
		defer cancel()
		if err := s.releaseShared(ctx); err != nil && m.conn.Err() == nil {
			s.log.Warn().Err(err).Msg("releasing what the debugger held failed")
		}
		return
	}
	if m.resettable() {
		s.mu.Lock()
		sent := s.sent
		s.mu.Unlock()
		m.mu.Lock()
		waiting := m.waiting
		m.mu.Unlock()
		if sent || waiting {
			reset = true
			s.log.Debug().Msg("resetting the VM's agent after the debugger")
			m.host.ResetAgent()
		}
		return
	}
	// Let in-flight commands land (for up to a second) so their effects are
	// tracked.
	landed := time.NewTimer(time.Second)
	for s.pending.Load() > 0 {
		select {
		case <-s.settled:
			continue
		case <-landed.C:
		}
		break
	}
	landed.Stop()
	s.mu.Lock()
	s.pastDrain = true
	sent, maySuspend, bps := s.sent, s.maySuspend, s.breakpoints
	reqs := make([]reqKey, 0, len(s.requests))
	for k := range s.requests {
		reqs = append(reqs, k)
	}
	s.mu.Unlock()
	if !sent {
		return // the VM never saw this debugger
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.opts.CleanupTimeout)
	defer cancel()
	err := m.clearRequests(ctx, reqs, bps)
	if err == nil && maySuspend {
		err = m.resumeAll(ctx)
	}
	if err == nil {
		m.host.CleanedUp()
	}
	switch {
	case err == nil:
		s.log.Debug().Int("requests", len(reqs)).Bool("resumed", maySuspend).Msg("cleaned up after the debugger")
	case m.conn.Err() != nil:
	default:
		s.log.Warn().Err(err).Msg("cleanup after the debugger failed; dropping the VM connection so its agent resets (it will be found again)")
		go m.host.Drop("cleanup failed")
	}
}

// resettable says the monitor resets the agent after a debugger by
// reconnecting (see cleanup).
func (m *Mux) resettable() bool { return m.opts.Resettable }

// clearWorkers bounds the EventRequest.Clear commands in flight at once
// while a debugger's requests are cleared: a debugger with 100,000
// requests costs a few goroutines, not one each.
const clearWorkers = 32

// clearRequests clears a debugger's event requests (and with breakpoints,
// every breakpoint) until ctx ends; the error says how many were left in
// the VM, and of which kinds.
func (m *Mux) clearRequests(ctx context.Context, reqs []reqKey, breakpoints bool) error {
	keys := make(chan reqKey)
	var (
		mu    sync.Mutex
		first error
		left  = map[jdwp.EventKind]int{}
		wg    sync.WaitGroup
	)
	for range min(clearWorkers, len(reqs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range keys {
				err := m.conn.ClearRequest(ctx, k.kind, k.id)
				var ce *jdwp.CommandError
				if err == nil || errors.As(err, &ce) {
					continue // cleared, or gone already (e.g. a Count filter expired)
				}
				mu.Lock()
				left[k.kind]++
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	sent := 0
feed:
	for _, k := range reqs {
		select {
		case keys <- k:
			sent++
		case <-ctx.Done():
			break feed
		}
	}
	close(keys)
	wg.Wait()
	for _, k := range reqs[sent:] {
		left[k.kind]++
	}
	if sumCounts(left) > 0 {
		if first == nil {
			first = ctx.Err()
		}
		return fmt.Errorf("EventRequest.Clear: %d of the debugger's %d event requests were left in the VM (%s): %w",
			sumCounts(left), len(reqs), kindCounts(left), first)
	}
	if breakpoints {
		if err := m.conn.ClearAllBreakpoints(ctx); err != nil {
			return fmt.Errorf("EventRequest.ClearAllBreakpoints: %w", err)
		}
	}
	return nil
}

func sumCounts(m map[jdwp.EventKind]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// kindCounts says "3 BREAKPOINT, 12 CLASS_PREPARE", by kind.
func kindCounts(counts map[jdwp.EventKind]int) string {
	kinds := make([]jdwp.EventKind, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %v", counts[k], k)
	}
	return strings.Join(parts, ", ")
}

// resumeAll resumes until no thread is suspended more than the baseline: 1
// for a VM still waiting since suspend=y, else 0.
func (m *Mux) resumeAll(ctx context.Context) error {
	for round := 0; round < 16; round++ {
		threads, err := m.conn.AllThreads(ctx)
		if err != nil {
			return fmt.Errorf("VirtualMachine.AllThreads: %w", err)
		}
		counts := make([]int32, len(threads))
		var wg sync.WaitGroup
		for i, t := range threads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				counts[i], _ = m.conn.SuspendCount(ctx, t) // a thread that died meanwhile counts 0
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
		m.mu.Lock()
		base := int32(0)
		if m.waiting {
			base = 1
		}
		m.mu.Unlock()
		most := int32(0)
		for _, c := range counts {
			most = max(most, c-base)
		}
		if most <= 0 {
			return nil
		}
		if base == 0 {
			for range most {
				if err := m.conn.Resume(ctx); err != nil {
					return fmt.Errorf("VirtualMachine.Resume: %w", err)
				}
			}
			continue
		}
		for i, t := range threads {
			for range counts[i] - base {
				if err := m.conn.ResumeThread(ctx, t); err != nil {
					break
				}
			}
		}
	}
	return errors.New("threads stay suspended after 16 rounds of resuming")
}
