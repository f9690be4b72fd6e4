package linkproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Proxy is a JDWP link with a delay: it accepts debuggers on a loopback
// port, connects each to the target VM, and delivers every packet Delay
// after it was read, in order, each way. Meanwhile it counts, per action
// (see Mark), the commands debuggers send and the longest chain of
// sequential round trips among them.
type Proxy struct {
	target string
	delay  time.Duration
	ln     net.Listener

	mu     sync.Mutex
	action Stats
	// delivered is the deepest packet (reply or event) delivered to a
	// debugger since the action began: a command sent after it depends,
	// as far as the link can tell, on it.
	delivered int
	// action counts Marks: a packet read in an earlier action (a reply to
	// a command sent before the Mark, still on its way) adds nothing to
	// this one's chain.
	actionNo int
	trace    []Sent
	conns    map[*link]struct{}
	closed   bool
	wg       sync.WaitGroup
}

// Stats is what one action cost on the link.
type Stats struct {
	// Commands is the number of commands debuggers sent to the VM.
	Commands int
	// Sequential is the longest chain of round trips: a command sent
	// before any reply of the action arrived is at depth 1, one sent after
	// a reply of depth d arrived at depth d+1. It is what a person waits
	// for on a slow link: Sequential × (2 × the one-way delay).
	Sequential int
	// Events is the number of event packets the VM sent.
	Events int
	// ToVM and FromVM are the bytes carried each way, headers included.
	ToVM, FromVM int64
}

// Sent is one command of an action, with its depth in the chain.
type Sent struct {
	Depth int
	Cmd   jdwp.Cmd // zero for the handshake
}

// maxTrace bounds the commands Trace keeps per action.
const maxTrace = 10000

// Start listens on an ephemeral loopback port and proxies every debugger
// that connects there to target, delaying each packet by delay each way.
// Close stops it.
func Start(target string, delay time.Duration) (*Proxy, error) {
	if delay < 0 {
		return nil, fmt.Errorf("linkproxy: negative delay %v", delay)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("linkproxy: listen on loopback: %w", err)
	}
	p := &Proxy{target: target, delay: delay, ln: ln, conns: map[*link]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the HOST:PORT debuggers attach to instead of the VM's.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Delay is the one-way delay the proxy adds.
func (p *Proxy) Delay() time.Duration { return p.delay }

// Mark begins a new action: the counts start from zero and commands sent
// from now on start a new chain, whatever arrived before.
func (p *Proxy) Mark() {
	p.mu.Lock()
	p.action = Stats{}
	p.delivered = 0
	p.actionNo++
	p.trace = p.trace[:0]
	for l := range p.conns {
		clear(l.depth)
	}
	p.mu.Unlock()
}

// Stats returns the counts of the action begun by the last Mark.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.action
}

// Trace returns the commands of the action begun by the last Mark (the
// first 10,000), each with its depth: what to pipeline, and what waits.
func (p *Proxy) Trace() []Sent {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Sent(nil), p.trace...)
}

// Close stops listening and closes every proxied connection.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for l := range p.conns {
		l.close()
	}
	p.mu.Unlock()
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		dbg, err := p.ln.Accept()
		if err != nil {
			return
		}
		vm, err := dialTarget(p.target)
		if err != nil {
			dbg.Close()
			continue
		}
		l := &link{p: p, dbg: dbg, vm: vm, depth: map[uint32]int{}}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			l.close()
			return
		}
		p.conns[l] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			l.run()
			p.mu.Lock()
			delete(p.conns, l)
			p.mu.Unlock()
		}()
	}
}

// dialTarget connects to the VM, trying again for up to 30 s while it
// refuses: a JDWP agent (server=y) closes its port while one debugger
// detaches and listens again after, and a debugger that attaches next
// through the link must not meet that gap as a reset.
func dialTarget(addr string) (net.Conn, error) {
	deadline := time.Now().Add(30 * time.Second)
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, 30*time.Second)
		if err == nil || time.Now().After(deadline) {
			return c, err
		}
		time.Sleep(wait)
	}
}

// link is one debugger's connection through the proxy.
type link struct {
	p       *Proxy
	dbg, vm net.Conn
	// depth holds the depth of the commands of the action still awaiting
	// their replies, by packet id (guarded by p.mu).
	depth     map[uint32]int
	closeOnce sync.Once
}

func (l *link) close() {
	l.closeOnce.Do(func() {
		l.dbg.Close()
		l.vm.Close()
	})
}

// delayed is one piece of the stream, due at a time, with the depth it
// carries to the side that receives it.
type delayed struct {
	due   time.Time
	b     []byte
	depth int
	reply bool // a reply or event going to the debugger
	// action is the action the packet was read in (Proxy.actionNo).
	action int
}

func (l *link) run() {
	defer l.close()
	toVM := make(chan delayed, 1024)
	toDbg := make(chan delayed, 1024)
	var wg sync.WaitGroup
	wg.Add(4)
	go func() { defer wg.Done(); defer l.close(); l.read(l.dbg, toVM, true) }()
	go func() { defer wg.Done(); defer l.close(); l.read(l.vm, toDbg, false) }()
	go func() { defer wg.Done(); defer l.close(); l.deliver(l.vm, toVM) }()
	go func() { defer wg.Done(); defer l.close(); l.deliver(l.dbg, toDbg) }()
	wg.Wait()
}

// read passes the handshake, then reads packets from c, stamps each with
// its depth and queues it for delivery after the delay.
func (l *link) read(c net.Conn, out chan<- delayed, fromDebugger bool) {
	defer close(out)
	br := bufio.NewReaderSize(c, 64<<10)
	hs := make([]byte, len(jdwp.HandshakeString))
	if _, err := io.ReadFull(br, hs); err != nil {
		return
	}
	d, a := l.stamp(nil, fromDebugger, len(hs))
	out <- delayed{due: time.Now().Add(l.p.delay), b: hs, depth: d, action: a, reply: !fromDebugger}
	for {
		pk, err := jdwp.ReadPacket(br, jdwp.DefaultMaxPacketSize)
		if err != nil {
			return
		}
		b := pk.Bytes()
		d, a := l.stamp(pk, fromDebugger, len(b))
		out <- delayed{due: time.Now().Add(l.p.delay), b: b, depth: d, action: a, reply: !fromDebugger}
	}
}

// stamp counts a packet read from one side and returns its depth and the
// action it was read in. A nil packet is the handshake, a round trip of its
// own.
func (l *link) stamp(pk *jdwp.Packet, fromDebugger bool, n int) (int, int) {
	p := l.p
	p.mu.Lock()
	defer p.mu.Unlock()
	return l.depthOf(pk, fromDebugger, n), p.actionNo
}

func (l *link) depthOf(pk *jdwp.Packet, fromDebugger bool, n int) int {
	p := l.p
	if fromDebugger {
		p.action.ToVM += int64(n)
		if pk != nil && pk.IsReply() {
			return 0 // a debugger's answer to the VM's own command
		}
		d := p.delivered + 1
		p.action.Commands++
		p.action.Sequential = max(p.action.Sequential, d)
		var cmd jdwp.Cmd
		if pk != nil {
			l.depth[pk.ID] = d
			cmd = jdwp.Cmd{Set: pk.CmdSet, Cmd: pk.Cmd}
		} else {
			l.depth[handshakeID] = d
		}
		if len(p.trace) < maxTrace {
			p.trace = append(p.trace, Sent{Depth: d, Cmd: cmd})
		}
		return d
	}
	p.action.FromVM += int64(n)
	switch {
	case pk == nil:
		d := l.depth[handshakeID]
		delete(l.depth, handshakeID)
		return d
	case pk.IsReply():
		d := l.depth[pk.ID]
		delete(l.depth, pk.ID)
		return d
	default:
		// An event (or a vendor command): it follows the latest command
		// the VM was sent, typically the resume that let it happen.
		if pk.CmdSet == jdwp.CmdEventComposite.Set {
			p.action.Events++
		}
		return p.action.Sequential
	}
}

// handshakeID keys the handshake in a link's depths: no packet of the
// action can have it before the handshake is answered.
const handshakeID = ^uint32(0)

// deliver writes each queued piece to c when it is due, and notes the
// depth a debugger has now seen.
func (l *link) deliver(c net.Conn, in <-chan delayed) {
	for d := range in {
		if wait := time.Until(d.due); wait > 0 {
			time.Sleep(wait)
		}
		if d.reply {
			// Noted before the write: the debugger may answer the moment
			// the bytes land, before a write call returns.
			l.p.mu.Lock()
			if d.action == l.p.actionNo {
				l.p.delivered = max(l.p.delivered, d.depth)
			}
			l.p.mu.Unlock()
		}
		if _, err := c.Write(d.b); err != nil {
			// Drain so the reader is never blocked on a dead link.
			for range in {
			}
			return
		}
	}
}

// WaitIdle waits until no command of the action awaits its reply and
// nothing is in flight for quiet, or ctx ends. Benchmarks call it to know
// an action's traffic is over before reading Stats.
func (p *Proxy) WaitIdle(ctx context.Context, quiet time.Duration) error {
	last := p.Stats()
	t := time.NewTicker(quiet)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		now := p.Stats()
		if now == last {
			return nil
		}
		last = now
	}
}
