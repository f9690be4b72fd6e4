package dap

import (
	"context"
	"time"

	"github.com/ddmbridge/ddmbridge/dap/longreq"
	godap "github.com/google/go-dap"
)

// Long requests (package longreq): the reader goroutine answers cancel
// requests itself, while the request they name is being handled or still
// queued; work that takes long — an evaluation that runs past
// progressDelay, loadedSources, an Android launch, a heap dump — reports
// progress when the client shows it, and cancelling the progress cancels
// its request.

// progressDelay is how long an evaluation runs before it shows progress.
var progressDelay = 300 * time.Millisecond

// reqCtx bounds the VM calls of the request being handled; the client may
// cancel it.
func (s *session) reqCtx() (context.Context, context.CancelFunc) { return s.reqCtxOf(s.curSeq) }

// reqCtxOf is reqCtx for request seq (a request handled off the request
// loop, see the inspect lanes).
func (s *session) reqCtxOf(seq int) (context.Context, context.CancelFunc) {
	return s.long.Context(s.ctx, s.cfg.RequestTimeout, seq)
}

// isCancelled reports whether the client cancelled request seq.
func (s *session) isCancelled(seq int) bool { return s.long.Cancelled(seq) }

// onCancelRequest runs on the reader goroutine: it cancels a request being
// handled or waiting, or the request behind a progress.
func (s *session) onCancelRequest(r *godap.CancelRequest) {
	s.long.Cancel(r.Arguments)
	s.send(&godap.CancelResponse{Response: newResponse(&r.Request)})
}

// startProgress sends progressStart for work of request seq (0 for none),
// if the client shows progress.
func (s *session) startProgress(seq int, title, message string) *longreq.Progress {
	return s.long.Start(seq, title, message)
}

// progressAfter shows progress for request seq if the work outlasts
// progressDelay; the returned function ends it.
func (s *session) progressAfter(ctx context.Context, seq int, title string) func() {
	return s.long.After(ctx, seq, title, progressDelay)
}
