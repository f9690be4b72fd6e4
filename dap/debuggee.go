package dap

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/dap/classfile"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	godap "github.com/google/go-dap"
	"github.com/rs/zerolog"
)

// debuggee is the VM as a session sees it: the mirror of the VM (vm, which
// models types, frames and values), its JDWP connection for what the session
// asks of it (event requests, suspension), whether it is stopped, and the
// DAP handles and breakpoints that stand for it.
type debuggee struct {
	s    *session
	conn *jdwp.Conn
	sub  *jdwp.Subscription
	caps jdwp.Capabilities
	log  zerolog.Logger

	target      string   // what attach or launch named, for messages
	proc        *process // the JVM this session started, or nil
	stopOnEntry string   // the main class to stop in, for launch with stopOnEntry
	opts        CommonConfig
	launched    bool // an Android launch: terminated on disconnect by default
	ddm         *ddmState

	// vm is the mirror of the VM: its types, frames, values and the
	// methods running for the debugger, with their caches.
	vm *mirror.VM
	// sus owns every suspension the session holds and the commands that
	// change them (package debugger).
	sus *debugger.Suspensions
	// stops is the stop state: stopped or not, the latest stop, why each
	// stopped thread stopped (package debugger).
	stops *debugger.Stops

	srcs      sourceState  // where sources come from, and what dap derives from classes
	refs      refs         // the DAP handles that stand for the VM's things
	presentSt presentState // value presentation (present.go)

	bpMu sync.Mutex // serialises breakpoint installation (requests and class prepares)

	stopMu sync.Mutex // orders stops and the answers to resuming requests (see the resumes route)

	events *debugger.Events // the event pump and its lanes

	mu       sync.Mutex         // guards everything below
	life     lifecycle          // configuration, the launch's hold, the end
	bps      bpTables           // breakpoints and the requests behind them
	stepSt   stepTables         // steps pending and in progress
	requests *debugger.Requests // every event request set, for detach
}

// sourceState is where a session's sources come from, and the caches of
// what dap derives from classes (dropped on redefinition).
type sourceState struct {
	sourcePaths []string
	sources     mirror.Memo[jdwp.ReferenceTypeID, *godap.Source]
	pools       mirror.Memo[jdwp.ReferenceTypeID, *classfile.Pool]
	// srcRefOf maps classes without a local source to their
	// sourceReference (refs.srcRefs).
	srcRefOf mirror.Memo[jdwp.ReferenceTypeID, int]
	outlines mirror.Memo[jdwp.ReferenceTypeID, *outlined]
	auto     *autoSources // zero-config source lookup (no sourcePaths), or nil
}

// refs are the DAP handles of a session: thread numbers, frame, variable
// and step-target references (forgotten when the VM resumes), and the
// sourceReferences of classes without a local source (kept for the
// session).
type refs struct {
	threads *idMap[jdwp.ThreadID]
	frames  *handles[mirror.Frame]
	vars    *handles[container]
	targets *handles[*stepTarget]
	srcRefs *handles[jdwp.ReferenceTypeID]
}

// lifecycle is where the session stands between launch and the end
// (guarded by debuggee.mu).
type lifecycle struct {
	configured bool // configurationDone arrived
	heldStart  bool // a VM_START suspension is held until configurationDone
	// mainReq is the class-prepare request of runToMain, mainReady closed
	// when it fired; launching is true while runToMain waits (VM death then
	// fails the launch instead of ending the session).
	mainReq   int32
	mainReady chan struct{}
	launching bool
	ended     bool // VM death or disconnect seen
	endedCh   chan struct{}
}

// bpTables are the session's breakpoints of every kind and the event
// requests behind them (guarded by debuggee.mu).
type bpTables struct {
	files     map[string]*sourceFile
	bpByReq   map[int32]*breakpoint
	prepByReq map[int32]*sourceFile
	funcBPs   []*breakpoint
	fnPrep    map[int32]*breakpoint // function breakpoints by class-prepare request
	dataBPs   []*breakpoint
	dataByReq map[int32]*breakpoint // data breakpoints by field watch request
	nextBP    int
	excReq    int32
	excRules  []excRule
	excCaught map[jdwp.ThreadID]bool // whether lastExc will be caught
	entryReqs map[int32]bool         // the stopOnEntry class-prepare and breakpoint requests
	lastExc   map[jdwp.ThreadID]jdwp.TaggedObjectID
}

// stepTables are the steps of a session (guarded by debuggee.mu).
type stepTables struct {
	steps    map[jdwp.ThreadID][]int32    // pending single-step requests, by thread
	stepping map[jdwp.ThreadID]*stepState // the steps in progress, by thread
}

func newDebuggee(s *session, conn *jdwp.Conn, target string) *debuggee {
	log := s.log.With().Str("vm", target).Logger()
	spawn := func(f func()) {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			f()
		}()
	}
	sus := debugger.New(conn, log, s.cfg.RequestTimeout)
	d := &debuggee{
		s: s, conn: conn, log: log, target: target, sus: sus, stops: debugger.NewStops(),
		sub: conn.Subscribe(), // before anything else, so no event is missed
		vm:  mirror.New(conn, mirror.Config{Context: s.ctx, Log: log, Go: spawn, Hooks: sus}),
		refs: refs{
			threads: newIDMap[jdwp.ThreadID](),
			frames:  newHandles[mirror.Frame](),
			vars:    newHandles[container](),
			targets: newHandles[*stepTarget](),
			srcRefs: newHandles[jdwp.ReferenceTypeID](),
		},
		requests: debugger.NewRequests(conn, log),
		bps: bpTables{
			files:     map[string]*sourceFile{},
			bpByReq:   map[int32]*breakpoint{},
			prepByReq: map[int32]*sourceFile{},
			fnPrep:    map[int32]*breakpoint{},
			dataByReq: map[int32]*breakpoint{},
			entryReqs: map[int32]bool{},
			lastExc:   map[jdwp.ThreadID]jdwp.TaggedObjectID{},
			excCaught: map[jdwp.ThreadID]bool{},
			nextBP:    1,
		},
		stepSt: stepTables{
			steps:    map[jdwp.ThreadID][]int32{},
			stepping: map[jdwp.ThreadID]*stepState{},
		},
		life: lifecycle{endedCh: make(chan struct{})},
	}
	d.events = debugger.NewEvents(s.ctx, d.sub, d.vm, sus, d, spawn, log, s.cfg.RequestTimeout)
	return d
}

// start reads the VM's capabilities, asks for thread events and starts the
// event loop.
func (d *debuggee) start(ctx context.Context) error {
	caps, err := d.conn.Capabilities(ctx)
	if err != nil {
		return fmt.Errorf("read the VM's capabilities: %w", err)
	}
	d.caps = caps
	for _, k := range []jdwp.EventKind{jdwp.EventThreadStart, jdwp.EventThreadDeath} {
		if _, err := d.setRequest(ctx, k, jdwp.SuspendNone); err != nil {
			if jdwp.Code(err) != jdwp.ErrNotImplemented {
				return fmt.Errorf("ask for thread events: %w", err)
			}
			d.log.Info().Msg("the VM sends no thread events (EventRequest.Set is not implemented)")
			break
		}
	}
	// Class unloads keep the mirror's caches true (SuspendNone: they stop
	// nothing). A VM that refuses the request only loses that.
	if _, err := d.setRequest(ctx, jdwp.EventClassUnload, jdwp.SuspendNone); err != nil && d.conn.Err() == nil {
		d.log.Debug().Err(err).Msg("ask for class unload events")
	}
	d.s.wg.Add(1)
	go func() {
		defer d.s.wg.Done()
		d.events.Run()
	}()
	return nil
}

// setRequest sets an event request and remembers it for detach.
func (d *debuggee) setRequest(ctx context.Context, kind jdwp.EventKind, policy jdwp.SuspendPolicy, mods ...jdwp.Modifier) (int32, error) {
	return d.requests.Set(ctx, kind, policy, mods...)
}

// clearRequest clears a request; one that already expired (a count filter)
// or vanished is not an error.
func (d *debuggee) clearRequest(ctx context.Context, kind jdwp.EventKind, id int32) {
	d.requests.Clear(ctx, kind, id)
}

func (d *debuggee) isStopped() bool { return d.stops.Stopped() }

func (d *debuggee) isEnded() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.life.ended
}

// resumeAll releases every suspension the session holds and invalidates
// frame and variable references.
func (d *debuggee) resumeAll(ctx context.Context) error {
	d.stops.ResumedAll()
	d.refs.frames.reset()
	d.refs.vars.reset()
	d.refs.targets.reset()
	d.presentSt.release(ctx, d.conn)
	return d.sus.ResumeAll(ctx)
}

// clearSteps clears the pending single-step requests of a thread, or of
// every thread when thread is 0.
func (d *debuggee) clearSteps(ctx context.Context, thread jdwp.ThreadID) {
	d.mu.Lock()
	var steps []int32
	var states []*stepState
	for t, ids := range d.stepSt.steps {
		if thread == 0 || t == thread {
			steps = append(steps, ids...)
			delete(d.stepSt.steps, t)
		}
	}
	for t, st := range d.stepSt.stepping {
		if thread == 0 || t == thread {
			states = append(states, st)
			delete(d.stepSt.stepping, t)
		}
	}
	d.mu.Unlock()
	for _, id := range steps {
		d.clearRequest(ctx, jdwp.EventSingleStep, id)
	}
	for _, st := range states {
		if st.entryReq != 0 {
			d.clearRequest(ctx, jdwp.EventMethodEntry, st.entryReq)
		}
	}
}

// stopInfo describes why an event set stops the VM.
type stopInfo struct {
	reason      string
	thread      jdwp.ThreadID
	bps         []int
	description string
	text        string
	// handedOff says the event's suspension is not the set's to release: a
	// method an evaluation left running in the thread releases it (see
	// mirror.VM.Invoking), and the hit does not stop.
	handedOff bool
}

// debuggee handles the VM's events for package debugger's pump
// (debugger.EventHandler): HandleSet on each set's lane, DuringInvoke for
// the events of a thread running a method for the debugger.
var _ debugger.EventHandler = (*debuggee)(nil)

// DuringInvoke: a class an evaluated method prepares still gets its
// breakpoints; a breakpoint or step inside the method does not stop (the
// evaluation would never return) and the user is told it was skipped.
func (d *debuggee) DuringInvoke(ctx context.Context, e jdwp.Event) {
	switch e.Kind {
	case jdwp.EventClassPrepare:
		d.onClassPrepare(ctx, e)
	case jdwp.EventBreakpoint:
		d.mu.Lock()
		bp := d.bps.bpByReq[e.RequestID]
		d.mu.Unlock()
		if bp != nil {
			d.s.output("console", fmt.Sprintf("%s: skipped: thread %d was running a method for the debugger (an evaluation, a condition or a toString)\n", bp.where(), d.refs.threads.id(e.Thread)))
		}
	default:
		d.log.Debug().Stringer("kind", e.Kind).Msg("event in a thread running a method for the debugger: not a stop")
	}
}

// HandleSet decides an event set (see debugger.EventHandler).
func (d *debuggee) HandleSet(es *jdwp.EventSet) { d.handleEventSet(es) }

func (d *debuggee) handleEventSet(es *jdwp.EventSet) {
	ctx, cancel := context.WithTimeout(d.s.ctx, d.s.cfg.RequestTimeout)
	defer cancel()
	var stop *stopInfo
	held := false // the set's suspension is kept (VM_START before configurationDone)
	for _, e := range es.Events {
		switch e.Kind {
		case jdwp.EventVMStart:
			d.mu.Lock()
			if !d.life.configured {
				d.life.heldStart, held = true, true
			}
			d.mu.Unlock()
		case jdwp.EventThreadStart:
			d.s.send(&godap.ThreadEvent{Event: newEvent("thread"), Body: godap.ThreadEventBody{Reason: "started", ThreadId: d.refs.threads.id(e.Thread)}})
		case jdwp.EventThreadDeath:
			d.s.send(&godap.ThreadEvent{Event: newEvent("thread"), Body: godap.ThreadEventBody{Reason: "exited", ThreadId: d.refs.threads.id(e.Thread)}})
		case jdwp.EventClassUnload:
			d.onClassUnload(e.Signature)
		case jdwp.EventClassPrepare:
			if d.onMainPrepared(ctx, e) {
				held = true
				continue
			}
			d.onClassPrepare(ctx, e)
		case jdwp.EventBreakpoint:
			stop = mergeStop(stop, d.onBreakpoint(ctx, e))
		case jdwp.EventSingleStep:
			stop = mergeStop(stop, d.onStep(ctx, e))
		case jdwp.EventMethodEntry:
			stop = mergeStop(stop, d.onMethodEntry(ctx, e))
		case jdwp.EventException:
			stop = mergeStop(stop, d.onException(ctx, e))
		case jdwp.EventFieldAccess, jdwp.EventFieldModification:
			stop = mergeStop(stop, d.onFieldEvent(ctx, e))
		case jdwp.EventVMDeath, jdwp.EventVMDisconnected:
			d.onEnd()
			return
		}
	}
	switch {
	case held, stop != nil && stop.handedOff:
	case stop != nil:
		d.stop(ctx, stop, es.SuspendPolicy)
	default:
		d.events.Release(ctx, es)
	}
}

// onClassUnload drops what the session and its mirror cached of a class
// the VM unloaded.
func (d *debuggee) onClassUnload(sig string) {
	if t := d.vm.Unloaded(sig); t != 0 {
		d.srcs.sources.Forget(t)
		d.srcs.pools.Forget(t)
		d.srcs.outlines.Forget(t)
	}
}

func mergeStop(a, b *stopInfo) *stopInfo {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	if b.handedOff {
		return b // the thread's suspension belongs to a method still running
	}
	if a.handedOff {
		return a
	}
	a.bps = append(a.bps, b.bps...)
	if a.reason != "breakpoint" && b.reason == "breakpoint" {
		a.reason = b.reason
	}
	return a
}

// onEnd runs once, when the VM dies or the connection ends: it reports the
// exit code of a VM the session started, then termination.
func (d *debuggee) onEnd() {
	d.mu.Lock()
	if d.life.ended {
		d.mu.Unlock()
		return
	}
	d.life.ended = true
	d.stops.Ended()
	launching := d.life.launching
	d.mu.Unlock()
	close(d.life.endedCh)
	if d.ddm != nil {
		d.ddm.close()
	}
	if d.s.isDone() || launching {
		return
	}
	if d.proc != nil {
		if code, ok := d.proc.waitExit(5 * time.Second); ok {
			d.s.send(&godap.ExitedEvent{Event: newEvent("exited"), Body: godap.ExitedEventBody{ExitCode: code}})
		}
	}
	d.s.send(&godap.TerminatedEvent{Event: newEvent("terminated")})
}

// configurationDone lets the VM run: the suspension of VM_START, if held, is
// released (unless the launch stops on entry, which a breakpoint handles).
func (d *debuggee) configurationDone(ctx context.Context) error {
	d.mu.Lock()
	d.life.configured = true
	held := d.life.heldStart
	d.life.heldStart = false
	entry := d.stopOnEntry
	d.mu.Unlock()
	if entry != "" {
		if err := d.armEntry(ctx, entry); err != nil {
			return err
		}
	}
	if held {
		if err := d.conn.Resume(ctx); err != nil {
			return fmt.Errorf("start the VM: %w", err)
		}
	}
	return nil
}

// armEntry arranges a stop at the first line of mainClass.main.
func (d *debuggee) armEntry(ctx context.Context, mainClass string) error {
	id, err := d.setRequest(ctx, jdwp.EventClassPrepare, jdwp.SuspendEventThread, jdwp.ClassMatch(mainClass))
	if err != nil {
		return fmt.Errorf("stopOnEntry: %w", err)
	}
	d.mu.Lock()
	d.bps.entryReqs[id] = true
	d.mu.Unlock()
	loaded, err := d.vm.Loaded(ctx, javalang.Signature(mainClass))
	if err != nil {
		return fmt.Errorf("stopOnEntry: %w", err)
	}
	for _, c := range loaded {
		d.entryBreakpoint(ctx, c.ID)
	}
	return nil
}

// entryBreakpoint sets a one-shot breakpoint at the start of class's main.
func (d *debuggee) entryBreakpoint(ctx context.Context, class jdwp.ReferenceTypeID) {
	ms, err := d.vm.Methods(ctx, class)
	if err != nil {
		d.log.Warn().Err(err).Msg("stopOnEntry: methods of the main class")
		return
	}
	for _, m := range ms {
		if m.Name != "main" || m.ModBits&jdwp.AccNative != 0 {
			continue
		}
		idx := uint64(0)
		if lt, err := d.vm.LineTable(ctx, class, m.ID); err == nil && !lt.Absent {
			idx = lt.Start
		}
		id, err := d.setRequest(ctx, jdwp.EventBreakpoint, stopPolicy,
			jdwp.LocationOnly{TypeTag: jdwp.TypeTagClass, Class: class, Method: m.ID, Index: idx}, jdwp.Count(1))
		if err != nil {
			d.log.Warn().Err(err).Msg("stopOnEntry: breakpoint on main")
			return
		}
		d.mu.Lock()
		d.bps.entryReqs[id] = true
		d.mu.Unlock()
		return
	}
}

// release leaves the VM as the session end requires: terminate it, or clear
// every request, resume whatever the session suspended, and dispose.
func (d *debuggee) release(ctx context.Context, terminate bool) error {
	if d.isEnded() {
		if d.proc != nil {
			d.proc.kill()
		}
		d.conn.Close()
		return nil
	}
	if terminate {
		err := d.conn.Exit(ctx, 1)
		if d.proc != nil {
			if _, ok := d.proc.waitExit(2 * time.Second); !ok {
				d.proc.kill()
			}
			err = nil
		}
		d.conn.Close()
		if err != nil && d.conn.Err() != nil && !errors.Is(err, jdwp.ErrClosed) {
			return fmt.Errorf("terminate the VM: %w", err)
		}
		return nil
	}
	d.mu.Lock()
	if d.life.heldStart {
		d.sus.AdoptVM()
		d.life.heldStart = false
	}
	d.mu.Unlock()
	firstErr := d.requests.ClearAll(ctx)
	if err := d.resumeAll(ctx); err != nil && firstErr == nil {
		firstErr = err
	}
	if err := d.conn.Dispose(ctx); err != nil && firstErr == nil && !errors.Is(err, jdwp.ErrClosed) {
		firstErr = err
	}
	d.conn.Close()
	if d.ddm != nil {
		d.ddm.close()
	}
	if firstErr != nil {
		return fmt.Errorf("detach from the VM: %w", firstErr)
	}
	return nil
}

// parallel runs f(0..n-1) with bounded concurrency and returns the first error.
var parallel = mirror.Parallel
