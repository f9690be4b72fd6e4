package mirror

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Invocation bookkeeping: which threads run a method for the debugger (their
// events are not stops, and their frame ids change), which were left running
// one past an evaluation's deadline, and what to do when each returns.
type invocations struct {
	mu sync.Mutex
	// running counts the methods running for the debugger per thread; gens
	// counts invocations per thread (they invalidate frame ids).
	running map[jdwp.ThreadID]int
	gens    map[jdwp.ThreadID]int
	// late counts the methods left running past their deadline, per thread;
	// after holds what to do when a thread's method returns; done is closed
	// (and replaced) whenever one returns.
	late  map[jdwp.ThreadID]int
	after map[jdwp.ThreadID][]func()
	done  chan struct{}
}

func (iv *invocations) init() {
	iv.running, iv.gens, iv.late = map[jdwp.ThreadID]int{}, map[jdwp.ThreadID]int{}, map[jdwp.ThreadID]int{}
	iv.after, iv.done = map[jdwp.ThreadID][]func(){}, make(chan struct{})
}

var (
	// ErrLeftRunning says an invocation did not return before its context
	// ended; the method goes on in its thread.
	ErrLeftRunning = errors.New("the method did not return in time and goes on running in its thread; the thread stops again when it returns")
	// ErrAborted says an invocation whose caller stopped waiting was
	// ended: the method was made to return at once (what it did until then
	// stays done), and the thread is back where it stopped.
	ErrAborted = errors.New("the method was stopped (made to return at once; what it did until then stays done)")
	// ErrStillRunning refuses an invocation in a thread still running a
	// method that was left running, once the caller's context ends first.
	ErrStillRunning = errors.New("the thread is still running a method of an evaluation that was cancelled or timed out; try again when it returns")
)

// Gen is thread's invocation generation: frame ids read in an older one are
// invalid.
func (m *VM) Gen(thread jdwp.ThreadID) int {
	m.inv.mu.Lock()
	defer m.inv.mu.Unlock()
	return m.inv.gens[thread]
}

// Invoking runs f, an invocation in thread, with a context of its own: the
// thread counts as running a method for the debugger (see RunningMethod)
// and its frame ids are read again afterwards. When ctx ends first, Invoking
// returns at once with an error wrapping ErrLeftRunning; f goes on until the
// method returns, and the functions queued with AfterInvoke run then.
func (m *VM) Invoking(ctx context.Context, thread jdwp.ThreadID, f func(context.Context) error) error {
	return m.invoking(ctx, thread, 0, f)
}

// invoking is Invoking for a method returning a value of tag ret (0:
// unknown): when ctx ends first, the owner's hooks try to end the method
// (InvokeHooks.Abort) before it is left running; the error then wraps
// ErrAborted.
func (m *VM) invoking(ctx context.Context, thread jdwp.ThreadID, ret jdwp.Tag, f func(context.Context) error) error {
	iv := &m.inv
	iv.mu.Lock()
	for iv.late[thread] > 0 {
		// A method left running there: wait for it, as long as ctx lets.
		ch := iv.done
		iv.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ErrStillRunning
		}
		iv.mu.Lock()
	}
	iv.running[thread]++
	iv.mu.Unlock()
	hooks := m.cfg.Hooks
	var sent func()
	if hooks != nil {
		var err error
		if sent, err = hooks.Enter(ctx, thread); err != nil {
			iv.mu.Lock()
			if iv.running[thread]--; iv.running[thread] <= 0 {
				delete(iv.running, thread)
			}
			iv.mu.Unlock()
			return err
		}
	}
	// The invocation's own context ends with the owner's only; a long
	// deadline keeps the connection's default timeout off it.
	ictx, cancel := context.WithTimeout(m.cfg.Context, 24*time.Hour)
	ictx = jdwp.WithQueued(ictx, sent)
	done := make(chan error, 1)
	go func() {
		err := f(ictx)
		if sent != nil {
			sent() // if the command never went out
		}
		done <- err
	}()
	finish := func() []func() {
		cancel()
		// The thread no longer runs the method (the VM holds it suspended
		// until Exit lets it go): its next events are its own again, so
		// this is booked before Exit, and an event that follows at once
		// is not taken for one raised inside the method.
		iv.mu.Lock()
		if iv.running[thread]--; iv.running[thread] <= 0 {
			delete(iv.running, thread)
		}
		iv.gens[thread]++
		after := iv.after[thread]
		delete(iv.after, thread)
		iv.mu.Unlock()
		if hooks != nil {
			hooks.Exit(thread)
		}
		iv.mu.Lock()
		close(iv.done)
		iv.done = make(chan struct{})
		iv.mu.Unlock()
		return after
	}
	select {
	case err := <-done:
		finish()
		return err
	case <-ctx.Done():
	}
	var abortErr error
	if hooks != nil && ret != 0 {
		actx, acancel := context.WithTimeout(m.cfg.Context, 10*time.Second)
		err := hooks.Abort(actx, thread, ret)
		if err == nil {
			select {
			case <-done:
				acancel()
				finish()
				return fmt.Errorf("%w: %w", ErrAborted, ctx.Err())
			case <-actx.Done():
				err = actx.Err()
			}
		}
		acancel()
		abortErr = err
		m.cfg.Log.Debug().Err(err).Uint64("thread", uint64(thread)).Msg("a method whose caller stopped waiting could not be ended; it goes on running")
	}
	iv.mu.Lock()
	iv.late[thread]++
	iv.mu.Unlock()
	m.cfg.Go(func() {
		err := <-done
		iv.mu.Lock()
		if iv.late[thread]--; iv.late[thread] <= 0 {
			delete(iv.late, thread)
		}
		iv.mu.Unlock()
		m.cfg.Log.Debug().Err(err).Uint64("thread", uint64(thread)).Msg("a method left running by an evaluation returned")
		for _, g := range finish() {
			g()
		}
	})
	if abortErr != nil {
		return fmt.Errorf("%w: %w (it could not be stopped: %w)", ErrLeftRunning, ctx.Err(), abortErr)
	}
	return fmt.Errorf("%w: %w", ErrLeftRunning, ctx.Err())
}

// WaitReturned waits until no method left running (see Invoking) runs in
// thread, or ctx ends.
func (m *VM) WaitReturned(ctx context.Context, thread jdwp.ThreadID) {
	m.inv.mu.Lock()
	for m.inv.late[thread] > 0 {
		ch := m.inv.done
		m.inv.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
		m.inv.mu.Lock()
	}
	m.inv.mu.Unlock()
}

// RunningMethod reports whether thread runs a method for the debugger.
func (m *VM) RunningMethod(thread jdwp.ThreadID) bool {
	m.inv.mu.Lock()
	defer m.inv.mu.Unlock()
	return m.inv.running[thread] > 0
}

// AfterInvoke queues f to run when the method thread runs for the debugger
// returns; it reports false (and does not queue f) when none is running.
func (m *VM) AfterInvoke(thread jdwp.ThreadID, f func()) bool {
	m.inv.mu.Lock()
	defer m.inv.mu.Unlock()
	if m.inv.running[thread] == 0 {
		return false
	}
	m.inv.after[thread] = append(m.inv.after[thread], f)
	return true
}

// StillRunning reports whether thread runs a method an evaluation left running.
func (m *VM) StillRunning(thread jdwp.ThreadID) bool {
	m.inv.mu.Lock()
	defer m.inv.mu.Unlock()
	return m.inv.late[thread] > 0
}

// LeftRunning lists the threads running a method an evaluation left running.
func (m *VM) LeftRunning() []jdwp.ThreadID {
	m.inv.mu.Lock()
	defer m.inv.mu.Unlock()
	out := make([]jdwp.ThreadID, 0, len(m.inv.late))
	for t := range m.inv.late {
		out = append(out, t)
	}
	return out
}

// Invoke runs method mt in thread alone (InvokeSingleThreaded): an instance
// method of recv, or a static one (recv 0), through Invoking.
func (m *VM) Invoke(ctx context.Context, thread jdwp.ThreadID, recv jdwp.ObjectID, mt Method, args []jdwp.Value) (jdwp.InvokeResult, error) {
	var res jdwp.InvokeResult
	err := m.invoking(ctx, thread, returnTag(mt.Signature), func(ctx context.Context) error {
		var err error
		switch {
		case !mt.Static():
			res, err = m.conn.InvokeMethod(ctx, recv, thread, mt.Type, mt.ID, args, jdwp.InvokeSingleThreaded)
		case mt.Interface:
			res, err = m.conn.InvokeInterfaceStatic(ctx, mt.Type, thread, mt.ID, args, jdwp.InvokeSingleThreaded)
		default:
			res, err = m.conn.InvokeStatic(ctx, mt.Type, thread, mt.ID, args, jdwp.InvokeSingleThreaded)
		}
		return err
	})
	return res, err
}

// NewInstance runs constructor ctor in thread alone, through Invoking; the
// new object is res.Value, tagged as an object.
func (m *VM) NewInstance(ctx context.Context, thread jdwp.ThreadID, ctor Method, args []jdwp.Value) (jdwp.InvokeResult, error) {
	var res jdwp.InvokeResult
	err := m.invoking(ctx, thread, jdwp.TagVoid, func(ctx context.Context) error {
		var err error
		res, err = m.conn.NewInstance(ctx, ctor.Type, thread, ctor.ID, args, jdwp.InvokeSingleThreaded)
		if err == nil && res.Exception.ID == 0 {
			res.Value = jdwp.Value{Tag: jdwp.TagObject, Bits: res.Value.Bits}
		}
		return err
	})
	return res, err
}

// returnTag is the tag of a method signature's return type.
func returnTag(sig string) jdwp.Tag {
	i := strings.LastIndexByte(sig, ')')
	if i < 0 || i+1 >= len(sig) {
		return 0
	}
	return jdwp.TagForSignature(sig[i+1:])
}
