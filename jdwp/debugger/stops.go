package debugger

import (
	"slices"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Stop reasons a front end reports, as DAP names them; others are the
// front end's own ("breakpoint", "step", "exception", …).
const (
	ReasonPause = "pause" // a pause request, not an event: no methods run there
)

// Stops is the stop state of a session: whether it is stopped (a stop was
// reported and nothing resumed since), the thread and reason of the latest
// stop, and why each stopped thread stopped. It sends nothing: the
// suspensions behind a stop are the ledger's (Suspensions).
type Stops struct {
	mu      sync.Mutex
	stopped bool
	thread  jdwp.ThreadID
	reason  string
	reasons map[jdwp.ThreadID]string
	watch   watchers // told of every stop and resume (Watch, memory_watch.go)
}

// NewStops returns the state of a session that is not stopped.
func NewStops() *Stops { return &Stops{reasons: map[jdwp.ThreadID]string{}} }

// Stop records a stop of thread for reason; it becomes the latest.
func (s *Stops) Stop(thread jdwp.ThreadID, reason string) {
	s.mu.Lock()
	s.stopped, s.thread, s.reason = true, thread, reason
	s.reasons[thread] = reason
	s.mu.Unlock()
	s.watch.tell(true)
}

// ResumedAll records that every stop was let go.
func (s *Stops) ResumedAll() {
	s.mu.Lock()
	s.stopped, s.thread, s.reason = false, 0, ""
	s.reasons = map[jdwp.ThreadID]string{}
	s.mu.Unlock()
	s.watch.tell(false)
}

// ResumedThread records that thread was let go alone; the session stays
// stopped while holding says other suspensions are held.
func (s *Stops) ResumedThread(thread jdwp.ThreadID, holding bool) {
	s.mu.Lock()
	delete(s.reasons, thread)
	if s.thread == thread {
		s.thread, s.reason = 0, ""
	}
	s.stopped = holding
	s.mu.Unlock()
	s.watch.tell(false)
}

// Ended records that the VM is gone: nothing is stopped.
func (s *Stops) Ended() {
	s.mu.Lock()
	s.stopped = false
	s.mu.Unlock()
	s.watch.tell(false)
}

// Stopped reports whether the session is stopped.
func (s *Stops) Stopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// Latest returns the latest stop's thread and reason, and whether the
// session is stopped.
func (s *Stops) Latest() (thread jdwp.ThreadID, reason string, stopped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.thread, s.reason, s.stopped
}

// Reason is why thread stopped ("" if it did not).
func (s *Stops) Reason(thread jdwp.ThreadID) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reasons[thread]
}

// AtEvents lists the stopped threads other than except that stopped at an
// event (not a pause): the ones that can run methods for the debugger.
func (s *Stops) AtEvents(except jdwp.ThreadID) []jdwp.ThreadID {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []jdwp.ThreadID
	for t, r := range s.reasons {
		if t != except && r != ReasonPause && r != "paused" {
			out = append(out, t)
		}
	}
	return out
}

// StoppedFirst orders threads for a front end's list: the latest stop's
// thread first, then the other stopped threads, then the rest, each group
// in the VM's order (an editor focuses and expands the stopped thread; at
// the end of a long list it went unseen).
func (s *Stops) StoppedFirst(threads []jdwp.ThreadID) []jdwp.ThreadID {
	s.mu.Lock()
	defer s.mu.Unlock()
	rank := func(t jdwp.ThreadID) int {
		switch {
		case s.stopped && t == s.thread:
			return 0
		case s.reasons[t] != "":
			return 1
		}
		return 2
	}
	out := slices.Clone(threads)
	slices.SortStableFunc(out, func(a, b jdwp.ThreadID) int { return rank(a) - rank(b) })
	return out
}
