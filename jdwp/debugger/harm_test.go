package debugger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	"github.com/rs/zerolog"
)

// The harm scenarios of the debugger layer, on a real HotSpot VM and below
// any editor protocol: four workers at one breakpoint, a method that
// returns after the user resumed, a condition that never returns. Each
// drives the Target as a front end does after every stop (the stopped
// thread's frames, a value's toString) and checks that nothing the user did
// not stop stays stopped.

// recorder is a Frontend that records what the layer decides.
type recorder struct {
	stops chan Stop
	mu    sync.Mutex
	out   strings.Builder
	inval int
}

func newRecorder() *recorder { return &recorder{stops: make(chan Stop, 64)} }

func (r *recorder) Stopped(s Stop)                   { r.stops <- s }
func (r *recorder) ThreadStarted(jdwp.ThreadID)      {}
func (r *recorder) ThreadExited(jdwp.ThreadID)       {}
func (r *recorder) BreakpointChanged(BreakpointInfo) {}
func (r *recorder) Output(_, text string) {
	r.mu.Lock()
	r.out.WriteString(text)
	r.mu.Unlock()
}
func (r *recorder) Logpoint(_ BreakpointInfo, text string) { r.Output("console", text+"\n") }
func (r *recorder) ClassUnloaded(jdwp.ReferenceTypeID)     {}
func (r *recorder) Ended(bool)                             {}
func (r *recorder) ValueText(context.Context, jdwp.Value) string {
	return "?"
}
func (r *recorder) Invalidated() {
	r.mu.Lock()
	r.inval++
	r.mu.Unlock()
}

func (r *recorder) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// poolSession is a Target on a started Pool VM (testdata/java/Pool.java),
// held at its main class until the test's breakpoints are set.
type poolSession struct {
	t      *Target
	vm     *jvmtest.JVM
	fe     *recorder
	path   string
	hit    int // the line marked HIT
	ctx    context.Context
	tb     testing.TB
	cancel context.CancelFunc
}

func startPool(tb testing.TB, rounds int, opts Options) *poolSession {
	tb.Helper()
	return startPoolVia(tb, rounds, opts, nil)
}

// startPoolVia is startPool with the session attached through via (given
// the VM's address, it returns the one to attach to; nil: the VM's).
func startPoolVia(tb testing.TB, rounds int, opts Options, via func(addr string) string) *poolSession {
	tb.Helper()
	jvmtest.RequireJava(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	tb.Cleanup(cancel)
	path, err := filepath.Abs("testdata/java/Pool.java")
	if err != nil {
		tb.Fatal(err)
	}
	dir, err := jvmtest.CompileCached(ctx, path)
	if err != nil {
		tb.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	hit := 0
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "// HIT") {
			hit = i + 1
		}
	}
	vm := jvmtest.StartT(tb, jvmtest.Options{ClassPath: []string{dir}, MainClass: "Pool", Args: []string{fmt.Sprint(rounds)}, Suspend: true})
	addr := vm.Addr
	if via != nil {
		addr = via(addr)
	}
	conn, err := jdwp.Dial(ctx, addr, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	var wg sync.WaitGroup
	tb.Cleanup(wg.Wait)
	tb.Cleanup(func() { conn.Close() })
	spawn := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = 30 * time.Second
	}
	fe := newRecorder()
	tg := New(ctx, conn, fe, opts, zerolog.Nop(), spawn)
	if err := tg.Start(ctx, spawn); err != nil {
		tb.Fatal(err)
	}
	if err := tg.RunToMain(ctx, "Pool", func() error { return fmt.Errorf("the VM exited") }); err != nil {
		tb.Fatal(err)
	}
	return &poolSession{t: tg, vm: vm, fe: fe, path: path, hit: hit, ctx: ctx, tb: tb, cancel: cancel}
}

// nextStop waits for the next stop, or reports false once the program
// printed POOL-DONE.
func (p *poolSession) nextStop() (Stop, bool) {
	p.tb.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(p.ctx, 3*time.Minute)
		defer cancel()
		p.vm.WaitForLine(ctx, "POOL-DONE") //nolint:errcheck // checked by the caller
	}()
	select {
	case s := <-p.fe.stops:
		return s, true
	case <-done:
		select {
		case s := <-p.fe.stops:
			return s, true
		default:
			return Stop{}, false
		}
	}
}

// refresh reads what an editor reads after a stop: the stopped thread's
// frames (all of them) and its top frame's locals.
func (p *poolSession) refresh(s Stop) error {
	fs, err := p.t.Stack(p.ctx, s.Thread)
	if err != nil {
		return fmt.Errorf("frames of the stopped thread: %w", err)
	}
	if len(fs) == 0 {
		return fmt.Errorf("the stopped thread has no frames")
	}
	if _, err := p.t.Locals(p.ctx, fs[0]); err != nil {
		return fmt.Errorf("locals: %w", err)
	}
	return nil
}

// slowToString runs Pool.SLOW's toString for presentation, as the
// Variables view would; its budget is shorter than the method.
func (p *poolSession) slowToString() error {
	class, err := p.t.VM.ClassBySignature(p.ctx, "LPool;")
	if err != nil {
		return err
	}
	v, ok, err := p.t.VM.StaticField(p.ctx, class, "SLOW")
	if err != nil || !ok {
		return fmt.Errorf("Pool.SLOW: %v", err)
	}
	_, err = p.t.Presentation().Invoke(p.ctx, v.Object(), "toString", "()Ljava/lang/String;")
	return err
}

// waitDone waits for POOL-DONE, and on a timeout says which threads are
// left suspended.
func (p *poolSession) waitDone() {
	p.tb.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 3*time.Minute)
	defer cancel()
	if _, err := p.vm.WaitForLine(ctx, "POOL-DONE"); err == nil {
		return
	}
	var stuck []string
	sctx, scancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer scancel()
	ths, _ := p.t.Conn.AllThreads(sctx)
	for _, th := range ths {
		n, _ := p.t.Conn.SuspendCount(sctx, th)
		if n > 0 {
			name, _ := p.t.Conn.ThreadName(sctx, th)
			stuck = append(stuck, fmt.Sprintf("%s (suspend count %d)", name, n))
		}
	}
	p.tb.Fatalf("the program did not finish; threads suspended: %v; ledger %s; output %q", stuck, p.t.Sus.String(), p.fe.output())
}

// resume lets the stopped threads go as a front end answers the user's
// continue: under StopMu, so no stop is shown between the session's record
// of the resume and the VM's (see Target.ResumeAll); all resumes every
// thread, else thread alone.
func (p *poolSession) resume(all bool, thread jdwp.ThreadID) error {
	p.t.StopMu.Lock()
	defer p.t.StopMu.Unlock()
	if all {
		return p.t.ResumeAll(p.ctx)
	}
	return p.t.ResumeThread(p.ctx, thread)
}

// continueStops continues every stop that comes (as a user would after
// removing the breakpoints) until stop is called.
func (p *poolSession) continueStops() (stop func()) {
	quit, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-p.fe.stops:
				p.resume(true, 0) //nolint:errcheck // a failure shows as a program that does not finish
			case <-quit:
				return
			}
		}
	}()
	return func() { close(quit); <-stopped }
}

// checkLedgerEmpty: once the program runs free, the ledger holds nothing.
func (p *poolSession) checkLedgerEmpty() {
	p.tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for p.t.Sus.String() != "nothing held" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // a method's return is booked after its reply
	}
	if s := p.t.Sus.String(); s != "nothing held" {
		p.tb.Errorf("ledger after the run: %s", s)
	}
}

// TestLateMethodResumesNothing: four workers at one breakpoint, stops
// suspending all threads; after each stop the front end reads the frames and
// runs a toString that outlives its budget (left running in the thread),
// and the user continues at once; after a few stops all breakpoints are
// removed and the user continues: every worker runs to the end (a method
// returning after the user resumed suspends nothing), and the ledger holds
// nothing. Run it 20 times in a row.
func TestLateMethodResumesNothing(t *testing.T) {
	for _, all := range []bool{true, false} {
		t.Run(map[bool]string{true: "suspendAll", false: "eventThread"}[all], func(t *testing.T) {
			p := startPool(t, 40, Options{SuspendAll: all})
			p.t.Presentation().Budget = 100 * time.Millisecond
			if _, err := p.t.SetBreakpoints(p.ctx, p.path, []BreakpointSpec{{Line: p.hit}}); err != nil {
				t.Fatal(err)
			}
			if err := p.t.ConfigurationDone(p.ctx, ""); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 6; i++ {
				s, ok := p.nextStop()
				if !ok {
					t.Fatal("the program ended before 6 stops")
				}
				if err := p.refresh(s); err != nil {
					t.Fatalf("stop %d (thread %v): %v", i, s.Thread, err)
				}
				p.slowToString() //nolint:errcheck // it outlives its budget: the point
				if i%2 == 1 {
					// F10 while the method runs: the step may be refused
					// (the thread runs), the resume that follows is not.
					p.t.Step(p.ctx, s.Thread, jdwp.StepOver, "step") //nolint:errcheck // either way
				}
				p.resume(all, s.Thread) //nolint:errcheck // checked by the end
			}
			if _, err := p.t.SetBreakpoints(p.ctx, p.path, nil); err != nil {
				t.Fatal(err)
			}
			// Stops decided before the removal are continued, as a user would.
			stop := p.continueStops()
			p.resume(true, 0) //nolint:errcheck
			p.waitDone()
			p.checkLedgerEmpty() // a step's stop may still come: it is continued too
			stop()
		})
	}
}

// TestInvokeRoad: the one invocation road on a real VM. A method that
// outlives its caller's deadline in a native sleep is left running (the
// thread is booked as running it, a second invocation there waits for it
// and gives up with the caller, AfterInvoke runs when it returns, its
// frames are read again after); a method that never returns, in a loop of
// its own (a condition that never returns), is made to return at once and
// the thread stays usable; and the user's continue while the method runs
// leaves nothing suspended when it returns.
func TestInvokeRoad(t *testing.T) {
	p := startPool(t, 3, Options{SuspendAll: true})
	if _, err := p.t.SetBreakpoints(p.ctx, p.path, []BreakpointSpec{{Line: p.hit}}); err != nil {
		t.Fatal(err)
	}
	if err := p.t.ConfigurationDone(p.ctx, ""); err != nil {
		t.Fatal(err)
	}
	s, ok := p.nextStop()
	if !ok {
		t.Fatal("no stop")
	}
	ctx := p.ctx
	class, err := p.t.VM.ClassBySignature(ctx, "LPool;")
	if err != nil {
		t.Fatal(err)
	}
	slow, _, err := p.t.VM.StaticField(ctx, class, "SLOW")
	if err != nil {
		t.Fatal(err)
	}
	toString, err := p.t.VM.InstanceMethod(ctx, slow.Object(), "toString", "()Ljava/lang/String;")
	if err != nil {
		t.Fatal(err)
	}
	spin, err := p.t.VM.MethodsNamed(ctx, class, "spin")
	if err != nil || len(spin) != 1 {
		t.Fatalf("spin: %v, %v", spin, err)
	}
	// A condition that never returns: made to return, the thread usable.
	sctx, scancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = p.t.Invoke(sctx, s.Thread, 0, spin[0], nil)
	scancel()
	if !errors.Is(err, mirror.ErrAborted) {
		t.Fatalf("spin() past its deadline = %v, want it stopped (ErrAborted)", err)
	}
	if fs, err := p.t.Stack(ctx, s.Thread); err != nil || len(fs) == 0 || fs[0].Loc.Method == spin[0].ID {
		t.Fatalf("the thread after spin() was stopped: %v, %v", fs, err)
	}
	// A late-returning method.
	gen := p.t.VM.Gen(s.Thread)
	lctx, lcancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = p.t.Invoke(lctx, s.Thread, slow.Object(), toString, nil)
	lcancel()
	if !errors.Is(err, mirror.ErrLeftRunning) || !p.t.StillRunning(s.Thread) || !p.t.RunningMethod(s.Thread) {
		t.Fatalf("toString() past its deadline = %v, still running %v", err, p.t.StillRunning(s.Thread))
	}
	// Its frames are answered from the stop meanwhile.
	if fs, err := p.t.Stack(ctx, s.Thread); err != nil || len(fs) == 0 {
		t.Fatalf("the stack while a method runs: %v, %v", fs, err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 200*time.Millisecond)
	if _, err := p.t.Invoke(wctx, s.Thread, slow.Object(), toString, nil); !errors.Is(err, mirror.ErrStillRunning) {
		t.Errorf("a second invocation while the first runs = %v, want ErrStillRunning", err)
	}
	wcancel()
	returned := make(chan struct{})
	if !p.t.AfterInvoke(s.Thread, func() { close(returned) }) {
		t.Fatal("AfterInvoke refused while a method runs")
	}
	// The user continues while it runs; breakpoints are removed first so
	// the workers run to the end.
	if _, err := p.t.SetBreakpoints(ctx, p.path, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.resume(true, 0); err != nil {
		t.Fatal(err)
	}
	select {
	case <-returned:
	case <-ctx.Done():
		t.Fatal("the method left running did not return before the deadline")
	}
	if p.t.StillRunning(s.Thread) || p.t.RunningMethod(s.Thread) || p.t.VM.Gen(s.Thread) <= gen {
		t.Errorf("after the method returned: still running %v, running %v, generation %d (was %d)", p.t.StillRunning(s.Thread), p.t.RunningMethod(s.Thread), p.t.VM.Gen(s.Thread), gen)
	}
	if p.t.AfterInvoke(s.Thread, func() {}) {
		t.Error("AfterInvoke accepted with no method running")
	}
	stop := p.continueStops()
	p.waitDone()
	p.checkLedgerEmpty()
	stop()
}

// methodCondition is a breakpoint condition that calls a static method of
// no arguments in the hit's thread, on the invocation road, as a front
// end's compiled condition does.
type methodCondition struct {
	t *Target
	m mirror.Method
}

func (c methodCondition) Truth(ctx context.Context, at Hit) (bool, error) {
	res, err := c.t.Invoke(ctx, at.Thread, 0, c.m, nil)
	if err != nil {
		return false, err
	}
	return res.Value.Bool(), nil
}

// TestEveryConditionalHitStops: four workers, 6 rounds each, reach a line
// with a condition that calls a method in the hit's thread (Pool.chosen)
// and a line with the hit condition ">= 19" (24 hits); stops suspend all
// threads or the event thread only. After each stop the front end reads
// the thread's frames and its top frame's locals, then resumes. Every true
// hit stops, counted against the program's own output — a conditional
// stop for each order it printed CHOSEN for, as many hit-count stops as
// it counted hits past the 18th — each with its thread at the location of
// the breakpoint it names (never one let run on before it was seen); the
// program runs to its end and the ledger holds nothing. Run it 20 times in
// a row.
func TestEveryConditionalHitStops(t *testing.T) {
	for _, all := range []bool{true, false} {
		t.Run(map[bool]string{true: "suspendAll", false: "eventThread"}[all], func(t *testing.T) {
			p := startPool(t, 6, Options{SuspendAll: all})
			ctx := p.ctx
			class, err := p.t.VM.ClassBySignature(ctx, "LPool;")
			if err != nil {
				t.Fatal(err)
			}
			chosen, err := p.t.VM.MethodsNamed(ctx, class, "chosen")
			if err != nil || len(chosen) != 1 {
				t.Fatalf("Pool.chosen: %v, %v", chosen, err)
			}
			src, err := os.ReadFile(p.path)
			if err != nil {
				t.Fatal(err)
			}
			countedLine := 0
			for i, l := range strings.Split(string(src), "\n") {
				if strings.Contains(l, "// COUNTED") {
					countedLine = i + 1
				}
			}
			infos, err := p.t.SetBreakpoints(ctx, p.path, []BreakpointSpec{
				{Line: p.hit, Cond: methodCondition{p.t, chosen[0]}},
				{Line: countedLine, Hit: ">= 19"},
			})
			if err != nil || len(infos) != 2 || !infos[0].Verified || !infos[1].Verified {
				t.Fatalf("breakpoints: %+v, %v", infos, err)
			}
			at := map[int]jdwp.Location{}
			for _, b := range infos {
				locs, err := p.t.LineLocations(ctx, class, b.Line)
				if err != nil || len(locs) != 1 {
					t.Fatalf("line %d: %v, %v", b.Line, locs, err)
				}
				at[b.ID] = locs[0]
			}
			if err := p.t.ConfigurationDone(ctx, ""); err != nil {
				t.Fatal(err)
			}
			var got []string
			counted := 0
			for {
				s, ok := p.nextStop()
				if !ok {
					break
				}
				if len(s.Breakpoints) != 1 {
					t.Fatalf("stop %+v", s)
				}
				want := at[s.Breakpoints[0]]
				fs, err := p.t.Stack(ctx, s.Thread)
				if err != nil || len(fs) == 0 {
					t.Fatalf("stop %+v: frames %v, %v", s, fs, err)
				}
				if l := fs[0].Loc; l.Class != want.Class || l.Method != want.Method || l.Index != want.Index {
					t.Fatalf("stop %+v: the thread is at %+v, want the breakpoint's %+v", s, l, want)
				}
				fl, err := p.t.Locals(ctx, fs[0])
				if err != nil {
					t.Fatalf("stop %+v: locals: %v", s, err)
				}
				if s.Breakpoints[0] == infos[0].ID {
					id := "?"
					for i, v := range fl.Vars {
						if v.Name == "order" {
							if f, ok, err := p.t.VM.Field(ctx, fl.Vals[i].Object(), "id"); ok && err == nil {
								id = fmt.Sprint(f.Int())
							}
						}
					}
					got = append(got, "CHOSEN "+id)
				} else {
					counted++
				}
				if err := p.resume(all, s.Thread); err != nil {
					t.Fatalf("resume after %+v: %v", s, err)
				}
			}
			p.waitDone()
			var printed []string
			total := -1
			for _, l := range p.vm.Stdout() {
				l = strings.TrimSpace(l)
				if strings.HasPrefix(l, "CHOSEN ") {
					printed = append(printed, l)
				}
				if n, ok := strings.CutPrefix(l, "COUNTED "); ok {
					total, _ = strconv.Atoi(n)
				}
			}
			t.Logf("%d conditional stops, %d at the hit count (%d hits)", len(got), counted, total)
			slices.Sort(got)
			slices.Sort(printed)
			if !slices.Equal(got, printed) {
				t.Errorf("conditional stops %q, want one for each order the program chose: %q", got, printed)
			}
			if want := max(0, total-18); total < 0 || counted != want {
				t.Errorf("%d stops at the hit count >= 19, want %d (%d hits)", counted, want, total)
			}
			p.checkLedgerEmpty()
		})
	}
}
