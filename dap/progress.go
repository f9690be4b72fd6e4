package dap

import (
	"context"
	"fmt"
	"sync"
	"time"

	godap "github.com/google/go-dap"
)

// Long requests: cancel and progress events.
//
// The reader goroutine answers cancel requests itself, while the request
// they name is being handled (or still queued): the request's context is
// cancelled, and its error response says "cancelled". Work that takes long
// — an evaluation that runs past progressDelay, loadedSources, an Android
// launch — reports progressStart/Update/End events when the client supports
// them; cancelling the progress cancels its request.

// progressDelay is how long an evaluation runs before it shows progress.
var progressDelay = 300 * time.Millisecond

// cancels tracks the cancellable requests of a session.
type cancels struct {
	mu        sync.Mutex
	inflight  map[int]context.CancelFunc // by request seq
	cancelled map[int]bool               // requests the client cancelled
	progress  map[string]int             // progress id → request seq
}

func (c *cancels) init() {
	c.inflight = map[int]context.CancelFunc{}
	c.cancelled = map[int]bool{}
	c.progress = map[string]int{}
}

// reqCtx bounds the VM calls of the request being handled; the client may
// cancel it.
func (s *session) reqCtx() (context.Context, context.CancelFunc) { return s.reqCtxOf(s.curSeq) }

// reqCtxOf is reqCtx for request seq (a request handled off the request
// loop, see the inspect lanes).
func (s *session) reqCtxOf(seq int) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.RequestTimeout)
	s.cancels.mu.Lock()
	if s.cancels.cancelled[seq] {
		cancel()
	}
	s.cancels.inflight[seq] = cancel
	s.cancels.mu.Unlock()
	return ctx, func() {
		s.cancels.mu.Lock()
		delete(s.cancels.inflight, seq)
		s.cancels.mu.Unlock()
		cancel()
	}
}

// isCancelled reports whether the client cancelled request seq.
func (s *session) isCancelled(seq int) bool {
	s.cancels.mu.Lock()
	defer s.cancels.mu.Unlock()
	return s.cancels.cancelled[seq]
}

// onCancelRequest runs on the reader goroutine: it cancels a request being
// handled or waiting, or the request behind a progress.
func (s *session) onCancelRequest(r *godap.CancelRequest) {
	seq := 0
	if r.Arguments != nil {
		seq = r.Arguments.RequestId
		s.cancels.mu.Lock()
		if r.Arguments.ProgressId != "" {
			seq = s.cancels.progress[r.Arguments.ProgressId]
		}
		if seq != 0 {
			s.cancels.cancelled[seq] = true
			if cancel := s.cancels.inflight[seq]; cancel != nil {
				cancel()
			}
		}
		s.cancels.mu.Unlock()
	}
	s.send(&godap.CancelResponse{Response: newResponse(&r.Request)})
}

// progress is one progress report shown to the client.
type progress struct {
	s       *session
	id      string
	started bool
	mu      sync.Mutex
}

var progressSeq struct {
	sync.Mutex
	n int
}

// startProgress sends progressStart for work of request seq (0 for none),
// if the client shows progress.
func (s *session) startProgress(seq int, title, message string) *progress {
	progressSeq.Lock()
	progressSeq.n++
	p := &progress{s: s, id: fmt.Sprintf("ddmbridge-%d", progressSeq.n)}
	progressSeq.Unlock()
	if !s.client.SupportsProgressReporting {
		return p
	}
	if seq != 0 {
		s.cancels.mu.Lock()
		s.cancels.progress[p.id] = seq
		s.cancels.mu.Unlock()
	}
	p.started = true
	s.send(&godap.ProgressStartEvent{Event: newEvent("progressStart"), Body: godap.ProgressStartEventBody{
		ProgressId: p.id, Title: title, RequestId: seq, Cancellable: seq != 0, Message: message,
	}})
	return p
}

// update reports progress: a message and, if pct >= 0, a percentage.
func (p *progress) update(message string, pct int) {
	if !p.started {
		return
	}
	body := godap.ProgressUpdateEventBody{ProgressId: p.id, Message: message}
	if pct >= 0 {
		body.Percentage = pct
	}
	p.s.send(&godap.ProgressUpdateEvent{Event: newEvent("progressUpdate"), Body: body})
}

// end sends progressEnd (once).
func (p *progress) end(message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.started {
		return
	}
	p.started = false
	p.s.cancels.mu.Lock()
	delete(p.s.cancels.progress, p.id)
	p.s.cancels.mu.Unlock()
	p.s.send(&godap.ProgressEndEvent{Event: newEvent("progressEnd"), Body: godap.ProgressEndEventBody{ProgressId: p.id, Message: message}})
}

// progressAfter shows progress for request seq if the work outlasts
// progressDelay; the returned function ends it.
func (s *session) progressAfter(ctx context.Context, seq int, title string) func() {
	if !s.client.SupportsProgressReporting {
		return func() {}
	}
	var mu sync.Mutex
	var p *progress
	done := false
	t := time.AfterFunc(progressDelay, func() {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			p = s.startProgress(seq, title, "")
		}
	})
	return func() {
		t.Stop()
		mu.Lock()
		defer mu.Unlock()
		done = true
		if p != nil {
			msg := ""
			if ctx.Err() != nil {
				msg = "cancelled"
			}
			p.end(msg)
		}
	}
}
