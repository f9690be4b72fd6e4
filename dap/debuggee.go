package dap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/outline"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/langs"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	godap "github.com/google/go-dap"
	"github.com/rs/zerolog"
)

// debuggee is the VM as a session sees it: the debugger layer's target (t:
// the mirror, the suspension ledger, the stop state, the event pump,
// breakpoints and steps), and the DAP handles, sources and presentation
// that stand for it.
type debuggee struct {
	s *session
	t *debugger.Target
	// vm, sus and stops are t's, named here for brevity.
	vm    *mirror.VM
	sus   *debugger.Suspensions
	stops *debugger.Stops
	caps  jdwp.Capabilities
	log   zerolog.Logger

	target      string   // what attach or launch named, for messages
	proc        *process // the JVM this session started, or nil
	stopOnEntry string   // the main class to stop in, for launch with stopOnEntry
	opts        CommonConfig
	launched    bool // an Android launch: terminated on disconnect by default
	ddm         *ddmState

	srcs      sourceState  // where sources come from, and what dap derives from classes
	refs      refs         // the DAP handles that stand for the VM's things
	presentSt presentState // value presentation (present.go)
	mem       memoryState  // the memory view (memory.go)

	stopLog context.CancelFunc // ends the app's log in the console (logcat.go), or nil
	// unlisted is how many virtual threads the latest threads response
	// left out (said in the console when it changes).
	unlisted atomic.Int64
	counting atomic.Bool // a count of them runs
}

// sourceState is where a session's sources come from, and the caches of
// what dap derives from classes (dropped on redefinition).
type sourceState struct {
	sourcePaths []string
	sources     mirror.Memo[jdwp.ReferenceTypeID, *godap.Source]
	// srcRefOf maps classes without a local source to their
	// sourceReference (refs.srcRefs).
	srcRefOf mirror.Memo[jdwp.ReferenceTypeID, int]
	outlines mirror.Memo[jdwp.ReferenceTypeID, *outline.Outline]
	auto     *autoSources // zero-config source lookup (no sourcePaths), or nil
	langs    lang.Set     // the program's source languages (langs.All())
}

// refs are the DAP handles of a session: thread numbers, frame, variable
// and step-target references (forgotten when the VM resumes), and the
// sourceReferences of classes without a local source (kept for the
// session).
type refs struct {
	threads *idMap[jdwp.ThreadID]
	frames  *handles[mirror.Frame]
	// asyncFrames are the frames of coroutines' async stacks (af nil: the
	// label frame), numbered apart from frames.
	asyncFrames *handles[asyncRef]
	vars        *handles[container]
	targets     *handles[*debugger.StepTarget]
	srcRefs     *handles[jdwp.ReferenceTypeID]
}

func newDebuggee(ctx context.Context, s *session, nc net.Conn, target string) (*debuggee, error) {
	log := s.log.With().Str("vm", target).Logger()
	d := &debuggee{
		s: s, log: log, target: target,
		srcs: sourceState{langs: langs.All()},
		refs: refs{
			threads:     newIDMap[jdwp.ThreadID](),
			frames:      newHandles[mirror.Frame](),
			asyncFrames: &handles[asyncRef]{next: firstAsyncFrame, m: map[int]asyncRef{}},
			vars:        newHandles[container](),
			targets:     newHandles[*debugger.StepTarget](),
			srcRefs:     newHandles[jdwp.ReferenceTypeID](),
		},
	}
	t, err := debugger.Attach(ctx, nc, s.cfg.JDWP, s.ctx, frontend{d}, debugger.Options{RequestTimeout: s.cfg.RequestTimeout, Languages: d.srcs.langs}, log, d.spawn)
	if err != nil {
		return nil, err
	}
	d.t, d.vm, d.sus, d.stops = t, t.VM, t.Sus, t.Stops
	return d, nil
}

// spawn runs f on a goroutine the session waits for.
func (d *debuggee) spawn(f func()) {
	d.s.wg.Add(1)
	go func() {
		defer d.s.wg.Done()
		f()
	}()
}

// start applies the launch or attach options to the target, reads the
// VM's capabilities and starts the event pump.
func (d *debuggee) start(ctx context.Context) error {
	d.t.Opts.SuspendAll = d.suspendAll()
	d.t.Opts.EvalTimeout = d.evalTimeout()
	if f := d.opts.StepFilters; f != nil {
		d.t.Opts.StepFilters = &debugger.StepFilters{
			SkipClasses: f.SkipClasses, SkipSynthetics: f.SkipSynthetics,
			SkipStaticInitializers: f.SkipStaticInitializers, SkipConstructors: f.SkipConstructors,
		}
	}
	if err := d.t.Start(ctx, d.spawn); err != nil {
		return err
	}
	d.caps = d.t.Caps
	return nil
}

// evalTimeout bounds a condition's or logpoint's evaluation.
func (d *debuggee) evalTimeout() time.Duration {
	if t := d.s.cfg.EvalTimeout; t > 0 {
		return t
	}
	return 10 * time.Second
}

// suspendAll reports whether a stop suspends the whole VM (the launch or
// attach option suspendAllThreads, true unless set false).
func (d *debuggee) suspendAll() bool {
	return d.opts.SuspendAllThreads == nil || *d.opts.SuspendAllThreads
}

func (d *debuggee) isStopped() bool { return d.stops.Stopped() }

func (d *debuggee) isEnded() bool { return d.t.Ended() }

// forget drops the handles of frames, variables and step targets: they
// stand for a stop that is over.
func (d *debuggee) forget() {
	d.refs.frames.reset()
	d.refs.asyncFrames.reset()
	d.refs.vars.reset()
	d.refs.targets.reset()
}

// resumeAll releases every suspension the session holds and invalidates
// frame and variable references.
func (d *debuggee) resumeAll(ctx context.Context) error {
	d.forget()
	d.presentSt.release(ctx, d)
	return d.t.ResumeAll(ctx)
}

// resumeThread releases the session's suspensions of one thread; the
// session stays stopped while it holds others.
func (d *debuggee) resumeThread(ctx context.Context, thread jdwp.ThreadID) error {
	err := d.t.ResumeThread(ctx, thread)
	d.forget()
	return err
}

// frontend is the debuggee as the debugger layer's front end: what it
// decides becomes DAP events.
type frontend struct{ d *debuggee }

var _ debugger.Frontend = frontend{}

func (f frontend) Stopped(st debugger.Stop) {
	d := f.d
	d.s.send(&godap.StoppedEvent{Event: newEvent("stopped"), Body: godap.StoppedEventBody{
		Reason: st.Reason, ThreadId: d.refs.threads.id(st.Thread), AllThreadsStopped: st.AllThreads,
		HitBreakpointIds: st.Breakpoints, Description: st.Description, Text: st.Text,
	}})
}

func (f frontend) ThreadStarted(t jdwp.ThreadID) {
	f.d.s.send(&godap.ThreadEvent{Event: newEvent("thread"), Body: godap.ThreadEventBody{Reason: "started", ThreadId: f.d.refs.threads.id(t)}})
}

func (f frontend) ThreadExited(t jdwp.ThreadID) {
	f.d.s.send(&godap.ThreadEvent{Event: newEvent("thread"), Body: godap.ThreadEventBody{Reason: "exited", ThreadId: f.d.refs.threads.id(t)}})
}

func (f frontend) BreakpointChanged(b debugger.BreakpointInfo) {
	ctx, cancel := context.WithTimeout(f.d.s.ctx, f.d.s.cfg.RequestTimeout)
	defer cancel()
	f.d.s.send(&godap.BreakpointEvent{Event: newEvent("breakpoint"), Body: godap.BreakpointEventBody{Reason: "changed", Breakpoint: f.d.dapBreakpoint(ctx, b)}})
}

func (f frontend) Output(category, text string) { f.d.s.output(category, text) }

func (f frontend) Logpoint(b debugger.BreakpointInfo, text string) {
	out := godap.OutputEventBody{Category: "console", Output: text + "\n"}
	if b.Path != "" {
		out.Source, out.Line = &godap.Source{Name: filepath.Base(b.Path), Path: b.Path}, b.Line
	}
	f.d.s.send(&godap.OutputEvent{Event: newEvent("output"), Body: out})
}

// ClassUnloaded drops what the session cached of a class the VM unloaded.
func (f frontend) ClassUnloaded(t jdwp.ReferenceTypeID) {
	f.d.srcs.sources.Forget(t)
	f.d.srcs.outlines.Forget(t)
}

// Ended reports the exit code of a VM the session started, then
// termination (a launch still waiting for its main class fails instead).
func (f frontend) Ended(launching bool) {
	d := f.d
	if d.ddm != nil {
		d.ddm.close()
	}
	if d.s.isDone() || launching {
		return
	}
	if d.proc != nil {
		if code, ok := d.proc.WaitExit(5 * time.Second); ok {
			d.s.send(&godap.ExitedEvent{Event: newEvent("exited"), Body: godap.ExitedEventBody{ExitCode: code}})
		}
	}
	d.s.send(&godap.TerminatedEvent{Event: newEvent("terminated")})
}

// Invalidated has the client ask for the values it shows again (those a
// method that did not return in time left without their text).
func (f frontend) Invalidated() {
	if f.d.s.client.SupportsInvalidatedEvent {
		f.d.s.send(&godap.InvalidatedEvent{Event: newEvent("invalidated"), Body: godap.InvalidatedEventBody{Areas: []godap.InvalidatedAreas{"variables"}}})
	}
}

// ValueText presents a value as the Variables view would.
func (f frontend) ValueText(ctx context.Context, v jdwp.Value) string {
	vr, err := f.d.variable(ctx, "", "", v)
	if err != nil {
		return "?"
	}
	return vr.Value
}

// configurationDone lets the VM run (see debugger.Target.ConfigurationDone).
func (d *debuggee) configurationDone(ctx context.Context) error {
	return d.t.ConfigurationDone(ctx, d.stopOnEntry)
}

// release leaves the VM as the session end requires: terminate it, or clear
// every request, resume whatever the session suspended, and dispose.
func (d *debuggee) release(ctx context.Context, terminate bool) error {
	if d.stopLog != nil {
		d.stopLog()
	}
	if d.isEnded() {
		if d.proc != nil {
			d.proc.Kill()
		}
		d.t.Close()
		return nil
	}
	if terminate {
		err := d.t.Exit(ctx, 1)
		// A connection lost meanwhile is the VM gone: what was asked (an
		// Android app force-stopped by terminate dies under the Exit).
		var lost *jdwp.ConnError
		if d.proc != nil || errors.As(err, &lost) || errors.Is(err, jdwp.ErrClosed) {
			err = nil
		}
		if d.proc != nil {
			if _, ok := d.proc.WaitExit(2 * time.Second); !ok {
				d.proc.Kill()
			}
		}
		d.t.Close()
		if err != nil {
			return fmt.Errorf("terminate the VM: %w", err)
		}
		return nil
	}
	d.forget()
	d.presentSt.release(ctx, d)
	if d.ddm != nil {
		if d.ddm.alloc != nil {
			d.ddm.alloc.Close() // the VM's allocation tracker off while the connection lives
		}
	}
	err := d.t.Detach(ctx)
	d.t.Close()
	if d.ddm != nil {
		d.ddm.close()
	}
	if err != nil && !errors.Is(err, jdwp.ErrClosed) {
		return fmt.Errorf("detach from the VM: %w", err)
	}
	return nil
}

// parallel runs f(0..n-1) with bounded concurrency and returns the first error.
var parallel = mirror.Parallel
