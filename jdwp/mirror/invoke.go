package mirror

import (
	"errors"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// The mirror runs no methods: the debugger layer's invocation road does
// (debugger.Target.Invoke), with its suspension policy. What the model
// keeps is the fact that matters to frames: a thread that ran (a resume,
// an invoked method) has new frame ids, counted per thread as a
// generation (Frame.Gen, Live). Its errors are the road's vocabulary, named
// here so evaluation can tell them apart without knowing the road.

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

// Gen is thread's frame generation: frame ids read in an older one are
// invalid.
func (m *VM) Gen(thread jdwp.ThreadID) int {
	m.gensMu.Lock()
	defer m.gensMu.Unlock()
	return m.gens[thread]
}

// ThreadRan records that thread ran (a method was invoked in it): the
// frame ids read before are invalid.
func (m *VM) ThreadRan(thread jdwp.ThreadID) {
	m.gensMu.Lock()
	if m.gens == nil {
		m.gens = map[jdwp.ThreadID]int{}
	}
	m.gens[thread]++
	m.gensMu.Unlock()
}

// Rev is thread's frames revision: it changes when what its frames hold
// changes (a frame popped, a local set: FramesChanged), not when a method
// ran in it (a method returns to its caller's frames as they were).
func (m *VM) Rev(thread jdwp.ThreadID) int {
	m.gensMu.Lock()
	defer m.gensMu.Unlock()
	return m.revs[thread]
}

// FramesChanged records that what thread's frames hold changed: what was
// read of them is read again.
func (m *VM) FramesChanged(thread jdwp.ThreadID) {
	m.gensMu.Lock()
	if m.revs == nil {
		m.revs = map[jdwp.ThreadID]int{}
	}
	m.revs[thread]++
	m.gensMu.Unlock()
}
