package debugger

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// Stepping: line steps with step filters, a restarted frame's step back
// into the method, and step into a chosen call.
//
// Step filters work in two ways: class patterns become JDWP ClassExclude
// modifiers, so the VM itself passes over those classes; synthetic methods,
// static initializers and constructors cannot be excluded by the VM, so a
// step that lands in one (deeper than where the step began) steps out of it
// and then into the rest of the line again.
//
// Steps through lambdas: a lambda runs behind a hidden proxy class the VM
// generates (Orders$$Lambda/0x…, no source, no lines): a step into it goes
// on into the lambda's body. A step out of a lambda returns into the stream
// or library code that called it: a step out that lands in a class the step
// filters skip goes on out, back to the program's own code.

// JDKClasses are the classes "$JDK" stands for, with KotlinIntrinsics (and
// the default filter).
var JDKClasses = []string{"java.*", "javax.*", "jdk.*", "sun.*", "com.sun.*"}

// KotlinIntrinsics are the Kotlin runtime's checks and helpers the compiler
// calls on its own (Intrinsics.checkNotNullParameter, Ref, Lambda):
// skipped by default with the JDK's classes.
var KotlinIntrinsics = []string{"kotlin.jvm.internal.*"}

// stepState is the step in progress.
type stepState struct {
	thread   jdwp.ThreadID
	depth    jdwp.StepDepth
	reason   string // the stop's reason: "step" or "restart"
	origin   int32  // frames on the thread when the step began
	from     jdwp.Location
	fromLine int32
	leaving  bool // stepping out of a filtered method
	hops     int  // filtered methods left so far
	target   *StepTarget
	entryReq int32 // the method-entry request of a step into a target
	// A step over's source line where it began, through the class's
	// default stratum (JSR-45): inlined code in the same frame that is not
	// that source's is stepped over too.
	fromSrc  srcLine
	inlining int           // inlined locations stepped over so far
	ready    chan struct{} // closed once origin, from and fromSrc are read (nil: not a step over)
	set      chan struct{} // closed once the user's step request is answered and booked (nil: it was before Step returned)
	suspend  *suspendStep  // a step over in a suspend function (suspendsteps.go), or nil
}

// srcLine is a JVM line as the default stratum of its class's source map
// reads it; without a map, or where the map says nothing, the JVM line in
// the class's own file (file "").
type srcLine struct {
	file string
	line int
}

// beforeFirstLine reports whether loc is code of a method with lines that
// comes before the method's first line.
func (t *Target) beforeFirstLine(ctx context.Context, loc jdwp.Location) bool {
	lt, err := t.VM.LineTable(ctx, loc.Class, loc.Method)
	if err != nil || lt.Absent || len(lt.Lines) == 0 {
		return false
	}
	return lt.LineFor(loc.Index) < 0
}

// maxInlineHops bounds how many inlined locations one step over passes
// (each a step of its own: a forEach over a long list inlines its body).
const maxInlineHops = 10000

// sourceLine maps a location's JVM line through its class's source map.
func (t *Target) sourceLine(ctx context.Context, loc jdwp.Location) (srcLine, bool) {
	lt, err := t.VM.LineTable(ctx, loc.Class, loc.Method)
	if err != nil || lt.Absent {
		return srcLine{}, false
	}
	jvm := int(lt.LineFor(loc.Index))
	sl, ok, err := t.VM.MapLine(ctx, loc.Class, "", jvm)
	if err != nil {
		return srcLine{}, false
	}
	if !ok {
		return srcLine{line: jvm}, true
	}
	own, err := t.VM.SourceMap(ctx, loc.Class)
	if err == nil && own != nil && len(own.Strata) > 0 {
		if st := own.Stratum(own.DefaultStratum); st != nil && len(st.Files) > 0 && st.Files[0].ID == sl.File.ID {
			return srcLine{line: sl.Line}, true // the class's own file (the map's first)
		}
	}
	return srcLine{file: sl.File.Path + "/" + sl.File.Name, line: sl.Line}, true
}

// overInlined says whether a step over that landed at loc goes on: it is
// in the frame the step began in, on a line of code inlined from another
// source (an inline function's body, its JVM lines past the file's end), or
// back on the source line it began on.
func (t *Target) overInlined(ctx context.Context, st *stepState, loc jdwp.Location) bool {
	if st.ready != nil {
		select {
		case <-st.ready:
		case <-ctx.Done():
			return false
		}
	}
	if st.depth != jdwp.StepOver || st.origin == 0 || st.inlining >= maxInlineHops ||
		loc.Class != st.from.Class || loc.Method != st.from.Method {
		return false
	}
	n, err := t.VM.FrameCount(ctx, st.thread)
	if err != nil || n != st.origin {
		return false
	}
	at, ok := t.sourceLine(ctx, loc)
	if !ok {
		return false
	}
	return at == st.fromSrc || at.file != "" && at.file != st.fromSrc.file
}

// StepTarget is a call a step can go into.
type StepTarget struct {
	Thread            jdwp.ThreadID
	Class, Name, Desc string // class as a binary name
}

// stepTables are the steps of a session (guarded by Target.mu).
type stepTables struct {
	steps     map[jdwp.ThreadID][]int32    // pending single-step requests, by thread
	stepping  map[jdwp.ThreadID]*stepState // the steps in progress, by thread
	resuming  map[int32]*stepState         // steps waiting for their coroutine's resume, by breakpoint request
	abandoned map[int32]bool               // step requests of steps that moved to another thread (their events are ignored)
	movedFrom map[jdwp.ThreadID]bool       // threads a step moved away from (their step events are ignored until a new step)
}

// skipClasses are the class patterns step-into excludes.
func (t *Target) skipClasses() []string {
	f := t.Opts.StepFilters
	if f == nil {
		return append(append([]string(nil), JDKClasses...), KotlinIntrinsics...)
	}
	var out []string
	for _, p := range f.SkipClasses {
		switch p {
		case "$JDK":
			// The Kotlin runtime's intrinsics are the compiler's own calls,
			// as foreign to the program as the JDK's.
			out = append(out, JDKClasses...)
			out = append(out, KotlinIntrinsics...)
		case "$Libraries":
			// Without a project model the layer cannot tell libraries from
			// the program; ignored.
		default:
			out = append(out, p)
		}
	}
	return out
}

// ClearSteps clears the pending steps of a thread, or of every thread
// when thread is 0.
func (t *Target) ClearSteps(ctx context.Context, thread jdwp.ThreadID) {
	t.mu.Lock()
	var steps []int32
	var states []*stepState
	for th, ids := range t.steps.steps {
		if thread == 0 || th == thread {
			steps = append(steps, ids...)
			delete(t.steps.steps, th)
		}
	}
	for th, st := range t.steps.stepping {
		if thread == 0 || th == thread {
			states = append(states, st)
			delete(t.steps.stepping, th)
		}
	}
	for th := range t.steps.movedFrom {
		if thread == 0 || th == thread {
			delete(t.steps.movedFrom, th)
		}
	}
	t.mu.Unlock()
	for _, id := range steps {
		t.Requests.Clear(ctx, jdwp.EventSingleStep, id)
	}
	for _, st := range states {
		if st.entryReq != 0 {
			t.Requests.Clear(ctx, jdwp.EventMethodEntry, st.entryReq)
		}
		t.clearSuspendStep(ctx, st)
	}
}

// Step begins a line step of a thread (it stays suspended until the
// caller resumes it); reason is the stop's reason ("step", or "restart"
// for a restarted frame).
func (t *Target) Step(ctx context.Context, th jdwp.ThreadID, depth jdwp.StepDepth, reason string) error {
	t.ClearSteps(ctx, th)
	st := &stepState{thread: th, depth: depth, reason: reason}
	if f := t.Opts.StepFilters; depth == jdwp.StepInto && f != nil && (f.SkipConstructors || f.SkipStaticInitializers || f.SkipSynthetics) {
		n, err := t.VM.FrameCount(ctx, th)
		if err != nil {
			return err
		}
		fs, err := t.VM.Frames(ctx, th, 0, 1)
		if err != nil || len(fs) == 0 {
			return fmt.Errorf("the thread's top frame: %v", err)
		}
		st.origin, st.from = n, fs[0].Loc
		if lt, err := t.VM.LineTable(ctx, st.from.Class, st.from.Method); err == nil && !lt.Absent {
			st.fromLine = lt.LineFor(st.from.Index)
		}
	}
	t.mu.Lock()
	t.steps.stepping[th] = st
	t.mu.Unlock()
	if depth != jdwp.StepOver {
		return t.stepRequest(ctx, th, depth)
	}
	// A step over returns as soon as its request is on its way: the
	// caller's resume follows it in one burst (the VM runs commands in
	// order, so the step is set before the thread runs), and its answer is
	// booked when it comes (onStep waits for that). Where it begins is the
	// stop's stack, or read in the same burst, ahead of the resume.
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), originTimeout)
	st.ready = make(chan struct{})
	var (
		top    []mirror.Frame
		frames int32
		wait   = func() error { return nil }
	)
	cached := false
	if fs, ok := t.stopStack(th); ok && len(fs) > 0 {
		top, frames, cached = fs[:1], int32(len(fs)), true
	} else if t.suspendsAt(ctx, th) {
		// A language with suspension points (Kotlin) needs the top frame
		// before the resume to watch a suspend function's exit: one round
		// trip, only for a stop in such a language's class and only when
		// the stop's stack was not read.
		fs, n, err := t.VM.FramesAndCount(ctx, th, 0, 1)
		if err == nil && len(fs) > 0 {
			top, frames, cached = fs, n, true
		}
	} else {
		wait = sendQueued(bctx, func(ctx context.Context) (err error) {
			top, frames, err = t.VM.FramesAndCount(ctx, th, 0, 1)
			return err
		})
	}
	// A step over in a suspend function's state machine watches its exit
	// and its continuation's resume, set before the caller's resume (the
	// thread is suspended: no exit can come first). Only such a frame pays
	// for it, and only with the stop's stack at hand.
	if cached {
		t.watchSuspension(ctx, st, top[0], frames)
	}
	t.stepQueued(bctx, st)
	// The rest needs no suspended thread: it runs while the VM steps, and
	// the step's event waits for it (see overInlined).
	go func() {
		defer cancel()
		defer close(st.ready)
		if err := wait(); err != nil || len(top) == 0 {
			return
		}
		t.stepOverOrigin(bctx, st, top[0].Loc, frames)
	}()
	return nil
}

// stepQueued sets the one-shot line step request of a step over and
// returns once it is on its way; its answer is booked when it comes
// (st.set is closed then). Should the VM refuse it, the thread runs on
// unstepped (the caller's resume went out): the user is told.
func (t *Target) stepQueued(ctx context.Context, st *stepState) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), originTimeout)
	st.set = make(chan struct{})
	q := make(chan struct{})
	var once sync.Once
	queued := func() { once.Do(func() { close(q) }) }
	mods := []jdwp.Modifier{jdwp.Step{Thread: st.thread, Size: jdwp.StepLine, Depth: st.depth}, jdwp.Count(1)}
	go func() {
		defer cancel()
		defer close(st.set)
		id, err := t.Requests.Set(jdwp.WithQueued(ctx, queued), jdwp.EventSingleStep, stopPolicy, mods...)
		queued()
		if err != nil {
			if t.Conn.Err() == nil {
				t.log.Warn().Err(err).Msg("step request")
				t.fe.Output("important", fmt.Sprintf("step: the VM did not take the step (%v); the thread runs on\n", err))
			}
			return
		}
		t.mu.Lock()
		current := t.steps.stepping[st.thread] == st
		if current {
			t.steps.steps[st.thread] = append(t.steps.steps[st.thread], id)
		}
		t.mu.Unlock()
		if !current { // cleared meanwhile (a stop, a continue)
			t.Requests.Clear(ctx, jdwp.EventSingleStep, id)
		}
	}()
	<-q
}

// originTimeout bounds reading where a step over began.
const originTimeout = 30 * time.Second

// stepOverOrigin notes where a step over begins (its top frame at loc, n
// frames), when the frame's class is of a language that inlines code
// across files (only then can a step over land in code of another source
// in the same frame). Without it (an error included) the step over is the
// VM's plain line step.
func (t *Target) stepOverOrigin(ctx context.Context, st *stepState, loc jdwp.Location, n int32) {
	sf, err := t.VM.SourceFile(ctx, loc.Class)
	if err != nil || !inlines(t.langs().ForClass(sf)) {
		return
	}
	if s, err := t.VM.SourceMap(ctx, loc.Class); err != nil || s == nil {
		return
	}
	from, ok := t.sourceLine(ctx, loc)
	if !ok {
		return
	}
	st.origin, st.from, st.fromSrc = n, loc, from
}

// StepInto steps into one call of the current line: it watches method
// entries in the thread until the target is entered, and steps over the
// line in case it is not.
func (t *Target) StepInto(ctx context.Context, target *StepTarget) error {
	t.ClearSteps(ctx, target.Thread)
	mods := []jdwp.Modifier{jdwp.ThreadOnly(target.Thread)}
	if !strings.HasPrefix(target.Class, "java.") {
		for _, p := range JDKClasses {
			mods = append(mods, jdwp.ClassExclude(p))
		}
	}
	entry, err := t.Requests.Set(ctx, jdwp.EventMethodEntry, stopPolicy, mods...)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.steps.stepping[target.Thread] = &stepState{thread: target.Thread, depth: jdwp.StepOver, reason: "step", target: target, entryReq: entry}
	t.mu.Unlock()
	return t.stepRequest(ctx, target.Thread, jdwp.StepOver)
}

// stepRequest sets a one-shot line step request.
func (t *Target) stepRequest(ctx context.Context, th jdwp.ThreadID, depth jdwp.StepDepth) error {
	return t.stepRequestSize(ctx, th, jdwp.StepLine, depth)
}

// stepRequestSize sets a one-shot step request of a size (line or
// instruction).
func (t *Target) stepRequestSize(ctx context.Context, th jdwp.ThreadID, size jdwp.StepSize, depth jdwp.StepDepth) error {
	mods := []jdwp.Modifier{jdwp.Step{Thread: th, Size: size, Depth: depth}}
	if depth == jdwp.StepInto {
		for _, p := range t.skipClasses() {
			mods = append(mods, jdwp.ClassExclude(p))
		}
	}
	mods = append(mods, jdwp.Count(1))
	id, err := t.Requests.Set(ctx, jdwp.EventSingleStep, stopPolicy, mods...)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.steps.steps[th] = append(t.steps.steps[th], id)
	t.mu.Unlock()
	return nil
}

// filtered reports whether step filters pass over the method at loc.
func (t *Target) filtered(ctx context.Context, loc jdwp.Location) bool {
	f := t.Opts.StepFilters
	if f == nil {
		return false
	}
	m, err := t.VM.Method(ctx, loc.Class, loc.Method)
	if err != nil {
		return false
	}
	switch {
	case f.SkipConstructors && m.Name == "<init>", f.SkipStaticInitializers && m.Name == "<clinit>":
		return true
	case f.SkipSynthetics:
		if m.ModBits&(jdwp.AccSynthetic|mirror.AccBridge) != 0 || strings.HasPrefix(m.Name, "lambda$") {
			return true
		}
		sig, err := t.VM.Signature(ctx, loc.Class)
		return err == nil && strings.Contains(sig, "$$Lambda")
	}
	return false
}

// removeID returns ids without id.
func removeID(ids []int32, id int32) []int32 {
	out := ids[:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// onStep decides whether a completed step stops, or goes on past a
// filtered method.
func (t *Target) onStep(ctx context.Context, e jdwp.Event) *Stop {
	// A step over's request is booked when its answer comes, which the
	// wire brings before the event: wait for the booking.
	t.mu.Lock()
	st := t.steps.stepping[e.Thread]
	t.mu.Unlock()
	if st != nil && st.set != nil {
		select {
		case <-st.set:
		case <-ctx.Done():
		}
	}
	// The step had a count of one: it fired and stays so. Its clearing
	// goes out ahead of whatever follows, and nothing waits for the answer.
	t.Requests.ClearNoWait(jdwp.EventSingleStep, e.RequestID)
	t.mu.Lock()
	if t.steps.abandoned[e.RequestID] {
		delete(t.steps.abandoned, e.RequestID)
		t.mu.Unlock()
		return nil
	}
	st = t.steps.stepping[e.Thread]
	if st == nil && t.steps.movedFrom[e.Thread] {
		t.mu.Unlock()
		return nil // a request of a step that went on in another thread
	}
	if ids := t.steps.steps[e.Thread]; len(ids) > 0 {
		t.steps.steps[e.Thread] = removeID(ids, e.RequestID)
	}
	t.mu.Unlock()
	if st == nil || st.thread != e.Thread {
		return &Stop{Reason: "step", Thread: e.Thread}
	}
	stop := &Stop{Reason: st.reason, Thread: e.Thread}
	if ss := st.suspend; ss != nil {
		if ss.resumed {
			return t.resumedStep(ctx, st, e)
		}
		if ss.suspended && t.awaitResume(ctx, st) {
			return nil // the thread goes on; the step waits for the coroutine
		}
		if !ss.suspended && t.leavingSuspended(ctx, st, e) {
			return nil // on its way out of the function, suspended
		}
		// It did not suspend: the step goes on as any (its watch ends
		// with the step).
	}
	if st.leaving {
		st.leaving = false
		if err := t.stepRequest(ctx, e.Thread, jdwp.StepInto); err != nil {
			t.log.Warn().Err(err).Msg("step into after leaving a filtered method")
			return stop
		}
		return nil
	}
	if st.hops < 64 && t.beforeFirstLine(ctx, e.Location) {
		// Entered a method before its first line (kotlinc checks the
		// parameters there): the step goes on to the first line.
		// A line step from there passes the first line (the VM knows no
		// line to leave): step by instruction, over the checks' calls.
		st.hops++
		if err := t.stepRequestSize(ctx, e.Thread, jdwp.StepMin, jdwp.StepOver); err == nil {
			return nil
		}
	}
	if t.overInlined(ctx, st, e.Location) {
		st.inlining++
		if err := t.stepRequest(ctx, e.Thread, jdwp.StepOver); err == nil {
			return nil
		}
	}
	if st.hops < 20 {
		if depth, again := t.stepOn(ctx, st, e.Location); again {
			st.hops++
			if err := t.stepRequest(ctx, e.Thread, depth); err == nil {
				return nil
			}
		}
	}
	if st.depth != jdwp.StepInto || st.hops >= 20 || t.Opts.StepFilters == nil {
		return stop
	}
	n, err := t.VM.FrameCount(ctx, e.Thread)
	if err != nil {
		return stop
	}
	switch {
	case n > st.origin && t.filtered(ctx, e.Location):
		st.hops++
		st.leaving = true
		if err := t.stepRequest(ctx, e.Thread, jdwp.StepOut); err == nil {
			return nil
		}
		st.leaving = false
	case st.hops > 0 && n == st.origin && e.Location.Class == st.from.Class && e.Location.Method == st.from.Method:
		// Back on the line the step began on, after a filtered call
		// returned: the step is not over yet.
		if lt, err := t.VM.LineTable(ctx, e.Location.Class, e.Location.Method); err == nil && !lt.Absent && lt.LineFor(e.Location.Index) == st.fromLine {
			st.hops++
			if err := t.stepRequest(ctx, e.Thread, jdwp.StepInto); err == nil {
				return nil
			}
		}
	}
	return stop
}

// onMethodEntry stops a step into a target when the target is entered.
func (t *Target) onMethodEntry(ctx context.Context, e jdwp.Event) *Stop {
	t.mu.Lock()
	st := t.steps.stepping[e.Thread]
	t.mu.Unlock()
	if st == nil || st.target == nil || st.thread != e.Thread {
		return nil
	}
	m, err := t.VM.Method(ctx, e.Location.Class, e.Location.Method)
	if err != nil || m.Name != st.target.Name || m.Signature != st.target.Desc {
		return nil
	}
	return &Stop{Reason: "step", Thread: e.Thread}
}

// stepOn says whether a completed step should go on, and how, rather than
// stop at loc.
func (t *Target) stepOn(ctx context.Context, st *stepState, loc jdwp.Location) (jdwp.StepDepth, bool) {
	sig, err := t.VM.Signature(ctx, loc.Class)
	if err != nil {
		return 0, false
	}
	name := javalang.TypeName(sig)
	switch {
	case st.depth == jdwp.StepInto && hiddenClass(name):
		return jdwp.StepInto, true
	case st.depth == jdwp.StepOut && (hiddenClass(name) || t.skipped(name)):
		return jdwp.StepOut, true
	}
	return 0, false
}

// hiddenClass reports whether a class is a VM-generated lambda proxy.
func hiddenClass(name string) bool {
	return strings.Contains(name, "$$Lambda")
}

// skipped reports whether the step filters pass over a class (by name).
func (t *Target) skipped(name string) bool {
	for _, p := range t.skipClasses() {
		switch {
		case strings.HasSuffix(p, "*") && strings.HasPrefix(name, strings.TrimSuffix(p, "*")),
			strings.HasPrefix(p, "*") && strings.HasSuffix(name, strings.TrimPrefix(p, "*")),
			p == name:
			return true
		}
	}
	return false
}
