package mux

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Host is what the multiplexer asks of the one who owns the VM (the
// monitor). Every method is called without the multiplexer's locks held.
type Host interface {
	// Changed says what the VM's listing shows changed: it no longer
	// waits for a debugger (one resumed it).
	Changed()
	// Attached says a debugger attached.
	Attached()
	// Detached says the cleanup after a debugger is done and the VM
	// stays (another debugger may remain).
	Detached()
	// CleanedUp says the VM was cleaned up command by command after its
	// last debugger (a draft-protocol DDM VM is then told: DBGD).
	CleanedUp()
	// ResetAgent drops the VM's connection and connects again, so that
	// its agent resets as after a direct debugger (Options.Resettable
	// only). The multiplexer is closed by it, and a new one serves the
	// new connection.
	ResetAgent()
	// Drop gives the VM up (a cleanup failed while it lives): its
	// connection is closed, so its agent resets.
	Drop(why string)
	// Go runs a departing debugger's cleanup on a goroutine of its own
	// (the monitor waits for those when it closes).
	Go(f func())
}

// Options configure a multiplexer.
type Options struct {
	// ID names the VM in errors.
	ID string
	// Logger is the VM's logger (its sessions add "debugger").
	Logger zerolog.Logger
	// RequestTimeout bounds the multiplexer's own commands (resuming
	// after an event no debugger sees).
	RequestTimeout time.Duration
	// CleanupTimeout bounds the cleanup after a debugger leaves, and how
	// long a debugger arriving meanwhile waits for it.
	CleanupTimeout time.Duration
	// DebuggerWriteTimeout bounds one write to a debugger: one that takes
	// nothing for that long is dropped.
	DebuggerWriteTimeout time.Duration
	// MaxRequestsPerDebugger bounds the event requests one debugger may
	// have; more are refused with OUT_OF_MEMORY.
	MaxRequestsPerDebugger int
	// TraceProxy logs every debugger packet and its id mapping (trace
	// kind "bridge.proxy").
	TraceProxy bool
	// Resettable: the host can reset the agent by reconnecting
	// (Host.ResetAgent), which the last debugger's cleanup then does
	// instead of undoing what the debugger did command by command.
	Resettable bool
	// Waiting: the VM waits for a debugger since it started (suspend=y),
	// as the host learnt before the event pump ran.
	Waiting bool
}

// Mux shares one VM connection among the debuggers attached to it (see
// the package documentation).
type Mux struct {
	conn *jdwp.Conn
	host Host
	opts Options
	log  zerolog.Logger

	closed    chan struct{}
	pumped    chan struct{} // closed when every event the VM sent was routed (Pump ended)
	closeOnce sync.Once

	mu      sync.Mutex
	waiting bool
	vmStart *jdwp.Packet // the VM_START that suspended the VM, replayed to debuggers
	dbgs    []*Session   // attached or cleaning up after, oldest first
}

// New returns a multiplexer of conn, the VM's connection, whose events
// it routes once Pump runs.
func New(conn *jdwp.Conn, host Host, opts Options) *Mux {
	return &Mux{conn: conn, host: host, opts: opts, log: opts.Logger, waiting: opts.Waiting,
		closed: make(chan struct{}), pumped: make(chan struct{})}
}

// Waiting says the VM waits for a debugger since it started (suspend=y,
// or the VM_START it sent with SUSPEND_ALL) and none resumed it yet.
func (m *Mux) Waiting() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.waiting
}

// Debuggers names the attached debuggers, oldest first ("" when none).
func (m *Mux) Debuggers() string {
	return debuggersFrom(m.live())
}

// Attached returns how many debuggers are attached.
func (m *Mux) Attached() int { return len(m.live()) }

// Sessions returns how many debuggers are attached or being cleaned up
// after.
func (m *Mux) Sessions() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.dbgs)
}

// Pump routes the VM's events until sub ends: to the attached debuggers,
// else it notes VM_START (waiting) and resumes what leftover requests
// suspend.
func (m *Mux) Pump(sub *jdwp.Subscription) {
	defer close(m.pumped)
	defer sub.Close()
	for es := range sub.C {
		if es.Packet == nil { // VM_DISCONNECTED
			continue
		}
		m.mu.Lock()
		live := m.liveLocked()
		isStart := len(es.Events) > 0 && es.Events[0].Kind == jdwp.EventVMStart
		if len(live) == 0 && isStart && es.SuspendPolicy == jdwp.SuspendAll {
			m.waiting = true
			m.vmStart = es.Packet
		}
		m.mu.Unlock()
		switch {
		case len(live) > 0:
			m.route(es, live)
		case isStart:
			if es.SuspendPolicy == jdwp.SuspendAll {
				m.log.Info().Msg("VM is suspended waiting for a debugger (suspend=y); not resuming it")
				m.host.Changed()
			}
		case es.SuspendPolicy != jdwp.SuspendNone:
			m.resumeOrphan(es)
		}
	}
}

// resumeOrphan undoes the suspension of an event no debugger will see (a
// request of a debugger that just left, not yet cleared).
func (m *Mux) resumeOrphan(es *jdwp.EventSet) {
	ctx, cancel := context.WithTimeout(context.Background(), m.opts.RequestTimeout)
	defer cancel()
	var err error
	if es.SuspendPolicy == jdwp.SuspendAll {
		err = m.conn.Resume(ctx)
	} else if len(es.Events) > 0 {
		err = m.conn.ResumeThread(ctx, es.Events[0].Thread)
	}
	m.log.Debug().Err(err).Uint8("suspend", uint8(es.SuspendPolicy)).Msg("resumed the VM after an event with no debugger attached")
}

// Close ends every session: a debugger arriving later is refused
// (ErrVMGone). When the VM's connection failed (the VM went), what the VM
// sent before (VM_DEATH, the last events) reaches the debuggers first, as
// it would directly. Close neither closes the connection nor sends the VM
// anything.
func (m *Mux) Close() {
	m.closeOnce.Do(func() {
		close(m.closed)
		if m.conn.Err() != nil {
			select {
			case <-m.pumped:
			case <-time.After(vmGoneFlush):
			}
		}
		m.mu.Lock()
		dbgs := slices.Clone(m.dbgs)
		m.mu.Unlock()
		for _, s := range dbgs {
			s.end(ErrVMGone)
		}
	})
}

// ReadHandshake reads a debugger's JDWP handshake (the caller answers it
// through the session: Attach queues the answer).
func ReadHandshake(nc net.Conn) error {
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

// Serve lets the session's output go (the handshake's answer first) and
// forwards the debugger's packets until it leaves.
func (s *Session) Serve() {
	s.open()
	s.run()
}

// ServeHandshake reads the debugger's handshake, then serves it; a bad
// handshake ends the session.
func (s *Session) ServeHandshake() {
	if err := ReadHandshake(s.nc); err != nil {
		s.log.Warn().Err(err).Msg("debugger handshake failed")
		s.end(err)
		return
	}
	s.Serve()
}

// Done is closed when the session ends (its cleanup may still run).
func (s *Session) Done() <-chan struct{} { return s.done }

// debuggersFrom names the attached debuggers.
func debuggersFrom(live []*Session) string {
	from := make([]string, len(live))
	for i, s := range live {
		from[i] = s.from
	}
	return strings.Join(from, ",")
}
