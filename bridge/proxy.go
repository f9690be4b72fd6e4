package bridge

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Why a debugger session ended.
var (
	errVMGone       = errors.New("the VM is gone")
	errDisposed     = errors.New("the debugger sent VirtualMachine.Dispose")
	errDebuggerLeft = errors.New("the debugger closed the connection")
)

// handshakeTimeout bounds reading a debugger's handshake.
const handshakeTimeout = 10 * time.Second

// vmGoneFlush bounds writing to a debugger what its VM sent before it went.
const vmGoneFlush = time.Second

// acceptLoop serves debuggers on a listener: the debugger port of the VM
// at addr, or (addr "") the current-VM port.
func (m *Monitor) acceptLoop(ln net.Listener, addr string) {
	defer m.wg.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			m.log.Warn().Err(err).Str("listener", ln.Addr().String()).Msg("accept failed")
			select {
			case <-time.After(100 * time.Millisecond):
				continue
			case <-m.stop:
				return
			}
		}
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.serveTCPDebugger(nc, addr)
		}()
	}
}

// serveTCPDebugger checks a debugger's handshake, finds its VM (holding the
// connection until a VM is current, or back at addr) and serves it.
func (m *Monitor) serveTCPDebugger(nc net.Conn, addr string) {
	from := nc.RemoteAddr().String()
	log := m.log.With().Str("debugger", from).Logger()
	if err := readHandshake(nc); err != nil {
		log.Warn().Err(err).Msg("debugger handshake failed; closing it")
		nc.Close()
		return
	}
	s, err := m.attachTo(context.Background(), addr, nc, from)
	if err != nil {
		log.Warn().Err(err).Msg("debugger refused")
		nc.Close()
		return
	}
	s.open()
	s.run()
}

// attachTo attaches a debugger to the VM at addr ("": the current VM),
// waiting for one to be there. A VM that goes away meanwhile (the monitor
// resets its agent after the previous debugger, or it restarts) is looked
// up again.
func (m *Monitor) attachTo(ctx context.Context, addr string, nc net.Conn, from string) (*session, error) {
	var gone *VM
	for tries := 0; ; tries++ {
		v, err := m.waitDebuggee(ctx, addr, gone)
		if err != nil {
			return nil, err
		}
		s, err := v.attach(nc, from)
		if errors.Is(err, errVMGone) && tries < 3 {
			gone = v
			continue
		}
		return s, err
	}
}

func readHandshake(nc net.Conn) error {
	nc.SetReadDeadline(time.Now().Add(handshakeTimeout))
	buf := make([]byte, len(jdwp.HandshakeString))
	if _, err := io.ReadFull(nc, buf); err != nil {
		return fmt.Errorf("reading the JDWP handshake: %w", err)
	}
	if string(buf) != jdwp.HandshakeString {
		return fmt.Errorf("debugger sent %q, not the JDWP handshake", buf)
	}
	nc.SetReadDeadline(time.Time{})
	return nil
}

// OpenDebugger connects an in-process debugger (the DAP server) to a VM: the
// returned conn is the client end of a pipe served exactly like a TCP
// debugger on the VM's port. The caller writes the JDWP handshake on it and
// reads it back, then speaks JDWP. target is a VM id, "current" (waiting up
// to the hold timeout, or until ctx ends, for a VM to become current) or the
// address of a monitored VM. Closing the conn detaches the debugger; the
// monitor then cleans up after it like after any debugger.
func (m *Monitor) OpenDebugger(ctx context.Context, target string) (net.Conn, error) {
	addr := ""
	if target != "current" {
		v, err := m.VM(target)
		if errors.Is(err, ErrNoVM) && isHostPort(target) {
			v, err = m.adoptAddress(ctx, target)
		}
		if err != nil {
			return nil, err
		}
		if v.ddmOnly { // a debug session would find no code: say so rather than attach
			return nil, fmt.Errorf("VM %s (%s) cannot be debugged: %s", v.id, v.addr, ddm.DDMOnlyNote)
		}
		addr = v.addr
	}
	client, server := net.Pipe()
	s, err := m.attachTo(ctx, addr, server, "in-process")
	if err != nil {
		client.Close()
		server.Close()
		return nil, err
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		if err := readHandshake(server); err != nil {
			s.log.Warn().Err(err).Msg("in-process debugger handshake failed")
			s.end(err)
			return
		}
		s.open()
		s.run()
	}()
	return client, nil
}

func isHostPort(target string) bool {
	_, p, err := net.SplitHostPort(target)
	return err == nil && p != ""
}

// adoptAddress monitors the VM at a JDWP address outside the scan ranges
// (an attach to host:port names it): the monitor dials it, as a probe
// would, and owns the connection from then on, so DDM and the pass-through
// port work for it like for any VM found by scanning. A refused dial is
// returned as it is (the caller tells nothing listening from a VM that
// has a debugger); a peer that does not answer the handshake is not JDWP.
func (m *Monitor) adoptAddress(ctx context.Context, addr string) (*VM, error) {
	// Monitored already, or a scan probe is on it: wait for its outcome (a
	// VM, or the probe ending without one, when the address is ours to try).
	for !m.claimProbe(addr) {
		if v, err := m.VM(addr); err == nil {
			return v, nil
		}
		m.mu.Lock()
		own, closed, probe := m.own[addr], m.closed, m.probing[addr]
		m.mu.Unlock()
		switch {
		case own:
			return nil, fmt.Errorf("%s is one of the monitor's own ports, not a VM: attach to the VM's address or id", addr)
		case closed:
			return nil, errors.New("monitor closed")
		case probe == nil:
			continue // the probe just ended: a VM, or the address is free to try
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s is being probed by the monitor's scan and the probe did not finish in time: %w", addr, ctx.Err())
		case <-m.stop:
			return nil, errors.New("monitor closed")
		case <-probe:
		}
	}
	defer m.endProbe(addr)
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if err := m.checkVMOwner(nc); err != nil {
		nc.Close()
		return nil, err
	}
	if _, err := handshakeVM(ctx, nc, m.opts.ProbeTimeout); err != nil {
		nc.Close()
		return nil, fmt.Errorf("%s is not a JDWP agent (%v): is it the VM's -agentlib:jdwp address?", addr, err)
	}
	// Like a VM found by scanning, it can be dialled again, so its agent is
	// reset when a debugger leaves.
	from := vmOrigin{dial: func(ctx context.Context) (net.Conn, error) { return m.dialVM(ctx, addr) }}
	v, err := m.adoptFrom(context.WithoutCancel(ctx), nc, addr, from)
	if err != nil {
		return nil, fmt.Errorf("VM at %s found but could not be monitored: %w", addr, err)
	}
	return v, nil
}

// session is one debugger attached to a VM through the monitor.
type session struct {
	v     *VM
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
	s     *session
	dbgID uint32
	cmd   jdwp.Cmd
	data  []byte
	// inParts: the reply came in parts (ReplyPart); begun: they are passed
	// on to the debugger.
	inParts, begun bool
}

// attach adds a debugger to the VM. One that arrives while a previous
// debugger is being cleaned up after waits for that, so that it finds the
// VM as a fresh attach would; one that arrives while another debugger is
// attached first gives that one a moment to turn out gone (it may just have
// closed its connection), then joins it (see sessions.go).
func (v *VM) attach(nc net.Conn, from string) (*session, error) {
	deadline := time.NewTimer(v.m.opts.CleanupTimeout)
	defer deadline.Stop()
	waitedForEnd := false
	for {
		v.mu.Lock()
		select {
		case <-v.removed:
			v.mu.Unlock()
			return nil, fmt.Errorf("VM %s: %w", v.id, errVMGone)
		default:
		}
		var cleaning, live *session
		for _, x := range v.dbgs {
			if x.isEnded() {
				cleaning = x
			} else if live == nil {
				live = x
			}
		}
		switch {
		case cleaning != nil:
			v.mu.Unlock()
			select {
			case <-cleaning.cleaned:
			case <-deadline.C:
				return nil, fmt.Errorf("VM %s: the previous debugger's cleanup has not finished; try again", v.id)
			}
			continue
		case live != nil && !waitedForEnd:
			v.mu.Unlock()
			waitedForEnd = true
			select {
			case <-live.done:
			case <-time.After(reconnectGrace):
			}
			continue
		}
		s := &session{
			v: v, nc: nc, from: from, trace: v.m.opts.TraceProxy,
			log:      v.log.With().Str("debugger", from).Logger(),
			requests: map[reqKey]bool{}, reqIDs: map[int32]jdwp.SuspendPolicy{}, room: make(chan struct{}, 1),
			settled: make(chan struct{}, 1), cleaned: make(chan struct{}), done: make(chan struct{}),
		}
		s.out = jdwp.NewPacketWriter(nc, &jdwp.WriterOptions{
			Timeout: v.m.opts.DebuggerWriteTimeout,
			OnError: func(err error) { s.end(fmt.Errorf("writing to the debugger: %w", err)) },
			OnWrite: s.signalRoom,
			Held:    true, // until open: nothing may precede the handshake
		})
		s.out.QueueBytes([]byte(jdwp.HandshakeString))
		if v.waiting && v.vmStart != nil {
			// A debugger attached directly to a suspend=y VM gets VM_START
			// (SUSPEND_ALL) first; give it the one the monitor received.
			s.out.Queue(v.vmStart)
			s.holds.vm = 1
		}
		v.dbgs = append(v.dbgs, s)
		v.mu.Unlock()
		v.conn.OnReadIdle(v.flushDebuggers)
		if v.dc != nil {
			v.dc.Data().SetDebugger(ddm.DebuggerAttached)
		}
		s.log.Info().Bool("shared", live != nil).Msg("debugger attached")
		v.m.notify(EventChanged, v)
		return s, nil
	}
}

// flushDebuggers writes the replies deliver queued, on the VM connection's
// reader goroutine once it has handled all it read: what a debugger does
// not take at once is left to its writer goroutine.
func (v *VM) flushDebuggers() {
	var some [4]*session
	v.mu.Lock()
	dbgs := append(some[:0], v.dbgs...)
	v.mu.Unlock()
	for _, s := range dbgs {
		if s.flushPending.Swap(false) {
			s.out.DrainNow()
		}
	}
}

func (s *session) isEnded() bool { return s.ended.Load() }

// open lets queued output (handshake, replayed VM_START) go out and starts
// the writer.
func (s *session) open() {
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
func (s *session) enqueue(p *jdwp.Packet, inline bool) {
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
func (s *session) flush() {
	ctx, cancel := context.WithTimeout(context.Background(), s.v.m.opts.DebuggerWriteTimeout)
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
func (s *session) hasRoom(again bool) bool {
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
func (s *session) awaitRoom() bool {
	if s.hasRoom(false) {
		return true
	}
	s.v.conn.Flush(context.Background()) // the commands queued so far (see handle)
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
func (s *session) signalRoom() {
	if !s.awaiting.Load() || !s.hasRoom(true) {
		return
	}
	select {
	case s.room <- struct{}{}:
	default:
	}
}

// run reads the debugger's packets until it leaves.
func (s *session) run() {
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

func (s *session) reply(id uint32, code jdwp.ErrorCode) {
	s.enqueue(&jdwp.Packet{ID: id, Flags: jdwp.FlagReply, Error: code}, false)
}

// handle forwards one debugger packet; false ends the read loop. last says
// no more packets are buffered: then this goroutine writes the queued
// commands to the VM itself (saving a hand-off), else it leaves them to the
// connection's writer so a burst goes out in few writes.
func (s *session) handle(p *jdwp.Packet, last bool) bool {
	if p.IsReply() {
		// Debuggers answer nothing the VM sends (events need no reply).
		s.log.Debug().Uint32("id", p.ID).Msg("ignoring a reply packet from the debugger")
		return true
	}
	cmd := jdwp.Cmd{Set: p.CmdSet, Cmd: p.Cmd}
	switch {
	case p.CmdSet == ddm.CommandSet:
		// The DDM channel belongs to the monitor.
		s.reply(p.ID, jdwp.ErrNotImplemented)
		return true
	case !cmd.Standard() && !s.v.conn.VendorCommandsAllowed():
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
	call, err := s.v.conn.Forward(ctx, cmd, p.Data, fc)
	if err != nil {
		s.pending.Add(-1)
		if large {
			s.large.Add(-1)
		}
		s.end(errVMGone)
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
func (s *session) awaitReader() {
	ctx, cancel := context.WithTimeout(context.Background(), s.v.m.opts.DebuggerWriteTimeout)
	defer cancel()
	if !s.out.WaitBuffered(ctx, maxUnreadOutput/2) && !s.isEnded() {
		s.end(fmt.Errorf("the debugger took no part of a large reply for %v", s.v.m.opts.DebuggerWriteTimeout))
	}
}

// Finished delivers the reply (see deliver).
func (fc *fwdCall) Finished(call *jdwp.Call) { fc.s.deliver(fc, call) }

// deliver queues a forwarded command's reply for the debugger under the
// debugger's own id, unless it was passed on in parts already. It runs on
// the VM connection's reader goroutine.
func (s *session) deliver(fc *fwdCall, call *jdwp.Call) {
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
			s.end(errVMGone)
		}
		return
	}
	s.mu.Lock()
	late := s.pastDrain
	s.mu.Unlock()
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
	// queued once it has read all that arrived (VM.flushDebuggers), so a
	// burst of replies goes out in one write, as through a bare relay.
	s.out.QueueShared(&reply)
	s.flushPending.Store(true)
}

// track notes what a successful command changed in the VM, for the cleanup.
// late is set when the cleanup already ran: then it is undone at once.
func (s *session) track(fc *fwdCall, reply []byte, late bool) {
	v := s.v
	switch fc.cmd {
	case jdwp.CmdEventRequestSet:
		id, err := jdwp.DecodeSetRequestReply(reply)
		kind, suspend, ok := jdwp.PeekRequest(fc.data)
		if err != nil || !ok {
			return
		}
		k := reqKey{kind, id}
		if late {
			go v.undo(func(ctx context.Context) error { return v.conn.ClearRequest(ctx, k.kind, k.id) })
			return
		}
		s.mu.Lock()
		s.requests[k] = true
		s.reqIDs[k.id] = suspend
		s.mu.Unlock()
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
		} else if cur, err := v.conn.IDSizes(context.Background()); err != nil || cur != sz { // cached: never asks
			v.conn.SetIDSizes(sz)
		}
	case jdwp.CmdVMResume:
		v.mu.Lock()
		was := v.waiting
		v.waiting, v.vmStart = false, nil
		v.mu.Unlock()
		if was {
			s.log.Info().Msg("the debugger resumed the waiting VM")
			go v.m.notify(EventChanged, v)
		}
	case jdwp.CmdVMSuspend:
		if late {
			go v.undo(v.conn.Resume)
		}
	case jdwp.CmdThreadSuspend:
		if late {
			if t, err := jdwp.DecodeObjectArg(fc.data, v.sizes()); err == nil {
				go v.undo(func(ctx context.Context) error { return v.conn.ResumeThread(ctx, t) })
			}
		}
	}
}

func (v *VM) sizes() *jdwp.IDSizes {
	s, err := v.conn.IDSizes(context.Background()) // cached: set at setup or from the debugger
	if err != nil {
		return nil
	}
	return &s
}

// undo runs one late cleanup step.
func (v *VM) undo(f func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), v.m.opts.RequestTimeout)
	defer cancel()
	if err := f(ctx); err != nil {
		v.log.Debug().Err(err).Msg("late cleanup step failed")
	}
}

// event forwards a VM event set to the debugger. Replies the VM sent
// before it are already queued (deliver runs on the reader goroutine).
func (s *session) event(es *jdwp.EventSet) {
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
func (s *session) end(why error) {
	s.endOnce.Do(func() {
		s.ended.Store(true)
		close(s.done)
		if errors.Is(why, errVMGone) {
			// What the VM sent before it went (VM_DEATH, the last replies)
			// reaches the debugger, as it would directly.
			ctx, cancel := context.WithTimeout(context.Background(), vmGoneFlush)
			s.out.Flush(ctx)
			cancel()
		}
		s.out.Close()
		s.nc.Close()
		lvl := zerolog.InfoLevel
		if !errors.Is(why, errDisposed) && !errors.Is(why, errDebuggerLeft) && !errors.Is(why, errVMGone) {
			lvl = zerolog.WarnLevel
		}
		s.log.WithLevel(lvl).Str("why", why.Error()).Msg("debugger detached")
		s.v.m.goCleanup(func() { s.cleanup(why) })
	})
}

// cleanup makes the VM what a debugger attaching next would find had it
// been attached directly.
//
// A plain JDWP VM the monitor can dial again gets its agent reset: the
// monitor drops its connection and reconnects (Monitor.resetAgent), so the
// agent itself forgets everything the debugger left (ids, collection pins,
// HoldEvents, event requests, a default stratum, suspensions: a suspend=y
// VM runs on) and sends no VM_START to the next debugger, exactly as after a
// direct detach. This is the only way to reset state the monitor cannot
// see, and it costs one reconnect per debugger session.
//
// Other VMs (DDM VMs, whose DDM state would be lost, and VMs handed to
// Monitor.Connect) are cleaned up command by command: the debugger's event
// requests are cleared and what it suspended is resumed (a VM that waits
// for a debugger since it started with suspend=y stays suspended unless the
// debugger resumed it). A draft-protocol VM gets DBGD. If that cleanup fails
// while the VM is alive, the connection is dropped (the VM's agent then
// resets itself) and the scanner finds the VM again.
func (s *session) cleanup(why error) {
	v := s.v
	reset := false
	defer func() {
		v.mu.Lock()
		v.dbgs = slices.DeleteFunc(v.dbgs, func(x *session) bool { return x == s })
		v.mu.Unlock()
		close(s.cleaned)
		if reset {
			return // v is gone: its successor is announced
		}
		if v.dc != nil {
			v.dc.Data().SetDebugger(ddm.DebuggerDefault)
		}
		v.m.notify(EventChanged, v)
	}()
	if errors.Is(why, errVMGone) || v.conn.Err() != nil {
		return
	}
	if len(v.live()) > 0 {
		// Another debugger stays: release only what this one held.
		ctx, cancel := context.WithTimeout(context.Background(), v.m.opts.CleanupTimeout)
		defer cancel()
		if err := s.releaseShared(ctx); err != nil && v.conn.Err() == nil {
			s.log.Warn().Err(err).Msg("releasing what the debugger held failed")
		}
		return
	}
	if v.resettable() {
		s.mu.Lock()
		sent := s.sent
		s.mu.Unlock()
		v.mu.Lock()
		waiting := v.waiting
		v.mu.Unlock()
		if sent || waiting {
			reset = true
			s.log.Debug().Msg("resetting the VM's agent after the debugger")
			v.m.resetAgent(v)
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
	ctx, cancel := context.WithTimeout(context.Background(), v.m.opts.CleanupTimeout)
	defer cancel()
	err := v.clearRequests(ctx, reqs, bps)
	if err == nil && maySuspend {
		err = v.resumeAll(ctx)
	}
	if err == nil && v.draft {
		v.dc.Send(&ddm.Empty{Type: ddm.DBGD}, func(r ddm.Reply) {
			if r.Err == nil {
				v.dbgdAcks.Add(1)
			}
		})
	}
	switch {
	case err == nil:
		s.log.Debug().Int("requests", len(reqs)).Bool("resumed", maySuspend).Msg("cleaned up after the debugger")
	case v.conn.Err() != nil:
	default:
		s.log.Warn().Err(err).Msg("cleanup after the debugger failed; dropping the VM connection so its agent resets (it will be found again)")
		go v.m.remove(v, "cleanup failed")
	}
}

// resettable says the monitor resets v's agent after a debugger by
// reconnecting (see cleanup).
func (v *VM) resettable() bool { return v.dc == nil && v.from.dial != nil }

func (v *VM) clearRequests(ctx context.Context, reqs []reqKey, breakpoints bool) error {
	errs := make(chan error, len(reqs))
	for _, k := range reqs {
		go func() {
			err := v.conn.ClearRequest(ctx, k.kind, k.id)
			var ce *jdwp.CommandError
			if errors.As(err, &ce) {
				err = nil // already gone (e.g. a Count filter expired)
			}
			errs <- err
		}()
	}
	var first error
	for range reqs {
		if err := <-errs; err != nil && first == nil {
			first = fmt.Errorf("EventRequest.Clear: %w", err)
		}
	}
	if first == nil && breakpoints {
		if err := v.conn.ClearAllBreakpoints(ctx); err != nil {
			first = fmt.Errorf("EventRequest.ClearAllBreakpoints: %w", err)
		}
	}
	return first
}

// resumeAll resumes until no thread is suspended more than the baseline: 1
// for a VM still waiting since suspend=y, else 0.
func (v *VM) resumeAll(ctx context.Context) error {
	for round := 0; round < 16; round++ {
		threads, err := v.conn.AllThreads(ctx)
		if err != nil {
			return fmt.Errorf("VirtualMachine.AllThreads: %w", err)
		}
		counts := make([]int32, len(threads))
		var wg sync.WaitGroup
		for i, t := range threads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				counts[i], _ = v.conn.SuspendCount(ctx, t) // a thread that died meanwhile counts 0
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
		v.mu.Lock()
		base := int32(0)
		if v.waiting {
			base = 1
		}
		v.mu.Unlock()
		most := int32(0)
		for _, c := range counts {
			most = max(most, c-base)
		}
		if most <= 0 {
			return nil
		}
		if base == 0 {
			for range most {
				if err := v.conn.Resume(ctx); err != nil {
					return fmt.Errorf("VirtualMachine.Resume: %w", err)
				}
			}
			continue
		}
		for i, t := range threads {
			for range counts[i] - base {
				if err := v.conn.ResumeThread(ctx, t); err != nil {
					break
				}
			}
		}
	}
	return errors.New("threads stay suspended after 16 rounds of resuming")
}
