package dap

import (
	"context"
	"strconv"

	"github.com/ddmbridge/ddmbridge/dap/ext"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	godap "github.com/google/go-dap"
)

// The coroutines request lists a stopped VM's Kotlin coroutines (for a
// Coroutines view beside Threads): the debugger layer reads them
// (jdwp/debugger: Target.Coroutines); this translates. Its messages are
// package ext's.

type (
	coroutinesRequest = ext.CoroutinesRequest
	CoroutinesBody    = ext.CoroutinesBody
)

// defaultCoroutineFrames bounds each coroutine's frames when the request
// does not say.
const defaultCoroutineFrames = 64

func (s *session) coroutines(ctx context.Context, r *coroutinesRequest) (CoroutinesBody, error) {
	d := s.dbg
	count := r.Arguments.Count
	if count <= 0 {
		count = 1000
	}
	maxFrames := defaultCoroutineFrames
	if r.Arguments.Frames != nil {
		maxFrames = max(*r.Arguments.Frames, 0)
	}
	thread, _, _ := d.stops.Latest()
	list, err := d.t.Coroutines(ctx, thread, r.Arguments.Start, count, maxFrames, r.Arguments.CreationStacks)
	if err != nil {
		return CoroutinesBody{}, err
	}
	body := CoroutinesBody{Source: ext.CoroutinesFromContinuations, Note: list.Note, Total: list.Total,
		Start: min(max(r.Arguments.Start, 0), list.Total), Count: len(list.Coroutines), Coroutines: make([]ext.Coroutine, len(list.Coroutines))}
	switch {
	case list.FromRegistry:
		body.Source = ext.CoroutinesFromDebugProbes
	case list.FromInstances:
		body.Source = ext.CoroutinesFromInstances
	case list.FromJobs:
		body.Source = ext.CoroutinesFromJobs
	}
	err = parallel(len(list.Coroutines), func(i int) error {
		c := list.Coroutines[i]
		name := c.Name
		if name == "" {
			name = "coroutine"
		}
		out := ext.Coroutine{ID: c.ID, Name: name + "#" + strconv.FormatInt(c.ID, 10), State: c.State, Dispatcher: c.Dispatcher, Frames: []ext.CoroutineFrame{}}
		if c.Thread != 0 {
			out.ThreadID = d.refs.threads.id(c.Thread)
		}
		for j, f := range c.Frames {
			cf := d.coroutineFrame(ctx, f)
			if j > 0 && f.Async == nil && cf.Line < 0 && d.resumeWrapper(ctx, f.Loc) {
				continue // a continuation's invokeSuspend calling its function
			}
			out.Frames = append(out.Frames, cf)
		}
		for j := range c.Creation {
			sf := d.asyncFrameOf(&c.Creation[j])
			out.CreationStack = append(out.CreationStack, ext.CoroutineFrame{Name: sf.Name, Line: sf.Line, Source: sf.Source})
		}
		body.Coroutines[i] = out
		return nil
	})
	return body, err
}

// coroutineFrame describes a frame of a coroutine's stack.
func (d *debuggee) coroutineFrame(ctx context.Context, f debugger.CoroutineFrame) ext.CoroutineFrame {
	if f.Async != nil {
		sf := d.asyncFrameOf(f.Async)
		return ext.CoroutineFrame{Name: sf.Name, Line: sf.Line, Source: sf.Source}
	}
	sf, err := d.describeFrame(ctx, f.Loc)
	if err != nil {
		return ext.CoroutineFrame{Name: "<unknown frame: " + err.Error() + ">"}
	}
	return ext.CoroutineFrame{Name: sf.Name, Line: sf.Line, Source: sf.Source}
}

// stoppedLane is the lane of a request that runs a method in the stopped
// thread: that thread's.
func stoppedLane(s *session, _ godap.RequestMessage) jdwp.ThreadID {
	th, _, _ := s.dbg.stops.Latest()
	return th
}
