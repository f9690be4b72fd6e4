package debugger

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// The stop answers from the stop: a stopped thread's frames and their
// locals do not change while the debugger runs a method in it (a toString
// for the Variables view, a condition, an evaluation), but the VM refuses to
// read them then (the thread runs). The layer keeps what it read of each
// stopped thread — its whole stack, and the locals of the frames read — from
// before any method ran in it (Suspensions.Enter reads them first), and
// answers from that copy while a method runs; a live read refreshes it. The
// copy is dropped when the user's word lets the thread go (a continue, a
// step, a hot code replace).

// ErrRunsMethod says what could not be read of a thread that runs a method
// for the debugger, in the user's words.
var ErrRunsMethod = errors.New("the thread is running a method for the debugger (a toString, a condition or an evaluation); ask again when it returns")

// stacks is what the layer read of the threads the session holds stopped.
type stacks struct {
	mu sync.Mutex
	m  map[jdwp.ThreadID]*stack
}

type stack struct {
	frames   []mirror.Frame         // the whole stack, nil until read
	locals   map[int32]*FrameLocals // by depth
	async    *asyncStack            // the coroutine's async stack, nil until read
	asyncFor int                    // the number of frames async was read for
}

// FrameLocals are a frame's this object and visible locals.
type FrameLocals struct {
	Frame  mirror.Frame // the frame as read (its id may be stale: see mirror.VM.Live)
	This   jdwp.TaggedObjectID
	Vars   []jdwp.Variable
	Vals   []jdwp.Value
	Absent bool // the method has no variable table
}

func (s *stacks) get(thread jdwp.ThreadID) *stack {
	if s.m == nil {
		s.m = map[jdwp.ThreadID]*stack{}
	}
	st := s.m[thread]
	if st == nil {
		st = &stack{locals: map[int32]*FrameLocals{}}
		s.m[thread] = st
	}
	return st
}

// forget drops what was read of thread, or of every thread (0).
func (s *stacks) forget(thread jdwp.ThreadID) {
	s.mu.Lock()
	if thread == 0 {
		s.m = nil
	} else {
		delete(s.m, thread)
	}
	s.mu.Unlock()
}

// runsMethod reports whether err is the VM's refusal to read a thread the
// ledger knows runs a method for the debugger.
func (t *Target) runsMethod(thread jdwp.ThreadID, err error) bool {
	return jdwp.Code(err) == jdwp.ErrThreadNotSuspended && t.Sus.Invoking(thread)
}

// Stack returns the frames of a stopped thread, all of them: read from the
// VM, or, while the thread runs a method for the debugger, as they were
// read before it started.
func (t *Target) Stack(ctx context.Context, thread jdwp.ThreadID) ([]mirror.Frame, error) {
	fs, err := t.VM.Frames(ctx, thread, 0, -1)
	if err == nil {
		t.stacks.mu.Lock()
		t.stacks.get(thread).frames = fs
		t.stacks.mu.Unlock()
		return fs, nil
	}
	if !t.runsMethod(thread, err) {
		return nil, err
	}
	t.stacks.mu.Lock()
	fs = t.stacks.get(thread).frames
	t.stacks.mu.Unlock()
	if fs == nil {
		return nil, fmt.Errorf("%w (its stack was not read before)", ErrRunsMethod)
	}
	return fs, nil
}

// Locals returns a frame's this object and visible locals: read from the
// VM (f made live first), or, while the thread runs a method for the
// debugger, as they were read before it started.
func (t *Target) Locals(ctx context.Context, f mirror.Frame) (*FrameLocals, error) {
	fl, err := t.readLocals(ctx, f)
	if err == nil {
		t.stacks.mu.Lock()
		t.stacks.get(f.Thread).locals[f.Depth] = fl
		t.stacks.mu.Unlock()
		return fl, nil
	}
	if !t.runsMethod(f.Thread, err) {
		return nil, err
	}
	t.stacks.mu.Lock()
	fl = t.stacks.get(f.Thread).locals[f.Depth]
	t.stacks.mu.Unlock()
	if fl == nil {
		return nil, fmt.Errorf("%w (this frame's variables were not read before)", ErrRunsMethod)
	}
	return fl, nil
}

func (t *Target) readLocals(ctx context.Context, f mirror.Frame) (*FrameLocals, error) {
	m, err := t.VM.Method(ctx, f.Loc.Class, f.Loc.Method)
	if err != nil {
		return nil, err
	}
	if f, err = t.VM.Live(ctx, f); err != nil {
		return nil, err
	}
	fl := &FrameLocals{Frame: f}
	if m.ModBits&(jdwp.AccStatic|jdwp.AccNative) == 0 {
		if fl.This, err = t.VM.This(ctx, f); err != nil {
			return nil, fmt.Errorf("this: %w", err)
		}
	}
	if fl.Vars, fl.Vals, fl.Absent, err = t.VM.Locals(ctx, f); err != nil {
		return nil, err
	}
	return fl, nil
}

// ForgetLocals drops what was read of thread's locals (a local was set).
func (t *Target) ForgetLocals(thread jdwp.ThreadID) {
	t.stacks.mu.Lock()
	if st := t.stacks.m[thread]; st != nil {
		st.locals = map[int32]*FrameLocals{}
	}
	t.stacks.mu.Unlock()
}

// rememberStop reads what the front end will ask of a thread about to run a
// method for the debugger — its stack and its top frame's locals — unless
// read already in this stop. The thread is suspended (Suspensions.Enter
// calls it with the count at 1); failures leave the copy empty.
func (t *Target) rememberStop(ctx context.Context, thread jdwp.ThreadID) {
	t.stacks.mu.Lock()
	st := t.stacks.get(thread)
	have := st.frames != nil && st.locals[0] != nil
	t.stacks.mu.Unlock()
	if have {
		return
	}
	fs, err := t.VM.Frames(ctx, thread, 0, -1)
	if err != nil || len(fs) == 0 {
		return
	}
	fl, err := t.readLocals(ctx, fs[0])
	t.stacks.mu.Lock()
	st = t.stacks.get(thread)
	st.frames = fs
	if err == nil {
		st.locals[0] = fl
	}
	t.stacks.mu.Unlock()
}
