package debugger

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// The one invocation road: every method the debugger runs in the VM —
// presentation's toString, a condition's or a log message's calls, an
// evaluation, the memory view's — goes through Target.Invoke or
// Target.NewInstance. The road books which threads run a method for the
// debugger (their events are not stops, their frame ids change), has the
// ledger bring the thread's count to exactly 1 first (Suspensions.Enter)
// and settle it from the ledger when the method returns, however late
// (Exit: from the state then, never from the state at invoke time), tries
// to end a method whose caller stopped waiting (Abort), and otherwise
// leaves it running and remembers what to do when it returns.

// invocations is the road's bookkeeping.
type invocations struct {
	mu sync.Mutex
	// running counts the methods running for the debugger per thread.
	running map[jdwp.ThreadID]int
	// late counts the methods left running past their deadline, per
	// thread; after holds what to do when a thread's method returns; done
	// is closed (and replaced) whenever one returns.
	late  map[jdwp.ThreadID]int
	after map[jdwp.ThreadID][]func()
	done  chan struct{}
}

func (iv *invocations) init() {
	iv.running, iv.late = map[jdwp.ThreadID]int{}, map[jdwp.ThreadID]int{}
	iv.after, iv.done = map[jdwp.ThreadID][]func(){}, make(chan struct{})
}

// The road's errors are the mirror's vocabulary (mirror.ErrLeftRunning,
// mirror.ErrAborted, mirror.ErrStillRunning), so evaluation can name them
// without knowing this layer.

// invoking runs f, an invocation command in thread, on the road: when ctx
// ends first, the method is ended if it can be (Suspensions.Abort, for a
// method returning a value of tag ret; 0: do not try) and the error wraps
// mirror.ErrAborted, else it is left running and the error wraps
// mirror.ErrLeftRunning; f goes on until the method returns, and the
// functions queued with AfterInvoke run then.
func (t *Target) invoking(ctx context.Context, thread jdwp.ThreadID, ret jdwp.Tag, f func(context.Context) (jdwp.InvokeResult, error)) (jdwp.InvokeResult, error) {
	var none jdwp.InvokeResult
	iv := &t.inv
	iv.mu.Lock()
	for iv.late[thread] > 0 {
		// A method left running there: wait for it, as long as ctx lets.
		ch := iv.done
		iv.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return none, mirror.ErrStillRunning
		}
		iv.mu.Lock()
	}
	iv.running[thread]++
	iv.mu.Unlock()
	sent, err := t.Sus.Enter(ctx, thread)
	if err != nil {
		iv.mu.Lock()
		if iv.running[thread]--; iv.running[thread] <= 0 {
			delete(iv.running, thread)
		}
		iv.mu.Unlock()
		return none, err
	}
	// The invocation's own context ends with the target's only; a long
	// deadline keeps the connection's default timeout off it.
	ictx, cancel := context.WithTimeout(t.ctx, 24*time.Hour)
	ictx = jdwp.WithQueued(ictx, sent)
	type result struct {
		res jdwp.InvokeResult
		err error
	}
	done := make(chan result, 1) // the result is handed over, never shared
	go func() {
		res, err := f(ictx)
		if jdwp.Code(err) == jdwp.ErrThreadNotSuspended {
			err = fmt.Errorf("%w (%w)", ErrNotSuspended, err)
		}
		sent() // if the command never went out
		done <- result{res, err}
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
		after := iv.after[thread]
		delete(iv.after, thread)
		iv.mu.Unlock()
		t.VM.ThreadRan(thread) // its frame ids are read again
		t.Sus.Exit(thread)
		iv.mu.Lock()
		close(iv.done)
		iv.done = make(chan struct{})
		iv.mu.Unlock()
		return after
	}
	select {
	case r := <-done:
		finish()
		return r.res, r.err
	case <-ctx.Done():
	}
	var abortErr error
	if ret != 0 {
		actx, acancel := context.WithTimeout(t.ctx, 10*time.Second)
		err := t.Sus.Abort(actx, thread, ret)
		if err == nil {
			select {
			case <-done:
				acancel()
				finish()
				return none, fmt.Errorf("%w: %w", mirror.ErrAborted, ctx.Err())
			case <-actx.Done():
				err = actx.Err()
			}
		}
		acancel()
		abortErr = err
		t.log.Debug().Err(err).Uint64("thread", uint64(thread)).Msg("a method whose caller stopped waiting could not be ended; it goes on running")
	}
	iv.mu.Lock()
	iv.late[thread]++
	iv.mu.Unlock()
	t.spawn(func() {
		err := (<-done).err
		iv.mu.Lock()
		if iv.late[thread]--; iv.late[thread] <= 0 {
			delete(iv.late, thread)
		}
		iv.mu.Unlock()
		t.log.Debug().Err(err).Uint64("thread", uint64(thread)).Msg("a method left running by an evaluation returned")
		for _, g := range finish() {
			g()
		}
	})
	if abortErr != nil {
		return none, fmt.Errorf("%w: %w (it could not be stopped: %w)", mirror.ErrLeftRunning, ctx.Err(), abortErr)
	}
	return none, fmt.Errorf("%w: %w", mirror.ErrLeftRunning, ctx.Err())
}

// Invoke runs method mt in thread alone (InvokeSingleThreaded): an instance
// method of recv, or a static one (recv 0). It is the only way anything
// runs a method in the VM (see invoking).
func (t *Target) Invoke(ctx context.Context, thread jdwp.ThreadID, recv jdwp.ObjectID, mt mirror.Method, args []jdwp.Value) (jdwp.InvokeResult, error) {
	return t.invoking(ctx, thread, returnTag(mt.Signature), func(ctx context.Context) (jdwp.InvokeResult, error) {
		switch {
		case !mt.Static():
			return t.Conn.InvokeMethod(ctx, recv, thread, mt.Type, mt.ID, args, jdwp.InvokeSingleThreaded)
		case mt.Interface:
			return t.Conn.InvokeInterfaceStatic(ctx, mt.Type, thread, mt.ID, args, jdwp.InvokeSingleThreaded)
		}
		return t.Conn.InvokeStatic(ctx, mt.Type, thread, mt.ID, args, jdwp.InvokeSingleThreaded)
	})
}

// NewInstance runs constructor ctor in thread alone, on the road; the new
// object is res.Value, tagged as an object.
func (t *Target) NewInstance(ctx context.Context, thread jdwp.ThreadID, ctor mirror.Method, args []jdwp.Value) (jdwp.InvokeResult, error) {
	return t.invoking(ctx, thread, jdwp.TagVoid, func(ctx context.Context) (jdwp.InvokeResult, error) {
		res, err := t.Conn.NewInstance(ctx, ctor.Type, thread, ctor.ID, args, jdwp.InvokeSingleThreaded)
		if err == nil && res.Exception.ID == 0 {
			res.Value = jdwp.Value{Tag: jdwp.TagObject, Bits: res.Value.Bits}
		}
		return res, err
	})
}

// WaitReturned waits until no method left running (see invoking) runs in
// thread, or ctx ends.
func (t *Target) WaitReturned(ctx context.Context, thread jdwp.ThreadID) {
	iv := &t.inv
	iv.mu.Lock()
	for iv.late[thread] > 0 {
		ch := iv.done
		iv.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
		iv.mu.Lock()
	}
	iv.mu.Unlock()
}

// RunningMethod reports whether thread runs a method for the debugger.
func (t *Target) RunningMethod(thread jdwp.ThreadID) bool {
	t.inv.mu.Lock()
	defer t.inv.mu.Unlock()
	return t.inv.running[thread] > 0
}

// AfterInvoke queues f to run when the method thread runs for the debugger
// returns; it reports false (and does not queue f) when none is running.
func (t *Target) AfterInvoke(thread jdwp.ThreadID, f func()) bool {
	t.inv.mu.Lock()
	defer t.inv.mu.Unlock()
	if t.inv.running[thread] == 0 {
		return false
	}
	t.inv.after[thread] = append(t.inv.after[thread], f)
	return true
}

// StillRunning reports whether thread runs a method an evaluation left running.
func (t *Target) StillRunning(thread jdwp.ThreadID) bool {
	t.inv.mu.Lock()
	defer t.inv.mu.Unlock()
	return t.inv.late[thread] > 0
}

// returnTag is the tag of a method signature's return type.
func returnTag(sig string) jdwp.Tag {
	i := strings.LastIndexByte(sig, ')')
	if i < 0 || i+1 >= len(sig) {
		return 0
	}
	return jdwp.TagForSignature(sig[i+1:])
}
