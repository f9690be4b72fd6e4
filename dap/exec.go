package dap

import (
	"context"
	"fmt"

	"github.com/ddmbridge/ddmbridge/jdwp"
	godap "github.com/google/go-dap"
)

// Execution control. By default a stop suspends the whole VM, so continue
// and the steps resume all threads: clients are told so with
// allThreadsContinued and, after a step, a continued event. With
// suspendAllThreads false a stop holds its thread alone, and continue, the
// steps and pause act on the thread they name (see suspend.go).

func (s *session) onContinueRequest(r *godap.ContinueRequest) {
	ctx, cancel := s.reqCtx()
	defer cancel()
	d := s.dbg
	t, ok := d.threads.key(r.Arguments.ThreadId)
	if ok {
		d.clearSteps(ctx, t) // a step another thread began goes on
	}
	s.resumeWith(ctx, "continue", t, func(alone bool) []godap.Message {
		return []godap.Message{&godap.ContinueResponse{Response: newResponse(&r.Request), Body: godap.ContinueResponseBody{AllThreadsContinued: !alone}}}
	})
}

// resumeWith sends the answer to a request that resumes (msgs builds it,
// told whether thread t alone resumes) and resumes, with no stop reported in
// between: a stopped event the client reads before the answer was released
// by this resume, one it reads after holds. The answer goes first: once the
// VM runs, a stopped event may follow at once.
func (s *session) resumeWith(ctx context.Context, what string, t jdwp.ThreadID, msgs func(alone bool) []godap.Message) {
	d := s.dbg
	d.stopMu.Lock()
	defer d.stopMu.Unlock()
	alone := t != 0 && d.heldAlone(t)
	for _, m := range msgs(alone) {
		s.send(m)
	}
	s.resumeAfter(ctx, what, t, alone)
}

// resumeAfter resumes thread alone, or the whole VM, after the response to
// a request that does so was sent.
func (s *session) resumeAfter(ctx context.Context, what string, t jdwp.ThreadID, alone bool) {
	if !alone {
		s.resume(ctx, what)
		return
	}
	if err := s.dbg.resumeThread(ctx, t); err != nil {
		s.log.Warn().Err(err).Str("request", what).Msg("resume failed")
		s.output("important", fmt.Sprintf("%s: %v\n", what, err))
	}
}

// resume resumes the VM after the response to a request that does so was
// sent; a failure can then only be reported as output.
func (s *session) resume(ctx context.Context, what string) {
	if err := s.dbg.resumeAll(ctx); err != nil {
		s.log.Warn().Err(err).Str("request", what).Msg("resume failed")
		s.output("important", fmt.Sprintf("%s: %v\n", what, err))
	}
}

// step sets a one-shot line step request for a thread and resumes the VM.
func (s *session) step(req *godap.Request, threadID int, depth jdwp.StepDepth) {
	ctx, cancel := s.reqCtx()
	defer cancel()
	d := s.dbg
	t, ok := d.threads.key(threadID)
	if !ok {
		s.sendError(req, ErrUnableToResume, fmt.Errorf("%s: unknown thread id %d", req.Command, threadID))
		return
	}
	if err := d.startStep(ctx, t, depth, "step"); err != nil {
		s.sendError(req, ErrUnableToResume, fmt.Errorf("%s: %w", req.Command, err))
		return
	}
	s.resumeWith(ctx, req.Command, t, func(alone bool) []godap.Message {
		return []godap.Message{
			&godap.NextResponse{Response: newResponse(req)},
			&godap.ContinuedEvent{Event: newEvent("continued"), Body: godap.ContinuedEventBody{ThreadId: threadID, AllThreadsContinued: !alone}},
		}
	})
}

func (s *session) onNextRequest(r *godap.NextRequest) {
	s.step(&r.Request, r.Arguments.ThreadId, jdwp.StepOver)
}

func (s *session) onStepInRequest(r *godap.StepInRequest) {
	if r.Arguments.TargetId != 0 {
		s.stepInTarget(r)
		return
	}
	s.step(&r.Request, r.Arguments.ThreadId, jdwp.StepInto)
}

func (s *session) onStepOutRequest(r *godap.StepOutRequest) {
	s.step(&r.Request, r.Arguments.ThreadId, jdwp.StepOut)
}

// onPauseRequest suspends the whole VM and reports the thread asked for as paused.
func (s *session) onPauseRequest(r *godap.PauseRequest) {
	ctx, cancel := s.reqCtx()
	defer cancel()
	d := s.dbg
	t, ok := d.threads.key(r.Arguments.ThreadId)
	if !ok {
		ids, err := d.vm.Threads(ctx)
		if err != nil || len(ids) == 0 {
			s.sendError(&r.Request, ErrUnableToPause, fmt.Errorf("pause: unknown thread id %d", r.Arguments.ThreadId))
			return
		}
		t = ids[0]
	}
	if !d.suspendAll() {
		if !d.heldAlone(t) {
			if err := d.pauseThread(ctx, t); err != nil {
				s.sendError(&r.Request, ErrUnableToPause, fmt.Errorf("pause: %w", err))
				return
			}
		}
		s.send(&godap.PauseResponse{Response: newResponse(&r.Request)})
		s.send(&godap.StoppedEvent{Event: newEvent("stopped"), Body: godap.StoppedEventBody{Reason: "pause", ThreadId: d.threads.id(t)}})
		return
	}
	if d.isStopped() {
		s.send(&godap.PauseResponse{Response: newResponse(&r.Request)})
		return
	}
	if err := d.conn.Suspend(ctx); err != nil {
		s.sendError(&r.Request, ErrUnableToPause, fmt.Errorf("pause: %w", err))
		return
	}
	d.mu.Lock()
	d.suspends++
	d.stopped, d.stopThread, d.stopReason = true, t, "paused"
	d.reasons[t] = "paused"
	d.mu.Unlock()
	s.send(&godap.PauseResponse{Response: newResponse(&r.Request)})
	s.send(&godap.StoppedEvent{Event: newEvent("stopped"), Body: godap.StoppedEventBody{
		Reason: "pause", ThreadId: d.threads.id(t), AllThreadsStopped: true,
	}})
}

// onRestartFrameRequest pops frames up to and including the one given and
// steps into the call again, stopping at the method's first line.
func (s *session) onRestartFrameRequest(r *godap.RestartFrameRequest) {
	ctx, cancel := s.reqCtx()
	defer cancel()
	d := s.dbg
	if err := d.cannot("supportsRestartFrame"); err != nil {
		s.sendError(&r.Request, ErrVMCannot, fmt.Errorf("restartFrame: %w", err))
		return
	}
	f, ok := d.frames.get(r.Arguments.FrameId)
	if !ok {
		s.sendError(&r.Request, ErrUnableToResume, fmt.Errorf("restartFrame: unknown frame id %d", r.Arguments.FrameId))
		return
	}
	f, err := d.vm.Live(ctx, f)
	if err != nil {
		s.sendError(&r.Request, ErrUnableToResume, fmt.Errorf("restartFrame: %w", err))
		return
	}
	if err := d.conn.PopFrames(ctx, f.Thread, f.ID); err != nil {
		s.sendError(&r.Request, ErrUnableToResume, fmt.Errorf("restartFrame: %w", err))
		return
	}
	if err := d.startStep(ctx, f.Thread, jdwp.StepInto, "restart"); err != nil {
		s.sendError(&r.Request, ErrUnableToResume, fmt.Errorf("restartFrame: %w", err))
		return
	}
	s.resumeWith(ctx, "restartFrame", f.Thread, func(alone bool) []godap.Message {
		return []godap.Message{
			&godap.RestartFrameResponse{Response: newResponse(&r.Request)},
			&godap.ContinuedEvent{Event: newEvent("continued"), Body: godap.ContinuedEventBody{ThreadId: d.threads.id(f.Thread), AllThreadsContinued: !alone}},
		}
	})
}
