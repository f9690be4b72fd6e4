package dap

import (
	"context"
	"fmt"

	"github.com/ddmbridge/ddmbridge/jdwp"
	godap "github.com/google/go-dap"
)

// Execution control. By default a stop suspends the whole VM, so continue
// and the steps resume all threads: continue answers allThreadsContinued;
// a step implies it (DAP: the other threads resume unless singleThread), so
// no continued event follows any of them. With
// suspendAllThreads false a stop holds its thread alone, and continue, the
// steps and pause act on the thread they name (see suspend.go).

func (s *session) cont(ctx context.Context, r *godap.ContinueRequest) (resumePlan, error) {
	d := s.dbg
	t, ok := d.refs.threads.key(r.Arguments.ThreadId)
	if ok {
		d.t.ClearSteps(ctx, t) // a step another thread began goes on
	}
	return resumePlan{thread: t, body: func(alone bool) any {
		return godap.ContinueResponseBody{AllThreadsContinued: !alone}
	}}, nil
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

// step sets a one-shot line step request for a thread; the route resumes.
func (s *session) step(ctx context.Context, threadID int, depth jdwp.StepDepth) (resumePlan, error) {
	d := s.dbg
	t, ok := d.refs.threads.key(threadID)
	if !ok {
		return resumePlan{}, fmt.Errorf("unknown thread id %d", threadID)
	}
	if err := d.t.Step(ctx, t, depth, "step"); err != nil {
		return resumePlan{}, err
	}
	return resumePlan{thread: t}, nil
}

func (s *session) next(ctx context.Context, r *godap.NextRequest) (resumePlan, error) {
	return s.step(ctx, r.Arguments.ThreadId, jdwp.StepOver)
}

func (s *session) stepIn(ctx context.Context, r *godap.StepInRequest) (resumePlan, error) {
	if r.Arguments.TargetId != 0 {
		return s.stepInTarget(ctx, r)
	}
	return s.step(ctx, r.Arguments.ThreadId, jdwp.StepInto)
}

func (s *session) stepOut(ctx context.Context, r *godap.StepOutRequest) (resumePlan, error) {
	return s.step(ctx, r.Arguments.ThreadId, jdwp.StepOut)
}

// pause suspends the whole VM (a single thread with suspendAllThreads
// off) and reports the thread asked for as paused.
func (s *session) pause(ctx context.Context, r *godap.PauseRequest) (*struct{}, func(), error) {
	d := s.dbg
	t, ok := d.refs.threads.key(r.Arguments.ThreadId)
	if !ok {
		ids, err := d.vm.Threads(ctx)
		if err != nil || len(ids) == 0 {
			return nil, nil, fmt.Errorf("unknown thread id %d", r.Arguments.ThreadId)
		}
		t = ids[0]
	}
	paused, err := d.t.Pause(ctx, t)
	if err != nil || !paused {
		return nil, nil, err
	}
	all := d.suspendAll()
	return nil, func() {
		s.send(&godap.StoppedEvent{Event: newEvent("stopped"), Body: godap.StoppedEventBody{
			Reason: "pause", ThreadId: d.refs.threads.id(t), AllThreadsStopped: all,
		}})
	}, nil
}

// restartFrame pops frames up to and including the one given and steps
// into the call again, stopping at the method's first line.
func (s *session) restartFrame(ctx context.Context, r *godap.RestartFrameRequest) (resumePlan, error) {
	d := s.dbg
	if err := d.cannot("supportsRestartFrame"); err != nil {
		return resumePlan{}, failWith(ErrVMCannot, err)
	}
	f, ok := d.refs.frames.get(r.Arguments.FrameId)
	if !ok {
		return resumePlan{}, fmt.Errorf("unknown frame id %d", r.Arguments.FrameId)
	}
	if err := d.vm.PopFrames(ctx, f); err != nil {
		return resumePlan{}, err
	}
	if err := d.t.Step(ctx, f.Thread, jdwp.StepInto, "restart"); err != nil {
		return resumePlan{}, err
	}
	return resumePlan{thread: f.Thread}, nil
}
