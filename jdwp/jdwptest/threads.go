package jdwptest

import (
	"fmt"
	"sort"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Threads models the suspension of a VM's threads as HotSpot's agent keeps
// it: a count per thread, raised by ThreadReference.Suspend, by
// VirtualMachine.Suspend (every thread) and by an event's suspend policy,
// lowered by the matching resumes (never below 0: a resume of a running
// thread does nothing); a thread runs while its count is 0. An invocation
// lowers its thread's count by one when it starts (the agent's implicit
// resume; refused unless the count is exactly 1) and raises it by one when
// the method returns.
type Threads struct {
	mu       sync.Mutex
	count    map[jdwp.ThreadID]int
	invoking map[jdwp.ThreadID]bool
	frames   int32
}

// NewThreads returns the model of threads ids, all running, each with
// frames frames (FrameCount's answer).
func NewThreads(frames int32, ids ...jdwp.ThreadID) *Threads {
	th := &Threads{count: map[jdwp.ThreadID]int{}, invoking: map[jdwp.ThreadID]bool{}, frames: frames}
	for _, id := range ids {
		th.count[id] = 0
	}
	return th
}

// Install has vm answer the suspension commands from the model:
// VirtualMachine.AllThreads, Suspend and Resume, ThreadReference.Suspend,
// Resume, SuspendCount and FrameCount (THREAD_NOT_SUSPENDED for a running
// thread, as the agent answers).
func (th *Threads) Install(vm *VM) {
	vm.Handle(jdwp.CmdVMAllThreads, Answer(func(_ *jdwp.Reader, w *jdwp.Writer) jdwp.ErrorCode {
		ids := th.IDs()
		w.Int32(int32(len(ids)))
		for _, id := range ids {
			w.ObjectID(jdwp.ObjectID(id))
		}
		return jdwp.ErrNone
	}))
	vm.Handle(jdwp.CmdVMSuspend, Answer(func(*jdwp.Reader, *jdwp.Writer) jdwp.ErrorCode {
		th.SuspendAll()
		return jdwp.ErrNone
	}))
	vm.Handle(jdwp.CmdVMResume, Answer(func(*jdwp.Reader, *jdwp.Writer) jdwp.ErrorCode {
		th.ResumeAll()
		return jdwp.ErrNone
	}))
	one := func(f func(t jdwp.ThreadID, w *jdwp.Writer) jdwp.ErrorCode) Handler {
		return Answer(func(r *jdwp.Reader, w *jdwp.Writer) jdwp.ErrorCode {
			t := jdwp.ThreadID(r.ObjectID())
			if r.Err() != nil {
				return jdwp.ErrIllegalArgument
			}
			th.mu.Lock()
			_, known := th.count[t]
			th.mu.Unlock()
			if !known {
				return jdwp.ErrInvalidThread
			}
			return f(t, w)
		})
	}
	vm.Handle(jdwp.CmdThreadSuspend, one(func(t jdwp.ThreadID, _ *jdwp.Writer) jdwp.ErrorCode {
		th.Suspend(t)
		return jdwp.ErrNone
	}))
	vm.Handle(jdwp.CmdThreadResume, one(func(t jdwp.ThreadID, _ *jdwp.Writer) jdwp.ErrorCode {
		th.Resume(t)
		return jdwp.ErrNone
	}))
	vm.Handle(jdwp.CmdThreadSuspendCount, one(func(t jdwp.ThreadID, w *jdwp.Writer) jdwp.ErrorCode {
		w.Int32(int32(th.Count(t)))
		return jdwp.ErrNone
	}))
	vm.Handle(jdwp.CmdThreadFrameCount, one(func(t jdwp.ThreadID, w *jdwp.Writer) jdwp.ErrorCode {
		if th.Count(t) == 0 {
			return jdwp.ErrThreadNotSuspended
		}
		w.Int32(th.frames)
		return jdwp.ErrNone
	}))
}

// IDs lists the threads, in id order.
func (th *Threads) IDs() []jdwp.ThreadID {
	th.mu.Lock()
	defer th.mu.Unlock()
	ids := make([]jdwp.ThreadID, 0, len(th.count))
	for id := range th.count {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// Count is a thread's suspend count.
func (th *Threads) Count(t jdwp.ThreadID) int {
	th.mu.Lock()
	defer th.mu.Unlock()
	return th.count[t]
}

// Suspend raises a thread's count (ThreadReference.Suspend, or an event
// reported with the event thread's policy).
func (th *Threads) Suspend(t jdwp.ThreadID) {
	th.mu.Lock()
	th.count[t]++
	th.mu.Unlock()
}

// Resume lowers a thread's count, not below 0.
func (th *Threads) Resume(t jdwp.ThreadID) {
	th.mu.Lock()
	if th.count[t] > 0 {
		th.count[t]--
	}
	th.mu.Unlock()
}

// SuspendAll raises every thread's count (VirtualMachine.Suspend, or an
// event reported with policy ALL).
func (th *Threads) SuspendAll() {
	th.mu.Lock()
	for t := range th.count {
		th.count[t]++
	}
	th.mu.Unlock()
}

// ResumeAll lowers every thread's count, not below 0.
func (th *Threads) ResumeAll() {
	th.mu.Lock()
	for t, n := range th.count {
		if n > 0 {
			th.count[t] = n - 1
		}
	}
	th.mu.Unlock()
}

// StartInvoke starts an invocation in t as the agent does: only with t's
// count exactly 1 (else an error naming what the agent would answer), which
// becomes 0.
func (th *Threads) StartInvoke(t jdwp.ThreadID) error {
	th.mu.Lock()
	defer th.mu.Unlock()
	switch n := th.count[t]; {
	case th.invoking[t]:
		return fmt.Errorf("thread %d: %w", t, jdwp.ErrAlreadyInvoking)
	case n == 0:
		return fmt.Errorf("thread %d: %w", t, jdwp.ErrThreadNotSuspended)
	case n > 1:
		return fmt.Errorf("thread %d has suspend count %d: the implicit resume would not start the method", t, n)
	}
	th.count[t] = 0
	th.invoking[t] = true
	return nil
}

// Return ends t's invocation as the agent does: the thread is suspended
// again (its count raised by one) before the reply.
func (th *Threads) Return(t jdwp.ThreadID) {
	th.mu.Lock()
	delete(th.invoking, t)
	th.count[t]++
	th.mu.Unlock()
}
