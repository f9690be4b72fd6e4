package debugger

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/rs/zerolog"
)

// ErrNotSuspended refuses an invocation in a thread nobody holds suspended
// (it was resumed, or never stopped): the agent would refuse it too.
var ErrNotSuspended = errors.New("the thread is not suspended (it was resumed, or never stopped)")

// Suspensions is the suspension ledger of one debugging session: every
// suspension the session holds, by owner, and the only sender of the JDWP
// commands that change them. A thread's suspend count, as the VM sees it,
// is what the ledger says it owes the thread — vm + held[t] + events[t] —
// except while the thread runs a method for the debugger (count 0: it
// runs), which Exit settles when the method returns.
//
// mu is held across the commands that change counts, so the order in which
// the VM sees suspends and resumes is the order of the ledger's changes.
type Suspensions struct {
	conn    *jdwp.Conn
	log     zerolog.Logger
	timeout time.Duration // bounds the commands Exit sends on its own

	mu       sync.Mutex
	vm       int                           // VM-wide suspensions held (stops, pauses, held VM_START)
	held     map[jdwp.ThreadID]int         // single-thread suspensions held (stops, pauses)
	events   map[jdwp.ThreadID]int         // event sets' own suspensions, while their handling decides
	invoking map[jdwp.ThreadID]*invocation // threads running a method for the debugger
	during   map[jdwp.ThreadID]int         // event sets raised inside such a method, not released yet
	ran      map[jdwp.ThreadID]bool        // threads that ran a method since their event set arrived
	// counts says whether the VM's suspend counts have shown to be the
	// ledger's where it could tell (countsTrusted) or not (countsOdd):
	// until one was read where the ledger knew it (countsUnknown), a
	// released event's count is asked, not assumed.
	counts countsTrust

	// remember reads what a front end asks of a stopped thread before a
	// method runs in it (Enter), and says how many frames it has (ok: it
	// could tell); released drops it when the session lets the thread go
	// (0: every thread). Both may be nil.
	remember func(ctx context.Context, thread jdwp.ThreadID) (depth int32, ok bool)
	released func(thread jdwp.ThreadID)
	// onHeld is told when nothing in the VM runs: the VM-wide hold taken,
	// no method running for the debugger (until released is told, or a
	// method runs: runs). Both may be nil.
	onHeld func()
	runs   func()
}

// Invoking reports whether thread runs a method for the debugger.
func (s *Suspensions) Invoking(thread jdwp.ThreadID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.invoking[thread] != nil
}

// release tells the owner of what was read of a stopped thread that the
// session let it go (0: every thread).
func (s *Suspensions) release(thread jdwp.ThreadID) {
	if s.released != nil {
		s.released(thread)
	}
}

// invocation is a method running for the debugger in a thread.
type invocation struct {
	done  chan struct{} // closed when it returns
	depth int32         // the thread's frame count before the call
}

// NewSuspensions returns the ledger of a session over conn; timeout bounds the
// commands sent when a method left running returns (0: 10 s).
func NewSuspensions(conn *jdwp.Conn, log zerolog.Logger, timeout time.Duration) *Suspensions {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	return &Suspensions{
		conn: conn, log: log, timeout: timeout,
		held:     map[jdwp.ThreadID]int{},
		events:   map[jdwp.ThreadID]int{},
		invoking: map[jdwp.ThreadID]*invocation{},
		during:   map[jdwp.ThreadID]int{},
		ran:      map[jdwp.ThreadID]bool{},
	}
}

// EventArrived books the suspension of an event set reported with the
// event thread's policy: its handling owns it until it releases it
// (ReleaseEvent) or makes it a stop (HoldEventAsThread, HoldEventAsVM).
// Call it as the set is read, before anything runs in the thread.
func (s *Suspensions) EventArrived(thread jdwp.ThreadID) {
	s.mu.Lock()
	s.events[thread]++
	s.mu.Unlock()
}

// DuringArrived books the suspension of an event set a thread raised while
// it runs a method for the debugger (its policy the event thread's): such a
// set never stops, and ReleaseDuring lets the method go on. Until then a
// continue keeps the thread's count (the method must not run on twice).
func (s *Suspensions) DuringArrived(thread jdwp.ThreadID) {
	s.mu.Lock()
	s.during[thread]++
	s.mu.Unlock()
}

// ReleaseDuring releases the suspension DuringArrived booked.
func (s *Suspensions) ReleaseDuring(ctx context.Context, thread jdwp.ThreadID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.during[thread]--; s.during[thread] <= 0 {
		delete(s.during, thread)
	}
	if err := s.conn.ResumeThread(ctx, thread); err != nil && jdwp.Code(err) != jdwp.ErrInvalidThread {
		return err
	}
	return nil
}

// countsTrust is what the ledger has seen of the VM's suspend counts.
type countsTrust int8

const (
	countsUnknown countsTrust = iota // none read yet where the ledger knew it
	countsTrusted                    // every one read where the ledger knew it was the ledger's
	countsOdd                        // one was not: ask, for the rest of the session
)

// ReleaseEvent releases an event set's suspension that does not stop: at
// once, or, when the thread runs a method for the debugger (a condition left
// running), when that method returns.
//
// When the ledger knows the thread's count is this event's 1 (soleEvent)
// and the VM's counts have shown to be the ledger's, the release is the
// thread's resume alone (one round trip on a slow link, not two: asking the
// count after the resume would read the thread's next event's count, as it
// runs on at once). Else the count is asked first and brought to what the
// ledger owes.
func (s *Suspensions) ReleaseEvent(ctx context.Context, thread jdwp.ThreadID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sole := s.soleEventLocked(thread)
	s.dropEvent(thread)
	s.release(thread)
	if s.invoking[thread] != nil {
		return nil // Exit settles the count
	}
	if sole && s.counts == countsTrusted {
		if err := s.conn.ResumeThread(ctx, thread); err != nil && jdwp.Code(err) != jdwp.ErrInvalidThread {
			return fmt.Errorf("resume thread: %w", err)
		}
		return nil
	}
	n, err := s.settleCountLocked(ctx, thread)
	if err == nil && sole {
		s.countsSeenLocked(thread, n, 1)
	}
	return err
}

// soleEventLocked reports whether the ledger knows thread's count is
// exactly the 1 of its one event set reported with the event thread's
// policy: the session holds neither the VM nor the thread, owes it no other
// event set, and no method ran in it since (an invocation's resume and
// re-suspension are the agent's, Exit settles them from the VM's count).
func (s *Suspensions) soleEventLocked(thread jdwp.ThreadID) bool {
	return s.vm == 0 && s.held[thread] == 0 && s.events[thread] == 1 && !s.ran[thread] &&
		s.invoking[thread] == nil && s.during[thread] == 0
}

// countsSeenLocked notes a count n the VM reported for thread where the
// ledger knew it should be want: the first such read trusts the VM's
// counts, a mismatch distrusts them for the session (a VM that counts
// otherwise, or a suspension the session did not make: another debugger's
// through the monitor).
func (s *Suspensions) countsSeenLocked(thread jdwp.ThreadID, n, want int) {
	switch {
	case n != want && s.counts != countsOdd:
		s.counts = countsOdd
		s.log.Info().Uint64("thread", uint64(thread)).Int("count", n).Int("known", want).Msg("a thread's suspend count is not the ledger's where it knew it: released events' counts are asked from now on")
	case n == want && s.counts == countsUnknown:
		s.counts = countsTrusted
	}
}

// settleLocked brings thread's count to what the ledger owes it, from the
// count the VM reports.
func (s *Suspensions) settleLocked(ctx context.Context, thread jdwp.ThreadID) error {
	_, err := s.settleCountLocked(ctx, thread)
	return err
}

// settleCountLocked is settleLocked, saying the count the VM reported.
func (s *Suspensions) settleCountLocked(ctx context.Context, thread jdwp.ThreadID) (int, error) {
	n, err := s.conn.SuspendCount(ctx, thread)
	if err != nil {
		return 0, err
	}
	s.restoreLocked(ctx, thread, int(n))
	return int(n), nil
}

func (s *Suspensions) dropEvent(thread jdwp.ThreadID) {
	if s.events[thread]--; s.events[thread] <= 0 {
		delete(s.events, thread)
		delete(s.ran, thread)
	}
}

// HoldEventAsThread makes an event set's suspension the session's hold of
// that thread alone (a stop with suspendAllThreads off). No command is sent.
func (s *Suspensions) HoldEventAsThread(thread jdwp.ThreadID) {
	s.mu.Lock()
	s.dropEvent(thread)
	s.held[thread]++
	s.mu.Unlock()
}

// HoldEventAsVM makes a stop in thread suspend the whole VM: the VM-wide
// hold is taken unless the session holds one already (other threads'
// stops share it, so each stopped thread's count stays 1 and it can still
// run methods), and the event's own suspension is folded into it. Threads
// running a method for the debugger are kept running: a stop never waits
// for an evaluation, and no evaluation hangs on a stop. queued, when not
// nil, runs once the VM-wide suspend is on its way (every command sent
// after it reaches the VM after it: a stop's reads start there, beside the
// fold rather than after it).
func (s *Suspensions) HoldEventAsVM(ctx context.Context, thread jdwp.ThreadID, queued func()) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if queued == nil {
		queued = func() {}
	}
	invoking := s.invoking[thread] != nil
	if s.vm == 0 && !invoking && !s.ran[thread] && s.events[thread] == 1 && s.held[thread] == 0 {
		return s.holdPlainLocked(ctx, thread, queued)
	}

	// The suspend and the thread's count are asked at once (one round trip
	// on a slow link): the count the VM reports is the one after the
	// suspend, as the VM runs commands in order.
	var n int32
	var nerr error
	if s.vm > 0 {
		queued()
		if !invoking {
			n, nerr = s.conn.SuspendCount(ctx, thread)
		}
	} else {
		wait := sendQueued(ctx, s.conn.Suspend)
		if len(s.invoking) == 0 && s.onHeld != nil {
			s.onHeld() // what is read from here on is read after the suspend
		}
		queued()
		if !invoking {
			n, nerr = s.conn.SuspendCount(ctx, thread)
		}
		if err := wait(); err != nil {
			if s.runs != nil {
				s.runs()
			}
			return fmt.Errorf("suspend the VM: %w", err)
		}
		s.tookVMLocked(ctx)
	}
	s.dropEvent(thread)
	if invoking {
		return nil // Exit settles the count
	}
	// Fold the event's suspension into the VM's by bringing the thread's
	// count to what the ledger owes it, from the count the VM reports: a
	// blind resume would let a thread the VM-wide suspend did not reach
	// run on while it is shown stopped.
	if nerr != nil {
		return fmt.Errorf("fold the thread's suspension into the VM's: %w", nerr)
	}
	s.restoreLocked(ctx, thread, int(n))
	return nil
}

// holdPlainLocked is HoldEventAsVM for the plain case — nothing held, no
// method run in the thread since its event (its count is the event's one,
// and the VM-wide suspend makes it two) — in one burst: the suspend, the
// thread's resume that folds the event's count into the VM's, and the
// thread's count, which says whether the fold went as counted; should it
// not, the count is brought to what the ledger owes (the thread is
// suspended again before the stop is shown).
func (s *Suspensions) holdPlainLocked(ctx context.Context, thread jdwp.ThreadID, queued func()) error {
	suspended := sendQueued(ctx, s.conn.Suspend)
	if s.onHeld != nil && len(s.invoking) == 0 {
		s.onHeld() // what is read from here on is read after the suspend
	}
	resumed := sendQueued(ctx, func(ctx context.Context) error { return s.conn.ResumeThread(ctx, thread) })
	queued()
	n, nerr := s.conn.SuspendCount(ctx, thread)
	rerr := resumed()
	if err := suspended(); err != nil {
		if s.runs != nil {
			s.runs()
		}
		if rerr == nil { // the event's count went: the thread runs
			s.restoreLocked(ctx, thread, 0)
		}
		return fmt.Errorf("suspend the VM: %w", err)
	}
	s.tookVMLocked(ctx)
	s.dropEvent(thread)
	if nerr != nil {
		return fmt.Errorf("fold the thread's suspension into the VM's: %w", nerr)
	}
	owed := s.owedLocked(thread)
	s.countsSeenLocked(thread, int(n), owed)
	if int(n) != owed {
		s.log.Warn().Uint64("thread", uint64(thread)).Int32("count", n).Int("owed", owed).Msg("a stopped thread's count after the fold is not the ledger's: set to it")
		s.restoreLocked(ctx, thread, int(n))
	}
	return nil
}

// sendQueued sends one command (send) on a goroutine and returns once it
// is queued on the connection, or done: every command sent after it
// reaches the VM after it. wait returns its error (call it once).
func sendQueued(ctx context.Context, send func(context.Context) error) (wait func() error) {
	q := make(chan struct{})
	var once sync.Once
	res := make(chan error, 1)
	go func() {
		err := send(jdwp.WithQueued(ctx, func() { once.Do(func() { close(q) }) }))
		once.Do(func() { close(q) })
		res <- err
	}()
	<-q
	return func() error { return <-res }
}

// suspendVMLocked takes the VM-wide hold if none is held.
func (s *Suspensions) suspendVMLocked(ctx context.Context) error {
	if s.vm > 0 {
		return nil
	}
	if err := s.conn.Suspend(ctx); err != nil {
		return fmt.Errorf("suspend the VM: %w", err)
	}
	s.tookVMLocked(ctx)
	return nil
}

// tookVMLocked books the VM-wide hold the session just took: threads
// running a method for the debugger are let go again; with none, nothing
// in the VM runs until a release.
func (s *Suspensions) tookVMLocked(ctx context.Context) {
	s.vm = 1
	for t := range s.invoking {
		if err := s.conn.ResumeThread(ctx, t); err != nil && s.conn.Err() == nil {
			s.log.Warn().Err(err).Uint64("thread", uint64(t)).Msg("keep a thread running a method for the debugger running")
		}
	}
	s.heldLocked()
}

// heldLocked tells the owner nothing in the VM runs, when so: the VM-wide
// hold is taken and no thread runs a method for the debugger.
func (s *Suspensions) heldLocked() {
	if s.vm > 0 && len(s.invoking) == 0 && s.onHeld != nil {
		s.onHeld()
	}
}

// SuspendVM takes the VM-wide hold (a pause) unless one is held; it
// reports whether it took one.
func (s *Suspensions) SuspendVM(ctx context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.vm > 0 {
		return false, nil
	}
	return true, s.suspendVMLocked(ctx)
}

// AdoptVM books a VM-wide suspension the VM made itself: an event set
// reported with SUSPEND_ALL whose suspension the session keeps (VM_START
// held until the client is configured).
func (s *Suspensions) AdoptVM() {
	s.mu.Lock()
	s.vm++
	s.heldLocked()
	s.mu.Unlock()
}

// SuspendThread suspends one thread for the session (a pause with
// suspendAllThreads off).
func (s *Suspensions) SuspendThread(ctx context.Context, thread jdwp.ThreadID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.invoking[thread] == nil {
		if err := s.conn.SuspendThread(ctx, thread); err != nil {
			return err
		}
	}
	s.held[thread]++
	return nil
}

// ResumeAll releases every hold the session has (VM-wide and single
// threads); event sets still deciding keep theirs.
func (s *Suspensions) ResumeAll(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.release(0)
	// Threads whose event sets are still owned (a condition deciding, a
	// stop held back to be shown in turn) must stay suspended through the
	// VM-wide resume whatever the agent counted when: each gets one count
	// of its own first, and is settled to what the ledger owes afterwards.
	//
	// A thread running a method for the debugger gets one count per
	// VM-wide resume too, so the resume leaves its count as it was: the
	// VM-wide resume would otherwise take the count the agent put back
	// when the method returned — the method may have returned a moment
	// ago, its reply not read yet (Exit not run) — and the thread would
	// run on from where it stopped, its stop shown with the thread gone
	// (TestConditionCallsExactHits/suspendAll: a condition decided while
	// another stop was let go). Still in the method, the count goes from
	// 0 to 1 and back: it runs on. An event set raised inside the method
	// and not released yet keeps its count likewise.
	var kept []jdwp.ThreadID
	if s.vm > 0 {
		for t := range s.events {
			if s.invoking[t] == nil && s.during[t] == 0 && s.conn.SuspendThread(ctx, t) == nil {
				kept = append(kept, t)
			}
		}
		running := map[jdwp.ThreadID]bool{}
		for t := range s.invoking {
			running[t] = true
		}
		for t := range s.during {
			running[t] = true
		}
		for t := range running {
			for i := 0; i < s.vm; i++ {
				if err := s.conn.SuspendThread(ctx, t); err != nil {
					if jdwp.Code(err) != jdwp.ErrInvalidThread {
						s.log.Warn().Err(err).Msg("keep a thread running a method as it is through a resume")
					}
					break
				}
			}
		}
	}
	var first error
	for ; s.vm > 0; s.vm-- {
		if err := s.conn.Resume(ctx); err != nil {
			first = fmt.Errorf("resume the VM: %w", err)
			break
		}
	}
	for t, n := range s.held {
		if err := s.resumeThreadLocked(ctx, t, n); err != nil && first == nil {
			first = err
		}
	}
	for _, t := range kept {
		if err := s.settleLocked(ctx, t); err != nil && first == nil && jdwp.Code(err) != jdwp.ErrInvalidThread {
			first = err
		}
	}
	return first
}

// ResumeThread releases the session's holds of one thread.
func (s *Suspensions) ResumeThread(ctx context.Context, thread jdwp.ThreadID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resumeThreadLocked(ctx, thread, s.held[thread])
}

func (s *Suspensions) resumeThreadLocked(ctx context.Context, thread jdwp.ThreadID, n int) error {
	delete(s.held, thread)
	s.release(thread)
	if s.invoking[thread] != nil {
		return nil // running a method: Exit settles the count
	}
	for ; n > 0; n-- {
		if err := s.conn.ResumeThread(ctx, thread); err != nil && jdwp.Code(err) != jdwp.ErrInvalidThread {
			return fmt.Errorf("resume thread: %w", err)
		}
	}
	return nil
}

// HoldsAlone reports whether the session holds thread suspended by itself
// (the VM as a whole is not).
func (s *Suspensions) HoldsAlone(thread jdwp.ThreadID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.vm == 0 && s.held[thread] > 0
}

// VMHeld reports whether the session holds the whole VM suspended.
func (s *Suspensions) VMHeld() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.vm > 0
}

// Holding reports whether the session holds any suspension (a stop or a
// pause, of the VM or of a thread).
func (s *Suspensions) Holding() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.vm > 0 || len(s.held) > 0
}

// owedLocked is what the ledger says thread's suspend count should be.
func (s *Suspensions) owedLocked(thread jdwp.ThreadID) int {
	return s.vm + s.held[thread] + s.events[thread]
}

// Enter prepares an invocation in thread (the mirror's InvokeHooks): it
// waits for the thread's previous invocation to return (one per thread, no
// nesting), then, holding the ledger, brings the thread's suspend count to
// exactly 1, so the one resume InvokeMethod performs starts the call.
// sent must be called once the invocation command is queued on the
// connection (it releases the ledger: a later resume reaches the VM after
// the command); Exit must follow when the method returns or the command
// failed, however late.
//
// When the ledger owes the thread exactly one count (a stop's hold), the
// count the VM reports is asked beside the invocation rather than before
// it (one round trip on a slow link, not two): the VM runs commands in
// order, so the count read is the one the invocation meets. Should it be
// higher after all, sent resumes the thread down to it at once (the agent's
// resume left it suspended: the call starts then); at 0 the VM refuses the
// invocation itself.
func (s *Suspensions) Enter(ctx context.Context, thread jdwp.ThreadID) (sent func(), err error) {
	for {
		s.mu.Lock()
		busy := s.invoking[thread]
		if busy == nil {
			break
		}
		s.mu.Unlock()
		select {
		case <-busy.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("the thread is running another method for the debugger: %w", ctx.Err())
		}
	}
	// s.mu is held. What the front end asks of the thread is read first
	// (its frames, from the stop when read there): the thread's count is
	// at least 1 while the ledger owes it one.
	depth, known := int32(0), false
	if s.remember != nil {
		depth, known = s.remember(ctx, thread)
	}
	if s.owedLocked(thread) == 1 && s.during[thread] == 0 {
		var count func() (int32, error)
		if !known {
			var n int32
			wait := sendQueued(ctx, func(ctx context.Context) (err error) { n, err = s.conn.SuspendCount(ctx, thread); return })
			depth, err = s.conn.FrameCount(ctx, thread)
			if werr := wait(); err == nil && werr != nil {
				err = werr
			}
			if err == nil && n != 1 {
				err = s.oddCountLocked(ctx, thread, n)
			}
			if err != nil {
				s.mu.Unlock()
				return nil, err
			}
		} else {
			var n int32
			wait := sendQueued(ctx, func(ctx context.Context) (err error) { n, err = s.conn.SuspendCount(ctx, thread); return })
			count = func() (int32, error) { return n, wait() }
		}
		return s.enteredLocked(ctx, thread, depth, count), nil
	}
	n, err := s.conn.SuspendCount(ctx, thread)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if err := s.oddCountLocked(ctx, thread, n); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if !known {
		if depth, err = s.conn.FrameCount(ctx, thread); err != nil {
			s.restoreLocked(ctx, thread, 1)
			s.mu.Unlock()
			return nil, err
		}
	}
	return s.enteredLocked(ctx, thread, depth, nil), nil
}

// oddCountLocked brings a count n read from the VM to 1 before an
// invocation: an error at 0 (as the VM would answer InvokeMethod), resumes
// above.
func (s *Suspensions) oddCountLocked(ctx context.Context, thread jdwp.ThreadID, n int32) error {
	if n == 0 {
		// As the VM would answer InvokeMethod (jdwp.Code says so too).
		return fmt.Errorf("%w (%w)", ErrNotSuspended, jdwp.ErrThreadNotSuspended)
	}
	for ; n > 1; n-- {
		if err := s.conn.ResumeThread(ctx, thread); err != nil {
			s.restoreLocked(ctx, thread, int(n))
			return err
		}
	}
	return nil
}

// enteredLocked books the invocation about to be sent; the sent it returns
// releases the ledger, after checking the count asked beside the
// invocation (count, when not nil).
func (s *Suspensions) enteredLocked(ctx context.Context, thread jdwp.ThreadID, depth int32, count func() (int32, error)) (sent func()) {
	s.invoking[thread] = &invocation{done: make(chan struct{}), depth: depth}
	if s.events[thread] > 0 {
		s.ran[thread] = true // its event's count is no longer known to be the agent's
	}
	if s.runs != nil {
		s.runs() // a method runs: what only a running thread changes may change
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			if count != nil {
				if n, err := count(); err == nil && n > 1 {
					s.log.Debug().Uint64("thread", uint64(thread)).Int32("count", n).Msg("a thread's count was above the ledger's at an invocation: let it start")
					for ; n > 1; n-- {
						if err := s.conn.ResumeThread(ctx, thread); err != nil {
							break
						}
					}
				}
			}
			s.mu.Unlock()
		})
	}
}

// Exit settles thread's count when its invocation is over (returned,
// failed, or never sent; the agent leaves the thread suspended once): the
// count becomes what the ledger owes the thread now — 0 if the session let
// it go meanwhile (a continue, a cancel), more if a stop or pause happened.
func (s *Suspensions) Exit(thread jdwp.ThreadID) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	if inv := s.invoking[thread]; inv != nil {
		close(inv.done)
		delete(s.invoking, thread)
	}
	if s.conn.Err() != nil {
		return
	}
	if err := s.settleLocked(ctx, thread); err != nil && s.conn.Err() == nil {
		s.log.Warn().Err(err).Msg("settle a thread's count after a method ran for the debugger")
	}
	s.heldLocked()
}

// restoreLocked brings thread's count from have to what the ledger owes.
func (s *Suspensions) restoreLocked(ctx context.Context, thread jdwp.ThreadID, have int) {
	want := s.owedLocked(thread)
	for ; have < want; have++ {
		if err := s.conn.SuspendThread(ctx, thread); err != nil {
			s.log.Warn().Err(err).Msg("suspend a thread again after a method ran for the debugger")
			return
		}
	}
	for ; have > want; have-- {
		if err := s.conn.ResumeThread(ctx, thread); err != nil {
			if jdwp.Code(err) != jdwp.ErrInvalidThread {
				s.log.Warn().Err(err).Msg("resume a thread after a method ran for the debugger")
			}
			return
		}
	}
}

var (
	// ErrCannotAbort says a method running for the debugger could not be
	// stopped: it runs native code (Thread.sleep, Object.wait, I/O), which
	// the VM cannot make return.
	ErrCannotAbort = errors.New("the method cannot be stopped while it runs native code (a sleep, a wait, I/O); it goes on until that returns")
	// ErrInsideCalls says a method running for the debugger could not be
	// stopped without harm: it is inside methods it called, and only the
	// method itself is made to return.
	ErrInsideCalls = errors.New("the method cannot be stopped without harm while it is inside methods it called; it goes on until it returns")
)

// Abort stops the method running for the debugger in thread, as a
// debugger's "force return" does, when that does no harm: if the method
// itself is the thread's top frame (a loop of its own), the thread is
// suspended, the method made to return ret's zero value at once (JDWP
// ForceEarlyReturn) and the thread let go: the invocation then returns,
// Exit settles the count, and the thread is back where it stopped, usable;
// the method's side effects up to then stay. Inside methods it called
// (ErrInsideCalls) or in native code (ErrCannotAbort) it is left running:
// popping frames could leave the program broken for good. HotSpot holds
// ThreadReference.Stop and Interrupt back until an invocation ends, so this
// is the only way to end one early.
func (s *Suspensions) Abort(ctx context.Context, thread jdwp.ThreadID, ret jdwp.Tag) error {
	// Right after InvokeMethod the thread runs but has not entered the
	// method yet (the agent's own frames are not Java frames): look again
	// a moment later, the ledger free in between so the call can end.
	// Inside a call it is looked at again a few times too (a print, a
	// short call of its own), then left to run.
	wait, inside := 5*time.Millisecond, 0
	for {
		err := s.abortOnce(ctx, thread, ret)
		if errors.Is(err, ErrInsideCalls) {
			if inside++; inside > 5 {
				return err
			}
		} else if !errors.Is(err, errNotEntered) {
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", err, ctx.Err())
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// errNotEntered says the thread has not entered the invoked method yet
// (or has just left it).
var errNotEntered = errors.New("the method has not started or has just returned")

func (s *Suspensions) abortOnce(ctx context.Context, thread jdwp.ThreadID, ret jdwp.Tag) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	inv := s.invoking[thread]
	if inv == nil {
		return nil // it returned: the caller sees it
	}
	if err := s.conn.SuspendThread(ctx, thread); err != nil {
		return err
	}
	err := s.forceReturnLocked(ctx, thread, inv.depth, ret)
	if rerr := s.conn.ResumeThread(ctx, thread); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

func (s *Suspensions) forceReturnLocked(ctx context.Context, thread jdwp.ThreadID, depth int32, ret jdwp.Tag) error {
	n, err := s.conn.FrameCount(ctx, thread)
	if err != nil {
		return err
	}
	k := n - depth // the method's frames, its own the deepest
	if k < 1 {
		return fmt.Errorf("%w (%d frames, as before the call)", errNotEntered, n)
	}
	if k >= 2 {
		// Popping the frames it called would skip their finally blocks and
		// could cut a class initializer or a lock's release in half, which
		// breaks the program for good (a failed <clinit> stays failed); and
		// HotSpot's agent blocks its command loop until a pop completes.
		return fmt.Errorf("%w (%d calls deep)", ErrInsideCalls, k-1)
	}
	// Only at a plain instruction: at one that calls, creates or resolves
	// (an invoke, invokedynamic's bootstrap, new, ldc of a dynamic
	// constant) the VM may be inside
	// that work, and cutting it short there has crashed HotSpot 17 (a
	// call site's bootstrap left half resolved): look again a moment later.
	if fs, err := s.conn.Frames(ctx, thread, 0, 1); err != nil || len(fs) == 0 {
		return fmt.Errorf("%w (its frame: %v)", ErrInsideCalls, err)
	} else if code, err := s.conn.Bytecodes(ctx, fs[0].Location.Class, fs[0].Location.Method); err != nil || fs[0].Location.Index >= uint64(len(code)) || unsafeToCut(code[fs[0].Location.Index]) {
		return fmt.Errorf("%w (at an instruction that calls or resolves)", ErrInsideCalls)
	}
	if err := s.conn.ForceEarlyReturn(ctx, thread, zeroOf(ret)); err != nil {
		if jdwp.Code(err) == jdwp.ErrOpaqueFrame {
			return ErrCannotAbort
		}
		return fmt.Errorf("make the method return: %w", err)
	}
	return nil
}

// unsafeToCut reports whether a method stopped at opcode op may be inside
// work of the VM's own: ldc/ldc_w/ldc2_w (dynamic constants), the
// invokes, invokedynamic, new, anewarray, multianewarray, checkcast,
// instanceof. (A static field's class initializer runs as a frame of its
// own, which the depth check sees.)
func unsafeToCut(op byte) bool {
	switch op {
	case 0x12, 0x13, 0x14, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb, 0xbd, 0xc0, 0xc1, 0xc5:
		return true
	}
	return false
}

// zeroOf is the zero value of a return type's tag (void for none).
func zeroOf(t jdwp.Tag) jdwp.Value {
	switch {
	case t == 0 || t == jdwp.TagVoid:
		return jdwp.Value{Tag: jdwp.TagVoid}
	case t.IsObject():
		return jdwp.Value{Tag: jdwp.TagObject}
	}
	return jdwp.Value{Tag: t}
}

// String describes what the ledger holds ("nothing held" when nothing).
func (s *Suspensions) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var parts []string
	if s.vm > 0 {
		parts = append(parts, fmt.Sprintf("the VM %d×", s.vm))
	}
	for t, n := range s.held {
		parts = append(parts, fmt.Sprintf("thread %d held %d×", t, n))
	}
	for t, n := range s.events {
		parts = append(parts, fmt.Sprintf("thread %d by %d event sets", t, n))
	}
	for t := range s.invoking {
		parts = append(parts, fmt.Sprintf("thread %d running a method", t))
	}
	for t, n := range s.during {
		parts = append(parts, fmt.Sprintf("thread %d by %d event sets inside a method", t, n))
	}
	if len(parts) == 0 {
		return "nothing held"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
