package jdwp_test

// Integration tests against a real HotSpot JVM. Each test compiles the
// fixtures in testdata/java with `javac -g` (cached by jvmtest), starts them
// under -agentlib:jdwp and drives them through this package only.
//
// The main fixture, testdata/java/target/Target.java, prints READY and then
// polls its static field "scenario": a test sets it with ClassType.SetValues
// and the program runs that scenario once, printing a line that says what it
// observed. Source lines are found by "// @name" markers, never hard-coded.
// Every subtest that stops a thread resumes it; a failing one resumes every
// thread at cleanup so the next subtest still finds a running VM.

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/rs/zerolog"
)

// Scenario numbers understood by Target.run.
const (
	scInspect    = 1
	scStep       = 2
	scCaught     = 3
	scUncaught   = 4
	scLazy       = 5
	scBoxes      = 6
	scFields     = 7
	scThreads    = 8
	scMonitors   = 9
	scPop        = 10
	scEarly      = 11
	scStopThread = 12
	scRedef      = 13
	scHold       = 14
	scExit       = -1
)

// eventTimeout bounds every wait for an event or an output line. Nothing
// asserts on time: it only turns a hang into a failure.
const eventTimeout = 30 * time.Second

var fixtureDir = filepath.Join("testdata", "java")

// compiled compiles a fixture directory once per test binary.
func compiled(t testing.TB, dir string) string {
	t.Helper()
	jvmtest.RequireJava(t)
	out, err := jvmtest.CompileCached(t.Context(), filepath.Join(fixtureDir, dir))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var markerRE = regexp.MustCompile(`//\s*@(\w+)`)

// markers returns the "// @name" markers of a fixture source file by name, as
// 1-based line numbers.
func markers(t testing.TB, file string) map[string]int32 {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]int32{}
	sc := bufio.NewScanner(f)
	for n := int32(1); sc.Scan(); n++ {
		if sm := markerRE.FindStringSubmatch(sc.Text()); sm != nil {
			m[sm[1]] = n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// must(f())(t) returns f's value, failing the test if f returned an error.
func must[V any](v V, err error) func(testing.TB) V {
	return func(t testing.TB) V {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func check(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// debuggee is a running Target with a connection to it.
type debuggee struct {
	vm      *jvmtest.JVM
	c       *jdwp.Conn
	ctx     context.Context
	lines   map[string]int32 // markers of Target.java
	target  jdwp.ClassID
	fields  map[string]jdwp.FieldID // Target's static and instance fields
	methods map[string]jdwp.MethodInfo

	mu         sync.Mutex
	lineTables map[jdwp.MethodID]jdwp.LineTable
	methodSets map[jdwp.ReferenceTypeID][]jdwp.MethodInfo
}

// connOptions are the options of test connections. JDWP_TEST_TRACE=1 logs
// every command, reply and event through t.Log.
func connOptions(t testing.TB) *jdwp.Options {
	o := &jdwp.Options{RequestTimeout: eventTimeout}
	if os.Getenv("JDWP_TEST_TRACE") != "" {
		o.Logger = zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.TraceLevel)
		o.Trace = jdwp.TraceCmd | jdwp.TraceEvent
	}
	return o
}

// startTarget starts Target under the agent (server=y) and attaches.
func startTarget(t *testing.T) *debuggee {
	t.Helper()
	vm := startTargetVM(t)
	ctx := t.Context()
	c, err := jdwp.Dial(ctx, vm.Addr, connOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return attachTarget(t, vm, c)
}

// startTargetVM starts Target under the agent (server=y) and waits for READY.
func startTargetVM(t *testing.T) *jvmtest.JVM {
	t.Helper()
	return jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{compiled(t, "target")}, MainClass: "Target", ReadyLine: "READY"})
}

// attachTarget wraps a connection to a Target that has printed READY.
func attachTarget(t *testing.T, vm *jvmtest.JVM, c *jdwp.Conn) *debuggee {
	t.Helper()
	ctx := t.Context()
	d := &debuggee{vm: vm, c: c, ctx: ctx, lines: markers(t, "target/Target.java"),
		lineTables: map[jdwp.MethodID]jdwp.LineTable{}, methodSets: map[jdwp.ReferenceTypeID][]jdwp.MethodInfo{}}
	d.target = d.class(t, "LTarget;")
	d.fields = map[string]jdwp.FieldID{}
	for _, f := range must(c.Fields(ctx, d.target))(t) {
		d.fields[f.Name] = f.ID
	}
	d.methods = map[string]jdwp.MethodInfo{}
	for _, m := range d.methodsOf(t, d.target) {
		d.methods[m.Name] = m
	}
	return d
}

// class returns the one loaded type with a signature.
func (d *debuggee) class(t testing.TB, sig string) jdwp.ReferenceTypeID {
	t.Helper()
	cs := must(d.c.ClassesBySignature(d.ctx, sig))(t)
	if len(cs) != 1 {
		t.Fatalf("ClassesBySignature(%s) = %v, want one class", sig, cs)
	}
	return cs[0].ID
}

func (d *debuggee) methodsOf(t testing.TB, class jdwp.ReferenceTypeID) []jdwp.MethodInfo {
	t.Helper()
	d.mu.Lock()
	ms, ok := d.methodSets[class]
	d.mu.Unlock()
	if ok {
		return ms
	}
	ms = must(d.c.Methods(d.ctx, class))(t)
	d.mu.Lock()
	d.methodSets[class] = ms
	d.mu.Unlock()
	return ms
}

// method returns the method of a class with a name (the first, if overloaded).
func (d *debuggee) method(t testing.TB, class jdwp.ReferenceTypeID, name string) jdwp.MethodInfo {
	t.Helper()
	for _, m := range d.methodsOf(t, class) {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("class %d has no method %s", class, name)
	return jdwp.MethodInfo{}
}

func (d *debuggee) methodName(t testing.TB, loc jdwp.Location) string {
	t.Helper()
	for _, m := range d.methodsOf(t, loc.Class) {
		if m.ID == loc.Method {
			return m.Name
		}
	}
	return "?"
}

func (d *debuggee) lineTable(t testing.TB, class jdwp.ReferenceTypeID, m jdwp.MethodID) jdwp.LineTable {
	t.Helper()
	d.mu.Lock()
	lt, ok := d.lineTables[m]
	d.mu.Unlock()
	if ok {
		return lt
	}
	lt = must(d.c.LineTable(d.ctx, class, m))(t)
	d.mu.Lock()
	d.lineTables[m] = lt
	d.mu.Unlock()
	return lt
}

// line returns the source line of a location.
func (d *debuggee) line(t testing.TB, loc jdwp.Location) int32 {
	t.Helper()
	lt := d.lineTable(t, loc.Class, loc.Method)
	return lt.LineFor(loc.Index)
}

// locationOf returns the first code index of a marked line in a method.
func (d *debuggee) locationOf(t testing.TB, class jdwp.ReferenceTypeID, method, marker string, lines map[string]int32) jdwp.Location {
	t.Helper()
	line, ok := lines[marker]
	if !ok {
		t.Fatalf("no marker @%s in the fixture", marker)
	}
	m := d.method(t, class, method)
	lt := d.lineTable(t, class, m.ID)
	best := -1
	for i, e := range lt.Lines {
		if e.Line == line && (best < 0 || e.CodeIndex < lt.Lines[best].CodeIndex) {
			best = i
		}
	}
	if best < 0 {
		t.Fatalf("method %s has no code on line %d (@%s): %v", method, line, marker, lt.Lines)
	}
	return jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: class, Method: m.ID, Index: lt.Lines[best].CodeIndex}
}

// run makes the main thread run a scenario.
func (d *debuggee) run(t testing.TB, scenario int32) {
	t.Helper()
	check(t, d.c.SetStaticValues(d.ctx, d.target, []jdwp.FieldValue{{Field: d.fields["scenario"], Value: jdwp.IntValue(scenario)}}))
}

// waitLine waits for the program to print a line containing substr.
func (d *debuggee) waitLine(t testing.TB, substr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(d.ctx, eventTimeout)
	defer cancel()
	return must(d.vm.WaitForLine(ctx, substr))(t)
}

// staticValue reads one static field of Target.
func (d *debuggee) staticValue(t testing.TB, name string) jdwp.Value {
	t.Helper()
	id, ok := d.fields[name]
	if !ok {
		t.Fatalf("Target has no field %s", name)
	}
	return must(d.c.StaticValues(d.ctx, d.target, []jdwp.FieldID{id}))(t)[0]
}

// request sets an event request that is cleared when the test ends.
func (d *debuggee) request(t testing.TB, kind jdwp.EventKind, policy jdwp.SuspendPolicy, mods ...jdwp.Modifier) int32 {
	t.Helper()
	id := must(d.c.SetRequest(d.ctx, kind, policy, mods...))(t)
	t.Cleanup(func() { d.c.ClearRequest(context.Background(), kind, id) })
	return id
}

// stream is a subscription seen by one test. Events that arrive while the
// test waits for another kind are kept, in order, for a later await.
type stream struct {
	d        *debuggee
	sub      *jdwp.Subscription
	backlog  []pendingEvent
	consumed map[*jdwp.EventSet]bool
}

type pendingEvent struct {
	e   jdwp.Event
	set *jdwp.EventSet
}

// subscribe returns a stream closed when the test ends. At cleanup, event sets
// the test never took are resumed as their suspend policy requires, and if the
// test failed every thread is resumed, so the shared VM keeps running for the
// next subtest.
func (d *debuggee) subscribe(t testing.TB) *stream {
	s := &stream{d: d, sub: d.c.Subscribe(), consumed: map[*jdwp.EventSet]bool{}}
	t.Cleanup(func() {
		s.sub.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, p := range s.backlog {
			if !s.consumed[p.set] {
				s.consumed[p.set] = true
				switch p.set.SuspendPolicy {
				case jdwp.SuspendEventThread:
					d.c.ResumeThread(ctx, p.e.Thread)
				case jdwp.SuspendAll:
					d.c.Resume(ctx)
				}
			}
		}
		if t.Failed() {
			d.unsuspendAll()
		}
	})
	return s
}

func (d *debuggee) unsuspendAll() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	threads, _ := d.c.AllThreads(ctx)
	for _, th := range threads {
		for range 10 {
			if n, err := d.c.SuspendCount(ctx, th); err != nil || n == 0 {
				break
			}
			d.c.ResumeThread(ctx, th)
		}
	}
}

// resume undoes what an event set's suspend policy suspended.
func (d *debuggee) resume(t testing.TB, policy jdwp.SuspendPolicy, thread jdwp.ThreadID) {
	t.Helper()
	switch policy {
	case jdwp.SuspendEventThread:
		check(t, d.c.ResumeThread(d.ctx, thread))
	case jdwp.SuspendAll:
		check(t, d.c.Resume(d.ctx))
	}
}

// await returns the next event of a kind that match accepts (match may be
// nil) and the suspend policy of its set; resuming is the caller's job.
func (s *stream) await(t testing.TB, kind jdwp.EventKind, match func(jdwp.Event) bool) (jdwp.Event, jdwp.SuspendPolicy) {
	t.Helper()
	timer := time.NewTimer(eventTimeout)
	defer timer.Stop()
	for i := 0; ; i++ {
		for ; i < len(s.backlog); i++ {
			p := s.backlog[i]
			if p.e.Kind == kind && (match == nil || match(p.e)) {
				s.backlog = slices.Delete(s.backlog, i, i+1)
				s.consumed[p.set] = true
				return p.e, p.set.SuspendPolicy
			}
		}
		select {
		case es, ok := <-s.sub.C:
			if !ok {
				t.Fatalf("connection closed while waiting for %s: %v", kind, s.d.c.Err())
			}
			if es.Err != nil {
				t.Fatalf("bad event set: %v", es.Err)
			}
			for _, e := range es.Events {
				s.backlog = append(s.backlog, pendingEvent{e, es})
			}
			i-- // resume the scan at the first new event
		case <-timer.C:
			t.Fatalf("no %s event within %v; pending: %v", kind, eventTimeout, s.pendingKinds())
		}
	}
}

func (s *stream) pendingKinds() []string {
	var out []string
	for _, p := range s.backlog {
		out = append(out, p.e.Kind.String())
	}
	return out
}

// none fails if any event is pending or arrives within a short time.
func (s *stream) none(t testing.TB, within time.Duration) {
	t.Helper()
	if len(s.backlog) > 0 {
		t.Fatalf("unexpected events: %v", s.pendingKinds())
	}
	select {
	case es := <-s.sub.C:
		t.Fatalf("unexpected event set: %+v", es.Events)
	case <-time.After(within):
	}
}

// breakAt sets a breakpoint at a marked line of a method of Target (suspending
// the event thread), runs a scenario and waits for the hit.
func (d *debuggee) breakAt(t testing.TB, s *stream, method, marker string, scenario int32) (jdwp.Event, int32) {
	t.Helper()
	loc := d.locationOf(t, d.target, method, marker, d.lines)
	id := d.request(t, jdwp.EventBreakpoint, jdwp.SuspendEventThread, jdwp.LocationOnly(loc))
	d.run(t, scenario)
	e, policy := s.await(t, jdwp.EventBreakpoint, func(e jdwp.Event) bool { return e.RequestID == id })
	if policy != jdwp.SuspendEventThread {
		t.Errorf("breakpoint suspend policy = %d, want %d", policy, jdwp.SuspendEventThread)
	}
	if e.Location != loc {
		t.Errorf("breakpoint at %v, want %v", e.Location, loc)
	}
	return e, id
}

// threadByName returns the live thread with a name.
func (d *debuggee) threadByName(t testing.TB, name string) jdwp.ThreadID {
	t.Helper()
	for _, th := range must(d.c.AllThreads(d.ctx))(t) {
		if n, err := d.c.ThreadName(d.ctx, th); err == nil && n == name {
			return th
		}
	}
	t.Fatalf("no thread named %q", name)
	return 0
}

func (d *debuggee) typeSignature(t testing.TB, obj jdwp.ObjectID) string {
	t.Helper()
	ci := must(d.c.ObjectType(d.ctx, obj))(t)
	return must(d.c.Signature(d.ctx, ci.ID))(t)
}

func (d *debuggee) str(t testing.TB, v jdwp.Value) string {
	t.Helper()
	return must(d.c.StringValue(d.ctx, v.Object()))(t)
}

func wantCode(t testing.TB, what string, err error, codes ...jdwp.ErrorCode) {
	t.Helper()
	var ce *jdwp.CommandError
	if !errors.As(err, &ce) {
		t.Errorf("%s: err = %v, want a *CommandError with %v", what, err, codes)
		return
	}
	if !slices.Contains(codes, ce.Code) {
		t.Errorf("%s: code %v, want one of %v", what, ce.Code, codes)
	}
}

// TestIntegration drives one Target VM through every command set and event
// kind a debugger uses. Subtests run in order and share the VM.
func TestIntegration(t *testing.T) {
	t.Parallel()
	d := startTarget(t)
	t.Run("VirtualMachine", d.testVirtualMachine)
	t.Run("ReferenceTypes", d.testReferenceTypes)
	t.Run("MembersAndTables", d.testMembersAndTables)
	t.Run("Threads", d.testThreads)
	t.Run("Inspect", d.testInspect)
	t.Run("Step", d.testStep)
	t.Run("Exceptions", d.testExceptions)
	t.Run("ClassPrepare", d.testClassPrepare)
	t.Run("MethodEntryExit", d.testMethodEntryExit)
	t.Run("Watchpoints", d.testWatchpoints)
	t.Run("ThreadStartDeath", d.testThreadStartDeath)
	t.Run("Monitors", d.testMonitors)
	t.Run("PopFrames", d.testPopFrames)
	t.Run("ForceEarlyReturn", d.testForceEarlyReturn)
	t.Run("ClearAllBreakpoints", d.testClearAllBreakpoints)
	t.Run("HoldEvents", d.testHoldEvents)
	t.Run("StopAndInterrupt", d.testStopAndInterrupt)
	t.Run("RedefineClasses", d.testRedefine)
}

func (d *debuggee) testVirtualMachine(t *testing.T) {
	ctx, c := d.ctx, d.c
	v := must(c.Version(ctx))(t)
	if v.JDWPMajor < 17 || !strings.Contains(v.VMName, "VM") || v.VMVersion == "" || v.Description == "" {
		t.Errorf("Version = %+v, want JDWP 17+ from a HotSpot-like VM", v)
	}
	sizes := must(c.IDSizes(ctx))(t)
	if sizes != jdwp.DefaultIDSizes {
		t.Errorf("IDSizes = %+v, want HotSpot's %+v", sizes, jdwp.DefaultIDSizes)
	}

	caps := must(c.Capabilities(ctx))(t)
	for name, have := range map[string]bool{
		"CanWatchFieldModification": caps.CanWatchFieldModification, "CanWatchFieldAccess": caps.CanWatchFieldAccess,
		"CanGetBytecodes": caps.CanGetBytecodes, "CanGetOwnedMonitorInfo": caps.CanGetOwnedMonitorInfo,
		"CanGetCurrentContendedMonitor": caps.CanGetCurrentContendedMonitor, "CanGetMonitorInfo": caps.CanGetMonitorInfo,
		"CanRedefineClasses": caps.CanRedefineClasses, "CanPopFrames": caps.CanPopFrames,
		"CanUseInstanceFilters": caps.CanUseInstanceFilters, "CanRequestVMDeathEvent": caps.CanRequestVMDeathEvent,
		"CanGetInstanceInfo": caps.CanGetInstanceInfo, "CanRequestMonitorEvents": caps.CanRequestMonitorEvents,
		"CanGetMonitorFrameInfo": caps.CanGetMonitorFrameInfo, "CanGetConstantPool": caps.CanGetConstantPool,
		"CanForceEarlyReturn": caps.CanForceEarlyReturn,
	} {
		if !have {
			t.Errorf("Capabilities.%s = false; HotSpot has it", name)
		}
	}
	t.Logf("capabilities: %+v", caps)
	// HotSpot's agent reports canUseSourceNameFilters false (JDI infers it
	// from the JDWP version instead), though SourceNameMatch works.
	if caps.CanAddMethod || caps.CanUnrestrictedlyRedefineClasses {
		t.Errorf("Capabilities = %+v: HotSpot cannot add methods or redefine unrestrictedly", caps)
	}

	cp := must(c.ClassPaths(ctx))(t)
	wantCP := compiled(t, "target")
	if cp.BaseDir == "" || !slices.Contains(cp.ClassPaths, wantCP) {
		t.Errorf("ClassPaths = %+v, want base dir and %s", cp, wantCP)
	}
	check(t, c.SetDefaultStratum(ctx, ""))

	mods := must(c.AllModules(ctx))(t)
	var names []string
	for _, m := range mods {
		names = append(names, must(c.ModuleName(ctx, m))(t))
	}
	if !slices.Contains(names, "java.base") {
		t.Errorf("AllModules names = %v, want java.base among them", names)
	}

	// Objects the debugger was given are released by DisposeObjects.
	s := must(c.CreateString(ctx, "disposable"))(t)
	if got := must(c.StringValue(ctx, s))(t); got != "disposable" {
		t.Errorf("StringValue = %q", got)
	}
	check(t, c.DisposeObjects(ctx, []jdwp.ObjectRefCount{{Object: s, Count: 1}}))
	_, err := c.StringValue(ctx, s)
	wantCode(t, "StringValue after DisposeObjects", err, jdwp.ErrInvalidObject)

	// Strings round-trip, including characters modified UTF-8 encodes specially.
	for _, want := range []string{"", "plain", "héllo ☃", "nul\x00inside", "astral 😀 𝄞"} {
		id := must(c.CreateString(ctx, want))(t)
		if got := must(c.StringValue(ctx, id))(t); got != want {
			t.Errorf("CreateString/StringValue %q came back %q", want, got)
		}
	}
}

func (d *debuggee) testReferenceTypes(t *testing.T) {
	ctx, c := d.ctx, d.c
	box := d.class(t, "LTarget$Box;")
	shape := d.class(t, "LTarget$Shape;")
	object := d.class(t, "Ljava/lang/Object;")
	str := d.class(t, "Ljava/lang/String;")
	comparable := d.class(t, "Ljava/lang/Comparable;")
	const boxGeneric = "<T::Ljava/lang/Comparable<TT;>;>Ljava/lang/Object;LTarget$Shape;Ljava/lang/Comparable<LTarget$Box<TT;>;>;"

	all := must(c.AllClasses(ctx))(t)
	i := slices.IndexFunc(all, func(ci jdwp.ClassInfo) bool { return ci.ID == d.target })
	if i < 0 || all[i].Signature != "LTarget;" || all[i].TypeTag != jdwp.TypeTagClass ||
		all[i].Status != jdwp.ClassVerified|jdwp.ClassPrepared|jdwp.ClassInitialized {
		t.Errorf("AllClasses: Target missing or wrong (index %d) among %d classes", i, len(all))
	}
	if !slices.ContainsFunc(all, func(ci jdwp.ClassInfo) bool { return ci.Signature == "[I" && ci.TypeTag == jdwp.TypeTagArray }) {
		t.Errorf("AllClasses has no [I array type")
	}
	allg := must(c.AllClassesWithGeneric(ctx))(t)
	i = slices.IndexFunc(allg, func(ci jdwp.ClassInfo) bool { return ci.ID == box })
	if i < 0 || allg[i].Signature != "LTarget$Box;" || allg[i].Generic != boxGeneric {
		t.Errorf("AllClassesWithGeneric: Box = %+v, want generic %s", allg[max(i, 0)], boxGeneric)
	}
	if got := must(c.ClassesBySignature(ctx, "LNoSuchClass;"))(t); len(got) != 0 {
		t.Errorf("ClassesBySignature(LNoSuchClass;) = %v", got)
	}
	if got := must(c.ClassesBySignature(ctx, "LTarget$Shape;"))(t); len(got) != 1 || got[0].TypeTag != jdwp.TypeTagInterface {
		t.Errorf("ClassesBySignature(Shape) = %+v, want one interface", got)
	}

	if sig := must(c.Signature(ctx, d.target))(t); sig != "LTarget;" {
		t.Errorf("Signature = %q", sig)
	}
	sig, gen, err := c.SignatureWithGeneric(ctx, box)
	check(t, err)
	if sig != "LTarget$Box;" || gen != boxGeneric {
		t.Errorf("SignatureWithGeneric(Box) = %q, %q", sig, gen)
	}
	if _, gen, err := c.SignatureWithGeneric(ctx, d.target); err != nil || gen != "" {
		t.Errorf("SignatureWithGeneric(Target) generic = %q, %v; want empty", gen, err)
	}

	if m := must(c.Modifiers(ctx, d.target))(t); m&jdwp.AccPublic == 0 {
		t.Errorf("Modifiers(Target) = %#x, want public", m)
	}
	const accInterface = 0x200
	if m := must(c.Modifiers(ctx, shape))(t); m&accInterface == 0 || m&jdwp.AccAbstract == 0 {
		t.Errorf("Modifiers(Shape) = %#x, want interface|abstract", m)
	}
	if m := must(c.Modifiers(ctx, box))(t); m&jdwp.AccStatic == 0 {
		t.Errorf("Modifiers(Box) = %#x, want static (a static nested class)", m)
	}
	if s := must(c.Status(ctx, d.target))(t); s != jdwp.ClassVerified|jdwp.ClassPrepared|jdwp.ClassInitialized {
		t.Errorf("Status(Target) = %d", s)
	}

	if got := must(c.Interfaces(ctx, box))(t); !slices.Equal(got, []jdwp.InterfaceID{shape, comparable}) {
		t.Errorf("Interfaces(Box) = %v, want [Shape %d, Comparable %d]", got, shape, comparable)
	}
	if got := must(c.Superclass(ctx, box))(t); got != object {
		t.Errorf("Superclass(Box) = %d, want Object %d", got, object)
	}
	if got := must(c.Superclass(ctx, object))(t); got != 0 {
		t.Errorf("Superclass(Object) = %d, want 0", got)
	}
	nested := must(c.NestedTypes(ctx, d.target))(t)
	for _, want := range []jdwp.ClassInfo{{TypeTag: jdwp.TypeTagClass, ID: box}, {TypeTag: jdwp.TypeTagInterface, ID: shape}} {
		if !slices.Contains(nested, want) {
			t.Errorf("NestedTypes(Target) = %v, want %+v among them", nested, want)
		}
	}

	if f := must(c.SourceFile(ctx, d.target))(t); f != "Target.java" {
		t.Errorf("SourceFile = %q", f)
	}
	_, err = c.SourceDebugExtension(ctx, d.target)
	wantCode(t, "SourceDebugExtension without SMAP", err, jdwp.ErrAbsentInformation)

	loader := must(c.ClassLoader(ctx, d.target))(t)
	if loader == 0 {
		t.Error("ClassLoader(Target) = 0, want the application loader")
	}
	if l := must(c.ClassLoader(ctx, str))(t); l != 0 {
		t.Errorf("ClassLoader(String) = %d, want 0 (bootstrap)", l)
	}
	visible := must(c.VisibleClasses(ctx, loader))(t)
	if !slices.Contains(visible, jdwp.ClassInfo{TypeTag: jdwp.TypeTagClass, ID: d.target}) {
		t.Errorf("VisibleClasses(app loader) lacks Target (%d types)", len(visible))
	}

	co := must(c.ClassObject(ctx, d.target))(t)
	if got := must(c.ReflectedType(ctx, co))(t); got != (jdwp.ClassInfo{TypeTag: jdwp.TypeTagClass, ID: d.target}) {
		t.Errorf("ReflectedType(ClassObject(Target)) = %+v", got)
	}
	if sig := d.typeSignature(t, co); sig != "Ljava/lang/Class;" {
		t.Errorf("type of ClassObject = %s", sig)
	}

	mod := must(c.Module(ctx, d.target))(t)
	if name := must(c.ModuleName(ctx, mod))(t); name != "" {
		t.Errorf("ModuleName(Target's module) = %q, want unnamed", name)
	}
	if l := must(c.ModuleClassLoader(ctx, mod))(t); l != loader {
		t.Errorf("ModuleClassLoader(unnamed module) = %d, want the app loader %d", l, loader)
	}
	if name := must(c.ModuleName(ctx, must(c.Module(ctx, str))(t)))(t); name != "java.base" {
		t.Errorf("ModuleName(String's module) = %q", name)
	}

	major, minor, err := c.ClassFileVersion(ctx, d.target)
	check(t, err)
	if major < 61 || minor != 0 {
		t.Errorf("ClassFileVersion = %d.%d, want 61.0 or later", major, minor)
	}
	count, pool, err := c.ConstantPool(ctx, d.target)
	check(t, err)
	if count < 50 || !strings.Contains(string(pool), "stop-from-debugger") {
		t.Errorf("ConstantPool: count %d, %d bytes, want the string constant inside", count, len(pool))
	}
}

func (d *debuggee) testMembersAndTables(t *testing.T) {
	ctx, c := d.ctx, d.c
	box := d.class(t, "LTarget$Box;")

	fields := must(c.FieldsWithGeneric(ctx, d.target))(t)
	i := slices.IndexFunc(fields, func(f jdwp.FieldInfo) bool { return f.Name == "names" })
	if i < 0 || fields[i].Signature != "Ljava/util/List;" || fields[i].Generic != "Ljava/util/List<Ljava/lang/String;>;" ||
		fields[i].ModBits&jdwp.AccStatic == 0 {
		t.Errorf("FieldsWithGeneric(Target) names = %+v", fields[max(i, 0)])
	}
	bf := must(c.FieldsWithGeneric(ctx, box))(t)
	i = slices.IndexFunc(bf, func(f jdwp.FieldInfo) bool { return f.Name == "value" })
	if i < 0 || bf[i].Signature != "Ljava/lang/Comparable;" || bf[i].Generic != "TT;" {
		t.Errorf("FieldsWithGeneric(Box) value = %+v", bf[max(i, 0)])
	}
	plain := must(c.Fields(ctx, box))(t)
	if len(plain) != len(bf) || plain[0].ID != bf[0].ID || plain[0].Generic != "" {
		t.Errorf("Fields(Box) = %+v, want FieldsWithGeneric without generics", plain)
	}

	ms := must(c.MethodsWithGeneric(ctx, box))(t)
	i = slices.IndexFunc(ms, func(m jdwp.MethodInfo) bool { return m.Name == "pick" })
	if i < 0 || ms[i].Signature != "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;" || ms[i].Generic != "<U:Ljava/lang/Object;>(TU;TU;)TU;" {
		t.Errorf("MethodsWithGeneric(Box) pick = %+v", ms[max(i, 0)])
	}
	if !slices.ContainsFunc(ms, func(m jdwp.MethodInfo) bool {
		return m.Name == "compareTo" && m.Signature == "(Ljava/lang/Object;)I" && m.ModBits&jdwp.AccSynthetic != 0
	}) {
		t.Error("MethodsWithGeneric(Box) lacks the synthetic bridge compareTo(Object)")
	}
	if add := d.methods["add"]; add.Signature != "(II)I" || add.ModBits&jdwp.AccStatic == 0 {
		t.Errorf("Methods(Target) add = %+v", add)
	}

	// Line table of inspect: every marked line maps back to itself.
	inspect := d.methods["inspect"]
	lt := d.lineTable(t, d.target, inspect.ID)
	loc := d.locationOf(t, d.target, "inspect", "inspect", d.lines)
	if lt.Start != 0 || lt.End <= loc.Index || lt.LineFor(loc.Index) != d.lines["inspect"] {
		t.Errorf("LineTable(inspect) = %+v; @inspect at index %d", lt, loc.Index)
	}
	// The spec allows start = end = -1 for native methods; HotSpot refuses.
	object := d.class(t, "Ljava/lang/Object;")
	_, err := c.LineTable(ctx, object, d.method(t, object, "hashCode").ID)
	wantCode(t, "LineTable(native Object.hashCode)", err, jdwp.ErrNativeMethod)

	vt := must(c.VariableTable(ctx, d.target, inspect.ID))(t)
	if vt.ArgCount != 2 {
		t.Errorf("VariableTable(inspect).ArgCount = %d, want 2 (this, n)", vt.ArgCount)
	}
	vars := map[string]jdwp.Variable{}
	for _, v := range vt.Variables {
		vars[v.Name] = v
	}
	for name, sig := range map[string]string{"this": "LTarget;", "n": "I", "x": "I", "s": "Ljava/lang/String;", "big": "J", "d": "D", "box": "LTarget$Box;"} {
		v, ok := vars[name]
		if !ok || v.Signature != sig || !v.Visible(loc.Index) {
			t.Errorf("VariableTable(inspect) %s = %+v (present %v), want %s visible at @inspect", name, v, ok, sig)
		}
	}
	if v := vars["sum"]; v.Visible(loc.Index) {
		t.Errorf("sum visible at @inspect: %+v", v)
	}
	vtg := must(c.VariableTableWithGeneric(ctx, d.target, inspect.ID))(t)
	i = slices.IndexFunc(vtg.Variables, func(v jdwp.Variable) bool { return v.Name == "box" })
	if i < 0 || vtg.Variables[i].Generic != "LTarget$Box<Ljava/lang/String;>;" || vtg.Variables[i].Slot != vars["box"].Slot {
		t.Errorf("VariableTableWithGeneric(inspect) box = %+v", vtg.Variables[max(i, 0)])
	}

	// add(int, int) is iload_0 iload_1 iadd ireturn.
	if code := must(c.Bytecodes(ctx, d.target, d.methods["add"].ID))(t); string(code) != "\x1a\x1b\x60\xac" {
		t.Errorf("Bytecodes(add) = % x", code)
	}
	if ob := must(c.IsObsolete(ctx, d.target, d.methods["add"].ID))(t); ob {
		t.Error("IsObsolete(add) = true")
	}
}

func (d *debuggee) testThreads(t *testing.T) {
	ctx, c := d.ctx, d.c
	threads := must(c.AllThreads(ctx))(t)
	main := d.threadByName(t, "main")
	if !slices.Contains(threads, main) {
		t.Fatalf("AllThreads lacks main")
	}
	if st, suspended, err := c.ThreadStatus(ctx, main); err != nil || suspended || st == jdwp.ThreadZombie {
		t.Errorf("ThreadStatus(main) = %v, suspended %v, %v", st, suspended, err)
	}
	if v, err := c.IsVirtual(ctx, main); err != nil {
		// ThreadReference.IsVirtual is JDWP 19; a 17 VM does not know it.
		wantCode(t, "IsVirtual", err, jdwp.ErrNotImplemented)
	} else if v {
		t.Error("IsVirtual(main) = true")
	}

	group := must(c.ThreadGroup(ctx, main))(t)
	if name := must(c.ThreadGroupName(ctx, group))(t); name != "main" {
		t.Errorf("ThreadGroupName(main's group) = %q", name)
	}
	parent := must(c.ThreadGroupParent(ctx, group))(t)
	if name := must(c.ThreadGroupName(ctx, parent))(t); name != "system" {
		t.Errorf("parent of main group = %q, want system", name)
	}
	if p := must(c.ThreadGroupParent(ctx, parent))(t); p != 0 {
		t.Errorf("parent of system = %d, want 0", p)
	}
	if top := must(c.TopLevelThreadGroups(ctx))(t); !slices.Equal(top, []jdwp.ThreadGroupID{parent}) {
		t.Errorf("TopLevelThreadGroups = %v, want [system %d]", top, parent)
	}
	ths, groups, err := c.ThreadGroupChildren(ctx, parent)
	check(t, err)
	if !slices.Contains(groups, group) || slices.Contains(ths, main) {
		t.Errorf("ThreadGroupChildren(system) = %v, %v; want main group %d among groups only", ths, groups, group)
	}
	ths, _, err = c.ThreadGroupChildren(ctx, group)
	check(t, err)
	if !slices.Contains(ths, main) {
		t.Errorf("ThreadGroupChildren(main group) threads = %v, want main", ths)
	}

	// A running thread has no frames to show.
	_, err = c.Frames(ctx, main, 0, -1)
	wantCode(t, "Frames of a running thread", err, jdwp.ErrThreadNotSuspended)

	// Suspensions count: two suspends need two resumes.
	t.Cleanup(d.unsuspendAll)
	check(t, c.SuspendThread(ctx, main))
	check(t, c.SuspendThread(ctx, main))
	if n := must(c.SuspendCount(ctx, main))(t); n != 2 {
		t.Errorf("SuspendCount after two suspends = %d", n)
	}
	if _, suspended, _ := c.ThreadStatus(ctx, main); !suspended {
		t.Error("ThreadStatus: main not suspended")
	}
	if n := must(c.FrameCount(ctx, main))(t); n < 2 {
		t.Errorf("FrameCount(suspended main) = %d", n)
	}
	check(t, c.ResumeThread(ctx, main))
	if n := must(c.SuspendCount(ctx, main))(t); n != 1 {
		t.Errorf("SuspendCount after one resume = %d", n)
	}
	check(t, c.ResumeThread(ctx, main))
	if n := must(c.SuspendCount(ctx, main))(t); n != 0 {
		t.Errorf("SuspendCount after two resumes = %d", n)
	}

	// VirtualMachine.Suspend suspends every thread once.
	check(t, c.Suspend(ctx))
	for _, th := range must(c.AllThreads(ctx))(t) {
		if n := must(c.SuspendCount(ctx, th))(t); n != 1 {
			t.Errorf("SuspendCount(%s) after VM Suspend = %d", must(c.ThreadName(ctx, th))(t), n)
		}
	}
	check(t, c.Resume(ctx))
	if n := must(c.SuspendCount(ctx, main))(t); n != 0 {
		t.Errorf("SuspendCount(main) after VM Resume = %d", n)
	}
}
