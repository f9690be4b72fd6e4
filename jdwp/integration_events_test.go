package jdwp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// testStep stops at the call in stepOuter and steps into, over and out,
// checking each landing line against the markers.
func (d *debuggee) testStep(t *testing.T) {
	ctx, c := d.ctx, d.c
	s := d.subscribe(t)
	e, bp := d.breakAt(t, s, "stepOuter", "step_call", scStep)
	check(t, c.ClearRequest(ctx, jdwp.EventBreakpoint, bp))
	th := e.Thread
	depth0 := must(c.FrameCount(ctx, th))(t)
	for _, step := range []struct {
		depth          jdwp.StepDepth
		method, marker string
		frames         int32
	}{
		{jdwp.StepInto, "stepInner", "step_inner_first", depth0 + 1},
		{jdwp.StepOver, "stepInner", "step_inner_second", depth0 + 1},
		{jdwp.StepOut, "stepOuter", "step_call", depth0}, // back on the call line, to store its result
		{jdwp.StepOver, "stepOuter", "step_next", depth0},
	} {
		id := d.request(t, jdwp.EventSingleStep, jdwp.SuspendEventThread, jdwp.Step{Thread: th, Size: jdwp.StepLine, Depth: step.depth})
		check(t, c.ResumeThread(ctx, th))
		ev, _ := s.await(t, jdwp.EventSingleStep, func(e jdwp.Event) bool { return e.RequestID == id })
		check(t, c.ClearRequest(ctx, jdwp.EventSingleStep, id))
		if ev.Thread != th {
			t.Errorf("step event in thread %d, want %d", ev.Thread, th)
		}
		if m, l := d.methodName(t, ev.Location), d.line(t, ev.Location); m != step.method || l != d.lines[step.marker] {
			t.Errorf("step (depth %d) landed in %s line %d, want %s line %d (@%s)", step.depth, m, l, step.method, d.lines[step.marker], step.marker)
		}
		if n := must(c.FrameCount(ctx, th))(t); n != step.frames {
			t.Errorf("after step (depth %d): %d frames, want %d", step.depth, n, step.frames)
		}
	}
	check(t, c.ResumeThread(ctx, th))
	d.waitLine(t, "STEP 5")
}

func (d *debuggee) testExceptions(t *testing.T) {
	t.Run("Caught", func(t *testing.T) {
		s := d.subscribe(t)
		id := d.request(t, jdwp.EventException, jdwp.SuspendEventThread, jdwp.ExceptionOnly{Caught: true}, jdwp.ClassMatch("Target"))
		d.run(t, scCaught)
		e, _ := s.await(t, jdwp.EventException, func(e jdwp.Event) bool { return e.RequestID == id })
		if e.Exception.Tag != jdwp.TagObject || d.typeSignature(t, e.Exception.ID) != "Ljava/lang/IllegalStateException;" {
			t.Errorf("exception = %+v, want an IllegalStateException", e.Exception)
		}
		if m, l := d.methodName(t, e.Location), d.line(t, e.Location); m != "throwIt" || l != d.lines["throw"] {
			t.Errorf("thrown at %s line %d, want throwIt line %d", m, l, d.lines["throw"])
		}
		if m, l := d.methodName(t, e.CatchLocation), d.line(t, e.CatchLocation); m != "caught" || l != d.lines["catch"] {
			t.Errorf("caught at %s line %d, want caught line %d", m, l, d.lines["catch"])
		}
		d.resume(t, jdwp.SuspendEventThread, e.Thread)
		d.waitLine(t, "CAUGHT caught-one")
	})
	t.Run("Uncaught", func(t *testing.T) {
		s := d.subscribe(t)
		id := d.request(t, jdwp.EventException, jdwp.SuspendEventThread, jdwp.ExceptionOnly{Uncaught: true}, jdwp.ClassMatch("Target"))
		d.run(t, scUncaught)
		e, _ := s.await(t, jdwp.EventException, func(e jdwp.Event) bool { return e.RequestID == id })
		if d.typeSignature(t, e.Exception.ID) != "Ljava/lang/UnsupportedOperationException;" {
			t.Errorf("exception is a %s", d.typeSignature(t, e.Exception.ID))
		}
		// HotSpot writes type tag 1 (class) in the null catch location.
		if cl := e.CatchLocation; cl.Class != 0 || cl.Method != 0 || cl.Index != 0 {
			t.Errorf("uncaught exception has catch location %v, want none", cl)
		}
		if name := must(d.c.ThreadName(d.ctx, e.Thread))(t); name != "uncaught-thread" {
			t.Errorf("thrown in thread %q", name)
		}
		if m, l := d.methodName(t, e.Location), d.line(t, e.Location); !strings.HasPrefix(m, "lambda$") || l != d.lines["uncaught"] {
			t.Errorf("thrown at %s line %d, want the lambda at line %d", m, l, d.lines["uncaught"])
		}
		d.resume(t, jdwp.SuspendEventThread, e.Thread)
		d.waitLine(t, "UNCAUGHT done")
	})
}

func (d *debuggee) testClassPrepare(t *testing.T) {
	s := d.subscribe(t)
	if got := must(d.c.ClassesBySignature(d.ctx, "LLazyLoaded;"))(t); len(got) != 0 {
		t.Fatalf("LazyLoaded already loaded: %v", got)
	}
	id := d.request(t, jdwp.EventClassPrepare, jdwp.SuspendEventThread, jdwp.ClassMatch("LazyLoaded"), jdwp.SourceNameMatch("Target.java"))
	d.run(t, scLazy)
	e, _ := s.await(t, jdwp.EventClassPrepare, func(e jdwp.Event) bool { return e.RequestID == id })
	if e.Signature != "LLazyLoaded;" || e.TypeTag != jdwp.TypeTagClass || e.Status&jdwp.ClassPrepared == 0 || e.Status&jdwp.ClassInitialized != 0 {
		t.Errorf("CLASS_PREPARE = %+v, want LLazyLoaded; prepared, not initialized", e)
	}
	if name := must(d.c.ThreadName(d.ctx, e.Thread))(t); name != "main" {
		t.Errorf("prepared in thread %q", name)
	}
	if sig := must(d.c.Signature(d.ctx, e.RefType))(t); sig != "LLazyLoaded;" {
		t.Errorf("Signature(RefType) = %q", sig)
	}
	d.method(t, e.RefType, "touch")
	d.resume(t, jdwp.SuspendEventThread, e.Thread)
	d.waitLine(t, "LAZY 3")
}

// testMethodEntryExit watches Box's methods while scenario 6 builds a Box and
// asks its area.
func (d *debuggee) testMethodEntryExit(t *testing.T) {
	box := d.class(t, "LTarget$Box;")
	s := d.subscribe(t)
	entry := d.request(t, jdwp.EventMethodEntry, jdwp.SuspendNone, jdwp.ClassOnly(box), jdwp.ThreadOnly(d.threadByName(t, "main")))
	exit := d.request(t, jdwp.EventMethodExit, jdwp.SuspendNone, jdwp.ClassOnly(box))
	exitValue := d.request(t, jdwp.EventMethodExitWithReturnValue, jdwp.SuspendNone, jdwp.ClassOnly(box))
	d.run(t, scBoxes)
	type seen struct {
		kind   jdwp.EventKind
		method string
	}
	requests := map[jdwp.EventKind]int32{jdwp.EventMethodEntry: entry, jdwp.EventMethodExit: exit, jdwp.EventMethodExitWithReturnValue: exitValue}
	want := []seen{
		{jdwp.EventMethodEntry, "<init>"}, {jdwp.EventMethodExit, "<init>"}, {jdwp.EventMethodExitWithReturnValue, "<init>"},
		{jdwp.EventMethodEntry, "area"}, {jdwp.EventMethodExit, "area"}, {jdwp.EventMethodExitWithReturnValue, "area"},
	}
	var got []seen
	var values []jdwp.Value
	for _, w := range want {
		e, policy := s.await(t, w.kind, nil)
		if policy != jdwp.SuspendNone || e.RequestID != requests[w.kind] {
			t.Errorf("%s: request %d, policy %d; want %d, none", w.kind, e.RequestID, policy, requests[w.kind])
		}
		if e.Location.Class != box {
			t.Errorf("%s in class %d, want Box %d", w.kind, e.Location.Class, box)
		}
		if w.kind == jdwp.EventMethodEntry && e.Location.Index != 0 {
			t.Errorf("METHOD_ENTRY at index %d, want 0", e.Location.Index)
		}
		got = append(got, seen{w.kind, d.methodName(t, e.Location)})
		if w.kind == jdwp.EventMethodExitWithReturnValue {
			values = append(values, e.Value)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("method events = %v, want %v", got, want)
	}
	if !slices.Equal(values, []jdwp.Value{jdwp.VoidValue(), jdwp.IntValue(12)}) {
		t.Errorf("return values = %v, want [void 12]", values)
	}
	d.waitLine(t, "BOXES 12")
}

// testWatchpoints watches the static counter (access and modification) and
// the instance field Box.w (modification) during scenario 7.
func (d *debuggee) testWatchpoints(t *testing.T) {
	ctx, c := d.ctx, d.c
	box := d.class(t, "LTarget$Box;")
	var w jdwp.FieldID
	for _, f := range must(c.Fields(ctx, box))(t) {
		if f.Name == "w" {
			w = f.ID
		}
	}
	counter := d.fields["counter"]
	s := d.subscribe(t)
	acc := d.request(t, jdwp.EventFieldAccess, jdwp.SuspendEventThread, jdwp.FieldOnly{Type: d.target, Field: counter})
	mod := d.request(t, jdwp.EventFieldModification, jdwp.SuspendEventThread, jdwp.FieldOnly{Type: d.target, Field: counter})
	modW := d.request(t, jdwp.EventFieldModification, jdwp.SuspendNone, jdwp.FieldOnly{Type: box, Field: w})
	d.run(t, scFields)

	e, _ := s.await(t, jdwp.EventFieldAccess, func(e jdwp.Event) bool { return e.RequestID == acc })
	if e.Field != counter || e.RefType != d.target || e.Object.ID != 0 || d.line(t, e.Location) != d.lines["field_write"] {
		t.Errorf("FIELD_ACCESS = %+v, want static counter at line %d", e, d.lines["field_write"])
	}
	d.resume(t, jdwp.SuspendEventThread, e.Thread)
	e, _ = s.await(t, jdwp.EventFieldModification, func(e jdwp.Event) bool { return e.RequestID == mod })
	if e.Value != jdwp.IntValue(15) || e.Field != counter || e.Object.ID != 0 {
		t.Errorf("FIELD_MODIFICATION = %+v, want counter := 15", e)
	}
	if v := d.staticValue(t, "counter"); v != jdwp.IntValue(10) {
		t.Errorf("counter = %v before the write completes, want 10", v)
	}
	check(t, c.ClearRequest(ctx, jdwp.EventFieldAccess, acc))
	d.resume(t, jdwp.SuspendEventThread, e.Thread)

	// Box.w is written by the field initializer, then by fields().
	var obj jdwp.ObjectID
	for _, want := range []int32{3, 6} {
		e, _ = s.await(t, jdwp.EventFieldModification, func(e jdwp.Event) bool { return e.RequestID == modW })
		if e.Value != jdwp.IntValue(want) || e.Object.Tag != jdwp.TagObject || e.Object.ID == 0 || (obj != 0 && e.Object.ID != obj) {
			t.Errorf("FIELD_MODIFICATION of w = %+v, want %d on one box", e, want)
		}
		obj = e.Object.ID
	}
	if d.line(t, e.Location) != d.lines["field_write_w"] {
		t.Errorf("w written at line %d, want %d", d.line(t, e.Location), d.lines["field_write_w"])
	}
	d.waitLine(t, "FIELDS 15 24")
}

func (d *debuggee) testThreadStartDeath(t *testing.T) {
	ctx, c := d.ctx, d.c
	s := d.subscribe(t)
	start := d.request(t, jdwp.EventThreadStart, jdwp.SuspendEventThread)
	death := d.request(t, jdwp.EventThreadDeath, jdwp.SuspendNone)
	d.run(t, scThreads)
	e, _ := s.await(t, jdwp.EventThreadStart, func(e jdwp.Event) bool {
		name, err := c.ThreadName(ctx, e.Thread)
		return err == nil && name == "worker-thread" && e.RequestID == start
	})
	worker := e.Thread
	if _, suspended, _ := c.ThreadStatus(ctx, worker); !suspended {
		t.Error("started thread not suspended by its THREAD_START")
	}
	if g := must(c.ThreadGroup(ctx, worker))(t); must(c.ThreadGroupName(ctx, g))(t) != "main" {
		t.Errorf("worker in group %q", must(c.ThreadGroupName(ctx, g))(t))
	}
	check(t, c.ResumeThread(ctx, worker))
	e, _ = s.await(t, jdwp.EventThreadDeath, func(e jdwp.Event) bool { return e.Thread == worker })
	if e.RequestID != death {
		t.Errorf("THREAD_DEATH request %d, want %d", e.RequestID, death)
	}
	d.waitLine(t, "THREADS true")
}

// testMonitors holds Target.lock in main while "contender" blocks on it, then
// waits on it with a timeout.
func (d *debuggee) testMonitors(t *testing.T) {
	ctx, c := d.ctx, d.c
	lock := d.staticValue(t, "lock").Object()
	if mi := must(c.MonitorInfo(ctx, lock))(t); mi.Owner != 0 || mi.EntryCount != 0 || len(mi.Waiters) != 0 {
		t.Errorf("MonitorInfo(free lock) = %+v", mi)
	}
	s := d.subscribe(t)
	onLock := func(e jdwp.Event) bool { return e.Object.ID == lock }
	d.request(t, jdwp.EventMonitorContendedEnter, jdwp.SuspendNone)
	d.request(t, jdwp.EventMonitorContendedEntered, jdwp.SuspendNone)
	d.request(t, jdwp.EventMonitorWait, jdwp.SuspendNone)
	d.request(t, jdwp.EventMonitorWaited, jdwp.SuspendNone)
	e, bp := d.breakAt(t, s, "monitors", "monitor_held", scMonitors)
	check(t, c.ClearRequest(ctx, jdwp.EventBreakpoint, bp))
	main := e.Thread

	enter, _ := s.await(t, jdwp.EventMonitorContendedEnter, onLock)
	contender := enter.Thread
	if name := must(c.ThreadName(ctx, contender))(t); name != "contender" || enter.Object.Tag != jdwp.TagObject {
		t.Errorf("MONITOR_CONTENDED_ENTER by %q on %+v", name, enter.Object)
	}
	mi := must(c.MonitorInfo(ctx, lock))(t)
	if mi.Owner != main || mi.EntryCount != 1 || !slices.Contains(mi.Waiters, contender) {
		t.Errorf("MonitorInfo(held lock) = %+v, want owner main %d, 1 entry, contender %d waiting", mi, main, contender)
	}
	if owned := must(c.OwnedMonitors(ctx, main))(t); !slices.Contains(owned, jdwp.TaggedObjectID{Tag: jdwp.TagObject, ID: lock}) {
		t.Errorf("OwnedMonitors(main) = %v, want lock %d", owned, lock)
	}
	if depth := must(c.OwnedMonitorsStackDepthInfo(ctx, main))(t); !slices.Contains(depth, jdwp.MonitorDepth{Monitor: jdwp.TaggedObjectID{Tag: jdwp.TagObject, ID: lock}, Depth: 0}) {
		t.Errorf("OwnedMonitorsStackDepthInfo(main) = %v, want lock at depth 0", depth)
	}
	if m := must(c.CurrentContendedMonitor(ctx, main))(t); m.ID != 0 {
		t.Errorf("CurrentContendedMonitor(main) = %+v, want none", m)
	}
	check(t, c.SuspendThread(ctx, contender))
	if m := must(c.CurrentContendedMonitor(ctx, contender))(t); m.ID != lock {
		t.Errorf("CurrentContendedMonitor(contender) = %+v, want lock %d", m, lock)
	}
	if st, _, _ := c.ThreadStatus(ctx, contender); st != jdwp.ThreadMonitor {
		t.Errorf("ThreadStatus(contender) = %v, want monitor", st)
	}
	check(t, c.ResumeThread(ctx, contender))
	check(t, c.ResumeThread(ctx, main))

	if e, _ := s.await(t, jdwp.EventMonitorContendedEntered, onLock); e.Thread != contender {
		t.Errorf("MONITOR_CONTENDED_ENTERED in thread %d, want contender %d", e.Thread, contender)
	}
	// The wait is reported at the top frame: the native Object.wait(long).
	e, _ = s.await(t, jdwp.EventMonitorWait, onLock)
	if e.Thread != main || e.Timeout != 5 || e.Location.Class != d.class(t, "Ljava/lang/Object;") || d.methodName(t, e.Location) != "wait" {
		t.Errorf("MONITOR_WAIT = %+v, want main waiting 5 ms in Object.wait", e)
	}
	if e, _ = s.await(t, jdwp.EventMonitorWaited, onLock); e.Thread != main || !e.TimedOut {
		t.Errorf("MONITOR_WAITED = %+v, want main timed out", e)
	}
	d.waitLine(t, "MONITORS 11")
}

// testPopFrames pops compute's frame at its breakpoint, so compute runs again.
func (d *debuggee) testPopFrames(t *testing.T) {
	ctx, c := d.ctx, d.c
	s := d.subscribe(t)
	e, bp := d.breakAt(t, s, "compute", "compute", scPop)
	th := e.Thread
	before := must(c.FrameCount(ctx, th))(t)
	frames := must(c.Frames(ctx, th, 0, 1))(t)
	check(t, c.PopFrames(ctx, th, frames[0].ID))
	top := must(c.Frames(ctx, th, 0, 1))(t)[0]
	if m, l := d.methodName(t, top.Location), d.line(t, top.Location); m != "pop" || l != d.lines["pop_call"] {
		t.Errorf("after PopFrames the top frame is %s line %d, want pop line %d", m, l, d.lines["pop_call"])
	}
	if n := must(c.FrameCount(ctx, th))(t); n != before-1 {
		t.Errorf("FrameCount after PopFrames = %d, want %d", n, before-1)
	}
	check(t, c.ResumeThread(ctx, th))
	e, _ = s.await(t, jdwp.EventBreakpoint, func(e jdwp.Event) bool { return e.RequestID == bp })
	check(t, c.ClearRequest(ctx, jdwp.EventBreakpoint, bp))
	check(t, c.ResumeThread(ctx, e.Thread))
	d.waitLine(t, "POP r=40 calls=2")
}

func (d *debuggee) testForceEarlyReturn(t *testing.T) {
	ctx, c := d.ctx, d.c
	s := d.subscribe(t)
	e, bp := d.breakAt(t, s, "compute", "compute", scEarly)
	check(t, c.ClearRequest(ctx, jdwp.EventBreakpoint, bp))
	wantCode(t, "ForceEarlyReturn(long) from an int method", c.ForceEarlyReturn(ctx, e.Thread, jdwp.LongValue(1)), jdwp.ErrTypeMismatch)
	check(t, c.ForceEarlyReturn(ctx, e.Thread, jdwp.IntValue(99)))
	check(t, c.ResumeThread(ctx, e.Thread))
	d.waitLine(t, "EARLY r=99 calls=1")
}

func (d *debuggee) testClearAllBreakpoints(t *testing.T) {
	s := d.subscribe(t)
	d.request(t, jdwp.EventBreakpoint, jdwp.SuspendEventThread, jdwp.LocationOnly(d.locationOf(t, d.target, "compute", "compute", d.lines)))
	d.request(t, jdwp.EventBreakpoint, jdwp.SuspendEventThread, jdwp.LocationOnly(d.locationOf(t, d.target, "holdPoint", "hold", d.lines)))
	check(t, d.c.ClearAllBreakpoints(d.ctx))
	d.run(t, scEarly)
	d.waitLine(t, "EARLY r=50 calls=1") // printed only if compute did not stop
	s.none(t, 0)
}

// testHoldEvents holds events while main reaches a breakpoint, then releases
// them.
func (d *debuggee) testHoldEvents(t *testing.T) {
	ctx, c := d.ctx, d.c
	s := d.subscribe(t)
	bp := d.request(t, jdwp.EventBreakpoint, jdwp.SuspendEventThread, jdwp.LocationOnly(d.locationOf(t, d.target, "holdPoint", "hold", d.lines)))
	check(t, c.HoldEvents(ctx))
	released := false
	t.Cleanup(func() {
		if !released {
			c.ReleaseEvents(ctx)
		}
	})
	d.run(t, scHold)
	d.waitLine(t, "HOLD armed")
	s.none(t, 200*time.Millisecond)
	check(t, c.ReleaseEvents(ctx))
	released = true
	e, _ := s.await(t, jdwp.EventBreakpoint, func(e jdwp.Event) bool { return e.RequestID == bp })
	check(t, c.ClearRequest(ctx, jdwp.EventBreakpoint, bp))
	check(t, c.ResumeThread(ctx, e.Thread))
	d.waitLine(t, "HOLD done 1")
}

func (d *debuggee) testStopAndInterrupt(t *testing.T) {
	ctx, c := d.ctx, d.c
	d.run(t, scStopThread)
	d.waitLine(t, "SLEEPER ready")
	d.waitLine(t, "SPINNER ready")
	check(t, c.InterruptThread(ctx, d.threadByName(t, "sleeper")))
	d.waitLine(t, "SLEEPER interrupted")
	check(t, c.StopThread(ctx, d.threadByName(t, "spinner"), d.staticValue(t, "STOP").Object()))
	d.waitLine(t, "SPINNER stopped stop-from-debugger")
}

// testRedefine replaces Redef.value (1 → 2) while a frame runs it, then tries
// a redefinition HotSpot refuses (adding a method).
func (d *debuggee) testRedefine(t *testing.T) {
	ctx, c := d.ctx, d.c
	classFile := func(dir string) []byte {
		return must(os.ReadFile(filepath.Join(compiled(t, dir), "Redef.class")))(t)
	}
	v2, v3 := classFile("redef2"), classFile("redef3")
	d.run(t, scRedef)
	d.waitLine(t, "REDEF#1 v=1")
	redef := d.class(t, "LRedef;")
	value := d.method(t, redef, "value")
	if code := must(c.Bytecodes(ctx, redef, value.ID))(t); string(code) != "\x04\xac" {
		t.Errorf("Bytecodes(value) = % x, want iconst_1 ireturn", code)
	}

	s := d.subscribe(t)
	bp := d.request(t, jdwp.EventBreakpoint, jdwp.SuspendEventThread, jdwp.LocationOnly(d.locationOf(t, redef, "value", "redef_value", markers(t, "target/Redef.java"))))
	d.run(t, scRedef)
	e, _ := s.await(t, jdwp.EventBreakpoint, func(e jdwp.Event) bool { return e.RequestID == bp })
	check(t, c.RedefineClasses(ctx, []jdwp.ClassDef{{Type: redef, ClassFile: v2}}))
	// The stopped frame keeps running the old, now obsolete, code.
	top := must(c.Frames(ctx, e.Thread, 0, 1))(t)[0]
	if ob := must(c.IsObsolete(ctx, redef, top.Location.Method))(t); !ob {
		t.Errorf("IsObsolete(method of the stopped frame) = false")
	}
	if ob := must(c.IsObsolete(ctx, redef, value.ID))(t); ob {
		t.Errorf("IsObsolete(value) = true after redefinition")
	}
	if code := must(c.Bytecodes(ctx, redef, value.ID))(t); string(code) != "\x05\xac" {
		t.Errorf("Bytecodes(value) after redefinition = % x, want iconst_2 ireturn", code)
	}
	check(t, c.ClearRequest(ctx, jdwp.EventBreakpoint, bp))
	check(t, c.ResumeThread(ctx, e.Thread))
	d.waitLine(t, "REDEF#2 v=1")
	d.run(t, scRedef)
	d.waitLine(t, "REDEF#3 v=2")

	err := c.RedefineClasses(ctx, []jdwp.ClassDef{{Type: redef, ClassFile: v3}})
	wantCode(t, "RedefineClasses adding a method", err, jdwp.ErrAddMethodNotImplemented, jdwp.ErrSchemaChangeNotImplemented)
	d.run(t, scRedef)
	d.waitLine(t, "REDEF#4 v=2")
}
