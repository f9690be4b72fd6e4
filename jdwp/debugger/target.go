package debugger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/classfile"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/langs"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	"github.com/rs/zerolog"
)

// Options are the choices of a session the debugger layer applies.
type Options struct {
	// SuspendAll says a stop suspends the whole VM (suspendAllThreads,
	// true by default); false holds the stopped thread alone.
	SuspendAll bool
	// StepFilters say what step-into passes over; nil passes over the
	// JDK's classes only.
	StepFilters *StepFilters
	// EvalTimeout bounds a condition's or logpoint's evaluation (10 s when
	// 0).
	EvalTimeout time.Duration
	// RequestTimeout bounds the commands the layer sends by itself (while
	// deciding an event set).
	RequestTimeout time.Duration
	// Languages are the source languages of the program (which classes
	// hold a file's lines, which lines hold code), the default first;
	// langs.All() when nil.
	Languages lang.Set
}

// langs is the session's languages.
func (t *Target) langs() lang.Set {
	if len(t.Opts.Languages) == 0 {
		return langs.All()
	}
	return t.Opts.Languages
}

// StepFilters say which code step-into passes over.
type StepFilters struct {
	// SkipClasses are class patterns: a name, a prefix ("com.example.*"),
	// a suffix ("*.Generated"), or "$JDK" for the JDK's packages.
	SkipClasses []string
	// SkipSynthetics, SkipStaticInitializers and SkipConstructors pass
	// over synthetic methods (lambda bodies, bridges), <clinit> and <init>.
	SkipSynthetics, SkipStaticInitializers, SkipConstructors bool
}

// Frontend is what an editor protocol does with what the layer decides.
// Its methods are called from event lanes and must not block on the VM.
type Frontend interface {
	// Stopped reports a stop whose suspension the ledger now holds; it is
	// called under the stop lock (see Target.StopMu), before any other stop
	// or resume.
	Stopped(Stop)
	// ThreadStarted and ThreadExited report the VM's thread events.
	ThreadStarted(jdwp.ThreadID)
	ThreadExited(jdwp.ThreadID)
	// BreakpointChanged reports a breakpoint that became verified when its
	// class loaded.
	BreakpointChanged(BreakpointInfo)
	// Output shows text to the user ("console" or "important").
	Output(category, text string)
	// Logpoint shows a logpoint's message.
	Logpoint(b BreakpointInfo, text string)
	// ClassUnloaded lets the front end drop what it cached of a class.
	ClassUnloaded(jdwp.ReferenceTypeID)
	// Ended reports the VM's death or the connection's end, once;
	// launching says a launch was still waiting for its main class (the
	// launch fails instead of the session ending).
	Ended(launching bool)
	// ValueText presents a value in a message (a data breakpoint's).
	ValueText(ctx context.Context, v jdwp.Value) string
	// Invalidated has the front end show the stop's values again: a
	// method presentation ran returned late (see Presentation).
	Invalidated()
}

// Stop is why a thread stops.
type Stop struct {
	Reason      string // "breakpoint", "step", "exception", "entry", …
	Thread      jdwp.ThreadID
	Breakpoints []int // the ids of the breakpoints hit
	Description string
	Text        string
	// at is where the event that made the stop happened (its thread's top
	// frame): what the stop reads first is asked of it at once (prefetch).
	at jdwp.Location
	// AllThreads says the whole VM is held (set by the layer).
	AllThreads bool
	// handedOff says the event's suspension is not the set's to release:
	// a method an evaluation left running in the thread releases it (see
	// mirror.VM.Invoking), and the hit does not stop.
	handedOff bool
}

// Target is one debugged VM as the debugger layer owns it: the mirror and
// connection, the suspension ledger, the stop state, the event pump and
// every event request, with the breakpoints, steps and exception rules
// behind them, and where the session stands between launch and the end.
type Target struct {
	Conn     *jdwp.Conn
	VM       *mirror.VM
	Sus      *Suspensions
	Stops    *Stops
	Events   *Events
	Requests *Requests
	Caps     jdwp.Capabilities
	Opts     Options

	// StopMu orders stops and the answers to requests that resume: a
	// front end takes it to answer such a request and resume, so no stop
	// is reported in between.
	StopMu  sync.Mutex
	pending []pendingStop // stops held back while another is shown (guarded by StopMu)

	fe    Frontend
	sub   *jdwp.Subscription
	log   zerolog.Logger
	ctx   context.Context
	spawn func(func())

	present  Presentation
	inv      invocations // the invocation road's bookkeeping (invoke.go)
	stacks   stacks      // what was read of stopped threads (stack.go)
	obsolete mirror.Obsolete
	pools    mirror.Memo[jdwp.ReferenceTypeID, *classfile.Pool] // constant pools, for bytecode
	conts    contState                                          // continuation classes (coroutines.go)
	// sent is the digest of the class file each class was last redefined
	// with: a class file with the same bytes is not sent again.
	sent redefined

	bpMu sync.Mutex // serialises breakpoint installation (requests and class prepares)

	mu   sync.Mutex // guards everything below
	life lifecycle
	bps  bpTables
	// booking is held (read) from a breakpoint request's Set until its id
	// is booked in bps: a hit read meanwhile waits for it rather than
	// taking the request for one cleared (its hit lost).
	booking sync.RWMutex
	steps   stepTables

	threads threadBook // the threads met at events, and which are virtual (threads.go)
}

// lifecycle is where the session stands between launch and the end.
type lifecycle struct {
	configured bool // the front end's configuration is done
	heldStart  bool // a VM_START (or main-class prepare) suspension is held until then
	mainReq    int32
	mainReady  chan struct{}
	launching  bool
	ended      bool
	endedCh    chan struct{}
}

// New returns the target of conn, subscribed to its events at once (so
// none is missed); spawn starts the goroutines the layer needs (the owner
// waits for them); Start starts the pump. hooks, when not nil, also see
// invocations (the ledger always does).
func New(ctx context.Context, conn *jdwp.Conn, fe Frontend, opts Options, log zerolog.Logger, spawn func(func())) *Target {
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 30 * time.Second
	}
	sus := NewSuspensions(conn, log, opts.RequestTimeout)
	t := &Target{
		Conn: conn, Sus: sus, Stops: NewStops(), Opts: opts, fe: fe, log: log, ctx: ctx, spawn: spawn,
		sub:      conn.Subscribe(),
		VM:       mirror.New(conn, mirror.Config{Context: ctx, Log: log, Go: spawn}),
		Requests: NewRequests(conn, log),
		life:     lifecycle{endedCh: make(chan struct{})},
		bps:      newBPTables(),
		steps:    stepTables{steps: map[jdwp.ThreadID][]int32{}, stepping: map[jdwp.ThreadID]*stepState{}, resuming: map[int32]*stepState{}, abandoned: map[int32]bool{}, movedFrom: map[jdwp.ThreadID]bool{}},
	}
	t.inv.init()
	t.Events = NewEvents(ctx, t.sub, t.VM, sus, t, spawn, log, opts.RequestTimeout)
	t.Events.running = t.RunningMethod
	t.present.t = t
	sus.remember = t.rememberStop
	sus.released = func(thread jdwp.ThreadID) {
		t.stacks.forget(thread)
		t.VM.Release()
	}
	sus.onHeld, sus.runs = t.VM.Hold, t.VM.Release
	return t
}

// Preload asks the VM at once what a session needs first: its id sizes,
// version and capabilities (see jdwp.Conn.Preload).
func (t *Target) Preload(ctx context.Context) error { return t.Conn.Preload(ctx) }

// Start reads the VM's capabilities, asks for thread and class-unload
// events and runs the event pump until the connection ends (run starts it
// on a goroutine the owner waits for).
func (t *Target) Start(ctx context.Context, run func(func())) error {
	// The capabilities and the version (whether the VM has virtual
	// threads) are asked at once: one round trip on a slow link.
	var caps jdwp.Capabilities
	var err error
	mirror.Parallel(2, func(i int) error {
		if i == 0 {
			caps, err = t.Conn.Capabilities(ctx)
		} else {
			t.readVersion(ctx)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the VM's capabilities: %w", err)
	}
	t.Caps = caps
	// Thread starts and deaths (platform threads only on a VM with virtual
	// threads), and class unloads, which keep the mirror's caches true
	// (SuspendNone: they stop nothing), sent at once and not waited for:
	// whatever the session asks next reaches the VM after them (it runs
	// commands in order), so on a slow link they cost no round trip of
	// their own. A VM that refuses them only loses those events: said in
	// the log when the answers come.
	kinds := []jdwp.EventKind{jdwp.EventThreadStart, jdwp.EventThreadDeath, jdwp.EventClassUnload}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.Opts.RequestTimeout)
	waits := make([]func() error, len(kinds))
	for i, k := range kinds {
		var mods []jdwp.Modifier
		if k != jdwp.EventClassUnload {
			mods = t.threadEventModifiers()
		}
		waits[i] = sendQueued(rctx, func(ctx context.Context) error {
			_, err := t.Requests.Set(ctx, k, jdwp.SuspendNone, mods...)
			return err
		})
	}
	run(func() {
		defer cancel()
		for i, wait := range waits {
			err := wait()
			switch {
			case err == nil || t.Conn.Err() != nil:
			case i == 2:
				t.log.Debug().Err(err).Msg("ask for class unload events")
			case jdwp.Code(err) == jdwp.ErrNotImplemented:
				t.log.Info().Msg("the VM sends no thread events (EventRequest.Set is not implemented)")
			default:
				t.log.Warn().Err(err).Msg("ask for thread events")
			}
		}
	})
	// java.lang.Object's facts, where every walk up a hierarchy ends, read
	// beside the session's first requests: the first value of a type met
	// costs a round trip less.
	run(func() {
		ctx, cancel := context.WithTimeout(t.ctx, t.Opts.RequestTimeout)
		defer cancel()
		t.VM.ReadType(ctx, "Ljava/lang/Object;")
	})
	run(t.Events.Run)
	return nil
}

// evalTimeout bounds a condition's or logpoint's evaluation.
func (t *Target) evalTimeout() time.Duration {
	if t.Opts.EvalTimeout > 0 {
		return t.Opts.EvalTimeout
	}
	return 10 * time.Second
}

// Ended reports whether the VM died or the connection ended.
func (t *Target) Ended() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.life.ended
}

// EndedCh is closed when the VM dies or the connection ends.
func (t *Target) EndedCh() <-chan struct{} { return t.life.endedCh }

// stopPolicy is the suspend policy of every request whose events may stop:
// the event's thread alone (see HandleSet and hold).
const stopPolicy = jdwp.SuspendEventThread

// var _ EventHandler: the target decides its own event sets.
var _ EventHandler = (*Target)(nil)

// DuringInvoke: a class an evaluated method prepares still gets its
// breakpoints; a breakpoint or step inside the method does not stop (the
// evaluation would never return) and the user is told it was skipped.
func (t *Target) DuringInvoke(ctx context.Context, e jdwp.Event) {
	switch e.Kind {
	case jdwp.EventClassPrepare:
		t.onClassPrepare(ctx, e)
	case jdwp.EventBreakpoint:
		t.mu.Lock()
		bp := t.bps.bpByReq[e.RequestID]
		t.mu.Unlock()
		if bp != nil {
			name, err := t.VM.ThreadName(ctx, e.Thread)
			if err != nil {
				name = fmt.Sprint(e.Thread)
			}
			t.fe.Output("console", fmt.Sprintf("%s: skipped: thread %q was running a method for the debugger (an evaluation, a condition or a toString)\n", bp.where(), name))
		}
	default:
		t.log.Debug().Stringer("kind", e.Kind).Msg("event in a thread running a method for the debugger: not a stop")
	}
}

// HandleSet decides an event set, on its thread's lane: a stop (the
// front end is told), or the release of the set's suspension.
func (t *Target) HandleSet(es *jdwp.EventSet) {
	ctx, cancel := context.WithTimeout(t.ctx, t.Opts.RequestTimeout)
	defer cancel()
	var stop *Stop
	held := false // the set's suspension is kept (VM_START before configuration is done)
	for _, e := range es.Events {
		switch e.Kind {
		case jdwp.EventVMStart:
			t.mu.Lock()
			if !t.life.configured {
				t.life.heldStart, held = true, true
			}
			t.mu.Unlock()
		case jdwp.EventThreadStart:
			t.fe.ThreadStarted(e.Thread)
		case jdwp.EventThreadDeath:
			t.forgetThread(e.Thread)
			t.fe.ThreadExited(e.Thread)
		case jdwp.EventClassUnload:
			if c := t.VM.Unloaded(e.Signature); c != 0 {
				t.pools.Forget(c)
				t.fe.ClassUnloaded(c)
			}
		case jdwp.EventClassPrepare:
			if t.onMainPrepared(ctx, e) {
				held = true
				continue
			}
			t.onClassPrepare(ctx, e)
		case jdwp.EventBreakpoint:
			t.Met(e.Thread)
			stop = mergeStop(stop, t.onBreakpoint(ctx, e))
		case jdwp.EventSingleStep:
			t.Met(e.Thread)
			stop = mergeStop(stop, t.onStep(ctx, e))
		case jdwp.EventMethodEntry:
			t.Met(e.Thread)
			stop = mergeStop(stop, t.onMethodEntry(ctx, e))
		case jdwp.EventMethodExitWithReturnValue:
			stop = mergeStop(stop, t.onMethodExit(ctx, e))
		case jdwp.EventException:
			t.Met(e.Thread)
			stop = mergeStop(stop, t.onException(ctx, e))
		case jdwp.EventFieldAccess, jdwp.EventFieldModification:
			t.Met(e.Thread)
			stop = mergeStop(stop, t.onFieldEvent(ctx, e))
		case jdwp.EventVMDeath, jdwp.EventVMDisconnected:
			t.end()
			return
		}
	}
	switch {
	case held, stop != nil && stop.handedOff:
	case stop != nil:
		for _, e := range es.Events {
			if e.Thread == stop.Thread && e.Location.Method != 0 {
				stop.at = e.Location
				break
			}
		}
		t.stop(ctx, stop, es.SuspendPolicy)
	default:
		t.Events.Release(ctx, es)
	}
}

func mergeStop(a, b *Stop) *Stop {
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
	a.Breakpoints = append(a.Breakpoints, b.Breakpoints...)
	if a.Reason != "breakpoint" && b.Reason == "breakpoint" {
		a.Reason = b.Reason
	}
	return a
}

// end runs once, when the VM dies or the connection ends.
func (t *Target) end() {
	t.mu.Lock()
	if t.life.ended {
		t.mu.Unlock()
		return
	}
	t.life.ended = true
	t.Stops.Ended()
	launching := t.life.launching
	t.mu.Unlock()
	close(t.life.endedCh)
	t.fe.Ended(launching)
}

// Configured marks the front end's configuration done (as
// ConfigurationDone does) and reports whether ConfigurationDone, with
// entry, will let the VM run or arm the entry stop: only then must its
// answer be ordered with stops (StopMu). Once configured, no start
// suspension is held for it any more.
func (t *Target) Configured(entry string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.life.configured = true
	return t.life.heldStart || entry != ""
}

// ConfigurationDone lets the VM run: the suspension of VM_START (or of the
// main class's prepare), if held, is released; with entry set, the session
// stops at the first line of entry's main first.
func (t *Target) ConfigurationDone(ctx context.Context, entry string) error {
	t.mu.Lock()
	t.life.configured = true
	held := t.life.heldStart
	t.life.heldStart = false
	t.mu.Unlock()
	if entry != "" {
		if err := t.armEntry(ctx, entry); err != nil {
			return err
		}
	}
	if held {
		if err := t.Conn.Resume(ctx); err != nil {
			return fmt.Errorf("start the VM: %w", err)
		}
	}
	return nil
}

// RunToMain lets a launched VM run from VM_START until it has loaded
// mainClass, and holds it suspended there until ConfigurationDone, so a
// JVM that cannot start the program fails the launch with its own message.
// Nothing of the program has run yet: the main class is prepared, not
// initialized. exited is the error when the VM ends first.
func (t *Target) RunToMain(ctx context.Context, mainClass string, exited func() error) error {
	req, err := t.Requests.Set(ctx, jdwp.EventClassPrepare, jdwp.SuspendAll, jdwp.ClassMatch(mainClass))
	if err != nil {
		return fmt.Errorf("wait for the main class: %w", err)
	}
	ready := make(chan struct{})
	t.mu.Lock()
	t.life.mainReq, t.life.mainReady, t.life.launching = req, ready, true
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.life.launching = false
		t.mu.Unlock()
	}()
	// The VM_START suspension is held once its event is handled.
	for {
		t.mu.Lock()
		held := t.life.heldStart
		t.mu.Unlock()
		if held {
			break
		}
		select {
		case <-t.life.endedCh:
			return exited()
		case <-ctx.Done():
			return fmt.Errorf("the VM did not start: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.mu.Lock()
	t.life.heldStart = false
	t.mu.Unlock()
	if err := t.Conn.Resume(ctx); err != nil {
		return fmt.Errorf("start the VM: %w", err)
	}
	select {
	case <-ready:
		return nil
	case <-t.life.endedCh:
		return exited()
	case <-ctx.Done():
		return fmt.Errorf("the JVM did not load %s in time (raise \"timeout\"): %w", mainClass, ctx.Err())
	}
}

// onMainPrepared holds the suspension of the main class's prepare event
// until ConfigurationDone (see RunToMain); it reports false for other
// events.
func (t *Target) onMainPrepared(ctx context.Context, e jdwp.Event) bool {
	t.mu.Lock()
	if e.Kind != jdwp.EventClassPrepare || t.life.mainReq == 0 || e.RequestID != t.life.mainReq {
		t.mu.Unlock()
		return false
	}
	t.life.mainReq = 0
	t.life.heldStart = true
	ready := t.life.mainReady
	t.mu.Unlock()
	t.Requests.Clear(ctx, jdwp.EventClassPrepare, e.RequestID)
	close(ready)
	return true
}

// Detach leaves the VM as it was before the session: every request
// cleared, every suspension the session holds released (a held VM_START
// too), then Dispose.
func (t *Target) Detach(ctx context.Context) error {
	t.mu.Lock()
	if t.life.heldStart {
		t.Sus.AdoptVM()
		t.life.heldStart = false
	}
	t.mu.Unlock()
	firstErr := t.Requests.ClearAll(ctx)
	t.Stops.ResumedAll()
	if err := t.Sus.ResumeAll(ctx); err != nil && firstErr == nil {
		firstErr = err
	}
	if err := t.Conn.Dispose(ctx); err != nil && firstErr == nil && !errors.Is(err, jdwp.ErrClosed) {
		firstErr = err
	}
	return firstErr
}
