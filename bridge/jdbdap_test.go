package bridge

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/ddmbridge/ddmbridge/bridge/demoapp"
	"github.com/ddmbridge/ddmbridge/dap"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// jdb and a DAP session (the dap package on the monitor's in-process
// debugger connection, as `serve --dap` wires it) on one HotSpot VM at once,
// each with its own breakpoint and steps: jdb's session reads as on a VM of
// its own, the DAP session stops only where it asked and its JDWP stream
// carries no event of jdb's requests. jdb leaving (Dispose) ends only jdb's
// session; the DAP session leaving ends only its own (a second jdb goes on
// stopping); and when the VM exits, both debuggers attached then get
// VM_DEATH.
func TestJDBAndDAPOneVM(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	shared := startDemo(t, lo, false)
	alone := startDemo(t, 0, false)
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, shared.Addr, passDeadline)
	port := fmt.Sprintf("127.0.0.1:%d", info.DebugPort)

	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "DemoApp.java"), []byte(demoapp.Source), 0o644); err != nil {
		t.Fatal(err)
	}
	label := demoapp.Line("work-label")

	// Phase 1: the DAP session stops at work-label and steps a line, again
	// and again, while jdb runs its script on the same VM.
	a := startDAP(t, m, info.ID, src)
	a.setBreakpoints(label)
	a.configurationDone()
	jdbDone := make(chan struct{})
	dapDone := make(chan struct{})
	var rounds int
	go func() {
		defer close(dapDone)
		for ; rounds < 2 || !closed(jdbDone); rounds++ {
			if !a.hitAndStep(label) {
				return
			}
		}
	}()
	var viaShared, viaAlone []string
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); viaAlone = jdbScript(t, startJDB(t, alone.Addr)) }()
	go func() { defer wg.Done(); viaShared = jdbScript(t, startJDB(t, port)) }()
	wg.Wait()
	close(jdbDone)
	<-dapDone
	if t.Failed() {
		return
	}
	if strings.Join(viaShared, "\n") != strings.Join(viaAlone, "\n") {
		t.Errorf("jdb sharing the VM with a DAP session differs from jdb alone:\n--- shared ---\n%s\n--- alone ---\n%s",
			strings.Join(viaShared, "\n"), strings.Join(viaAlone, "\n"))
	}
	// jdb quit (Dispose): the DAP session goes on stopping and stepping.
	if !a.hitAndStep(label) {
		return
	}
	t.Logf("DAP session: %d rounds of breakpoint and step beside jdb", rounds+1)

	// Phase 2: a second jdb joins; the DAP session disconnects (Dispose,
	// leaving the VM running); jdb's session goes on: a breakpoint, a hit.
	j := startJDB(t, port)
	j.expect(`Initializing jdb \.\.\.\s*`+jdbPrompt, time.Minute)
	a.disconnect()
	a.tap.checkOwn(t, "first DAP session")
	first := demoapp.Line("work-first")
	j.send(fmt.Sprintf("stop at DemoApp:%d", first))
	j.expect(fmt.Sprintf(`Breakpoint hit: .*line=%d bci=\d+`, first), time.Minute)
	j.expect(`\w+\[\d+\] $`, time.Minute)
	j.send(fmt.Sprintf("clear DemoApp:%d", first))
	j.expect(`Removed: breakpoint DemoApp:\d+\s*`, time.Minute)
	j.send("cont")
	j.expect(`> `, time.Minute)

	// Phase 3: a new DAP session beside that jdb; the VM exits (SIGTERM: it
	// shuts down and its agent sends VM_DEATH); both hear of it.
	b := startDAP(t, m, info.ID, src)
	b.configurationDone()
	waitFor(t, passDeadline, "two debuggers on the VM", func() bool { return m.vmByAddr(shared.Addr).mux.Attached() == 2 })
	if err := syscall.Kill(shared.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	b.awaitEvent("terminated", nil) // an attach session reports no exit code
	b.tap.checkOwn(t, "second DAP session")
	if n := b.tap.deaths(); n != 1 {
		t.Errorf("the DAP session's connection carried %d VM_DEATH events, want 1", n)
	}
	j.expect(`The application exited`, time.Minute)
}

func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// vmByAddr returns the monitored VM at addr, or nil.
func (m *Monitor) vmByAddr(addr string) *VM {
	v, err := m.VM(addr)
	if err != nil {
		return nil
	}
	return v
}

// jdwpTap watches one debugger's JDWP stream: the event requests it made
// and the events it was sent.
type jdwpTap struct {
	mu      sync.Mutex
	sets    map[uint32]jdwp.Cmd // commands awaiting a reply that matters
	sizes   *jdwp.IDSizes
	mine    map[int32]bool // request ids the VM answered its EventRequest.Sets with
	foreign []string       // events of requests it did not make
	death   int
	bad     []string
}

// tapConn is a debugger connection whose two streams feed a jdwpTap.
type tapConn struct {
	net.Conn
	tap     *jdwpTap
	in, out packetStream
}

func newTap(nc net.Conn) *tapConn {
	tap := &jdwpTap{sets: map[uint32]jdwp.Cmd{}, mine: map[int32]bool{}}
	c := &tapConn{Conn: nc, tap: tap}
	c.in = packetStream{skip: len(jdwp.HandshakeString), on: tap.fromVM}
	c.out = packetStream{skip: len(jdwp.HandshakeString), on: tap.toVM}
	return c
}

func (c *tapConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.in.feed(b[:n])
	return n, err
}

func (c *tapConn) Write(b []byte) (int, error) {
	c.out.feed(b) // before the VM can answer
	return c.Conn.Write(b)
}

// packetStream cuts a byte stream into JDWP packets.
type packetStream struct {
	buf  []byte
	skip int
	on   func(*jdwp.Packet)
}

func (s *packetStream) feed(b []byte) {
	s.buf = append(s.buf, b...)
	k := min(s.skip, len(s.buf))
	s.buf, s.skip = s.buf[k:], s.skip-k
	for len(s.buf) >= jdwp.HeaderSize {
		n := int(binary.BigEndian.Uint32(s.buf))
		if len(s.buf) < n {
			return
		}
		p, _, err := jdwp.ParsePacketHeader(s.buf, 1<<30)
		if err != nil {
			return
		}
		p.Data = append([]byte(nil), s.buf[jdwp.HeaderSize:n]...)
		s.buf = s.buf[n:]
		s.on(&p)
	}
}

func (t *jdwpTap) toVM(p *jdwp.Packet) {
	cmd := jdwp.Cmd{Set: p.CmdSet, Cmd: p.Cmd}
	if cmd == jdwp.CmdEventRequestSet || cmd == jdwp.CmdVMIDSizes {
		t.mu.Lock()
		t.sets[p.ID] = cmd
		t.mu.Unlock()
	}
}

func (t *jdwpTap) fromVM(p *jdwp.Packet) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p.IsReply() {
		cmd, ok := t.sets[p.ID]
		delete(t.sets, p.ID)
		switch {
		case !ok || p.Error != jdwp.ErrNone:
		case cmd == jdwp.CmdVMIDSizes:
			if sz, err := jdwp.DecodeIDSizes(p.Data); err == nil {
				t.sizes = &sz
			}
		default:
			t.mine[int32(binary.BigEndian.Uint32(p.Data))] = true
		}
		return
	}
	if p.CmdSet != jdwp.CmdEventComposite.Set || p.Cmd != jdwp.CmdEventComposite.Cmd {
		return
	}
	es, err := jdwp.DecodeEventSet(p.Data, t.sizes)
	if err != nil {
		t.bad = append(t.bad, err.Error())
		return
	}
	for _, e := range es.Events {
		switch {
		case e.Kind == jdwp.EventVMDeath:
			t.death++
		case e.RequestID != 0 && !t.mine[e.RequestID]:
			t.foreign = append(t.foreign, fmt.Sprintf("%v of request %d", e.Kind, e.RequestID))
		}
	}
}

// checkOwn fails the test if the debugger was sent events of requests it
// did not make.
func (t *jdwpTap) checkOwn(tb testing.TB, who string) {
	tb.Helper()
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.foreign) > 0 || len(t.bad) > 0 {
		tb.Errorf("%s was sent events of requests it did not make: %v (undecodable: %v); its requests: %v", who, t.foreign, t.bad, t.mine)
	}
}

func (t *jdwpTap) deaths() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.death
}

// tapBackend is the monitor as a DAP backend whose debugger connections are
// tapped.
type tapBackend struct {
	*Monitor
	taps chan *jdwpTap
}

func (b tapBackend) OpenDebugger(ctx context.Context, target string) (net.Conn, error) {
	nc, err := b.Monitor.OpenDebugger(ctx, target)
	if err != nil {
		return nil, err
	}
	c := newTap(nc)
	b.taps <- c.tap
	return c, nil
}

// dapSession is a DAP client on an in-process dap server whose backend is
// the monitor.
type dapSession struct {
	t     testing.TB
	nc    net.Conn
	seq   int
	msgs  chan godap.Message
	stash []godap.Message
	tap   *jdwpTap
	src   string // the source directory
}

// startDAP serves a DAP session and attaches it to the monitored VM id.
func startDAP(t testing.TB, m *Monitor, id, src string) *dapSession {
	t.Helper()
	backend := tapBackend{Monitor: m, taps: make(chan *jdwpTap, 1)}
	srv := dap.NewServer(dap.Config{Backend: backend, Logger: testLogger(t).With().Str("component", "dap").Logger()})
	cn, sn := net.Pipe()
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.ServeConn(context.Background(), sn)
	}()
	d := &dapSession{t: t, nc: cn, src: src, msgs: make(chan godap.Message, 4096)}
	go func() {
		defer close(d.msgs)
		r := bufio.NewReader(cn)
		codec := godap.NewCodec()
		for {
			raw, err := godap.ReadBaseMessage(r)
			if err != nil {
				return
			}
			if msg, err := codec.DecodeMessage(raw); err == nil { // custom events are not ours to read
				d.msgs <- msg
			}
		}
	}()
	t.Cleanup(func() {
		cn.Close()
		select {
		case <-served:
		case <-time.After(time.Minute):
			t.Error("the DAP session did not end a minute after its stream closed")
		}
	})
	d.request("initialize", godap.InitializeRequestArguments{AdapterID: "ddmbridge", LinesStartAt1: true, ColumnsStartAt1: true, PathFormat: "path"})
	d.request("attach", map[string]any{"vm": id, "sourcePaths": []string{src}})
	select {
	case d.tap = <-backend.taps:
	default:
		t.Fatal("the DAP session attached without a debugger connection from the monitor")
	}
	d.awaitEvent("initialized", nil)
	return d
}

// request sends a request and waits for its successful response; events
// read meanwhile are kept for awaitEvent.
func (d *dapSession) request(command string, args any) json.RawMessage {
	d.t.Helper()
	d.seq++
	seq := d.seq
	msg := map[string]any{"seq": seq, "type": "request", "command": command}
	if args != nil {
		msg["arguments"] = args
	}
	b, err := json.Marshal(msg)
	if err != nil {
		d.t.Fatal(err)
	}
	if err := godap.WriteBaseMessage(d.nc, b); err != nil {
		d.t.Fatalf("sending %s: %v", command, err)
	}
	for {
		m := d.read("the " + command + " response")
		r, ok := m.(godap.ResponseMessage)
		if !ok || r.GetResponse().RequestSeq != seq {
			d.stash = append(d.stash, m)
			continue
		}
		if !r.GetResponse().Success {
			d.t.Fatalf("%s failed: %s", command, mustMarshal(m))
		}
		body, _ := json.Marshal(m)
		var withBody struct {
			Body json.RawMessage `json:"body"`
		}
		json.Unmarshal(body, &withBody)
		return withBody.Body
	}
}

func (d *dapSession) read(what string) godap.Message {
	d.t.Helper()
	select {
	case m, ok := <-d.msgs:
		if !ok {
			d.t.Fatalf("the DAP session ended waiting for %s", what)
		}
		return m
	case <-time.After(passDeadline):
		d.t.Fatalf("no %s within %v", what, passDeadline)
	}
	return nil
}

// awaitEvent returns the first event of that name (and matching ok, if
// given), kept or to come; events before it of that name are dropped.
func (d *dapSession) awaitEvent(name string, ok func(godap.Message) bool) godap.Message {
	d.t.Helper()
	match := func(m godap.Message) bool {
		e, isEvent := m.(godap.EventMessage)
		return isEvent && e.GetEvent().Event == name && (ok == nil || ok(m))
	}
	for i, m := range d.stash {
		if match(m) {
			d.stash = append(d.stash[:i:i], d.stash[i+1:]...)
			return m
		}
	}
	for {
		m := d.read("a " + name + " event")
		if match(m) {
			return m
		}
		d.stash = append(d.stash, m)
	}
}

func (d *dapSession) setBreakpoints(lines ...int) {
	var bps []godap.SourceBreakpoint
	for _, l := range lines {
		bps = append(bps, godap.SourceBreakpoint{Line: l})
	}
	body := d.request("setBreakpoints", godap.SetBreakpointsArguments{Source: godap.Source{Name: "DemoApp.java", Path: filepath.Join(d.src, "DemoApp.java")}, Breakpoints: bps})
	var got godap.SetBreakpointsResponseBody
	json.Unmarshal(body, &got)
	if len(got.Breakpoints) != len(lines) {
		d.t.Fatalf("setBreakpoints answered %s", body)
	}
}

func (d *dapSession) configurationDone() { d.request("configurationDone", nil) }

// stoppedAt waits for a stop of that reason and returns its thread and
// top line.
func (d *dapSession) stoppedAt(reason string) (int, int) {
	d.t.Helper()
	m := d.awaitEvent("stopped", nil).(*godap.StoppedEvent)
	if m.Body.Reason != reason {
		d.t.Fatalf("the DAP session stopped for %q, want %q: %s", m.Body.Reason, reason, mustMarshal(m))
	}
	body := d.request("stackTrace", godap.StackTraceArguments{ThreadId: m.Body.ThreadId, Levels: 1})
	var st godap.StackTraceResponseBody
	json.Unmarshal(body, &st)
	if len(st.StackFrames) == 0 {
		d.t.Fatalf("no frames on the stopped thread: %s", body)
	}
	return m.Body.ThreadId, st.StackFrames[0].Line
}

// hitAndStep waits for the breakpoint at line, steps over it, checks the
// step ended on the next line and continues. false when the test failed.
func (d *dapSession) hitAndStep(line int) bool {
	d.t.Helper()
	th, at := d.stoppedAt("breakpoint")
	if at != line {
		d.t.Errorf("the DAP session stopped at line %d, want %d", at, line)
		return false
	}
	d.request("next", godap.NextArguments{ThreadId: th})
	if _, at := d.stoppedAt("step"); at != line+1 {
		d.t.Errorf("the DAP session's step ended at line %d, want %d", at, line+1)
		return false
	}
	d.request("continue", godap.ContinueArguments{ThreadId: th})
	return true
}

// disconnect ends the session, leaving the VM running.
func (d *dapSession) disconnect() {
	d.request("disconnect", godap.DisconnectArguments{TerminateDebuggee: false})
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
