package mux

import (
	"context"
	"errors"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Several debuggers on one VM share the monitor's connection, so the agent
// sees one debugger. This file keeps them apart:
//
//   - Events go to the debugger whose request caused them (by request id);
//     automatic events (request id 0: VM_START, VM_DEATH) go to all. A
//     composite set is split per debugger, and each debugger's part carries
//     the suspend policy of its own requests (the strongest among its
//     events), as if it were alone: the agent gives the whole set the
//     strongest policy of all its events' requests, and a debugger whose
//     breakpoint suspends nothing must not be told to resume a thread
//     another debugger's breakpoint suspended.
//   - Each debugger's suspensions are counted (holds): VirtualMachine and
//     ThreadReference Suspend, and suspending events it was sent. The agent
//     suspended once for the set; the monitor gives that suspension to one
//     debugger whose part has the set's policy and suspends once more,
//     before any debugger sees the set, for each other debugger whose part
//     suspends (the VM, or the event thread, by its part's policy), so each
//     debugger's resume releases only its own hold. When no part has the
//     set's policy (it came from a request of a debugger that left), the
//     agent's suspension is undone after those.
//     While another debugger is attached, a resume is forwarded only as far
//     as the debugger holds something (else answered here), so it never
//     resumes threads the other suspended.
//   - A debugger that leaves while another stays releases only its own:
//     its holds, event requests, collection pins and HoldEvents. The last
//     one to leave resets the agent (see Session.cleanup).
//
//   - Collection pins are counted per debugger. The agent counts them too
//     (HotSpot 17: two DisableCollections need two EnableCollections), so a
//     debugger leaving sends one EnableCollection per pin it holds and the
//     others' pins on the same objects stay; an EnableCollection from a
//     debugger that holds no pin on the object is answered here while
//     others are attached, so it cannot take theirs.
//
// Ids have one lifetime for all debuggers attached at once: the agent has
// one id table and cannot forget ids per debugger (it drops the table only
// when its connection closes). So while a debugger stays, an id another
// one learnt (before or after leaving) stays valid for it and for any
// debugger joining meanwhile, as long as the object lives; an id does not
// keep its object alive (only a pin does, and pins go with their
// debugger), so a debugger leaving costs the agent table entries, never
// the app's memory. When the last debugger leaves, the agent is reset (see
// Session.cleanup) and every id is INVALID_OBJECT for the next debugger, as
// after a direct detach. ObjectReference.DisposeObjects is per debugger
// already: the agent counts each time it sends an id, and each debugger
// disposes only the count it was sent.

// holds are one debugger's suspensions: VM-wide, and per thread (a thread
// the debugger resumed singly while holding the VM-wide suspension counts
// -1).
type holds struct {
	vm      int
	threads map[jdwp.ObjectID]int
}

func (h *holds) thread(t jdwp.ObjectID, d int) {
	if h.threads == nil {
		h.threads = map[jdwp.ObjectID]int{}
	}
	h.threads[t] += d
	if h.threads[t] == 0 {
		delete(h.threads, t)
	}
}

// live returns the attached debuggers that have not ended.
func (m *Mux) live() []*Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.liveLocked()
}

func (m *Mux) liveLocked() []*Session {
	var out []*Session
	for _, s := range m.dbgs {
		if !s.isEnded() {
			out = append(out, s)
		}
	}
	return out
}

// route delivers an event set to the debuggers it concerns.
func (m *Mux) route(es *jdwp.EventSet, live []*Session) {
	if len(live) == 1 && !m.goneOwns(es) {
		live[0].event(es) // a debugger alone sees everything, as directly
		return
	}
	var targets []*Session
	parts := map[*Session][]jdwp.Event{}
	for _, e := range es.Events {
		if e.RequestID == 0 {
			for _, s := range live {
				if parts[s] == nil {
					targets = append(targets, s)
				}
				parts[s] = append(parts[s], e)
			}
			continue
		}
		for _, s := range live {
			if s.ownsRequest(e.RequestID) {
				if parts[s] == nil {
					targets = append(targets, s)
				}
				parts[s] = append(parts[s], e)
				break
			}
		}
	}
	if len(targets) == 0 {
		if es.SuspendPolicy != jdwp.SuspendNone {
			m.resumeOrphan(es)
		}
		return
	}
	// Each debugger's part has the policy of its own requests; without id
	// sizes no part can be re-encoded, and each gets the set as it came.
	sizes := m.sizes()
	policy := make([]jdwp.SuspendPolicy, len(targets))
	for i, s := range targets {
		policy[i] = es.SuspendPolicy
		if sizes != nil {
			policy[i] = s.partPolicy(parts[s], es.SuspendPolicy)
		}
	}
	if es.SuspendPolicy != jdwp.SuspendNone && len(es.Events) > 0 {
		// One suspension per suspending part, each released by its
		// debugger's own resume; the extra ones are queued (in order, on
		// the one connection) before any debugger sees the set.
		taken := false
		for _, p := range policy {
			switch {
			case p == jdwp.SuspendNone:
			case p == es.SuspendPolicy && !taken:
				taken = true // the agent's own suspension
			default:
				m.suspendAs(p, es)
			}
		}
		if !taken {
			m.resumeAs(es.SuspendPolicy, es)
		}
	}
	for i, s := range targets {
		if policy[i] == es.SuspendPolicy && (len(parts[s]) == len(es.Events) || sizes == nil) {
			s.event(es)
			continue
		}
		sub := &jdwp.EventSet{SuspendPolicy: policy[i], Events: parts[s]}
		sub.Packet = &jdwp.Packet{ID: es.Packet.ID, CmdSet: jdwp.CmdEventComposite.Set, Cmd: jdwp.CmdEventComposite.Cmd, Data: jdwp.EncodeEventSet(sub, sizes)}
		s.event(sub)
	}
}

// partPolicy is the suspend policy of s's part of a set: the strongest of
// its requests' (an automatic event, request id 0, has the set's).
func (s *Session) partPolicy(events []jdwp.Event, set jdwp.SuspendPolicy) jdwp.SuspendPolicy {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := jdwp.SuspendNone
	for _, e := range events {
		q := set
		if e.RequestID != 0 {
			q = min(s.reqIDs[e.RequestID], set)
		}
		p = max(p, q)
	}
	return p
}

// suspendAs queues one more suspension of the kind policy names (the VM, or
// the set's event thread), without waiting.
func (m *Mux) suspendAs(policy jdwp.SuspendPolicy, es *jdwp.EventSet) {
	m.queueThreadOrVM(policy, es, jdwp.CmdVMSuspend, jdwp.CmdThreadSuspend, "suspending for another debugger")
}

// resumeAs queues the undoing of a suspension of the kind policy names,
// without waiting.
func (m *Mux) resumeAs(policy jdwp.SuspendPolicy, es *jdwp.EventSet) {
	m.queueThreadOrVM(policy, es, jdwp.CmdVMResume, jdwp.CmdThreadResume, "undoing the suspension of a departed debugger's request")
}

func (m *Mux) queueThreadOrVM(policy jdwp.SuspendPolicy, es *jdwp.EventSet, vmCmd, threadCmd jdwp.Cmd, what string) {
	cmd, data := vmCmd, []byte(nil)
	if policy == jdwp.SuspendEventThread {
		cmd, data = threadCmd, jdwp.EncodeObjectArg(jdwp.ObjectID(es.Events[0].Thread), m.sizes())
	}
	if _, err := m.conn.StartFunc(nil, cmd, data, func(*jdwp.Call) {}); err != nil {
		m.log.Debug().Err(err).Msg(what + " failed")
	}
}

// goneOwns reports whether an event of es comes from a request of a
// debugger that left and is being cleaned up after (its requests not all
// cleared yet): such an event is no other debugger's, even a debugger
// alone's, which would be stopped by a breakpoint it never set (and hold
// the VM suspended: a gone debugger's method returned, its thread resumed,
// and hit the gone debugger's breakpoint before the cleanup cleared it).
func (m *Mux) goneOwns(es *jdwp.EventSet) bool {
	m.mu.Lock()
	var gone []*Session
	for _, s := range m.dbgs {
		if s.isEnded() {
			gone = append(gone, s)
		}
	}
	m.mu.Unlock()
	for _, s := range gone {
		for _, e := range es.Events {
			if e.RequestID != 0 && s.ownsRequest(e.RequestID) {
				return true
			}
		}
	}
	return false
}

func (s *Session) ownsRequest(id int32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.reqIDs[id]
	return ok
}

// countEvent notes the hold a suspending event set gives s.
func (s *Session) countEvent(es *jdwp.EventSet) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case es.SuspendPolicy == jdwp.SuspendAll:
		s.holds.vm++
	case es.SuspendPolicy == jdwp.SuspendEventThread && len(es.Events) > 0:
		s.holds.thread(jdwp.ObjectID(es.Events[0].Thread), 1)
	}
}

// shared handles a command whose effect must stay with s while other
// debuggers are attached: it counts suspensions, answers resumes of what s
// does not hold and restricts ClearAllBreakpoints to s's breakpoints. It
// returns false when the command is answered here.
func (s *Session) shared(p *jdwp.Packet, cmd jdwp.Cmd) bool {
	switch cmd {
	case jdwp.CmdVMSuspend, jdwp.CmdThreadSuspend, jdwp.CmdVMResume, jdwp.CmdThreadResume, jdwp.CmdEventRequestClearAllBreakpoints,
		jdwp.CmdObjRefDisableCollection, jdwp.CmdObjRefEnableCollection:
	default:
		return true // the hot path: most commands concern no debugger alone
	}
	others := len(s.m.live()) > 1
	switch cmd {
	case jdwp.CmdVMSuspend:
		s.mu.Lock()
		s.holds.vm++
		s.mu.Unlock()
	case jdwp.CmdThreadSuspend:
		if t, ok := s.threadArg(p.Data); ok {
			s.mu.Lock()
			s.holds.thread(t, 1)
			s.mu.Unlock()
		}
	case jdwp.CmdVMResume:
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.holds.vm > 0 {
			// Undo single resumes of threads first, so the VM-wide resume
			// releases each thread exactly once.
			for t, n := range s.holds.threads {
				for ; n < 0; n++ {
					s.send(jdwp.CmdThreadSuspend, t)
				}
				if n == 0 {
					delete(s.holds.threads, t)
				} else {
					s.holds.threads[t] = n
				}
			}
			s.holds.vm--
			return true
		}
		if !others {
			return true
		}
		for t, n := range s.holds.threads {
			if n > 0 {
				s.send(jdwp.CmdThreadResume, t)
				s.holds.thread(t, -1)
			}
		}
		s.replyLater(p.ID)
		return false
	case jdwp.CmdThreadResume:
		t, ok := s.threadArg(p.Data)
		if !ok {
			return true
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		switch {
		case s.holds.threads[t] > 0, s.holds.vm > 0:
			s.holds.thread(t, -1)
			return true
		case !others:
			return true
		}
		s.replyLater(p.ID)
		return false
	case jdwp.CmdObjRefDisableCollection:
		// Counted when sent, so that an EnableCollection right behind it
		// finds it (a failed one is uncounted when its reply comes).
		if o, ok := s.threadArg(p.Data); ok { // an object id, like a thread's
			s.mu.Lock()
			s.pin(o, 1)
			s.mu.Unlock()
		}
	case jdwp.CmdObjRefEnableCollection:
		o, ok := s.threadArg(p.Data)
		if !ok {
			return true
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		switch {
		case s.pins[o] > 0:
			s.pin(o, -1)
			return true
		case !others:
			return true
		}
		// The agent counts pins; those on this object are the other
		// debuggers': s's EnableCollection must not take one of theirs.
		s.replyLater(p.ID)
		return false
	case jdwp.CmdEventRequestClearAllBreakpoints:
		if !others {
			return true
		}
		s.mu.Lock()
		var bps []reqKey
		for k := range s.requests {
			if k.kind == jdwp.EventBreakpoint {
				bps = append(bps, k)
			}
		}
		s.mu.Unlock()
		for _, k := range bps {
			s.m.conn.StartFunc(nil, jdwp.CmdEventRequestClear, jdwp.EncodeClearRequest(k.kind, k.id), func(*jdwp.Call) {})
			s.untrack(k)
		}
		s.replyLater(p.ID)
		return false
	}
	return true
}

// replyLater answers a command here, after what was queued for the VM.
func (s *Session) replyLater(id uint32) {
	go s.reply(id, jdwp.ErrNone)
}

// send queues a one-thread command for the VM, without waiting.
func (s *Session) send(cmd jdwp.Cmd, t jdwp.ObjectID) {
	s.m.conn.StartFunc(nil, cmd, jdwp.EncodeObjectArg(t, s.m.sizes()), func(*jdwp.Call) {})
}

func (s *Session) threadArg(data []byte) (jdwp.ObjectID, bool) {
	t, err := jdwp.DecodeObjectArg(data, s.m.sizes())
	return t, err == nil
}

func (s *Session) untrack(k reqKey) {
	s.mu.Lock()
	delete(s.requests, k)
	delete(s.reqIDs, k.id)
	s.mu.Unlock()
}

// pin counts s's collection pins on o (d: +1 or -1). s.mu is held.
func (s *Session) pin(o jdwp.ObjectID, d int) {
	if s.pins == nil {
		s.pins = map[jdwp.ObjectID]int{}
	}
	if s.pins[o] += d; s.pins[o] <= 0 {
		delete(s.pins, o)
	}
}

// trackFailed uncounts what shared counted for a command that failed.
func (s *Session) trackFailed(fc *fwdCall) {
	if fc.cmd != jdwp.CmdObjRefDisableCollection {
		return
	}
	if o, ok := s.threadArg(fc.data); ok {
		s.mu.Lock()
		s.pin(o, -1)
		s.mu.Unlock()
	}
}

// trackShared notes what a successful command gave s alone: held events.
// (Collection pins are counted when sent: see shared.)
func (s *Session) trackShared(fc *fwdCall) {
	switch fc.cmd {
	case jdwp.CmdVMHoldEvents:
		s.mu.Lock()
		s.holding = true
		s.mu.Unlock()
	case jdwp.CmdVMReleaseEvents:
		s.mu.Lock()
		s.holding = false
		s.mu.Unlock()
	}
}

// releaseShared undoes what s alone holds while other debuggers stay: its
// event requests, suspensions, collection pins and held events.
func (s *Session) releaseShared(ctx context.Context) error {
	m := s.m
	s.mu.Lock()
	reqs := make([]reqKey, 0, len(s.requests))
	for k := range s.requests {
		reqs = append(reqs, k)
	}
	h := s.holds
	pins := s.pins
	holding := s.holding
	s.released = true
	s.mu.Unlock()
	// Its requests are cleared within a window of their own, and what it
	// holds is released after that whatever was left (the error says what).
	cctx, cancel := context.WithTimeout(ctx, m.opts.CleanupTimeout)
	clearErr := m.clearRequests(cctx, reqs, false)
	cancel()
	if err := s.releaseHolds(ctx, h, pins, holding); err != nil || clearErr != nil {
		return errors.Join(clearErr, err)
	}
	return nil
}

// releaseHolds releases a debugger's suspensions, pins and held events.
func (s *Session) releaseHolds(ctx context.Context, h holds, pins map[jdwp.ObjectID]int, holding bool) error {
	m := s.m
	for t, n := range h.threads {
		for ; n < 0 && h.vm > 0; n++ {
			if err := m.conn.SuspendThread(ctx, jdwp.ThreadID(t)); err != nil {
				break
			}
		}
		for ; n > 0; n-- {
			if err := m.conn.ResumeThread(ctx, jdwp.ThreadID(t)); err != nil {
				break // the thread died
			}
		}
	}
	for range h.vm {
		if err := m.conn.Resume(ctx); err != nil {
			return err
		}
	}
	for o, n := range pins {
		for range n {
			m.conn.EnableCollection(ctx, o) // an object collected meanwhile is fine
		}
	}
	if holding {
		return m.conn.ReleaseEvents(ctx)
	}
	return nil
}
