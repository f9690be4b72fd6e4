package debugger

import (
	"context"
	"math"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// Steps over a suspension point (IntelliJ's behaviour): a step over in a
// suspend function's state machine watches the function's exit in its
// thread (METHOD_EXIT_WITH_RETURN_VALUE, JDWP 1.6 and later). When it
// returns the runtime's "suspended" marker, the step does not stop where
// the thread went on (the dispatcher's code): a breakpoint on the
// continuation class's invokeSuspend, filtered by the continuation object,
// waits for the coroutine to resume — on whatever thread — and from there
// the step goes on into the function to its next line.

// suspendStep is a step over's watch of a suspend function.
type suspendStep struct {
	cont      jdwp.ObjectID        // the function's continuation
	contClass jdwp.ReferenceTypeID // its class
	exitReq   int32                // the exit watch (0: none)
	suspended bool                 // the function returned the suspended marker (written under Target.mu)
	resumeReq int32                // the breakpoint waiting for the resume (0: none)
	resumed   bool                 // resumed: the step goes on to the next line
	declLine  int32                // the function's first line (its state machine's dispatch)
	from      jdwp.Location        // where the step began
	fromLine  int32                // its line
	origin    int32                // the frames on the thread then
}

// isSuspendFunction reports whether m is a suspend function's state
// machine as the language compiles it: its last parameter the
// continuation, returning Object.
func isSuspendFunction(m jdwp.MethodInfo, names lang.Continuations) bool {
	return strings.HasSuffix(m.Signature, javalang.Signature(names.Continuation)+")Ljava/lang/Object;")
}

// watchSuspension sets up a step over's watch when its top frame f is a
// suspend function's state machine; the thread is suspended (Step's caller
// resumes it after).
func (t *Target) watchSuspension(ctx context.Context, st *stepState, f mirror.Frame, frames int32) {
	s := t.suspending()
	if s == nil || f.Loc.Method == 0 {
		return
	}
	names := s.Continuations()
	m, err := t.VM.Method(ctx, f.Loc.Class, f.Loc.Method)
	if err != nil {
		return
	}
	suspendFun := isSuspendFunction(m, names)
	if !suspendFun && m.Name != names.InvokeSuspend {
		return
	}
	if v, err := t.VM.Version(ctx); err != nil || v.JDWPMajor < 1 || v.JDWPMajor == 1 && v.JDWPMinor < 6 {
		return // no METHOD_EXIT_WITH_RETURN_VALUE
	}
	fl, err := t.Locals(ctx, f)
	if err != nil {
		return
	}
	cont := fl.This.ID
	if suspendFun {
		cont = 0
		for i, v := range fl.Vars {
			if v.Name == names.Local && fl.Vals[i].Tag.IsObject() {
				cont = fl.Vals[i].Object()
			}
		}
	}
	if cont == 0 {
		return
	}
	class, sig, err := t.VM.ObjectType(ctx, cont)
	if err != nil {
		return
	}
	if ok, err := t.VM.Subtype(ctx, sig, javalang.Signature(names.Base)); err != nil || !ok {
		return
	}
	exit, err := t.Requests.Set(ctx, jdwp.EventMethodExitWithReturnValue, stopPolicy, jdwp.ThreadOnly(st.thread), jdwp.ClassOnly(f.Loc.Class))
	if err != nil {
		return
	}
	ss := &suspendStep{cont: cont, contClass: class, exitReq: exit, from: f.Loc, origin: frames}
	if lt, err := t.VM.LineTable(ctx, f.Loc.Class, f.Loc.Method); err == nil && !lt.Absent {
		first := uint64(math.MaxUint64)
		for _, l := range lt.Lines {
			if l.CodeIndex < first {
				first, ss.declLine = l.CodeIndex, l.Line
			}
		}
		ss.fromLine = lt.LineFor(f.Loc.Index)
	}
	st.suspend = ss
	// The resume is watched from now on: a coroutine suspended in the
	// step may resume on another thread before this one's step event is
	// decided.
	if !t.awaitResume(ctx, st) {
		t.clearSuspendStep(ctx, st)
		st.suspend = nil
	}
}

// onMethodExit notes whether the function a step over watches returned
// the suspended marker. It never stops.
func (t *Target) onMethodExit(ctx context.Context, e jdwp.Event) *Stop {
	t.mu.Lock()
	st := t.steps.stepping[e.Thread]
	mine := st != nil && st.suspend != nil && st.suspend.exitReq == e.RequestID
	t.mu.Unlock()
	if !mine {
		return nil
	}
	ss := st.suspend
	if e.Location.Class != ss.from.Class || e.Location.Method != ss.from.Method {
		return nil
	}
	if n, err := t.VM.FrameCount(ctx, e.Thread); err != nil || n != ss.origin {
		return nil // a call of the same function deeper down
	}
	t.mu.Lock()
	ss.exitReq = 0
	t.mu.Unlock()
	t.Requests.ClearNoWait(jdwp.EventMethodExitWithReturnValue, e.RequestID)
	if !e.Value.Tag.IsObject() || e.Value.IsNull() {
		return nil
	}
	if _, sig, err := t.VM.ObjectType(ctx, e.Value.Object()); err == nil && sig == javalang.Signature(t.suspending().Continuations().Suspended) {
		t.mu.Lock() // onResume, on another thread's lane, copies ss
		ss.suspended = true
		t.mu.Unlock()
	}
	return nil
}

// leavingSuspended says whether a step over's event is in the function it
// began in, on the state machine's dispatch line (its first: kotlinc puts
// the return of the suspended marker there), where the function returns
// when it suspends: the step goes on (out of the function, whose exit says
// whether it suspended).
func (t *Target) leavingSuspended(ctx context.Context, st *stepState, e jdwp.Event) bool {
	ss := st.suspend
	if st.hops >= 64 || e.Location.Class != ss.from.Class || e.Location.Method != ss.from.Method {
		return false
	}
	lt, err := t.VM.LineTable(ctx, e.Location.Class, e.Location.Method)
	if err != nil || lt.Absent || lt.LineFor(e.Location.Index) != ss.declLine || ss.declLine == ss.fromLine {
		return false
	}
	if n, err := t.VM.FrameCount(ctx, e.Thread); err != nil || n != ss.origin {
		return false
	}
	st.hops++
	return t.stepRequest(ctx, e.Thread, jdwp.StepOver) == nil
}

// awaitResume sets the breakpoint that waits for a step's continuation to
// resume (once): ok says it is set.
func (t *Target) awaitResume(ctx context.Context, st *stepState) bool {
	ss := st.suspend
	t.mu.Lock()
	set := ss.resumeReq != 0
	t.mu.Unlock()
	if set {
		return true
	}
	names := t.suspending().Continuations()
	ms, err := t.VM.Methods(ctx, ss.contClass)
	if err != nil {
		return false
	}
	var loc jdwp.Location
	for _, m := range ms {
		if m.Name == names.InvokeSuspend {
			loc = jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: ss.contClass, Method: m.ID}
		}
	}
	if loc.Method == 0 {
		return false
	}
	mods := []jdwp.Modifier{jdwp.LocationOnly(loc)}
	if t.Caps.CanUseInstanceFilters {
		mods = append(mods, jdwp.InstanceOnly(ss.cont))
	}
	id, err := t.Requests.Set(ctx, jdwp.EventBreakpoint, stopPolicy, mods...)
	if err != nil {
		return false
	}
	t.mu.Lock()
	ss.resumeReq = id
	t.steps.resuming[id] = st
	t.mu.Unlock()
	return true
}

// onResume goes on with a step over whose coroutine resumed (its
// breakpoint on invokeSuspend hit, in thread e.Thread): the step moves to
// that thread and steps into the function. ok false: not such a hit.
func (t *Target) onResume(ctx context.Context, e jdwp.Event) (stop *Stop, ok bool) {
	t.mu.Lock()
	st := t.steps.resuming[e.RequestID]
	t.mu.Unlock()
	if st == nil {
		return nil, false
	}
	ss := st.suspend
	if !t.Caps.CanUseInstanceFilters {
		if this, err := t.VM.This(ctx, mirror.Frame{Thread: e.Thread, Loc: e.Location}); err == nil && this.ID != ss.cont {
			return nil, true // another coroutine of the same function
		}
	}
	// The step goes on in the resuming thread as a new step sharing what
	// the old one knew; the old one is left alone (its thread's lane may
	// still be deciding one of its events).
	t.mu.Lock()
	delete(t.steps.resuming, e.RequestID)
	if t.steps.stepping[st.thread] == st {
		delete(t.steps.stepping, st.thread)
	}
	// The step's requests left in the thread it began in are dropped, and
	// their events, on their way, ignored; so are the events of requests
	// that thread's lane sets afterwards, when the step moved away from it.
	old := t.steps.steps[st.thread]
	delete(t.steps.steps, st.thread)
	for _, id := range old {
		t.steps.abandoned[id] = true
	}
	if e.Thread != st.thread {
		t.steps.movedFrom[st.thread] = true
	}
	exit := ss.exitReq
	ss.resumeReq, ss.exitReq = 0, 0
	nss := *ss
	nss.resumed = true
	nst := &stepState{thread: e.Thread, depth: jdwp.StepOver, reason: st.reason, suspend: &nss}
	t.steps.stepping[e.Thread] = nst
	t.mu.Unlock()
	t.Requests.ClearNoWait(jdwp.EventBreakpoint, e.RequestID)
	if exit != 0 {
		t.Requests.ClearNoWait(jdwp.EventMethodExitWithReturnValue, exit)
	}
	for _, id := range old {
		t.Requests.ClearNoWait(jdwp.EventSingleStep, id)
	}
	if err := t.stepRequest(ctx, e.Thread, jdwp.StepInto); err != nil {
		return &Stop{Reason: nst.reason, Thread: e.Thread}, true
	}
	return nil, true
}

// resumedStep decides a step event of a step over that resumed with its
// coroutine: it stops at the function's first line other than the one
// stepped over and the state machine's dispatch; elsewhere it goes on (in
// the function, over calls; outside it, into it).
func (t *Target) resumedStep(ctx context.Context, st *stepState, e jdwp.Event) *Stop {
	stop := &Stop{Reason: st.reason, Thread: e.Thread}
	st.hops++
	if st.hops > 64 {
		return stop
	}
	ss := st.suspend
	inFunction := e.Location.Class == ss.from.Class && e.Location.Method == ss.from.Method
	if inFunction {
		line := int32(-1)
		if lt, err := t.VM.LineTable(ctx, e.Location.Class, e.Location.Method); err == nil && !lt.Absent {
			line = lt.LineFor(e.Location.Index)
		}
		if line > 0 && line != ss.fromLine && line != ss.declLine {
			return stop
		}
	}
	depth := jdwp.StepInto
	if inFunction {
		depth = jdwp.StepOver
	}
	if err := t.stepRequest(ctx, e.Thread, depth); err != nil {
		return stop
	}
	return nil
}

// clearSuspendStep clears a step's watches.
func (t *Target) clearSuspendStep(ctx context.Context, st *stepState) {
	ss := st.suspend
	if ss == nil {
		return
	}
	t.mu.Lock()
	req, exit := ss.resumeReq, ss.exitReq
	delete(t.steps.resuming, req)
	ss.exitReq, ss.resumeReq = 0, 0
	t.mu.Unlock()
	if exit != 0 {
		t.Requests.Clear(ctx, jdwp.EventMethodExitWithReturnValue, exit)
	}
	if req != 0 {
		t.Requests.Clear(ctx, jdwp.EventBreakpoint, req)
	}
}

// suspendsAt reports whether thread's stop is in a class of a language
// whose functions suspend (Kotlin): by the SourceFile of the class where
// the stop's event happened (read as the stop was held on a slow link:
// prefetch; a Java stop's class is Java's and its step reads nothing
// before the resume). Without a language that suspends, never; for a stop
// whose place is unknown (a pause), whenever the session has one.
func (t *Target) suspendsAt(ctx context.Context, thread jdwp.ThreadID) bool {
	if t.suspending() == nil {
		return false
	}
	t.stacks.mu.Lock()
	at := t.stacks.get(thread).at
	t.stacks.mu.Unlock()
	if at.Class == 0 {
		return true
	}
	src, err := t.VM.SourceFile(ctx, at.Class)
	if err != nil {
		return jdwp.Code(err) != jdwp.ErrAbsentInformation
	}
	_, ok := t.langs().ForClass(src).(lang.Suspending)
	return ok
}
