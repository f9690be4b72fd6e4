package longreq

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	godap "github.com/google/go-dap"
)

// Tracker is a session's long requests: the cancellable ones by request
// seq, the ones the client cancelled, and the progress reports shown for
// them. Its zero value is not usable: see New.
type Tracker struct {
	send func(godap.Message)
	// Shows says the client shows progress (supportsProgressReporting).
	shows atomic.Bool

	mu        sync.Mutex
	inflight  map[int]context.CancelFunc // by request seq
	cancelled map[int]bool               // requests the client cancelled
	progress  map[string]int             // progress id → request seq
}

// New returns a tracker whose progress events go out through send.
func New(send func(godap.Message)) *Tracker {
	return &Tracker{send: send, inflight: map[int]context.CancelFunc{}, cancelled: map[int]bool{}, progress: map[string]int{}}
}

// ShowProgress records whether the client shows progress events.
func (t *Tracker) ShowProgress(on bool) { t.shows.Store(on) }

// Context bounds request seq's work by timeout under parent; the client
// may cancel it (Cancel). The returned function ends the request's
// tracking.
func (t *Tracker) Context(parent context.Context, timeout time.Duration, seq int) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	t.mu.Lock()
	if t.cancelled[seq] {
		cancel()
	}
	t.inflight[seq] = cancel
	t.mu.Unlock()
	return ctx, func() {
		t.mu.Lock()
		delete(t.inflight, seq)
		t.mu.Unlock()
		cancel()
	}
}

// Cancelled reports whether the client cancelled request seq.
func (t *Tracker) Cancelled(seq int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cancelled[seq]
}

// Forget drops what is known of request seq once it is answered.
func (t *Tracker) Forget(seq int) {
	t.mu.Lock()
	delete(t.cancelled, seq)
	t.mu.Unlock()
}

// Cancel cancels the request a cancel request names, being handled or
// still queued, or the request behind a progress.
func (t *Tracker) Cancel(a *godap.CancelArguments) {
	if a == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	seq := a.RequestId
	if a.ProgressId != "" {
		seq = t.progress[a.ProgressId]
	}
	if seq != 0 {
		t.cancelled[seq] = true
		if cancel := t.inflight[seq]; cancel != nil {
			cancel()
		}
	}
}

// Progress is one progress report shown to the client.
type Progress struct {
	t       *Tracker
	id      string
	mu      sync.Mutex
	started bool
}

var progressSeq atomic.Int64

func event(name string) godap.Event {
	return godap.Event{ProtocolMessage: godap.ProtocolMessage{Type: "event"}, Event: name}
}

// Start sends progressStart for work of request seq (0 for none; the
// progress is then not cancellable), if the client shows progress.
func (t *Tracker) Start(seq int, title, message string) *Progress {
	p := &Progress{t: t, id: fmt.Sprintf("ddmbridge-%d", progressSeq.Add(1))}
	if !t.shows.Load() {
		return p
	}
	if seq != 0 {
		t.mu.Lock()
		t.progress[p.id] = seq
		t.mu.Unlock()
	}
	p.started = true
	t.send(&godap.ProgressStartEvent{Event: event("progressStart"), Body: godap.ProgressStartEventBody{
		ProgressId: p.id, Title: title, RequestId: seq, Cancellable: seq != 0, Message: message,
	}})
	return p
}

// Update reports progress: a message and, if pct >= 0, a percentage.
func (p *Progress) Update(message string, pct int) {
	p.mu.Lock()
	started := p.started
	p.mu.Unlock()
	if !started {
		return
	}
	body := godap.ProgressUpdateEventBody{ProgressId: p.id, Message: message}
	if pct >= 0 {
		body.Percentage = pct
	}
	p.t.send(&godap.ProgressUpdateEvent{Event: event("progressUpdate"), Body: body})
}

// End sends progressEnd (once).
func (p *Progress) End(message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.started {
		return
	}
	p.started = false
	p.t.mu.Lock()
	delete(p.t.progress, p.id)
	p.t.mu.Unlock()
	p.t.send(&godap.ProgressEndEvent{Event: event("progressEnd"), Body: godap.ProgressEndEventBody{ProgressId: p.id, Message: message}})
}

// After shows progress for request seq if the work outlasts delay; the
// returned function ends it ("cancelled" when ctx was).
func (t *Tracker) After(ctx context.Context, seq int, title string, delay time.Duration) func() {
	if !t.shows.Load() {
		return func() {}
	}
	var mu sync.Mutex
	var p *Progress
	done := false
	timer := time.AfterFunc(delay, func() {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			p = t.Start(seq, title, "")
		}
	})
	return func() {
		timer.Stop()
		mu.Lock()
		defer mu.Unlock()
		done = true
		if p != nil {
			msg := ""
			if ctx.Err() != nil {
				msg = "cancelled"
			}
			p.End(msg)
		}
	}
}
