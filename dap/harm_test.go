package dap

import (
	"bufio"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	godap "github.com/google/go-dap"
)

// vscode drives a session as VS Code does: after every stop it asks
// threads, stackTrace, scopes and the Locals (named, then indexed), then
// continues. Responses are matched by request_seq, so requests answered out
// of order and events in between are handled as VS Code handles them.
type vscode struct {
	c           *client
	stops       []vsStop // stops read and not yet handled
	epoch       int      // bumped by every continue of all threads
	ended       bool
	invalidated int           // invalidated events seen
	slowest     time.Duration // the slowest Locals (variables) request
}

type vsStop struct {
	ev    *godap.StoppedEvent
	epoch int // the epoch it arrived in: an older one was continued since
}

// note books an event read while waiting for something else.
func (v *vscode) note(m godap.Message) {
	switch m := m.(type) {
	case *godap.StoppedEvent:
		v.stops = append(v.stops, vsStop{m, v.epoch})
	case *godap.ContinuedEvent:
		if m.Body.AllThreadsContinued {
			v.epoch++
		}
	case *godap.TerminatedEvent:
		v.ended = true
	case *godap.InvalidatedEvent:
		v.invalidated++
	}
}

// call sends a request and returns its response (success or error).
func (v *vscode) call(command string, args any) godap.ResponseMessage {
	v.c.t.Helper()
	seq := v.c.send(command, args)
	for {
		m := v.c.next()
		if r, ok := m.(godap.ResponseMessage); ok && r.GetResponse().RequestSeq == seq {
			if cr, ok := m.(*godap.ContinueResponse); ok && cr.Body.AllThreadsContinued {
				v.epoch++
			}
			return r
		}
		v.note(m)
	}
}

// nextStop returns the next stop, reading until one comes, or nil once the
// program ended.
func (v *vscode) nextStop() *vsStop {
	for len(v.stops) == 0 && !v.ended {
		v.note(v.c.next())
	}
	if len(v.stops) == 0 {
		return nil
	}
	s := v.stops[0]
	v.stops = v.stops[1:]
	return &s
}

// refresh asks what VS Code asks after a stop of thread th; a request for a
// stop that a continue of all threads already released may fail with "not
// stopped" (VS Code drops those), any other failure fails the test.
func (v *vscode) refresh(s *vsStop) (ok bool) {
	t := v.c.t
	t.Helper()
	th := s.ev.Body.ThreadId
	stale := func(r godap.ResponseMessage) bool {
		e, isErr := r.(*godap.ErrorResponse)
		if !isErr {
			return false
		}
		if s.epoch < v.epoch {
			return true
		}
		t.Fatalf("%s after the stop of thread %d: %s", e.Command, th, mustJSON(e))
		return false
	}
	if r := v.call("threads", nil); stale(r) {
		return false
	}
	r := v.call("stackTrace", map[string]any{"threadId": th, "startFrame": 0, "levels": 20})
	if stale(r) {
		return false
	}
	frames := r.(*godap.StackTraceResponse).Body.StackFrames
	if len(frames) == 0 {
		t.Fatalf("no frames for stopped thread %d", th)
	}
	r = v.call("scopes", map[string]any{"frameId": frames[0].Id})
	if stale(r) {
		return false
	}
	scopes := r.(*godap.ScopesResponse).Body.Scopes
	start := time.Now()
	r = v.call("variables", map[string]any{"variablesReference": scopes[0].VariablesReference, "filter": "named"})
	if d := time.Since(start); d > v.slowest {
		v.slowest = d
	}
	if stale(r) {
		return false
	}
	for _, x := range r.(*godap.VariablesResponse).Body.Variables {
		if x.VariablesReference == 0 {
			continue
		}
		if x.IndexedVariables > 0 {
			if r := v.call("variables", map[string]any{"variablesReference": x.VariablesReference, "filter": "indexed", "start": 0, "count": min(x.IndexedVariables, 100)}); stale(r) {
				return false
			}
		}
	}
	return true
}

// TestPoolBreakpointVSCode: four pool workers hit one plain breakpoint,
// three rounds, driven as VS Code does (threads, stackTrace, scopes,
// Locals named then indexed after each stop, then continue), with stops
// suspending all threads and with them suspending the event thread only.
// Every hit is reported and the program runs to its end: no worker is left
// suspended. (Locals here call record toString methods: invocations in a
// thread while others are stopped too.) Run it 20 times in a row.
func TestPoolBreakpointVSCode(t *testing.T) {
	file := source(t, "Orders.java")
	for _, all := range []bool{true, false} {
		name := map[bool]string{true: "suspendAll", false: "eventThread"}[all]
		t.Run(name, func(t *testing.T) {
			c := startSession(t, Config{})
			c.initialize()
			c.launch(launchArgs(t, "Orders", "args", "3", "suspendAllThreads", all))
			c.setBreakpoints(file, bp(t, "Orders.java", "hit"))
			c.configurationDone()
			v := &vscode{c: c}
			stops := 0
			for s := v.nextStop(); s != nil; s = v.nextStop() {
				if s.ev.Body.Reason != "breakpoint" {
					t.Fatalf("stop %+v", s.ev.Body)
				}
				stops++
				if !v.refresh(s) {
					continue // released by a continue of all threads already
				}
				if s.epoch < v.epoch {
					continue
				}
				r := v.call("continue", map[string]any{"threadId": s.ev.Body.ThreadId})
				if e, ok := r.(*godap.ErrorResponse); ok && s.epoch == v.epoch {
					t.Fatalf("continue: %s", mustJSON(e))
				}
			}
			t.Logf("%d stops; slowest Locals %v", stops, v.slowest)
			if stops != 12 {
				t.Errorf("%d stops, want 12 (4 workers × 3 rounds)", stops)
			}
			if !strings.Contains(c.out.String(), "ORDERS-DONE") {
				t.Errorf("the program did not finish: %q", c.out.String())
			}
		})
	}
}

// TestConditionCallsExactHits: a condition that calls methods and a lambda
// and holds 8 times over four threads (total is even in rounds 1 and 3 of
// 4, for each worker) stops exactly 8 times, each at the breakpoint's line
// in the thread it names, driven as VS Code does.
func TestConditionCallsExactHits(t *testing.T) {
	file := source(t, "Orders.java")
	for _, all := range []bool{true, false} {
		name := map[bool]string{true: "suspendAll", false: "eventThread"}[all]
		t.Run(name, func(t *testing.T) {
			c := startSession(t, Config{})
			c.initialize()
			c.launch(launchArgs(t, "Orders", "args", "4", "suspendAllThreads", all))
			c.setBreakpoints(file, bp(t, "Orders.java", "hit", "condition", "order.items().stream().anyMatch(i -> i == 7) && order.total() % 2 == 0"))
			c.configurationDone()
			v := &vscode{c: c}
			stops := 0
			hitLine := line(t, "Orders.java", "hit")
			for s := v.nextStop(); s != nil; s = v.nextStop() {
				stops++
				th := s.ev.Body.ThreadId
				if s.epoch == v.epoch {
					r := v.call("stackTrace", map[string]any{"threadId": th})
					if e, ok := r.(*godap.ErrorResponse); ok {
						t.Fatalf("stackTrace: %s", mustJSON(e))
					}
					frameAt(t, r.(*godap.StackTraceResponse).Body.StackFrames[0], "Orders.work", hitLine)
				}
				if !v.refresh(s) || s.epoch < v.epoch {
					continue
				}
				v.call("continue", map[string]any{"threadId": th})
			}
			if stops != 8 {
				t.Errorf("%d stops, want 8; output %q", stops, c.out.String())
			}
			if strings.Contains(c.out.String(), "did not finish") {
				t.Errorf("a condition was cut off: %q", c.out.String())
			}
			if !strings.Contains(c.out.String(), "ORDERS-DONE") {
				t.Errorf("the program did not finish: %q", c.out.String())
			}
		})
	}
}

// TestRequestsDuringSlowEvaluate: while an evaluation runs a method for 8 s
// in the stopped thread, threads, stackTrace of another thread and scopes
// are answered at once (before the evaluation), and the evaluation's
// answer comes after them.
func TestRequestsDuringSlowEvaluate(t *testing.T) {
	file := source(t, "Harm.java")
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Harm"))
	c.setBreakpoints(file, bp(t, "Harm.java", "harm"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	frames := c.stackTrace(th)
	v := &vscode{c: c}
	evalSeq := c.send("evaluate", map[string]any{"expression": "Harm.sleepy(8000)", "frameId": frames[0].Id, "context": "repl"})
	var order []string
	got := map[int]godap.ResponseMessage{}
	seqs := map[int]string{
		c.send("threads", nil):                                    "threads",
		c.send("stackTrace", map[string]any{"threadId": th}):      "stackTrace",
		c.send("scopes", map[string]any{"frameId": frames[0].Id}): "scopes",
	}
	seqs[evalSeq] = "evaluate"
	for len(got) < len(seqs) {
		m := c.next()
		r, ok := m.(godap.ResponseMessage)
		if !ok {
			v.note(m)
			continue
		}
		seq := r.GetResponse().RequestSeq
		if _, mine := seqs[seq]; !mine {
			continue
		}
		if e, isErr := m.(*godap.ErrorResponse); isErr {
			// The evaluating thread runs the method, and its stack is
			// answered from the stop meanwhile: nothing fails.
			t.Fatalf("%s: %s", seqs[seq], mustJSON(e))
		}
		if st, ok := m.(*godap.StackTraceResponse); ok {
			frameAt(t, st.Body.StackFrames[0], "Harm.main", line(t, "Harm.java", "harm"))
		}
		got[seq] = r
		order = append(order, seqs[seq])
	}
	if order[len(order)-1] != "evaluate" {
		t.Errorf("answers in the order %v: a request waited for the slow evaluation", order)
	}
	if e := got[evalSeq].(*godap.EvaluateResponse); e.Body.Result != "8000" {
		t.Errorf("evaluate = %q", e.Body.Result)
	}
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	c.expectEnd(0)
}

// TestCancelThenContinue: an evaluation running a method is cancelled, and
// the thread continued at once: the cancel is answered, the continue too,
// and when the method returns the thread runs on (it is not left
// suspended): the program ends.
func TestCancelThenContinue(t *testing.T) {
	file := source(t, "Harm.java")
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Harm"))
	c.setBreakpoints(file, bp(t, "Harm.java", "harm"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	frames := c.stackTrace(th)
	evalSeq := c.send("evaluate", map[string]any{"expression": "Harm.loudly(3000)", "frameId": frames[0].Id, "context": "repl"})
	awaitRunning(t, c, "SLEEPING", 0, evalSeq)
	c.send("cancel", map[string]any{"requestId": evalSeq})
	cancelled := false
	for !cancelled {
		switch m := c.next().(type) {
		case *godap.ErrorResponse:
			if m.RequestSeq == evalSeq {
				cancelled = true
			}
		case *godap.EvaluateResponse:
			t.Fatalf("the evaluation answered after a cancel: %s", mustJSON(m))
		}
	}
	v := &vscode{c: c}
	if r := v.call("continue", map[string]any{"threadId": th}); r.GetResponse().Success != true {
		t.Fatalf("continue: %s", mustJSON(r))
	}
	for !v.ended {
		v.note(c.next())
	}
	if len(v.stops) > 0 {
		t.Errorf("stops after the continue: %+v", v.stops[0].ev.Body)
	}
	if !strings.Contains(c.out.String(), "HARM-DONE 4 1 2 true") {
		t.Errorf("the program did not run on: %q", c.out.String())
	}
}

// TestNoCrashManyWorkingDirs launches a program through the adapter in
// working directories whose names are 1 to 24 characters long, and attaches
// to running VMs in 8 more: the heap
// layouts under which a DDM packet (command set 0xC7) crashed HotSpot
// 17.0.21's agent in 16 of 24. The adapter sends no vendor packet to a VM
// that is not Android's, so every run ends normally.
func TestNoCrashManyWorkingDirs(t *testing.T) {
	root := t.TempDir()
	for n := 1; n <= 24; n++ {
		dir := filepath.Join(root, strings.Repeat("d", n))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		c := startSession(t, Config{})
		c.initialize()
		c.launch(launchArgs(t, "Harm", "cwd", dir))
		c.configurationDone()
		c.expectEnd(0)
		if !strings.Contains(c.out.String(), "HARM-DONE") {
			t.Errorf("cwd %s: output %q", dir, c.out.String())
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "hs_err_pid*.log")); len(m) > 0 {
			t.Errorf("cwd %s: the JVM crashed: %v", dir, m)
		}
		c.conn.Close()
	}
	// Attach to running VMs (server=y, suspend=n) in more of them: a stop,
	// then the VM is left running free.
	for n := 1; n <= 8; n++ {
		dir := filepath.Join(root, "attach-"+strings.Repeat("a", n))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{fixtures(t)}, MainClass: "Loop", ReadyLine: "READY", Dir: dir})
		c := startSession(t, Config{})
		c.initialize()
		c.attach(map[string]any{"hostName": "127.0.0.1", "port": vm.Port, "sourcePaths": []string{source(t, "")}})
		c.setBreakpointsRunning(source(t, "Loop.java"), bp(t, "Loop.java", "tick"))
		stop := c.configurationDoneAndStop("breakpoint", nil)
		c.stackTrace(stop.Body.ThreadId)
		c.send("disconnect", nil)
		until[*godap.DisconnectResponse](c, "disconnect", nil)
		checkRunningFree(t, vm)
		if m, _ := filepath.Glob(filepath.Join(dir, "hs_err_pid*.log")); len(m) > 0 {
			t.Errorf("cwd %s: the JVM crashed: %v", dir, m)
		}
		c.conn.Close()
	}
}

// TestEvaluationNeverReturns: an evaluation of a method that never returns
// (a loop of its own) is cut off at the request's deadline and the method
// is stopped (made to return at once), so the thread keeps its stack:
// stepping on it goes on to the next line. A cancelled one is stopped the
// same way. (A method inside other calls is never cut: see
// TestCancelThenContinue, whose method sleeps.)
func TestEvaluationNeverReturns(t *testing.T) {
	file := source(t, "Harm.java")
	c := startSession(t, Config{RequestTimeout: 3 * time.Second})
	c.initialize()
	c.launch(launchArgs(t, "Harm"))
	c.setBreakpoints(file, bp(t, "Harm.java", "harm"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	frames := c.stackTrace(th)
	frameAt(t, frames[0], "Harm.main", line(t, "Harm.java", "harm"))
	for _, expr := range []string{"Harm.spin()", "Harm.spin() + 1"} {
		c.send("evaluate", map[string]any{"expression": expr, "frameId": frames[0].Id, "context": "repl"})
		e := expect[*godap.ErrorResponse](c)
		if !strings.Contains(e.Body.Error.Format, "was stopped") {
			t.Errorf("%s: %s", expr, mustJSON(e))
		}
		frames = c.stackTrace(th)
		frameAt(t, frames[0], "Harm.main", line(t, "Harm.java", "harm"))
	}
	// Cancelled while it runs: stopped too, and the thread is usable.
	spins := strings.Count(c.out.String(), "SPINNING")
	seq := c.send("evaluate", map[string]any{"expression": "Harm.spin()", "frameId": frames[0].Id, "context": "repl"})
	awaitRunning(t, c, "SPINNING", spins, seq)
	c.send("cancel", map[string]any{"requestId": seq})
	for {
		m := c.next()
		if r, ok := m.(godap.ResponseMessage); ok && r.GetResponse().RequestSeq == seq {
			if r.GetResponse().Success {
				t.Fatalf("a cancelled endless evaluation answered: %s", mustJSON(m))
			}
			if e := m.(*godap.ErrorResponse); !strings.Contains(e.Body.Error.Format, "was stopped") {
				t.Fatalf("a cancelled endless evaluation was not stopped: %s", mustJSON(m))
			}
			break
		}
	}
	if v := c.evaluate(c.stackTrace(th)[0].Id, "list.size() + 40"); v.Result != "43" {
		t.Errorf("evaluate after the stopped ones: %q", v.Result)
	}
	c.send("next", map[string]any{"threadId": th})
	expect[*godap.NextResponse](c)
	if s := until[*godap.StoppedEvent](c, "the step's stop", nil); s.Body.Reason != "step" || s.Body.ThreadId != th {
		t.Fatalf("after next: %+v", s.Body)
	}
	frameAt(t, c.stackTrace(th)[0], "Harm.main", line(t, "Harm.java", "harm-next"))
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	c.expectEnd(0)
}

// TestSlowToStringBesideFastValues: Locals of a frame where one object's
// toString sleeps 10 s between objects with fast ones. Locals answers at
// once: the values a method is still running for are shown pending
// (presentationHint lazy, by their fields), the rest with their text; the
// client is told to ask again when the pending ones are done, and then gets
// the fast values' text and the slow one's "did not return" (its budget,
// spent once); an evaluation right after works (one that needs the thread
// waits for it), and the next Locals does not run the slow toString again.
func TestSlowToStringBesideFastValues(t *testing.T) {
	file := source(t, "Harm.java")
	c := startSession(t, Config{})
	c.send("initialize", map[string]any{"adapterID": "ddmbridge", "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path", "supportsVariablePaging": true, "supportsInvalidatedEvent": true})
	expect[*godap.InitializeResponse](c)
	c.launch(launchArgs(t, "Harm", "invokeTimeout", 1000))
	c.setBreakpoints(file, bp(t, "Harm.java", "harm"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	v := &vscode{c: c}
	locals := func() (map[string]godap.Variable, int, time.Duration) {
		frames := v.call("stackTrace", map[string]any{"threadId": th}).(*godap.StackTraceResponse).Body.StackFrames
		scopes := v.call("scopes", map[string]any{"frameId": frames[0].Id}).(*godap.ScopesResponse).Body.Scopes
		start := time.Now()
		r := v.call("variables", map[string]any{"variablesReference": scopes[0].VariablesReference})
		return byName(r.(*godap.VariablesResponse).Body.Variables), frames[0].Id, time.Since(start)
	}
	vars, frame, took := locals()
	t.Logf("Locals with a slow toString (budget 1s): %v", took)
	pending := func(x godap.Variable) bool {
		return strings.Contains(x.Value, "pending") && x.PresentationHint != nil && x.PresentationHint.Lazy
	}
	for n, want := range map[string]string{"first": "fast-1", "second": "fast-2"} {
		if vars[n].Value != want && !pending(vars[n]) {
			t.Errorf("%s = %q, want %q or shown as pending", n, vars[n].Value, want)
		}
	}
	if x := vars["slow"]; !pending(x) {
		t.Errorf("slow = %+v, want it shown as pending", x)
	}
	if !strings.Contains(vars["list"].Value, "3") {
		t.Errorf("list = %q, want its size at once", vars["list"].Value)
	}
	// Field reads, and a method (which waits for the thread to be free).
	eval := func(e string) string {
		r := v.call("evaluate", map[string]any{"expression": e, "frameId": frame, "context": "repl"})
		if er, ok := r.(*godap.ErrorResponse); ok {
			t.Fatalf("evaluate %s: %s", e, mustJSON(er))
		}
		return r.(*godap.EvaluateResponse).Body.Result
	}
	if x := eval("first.n + second.n"); x != "3" {
		t.Errorf("first.n + second.n = %q", x)
	}
	if x := eval("second.toString()"); x != `"fast-2"` {
		t.Errorf("second.toString() = %q", x)
	}
	// Told to ask again (when the pending values are done, and again when
	// the slow method returns and the values it kept from running can
	// run), the client gets every fast value with its text, and the slow
	// toString is not run again: each refresh is fast.
	for seen := 0; ; {
		for v.invalidated == seen {
			v.note(c.next())
		}
		seen = v.invalidated
		vars, _, took = locals()
		t.Logf("Locals again: %v", took)
		if vars["first"].Value == "fast-1" && vars["second"].Value == "fast-2" {
			break
		}
	}
	if vars["first"].Value != "fast-1" || vars["second"].Value != "fast-2" || !strings.Contains(vars["slow"].Value, "did not return") || !strings.Contains(vars["list"].Value, "3") {
		t.Errorf("Locals again: first %q second %q slow %q list %q", vars["first"].Value, vars["second"].Value, vars["slow"].Value, vars["list"].Value)
	}
	v.call("continue", map[string]any{"threadId": th})
	for !v.ended {
		v.note(c.next())
	}
	if !strings.Contains(c.out.String(), "HARM-DONE") {
		t.Errorf("output %q", c.out.String())
	}
}

// TestAdapterSendsNoVendorPackets attaches the adapter to a real HotSpot VM
// through a relay that counts the commands outside JDWP's standard ranges
// (DDM's 0xC7 among them) and passes none on: there are none, a stop and
// its refresh work, and DDM requests say the VM does not speak DDM.
func TestAdapterSendsNoVendorPackets(t *testing.T) {
	vm := startLoop(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var vendor atomic.Int32
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", vm.Addr)
			if err != nil {
				nc.Close()
				continue
			}
			t.Cleanup(func() { nc.Close(); up.Close() })
			var wmu sync.Mutex
			go func() {
				buf := make([]byte, 32<<10)
				for {
					n, err := up.Read(buf)
					if n > 0 {
						wmu.Lock()
						_, werr := nc.Write(buf[:n])
						wmu.Unlock()
						if werr != nil {
							return
						}
					}
					if err != nil {
						nc.Close()
						return
					}
				}
			}()
			go func() {
				defer up.Close()
				hs := make([]byte, len(jdwp.HandshakeString))
				if _, err := io.ReadFull(nc, hs); err != nil {
					return
				}
				up.Write(hs)
				r := bufio.NewReader(nc)
				for {
					p, err := jdwp.ReadPacket(r, 0)
					if err != nil {
						return
					}
					if !p.IsReply() && !(jdwp.Cmd{Set: p.CmdSet, Cmd: p.Cmd}).Standard() {
						vendor.Add(1)
						wmu.Lock()
						jdwp.WritePacket(nc, &jdwp.Packet{ID: p.ID, Flags: jdwp.FlagReply, Error: jdwp.ErrNotImplemented})
						wmu.Unlock()
						continue
					}
					jdwp.WritePacket(up, p)
				}
			}()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	c := startSession(t, Config{})
	c.initialize()
	c.attach(map[string]any{"hostName": "127.0.0.1", "port": port, "sourcePaths": []string{source(t, "")}})
	c.setBreakpointsRunning(source(t, "Loop.java"), bp(t, "Loop.java", "tick"))
	stop := c.configurationDoneAndStop("breakpoint", nil)
	c.locals(stop.Body.ThreadId)
	c.send("ddmUpdates", map[string]any{"threads": true})
	c.expectError(ErrNoDDM, "does not speak DDM")
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect", nil)
	checkRunningFree(t, vm)
	if n := vendor.Load(); n != 0 {
		t.Errorf("the adapter sent %d vendor packets to a HotSpot VM", n)
	}
}

// awaitRunning waits until the method of evaluation evalSeq runs: the
// program printed marker once more than before (the thread's stack is
// answered from the stop meanwhile, so it no longer tells). The evaluation
// must not have answered before.
func awaitRunning(t *testing.T, c *client, marker string, before, evalSeq int) {
	t.Helper()
	for strings.Count(c.out.String(), marker) <= before {
		seq := c.send("threads", nil)
		for {
			m := c.next()
			r, ok := m.(godap.ResponseMessage)
			if !ok {
				continue
			}
			if r.GetResponse().RequestSeq == evalSeq {
				t.Fatalf("answered before it was seen running: %s", mustJSON(m))
			}
			if r.GetResponse().RequestSeq == seq {
				break
			}
		}
	}
}
