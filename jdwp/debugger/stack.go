package debugger

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

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
	// epoch counts forgets: a read begun before one is not kept after it
	// (it may be of the stop before).
	epoch uint64
	// reading is closed when the stop's own read of a thread (prefetch) is
	// over: a request that finds nothing read yet waits for it rather than
	// asking the VM again.
	reading map[jdwp.ThreadID]chan struct{}
}

// awaitRead waits for the stop's own read of thread, if one is under way.
func (s *stacks) awaitRead(ctx context.Context, thread jdwp.ThreadID) {
	s.mu.Lock()
	ch := s.reading[thread]
	s.mu.Unlock()
	if ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
		}
	}
}

type stack struct {
	frames   []mirror.Frame         // the whole stack, nil until read
	rev      int                    // the thread's frames revision when frames were read
	locals   map[int32]*FrameLocals // by depth
	async    *asyncStack            // the coroutine's async stack, nil until read
	asyncFor int                    // the number of frames async was read for
	at       jdwp.Location          // where the event of the stop happened (Class 0: unknown)
}

// FrameLocals are a frame's this object and visible locals.
type FrameLocals struct {
	Frame  mirror.Frame // the frame as read (its id may be stale: see mirror.VM.Live)
	This   jdwp.TaggedObjectID
	Vars   []jdwp.Variable
	Vals   []jdwp.Value
	Absent bool // the method has no variable table
	rev    int  // the thread's frames revision when read (mirror.VM.Rev)
}

// now returns the epoch, to pass to keep.
func (s *stacks) now() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.epoch
}

// keep runs f on thread's stack (s.mu held) unless a forget came after
// epoch.
func (s *stacks) keep(thread jdwp.ThreadID, epoch uint64, f func(*stack)) {
	s.mu.Lock()
	if s.epoch == epoch {
		f(s.get(thread))
	}
	s.mu.Unlock()
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
	s.epoch++
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

// Stack returns the frames of a stopped thread, all of them: as read in
// this stop already (the stop's own read, see prefetch), read from the VM,
// or, while the thread runs a method for the debugger, as they were read
// before it started.
func (t *Target) Stack(ctx context.Context, thread jdwp.ThreadID) ([]mirror.Frame, error) {
	t.stacks.awaitRead(ctx, thread)
	if fs, ok := t.cachedStack(thread); ok && len(fs) > 0 {
		return fs, nil
	}
	rev := t.VM.Rev(thread)
	epoch := t.stacks.now()
	fs, err := t.VM.Frames(ctx, thread, 0, -1)
	if err == nil {
		t.stacks.keep(thread, epoch, func(st *stack) { st.frames, st.rev = fs, rev })
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

// stopStack returns a thread's stack as read in this stop, if it was, even
// if a method the debugger ran in the thread since gave its frames new ids:
// their locations and number are the stop's (Locals makes a frame live).
func (t *Target) stopStack(thread jdwp.ThreadID) ([]mirror.Frame, bool) {
	t.stacks.mu.Lock()
	defer t.stacks.mu.Unlock()
	st := t.stacks.m[thread]
	if st == nil || len(st.frames) == 0 {
		return nil, false
	}
	return st.frames, true
}

// cachedStack returns a thread's stack as read in this stop, if it was.
func (t *Target) cachedStack(thread jdwp.ThreadID) ([]mirror.Frame, bool) {
	rev := t.VM.Rev(thread)
	t.stacks.mu.Lock()
	defer t.stacks.mu.Unlock()
	st := t.stacks.m[thread]
	if st == nil || st.frames == nil || st.rev != rev {
		return nil, false
	}
	return st.frames, true
}

// Locals returns a frame's this object and visible locals: as read in this
// stop already, read from the VM (f made live first), or, while the thread
// runs a method for the debugger, as they were read before it started.
func (t *Target) Locals(ctx context.Context, f mirror.Frame) (*FrameLocals, error) {
	if f.Depth == 0 {
		t.stacks.awaitRead(ctx, f.Thread)
	}
	rev := t.VM.Rev(f.Thread)
	t.stacks.mu.Lock()
	fl := t.stacks.get(f.Thread).locals[f.Depth]
	t.stacks.mu.Unlock()
	if fl != nil && fl.rev == rev {
		return fl, nil // a method run since changed its frame's id, not its values
	}
	epoch := t.stacks.now()
	fl, err := t.readLocals(ctx, f)
	if err == nil {
		t.stacks.keep(f.Thread, epoch, func(st *stack) { st.locals[f.Depth] = fl })
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

// readLocals reads a frame's this object and its locals at once (one
// round trip on a slow link once the method's tables are known).
func (t *Target) readLocals(ctx context.Context, f mirror.Frame) (*FrameLocals, error) {
	m, err := t.VM.Method(ctx, f.Loc.Class, f.Loc.Method)
	if err != nil {
		return nil, err
	}
	// Made live once here for the two reads below (each would otherwise
	// refresh a stale id itself) and kept live in the copy.
	if f, err = t.VM.Live(ctx, f); err != nil {
		return nil, err
	}
	fl := &FrameLocals{Frame: f, rev: t.VM.Rev(f.Thread)}
	withThis := m.ModBits&(jdwp.AccStatic|jdwp.AccNative) == 0
	var thisErr error
	err = mirror.Parallel(2, func(i int) error {
		if i == 0 {
			if withThis {
				fl.This, thisErr = t.VM.This(ctx, f)
			}
			return nil
		}
		var err error
		fl.Vars, fl.Vals, fl.Absent, err = t.VM.Locals(ctx, f)
		return err
	})
	if err != nil {
		return nil, err
	}
	if thisErr != nil {
		return nil, fmt.Errorf("this: %w", thisErr)
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
func (t *Target) rememberStop(ctx context.Context, thread jdwp.ThreadID) (depth int32, ok bool) {
	rev := t.VM.Rev(thread)
	t.stacks.mu.Lock()
	st := t.stacks.get(thread)
	have := len(st.frames) > 0 && st.rev == rev && st.locals[0] != nil && st.locals[0].rev == rev
	depth = int32(len(st.frames))
	t.stacks.mu.Unlock()
	if have {
		return depth, true
	}
	return t.readStop(ctx, thread)
}

// readStop reads a stopped thread's stack and its top frame's locals into
// what the stop answers from; it returns how many frames the thread has.
func (t *Target) readStop(ctx context.Context, thread jdwp.ThreadID) (depth int32, ok bool) {
	epoch, rev := t.stacks.now(), t.VM.Rev(thread)
	fs, err := t.VM.Frames(ctx, thread, 0, -1)
	if err != nil {
		return 0, false
	}
	t.stacks.keep(thread, epoch, func(st *stack) { st.frames, st.rev = fs, rev })
	if len(fs) == 0 {
		return 0, true
	}
	if fl, err := t.readLocals(ctx, fs[0]); err == nil {
		t.stacks.keep(thread, epoch, func(st *stack) { st.locals[0] = fl })
	}
	return int32(len(fs)), true
}

// slowLink is the round trip from which a stop reads what the front end
// asks next before it asks (prefetch): over loopback (tens of
// microseconds) the requests read it as fast, and a stop nobody refreshes
// (steps in a row) costs no commands of its own.
const slowLink = time.Millisecond

// prefetch reads, over a slow link (slowLink), as a stop is held, what a
// front end asks next — the thread list and names (when the whole VM is
// held), the stopped thread's
// stack and its top frame's locals, with the variable table of the method
// at where the event happened (at, when known) beside the stack — at once,
// so each request answers from the stop: a few round trips in all on a
// slow link rather than one per request. Its commands go out after the
// stop's suspend (the caller's word), so what it reads is the held VM's.
func (t *Target) prefetch(thread jdwp.ThreadID, at jdwp.Location, vmHeld bool) {
	if t.Conn.RoundTrip() < slowLink {
		return // over loopback the requests read as fast; a stop nobody refreshes costs nothing
	}
	done := make(chan struct{})
	t.stacks.mu.Lock()
	if t.stacks.reading == nil {
		t.stacks.reading = map[jdwp.ThreadID]chan struct{}{}
	}
	t.stacks.reading[thread] = done
	t.stacks.mu.Unlock()
	t.spawn(func() {
		ctx, cancel := context.WithTimeout(t.ctx, t.Opts.RequestTimeout)
		defer cancel()
		mirror.Parallel(3, func(i int) error {
			if i == 2 {
				if at.Method != 0 {
					if vt, err := t.VM.VariableTable(ctx, at.Class, at.Method); err == nil && !vt.Absent {
						t.readLocalTypes(ctx, vt.Variables, at.Index)
					}
				}
			} else if i == 1 {
				t.readStop(ctx, thread)
				t.stacks.mu.Lock()
				if t.stacks.reading[thread] == done {
					delete(t.stacks.reading, thread)
				}
				t.stacks.mu.Unlock()
				close(done)
			} else if vmHeld {
				if ids, err := t.PlatformThreads(ctx); err == nil {
					t.VM.ThreadNames(ctx, ids)
				}
			}
			return nil
		})
	})
}

// maxLocalTypes bounds the declared types of a stop's locals read ahead.
const maxLocalTypes = 8

// readLocalTypes reads, beside the locals' values, what presenting them
// asks of their declared types (mirror.VM.ReadType: the runtime type is
// most often the declared one, or a subclass whose walk up its hierarchy
// meets it): the locals visible at index whose declared type is a class
// outside java.lang (strings and boxes are shown without, Object says
// nothing). The first stop in a method then costs a round trip less.
func (t *Target) readLocalTypes(ctx context.Context, vars []jdwp.Variable, index uint64) {
	var sigs []string
	for _, v := range vars {
		if len(sigs) == maxLocalTypes {
			break
		}
		if v.Visible(index) && strings.HasPrefix(v.Signature, "L") && !strings.HasPrefix(v.Signature, "Ljava/lang/") && !slices.Contains(sigs, v.Signature) {
			sigs = append(sigs, v.Signature)
		}
	}
	mirror.Parallel(len(sigs), func(i int) error {
		t.VM.ReadType(ctx, sigs[i])
		return nil
	})
}

// FrameValues answers a stopped frame's this object and visible locals as
// Locals does (eval.FrameReader: evaluation reads the stop's copy).
func (t *Target) FrameValues(ctx context.Context, f mirror.Frame) (jdwp.TaggedObjectID, []jdwp.Variable, []jdwp.Value, error) {
	fl, err := t.Locals(ctx, f)
	if err != nil {
		return jdwp.TaggedObjectID{}, nil, nil, err
	}
	return fl.This, fl.Vars, fl.Vals, nil
}
