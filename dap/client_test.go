package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	godap "github.com/google/go-dap"
	"github.com/rs/zerolog"
)

// client is a small synchronous DAP client for tests, after Delve's: it
// sends a request and reads the messages that follow one at a time, so tests
// can assert their exact order.
type client struct {
	t     testing.TB
	conn  net.Conn
	r     *bufio.Reader
	seq   int
	codec *godap.Codec
	pid   int // the launched VM's (launch)
	// skip lists events next passes over (recording output in out).
	skip map[string]bool
	// skipped counts the skipped events by name.
	skipped map[string]int
	out     strings.Builder
	done    chan struct{}
}

// startSession serves one session on a loopback socket and connects a client.
func startSession(t testing.TB, cfg Config) *client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("DAP_TEST_LOG") != "" {
		cfg.Logger = zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr}).Level(zerolog.TraceLevel)
		cfg.TraceMessages = true
		if os.Getenv("DAP_TEST_LOG") == "jdwp" {
			cfg.JDWP.Logger = cfg.Logger
			cfg.JDWP.Trace = jdwp.TraceCmd
		}
	}
	srv := NewServer(cfg)
	done := make(chan struct{})
	go func() {
		defer close(done)
		nc, err := ln.Accept()
		ln.Close()
		if err != nil {
			return
		}
		if err := srv.ServeConn(context.Background(), nc); err != nil {
			t.Logf("ServeConn: %v", err)
		}
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	codec := godap.NewCodec()
	registerCustom(codec)
	codec.RegisterEvent("ddmThreads", func() godap.Message { return &customEvent[DDMThreadsBody]{} })
	codec.RegisterEvent("ddmHeapInfo", func() godap.Message { return &customEvent[DDMHeapInfoBody]{} })
	codec.RegisterEvent("ddmHeapMap", func() godap.Message { return &customEvent[DDMHeapMapBody]{} })
	codec.RegisterEvent("memoryCounts", func() godap.Message { return &customEvent[InstanceCountsBody]{} })
	c := &client{t: t, conn: nc, r: bufio.NewReader(nc), codec: codec, skip: map[string]bool{"output": true, "thread": true}, skipped: map[string]int{}, done: done}
	t.Cleanup(func() {
		nc.Close()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Error("the session did not end a minute after the client closed the stream")
		}
	})
	return c
}

// send sends a request and returns its seq.
func (c *client) send(command string, args any) int {
	c.t.Helper()
	c.seq++
	m := map[string]any{"seq": c.seq, "type": "request", "command": command}
	if args != nil {
		m["arguments"] = args
	}
	b, err := json.Marshal(m)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := godap.WriteBaseMessage(c.conn, b); err != nil {
		c.t.Fatal(err)
	}
	return c.seq
}

// sendRaw sends bytes as one message, for malformed requests.
func (c *client) sendRaw(b string) {
	c.t.Helper()
	if err := godap.WriteBaseMessage(c.conn, []byte(b)); err != nil {
		c.t.Fatal(err)
	}
}

// next reads the next message that is not a skipped event.
func (c *client) next() godap.Message {
	c.t.Helper()
	for {
		c.conn.SetReadDeadline(time.Now().Add(time.Minute))
		raw, err := godap.ReadBaseMessage(c.r)
		if err != nil {
			c.t.Fatalf("reading from the adapter: %v (output so far: %s)", err, c.out.String())
		}
		m, err := c.codec.DecodeMessage(raw)
		if err != nil {
			c.t.Fatalf("decoding %s: %v", raw, err)
		}
		if e, ok := m.(godap.EventMessage); ok && c.skip[e.GetEvent().Event] {
			c.skipped[e.GetEvent().Event]++
			if o, ok := m.(*godap.OutputEvent); ok {
				c.out.WriteString(o.Body.Output)
			}
			continue
		}
		return m
	}
}

// nextRaw reads the next message undecoded (for bodies go-dap's types
// cannot hold, such as explicit false capabilities).
func (c *client) nextRaw() []byte {
	c.t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(time.Minute))
	raw, err := godap.ReadBaseMessage(c.r)
	if err != nil {
		c.t.Fatalf("reading from the adapter: %v", err)
	}
	return raw
}

// expect reads the next message and fails unless it is a T.
func expect[T godap.Message](c *client) T {
	c.t.Helper()
	m := c.next()
	v, ok := m.(T)
	if !ok {
		var want T
		b, _ := json.Marshal(m)
		c.t.Fatalf("got %T %s, want %T", m, b, want)
	}
	return v
}

// until reads messages until one is a T matching ok (other messages are dropped).
func until[T godap.Message](c *client, what string, ok func(T) bool) T {
	c.t.Helper()
	for i := 0; i < 10000; i++ {
		if v, is := c.next().(T); is && (ok == nil || ok(v)) {
			return v
		}
	}
	c.t.Fatalf("no %s", what)
	panic("unreachable")
}

// expectError reads an error response and checks its id and message.
func (c *client) expectError(id int, contains string) *godap.ErrorResponse {
	c.t.Helper()
	e := expect[*godap.ErrorResponse](c)
	if e.Body.Error == nil || e.Body.Error.Id != id || !strings.Contains(e.Body.Error.Format, contains) {
		b, _ := json.Marshal(e)
		c.t.Fatalf("error response %s, want id %d containing %q", b, id, contains)
	}
	return e
}

func (c *client) initialize() {
	c.t.Helper()
	c.send("initialize", map[string]any{"adapterID": "ddmbridge", "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path", "supportsVariablePaging": true, "supportsVariableType": true})
	expect[*godap.InitializeResponse](c)
}

// launch sends launch and checks the exact answer: process, response, initialized.
func (c *client) launch(cfg map[string]any) {
	c.t.Helper()
	c.send("launch", cfg)
	p := expect[*godap.ProcessEvent](c)
	if p.Body.StartMethod != "launch" || p.Body.SystemProcessId == 0 {
		c.t.Errorf("process event %+v", p.Body)
	}
	c.pid = p.Body.SystemProcessId
	expect[*godap.LaunchResponse](c)
	expect[*godap.InitializedEvent](c)
}

func (c *client) setBreakpoints(file string, bps ...map[string]any) []godap.Breakpoint {
	c.t.Helper()
	c.send("setBreakpoints", map[string]any{"source": map[string]any{"path": file}, "breakpoints": bps})
	return expect[*godap.SetBreakpointsResponse](c).Body.Breakpoints
}

func (c *client) configurationDone() {
	c.t.Helper()
	c.send("configurationDone", nil)
	expect[*godap.ConfigurationDoneResponse](c)
}

// setBreakpointsRunning is setBreakpoints on a VM that runs (an attach): a
// breakpoint may be hit at once, but its stop is reported after the
// response (which may be preceded by breakpoint events).
func (c *client) setBreakpointsRunning(file string, bps ...map[string]any) []godap.Breakpoint {
	c.t.Helper()
	if bps == nil {
		bps = []map[string]any{}
	}
	c.send("setBreakpoints", map[string]any{"source": map[string]any{"path": file}, "breakpoints": bps})
	for {
		switch m := c.next().(type) {
		case *godap.SetBreakpointsResponse:
			return m.Body.Breakpoints
		case *godap.BreakpointEvent:
		default:
			// A stop, even at a breakpoint just set in a running VM, comes
			// after the response that gives the breakpoint its id.
			c.t.Fatalf("got %T %s, want setBreakpoints' response", m, mustJSON(m))
		}
	}
}

// configurationDoneAndStop is configurationDone for a VM that runs (an
// attach): the stop (unless seen already) may come before the response
// arrives. It returns the stop, whichever came first.
func (c *client) configurationDoneAndStop(reason string, seen *godap.StoppedEvent) *godap.StoppedEvent {
	c.t.Helper()
	c.send("configurationDone", nil)
	stop := seen
	for done := false; !done || stop == nil; {
		switch m := c.next().(type) {
		case *godap.ConfigurationDoneResponse:
			done = true
		case *godap.StoppedEvent:
			stop = m
		case *godap.BreakpointEvent:
		default:
			c.t.Fatalf("got %T %s, want configurationDone's response and a stop", m, mustJSON(m))
		}
	}
	if stop.Body.Reason != reason || !stop.Body.AllThreadsStopped {
		c.t.Fatalf("stopped %+v, want reason %q with all threads stopped", stop.Body, reason)
	}
	return stop
}

func (c *client) stackTrace(thread int) []godap.StackFrame {
	c.t.Helper()
	c.send("stackTrace", map[string]any{"threadId": thread})
	return expect[*godap.StackTraceResponse](c).Body.StackFrames
}

func (c *client) variables(ref int, extra ...any) []godap.Variable {
	c.t.Helper()
	args := map[string]any{"variablesReference": ref}
	for i := 0; i+1 < len(extra); i += 2 {
		args[extra[i].(string)] = extra[i+1]
	}
	c.send("variables", args)
	return expect[*godap.VariablesResponse](c).Body.Variables
}

// locals returns the top frame's Locals as name → variable.
func (c *client) locals(thread int) (map[string]godap.Variable, []godap.StackFrame) {
	c.t.Helper()
	frames := c.stackTrace(thread)
	c.send("scopes", map[string]any{"frameId": frames[0].Id})
	scopes := expect[*godap.ScopesResponse](c).Body.Scopes
	return byName(c.variables(scopes[0].VariablesReference)), frames
}

func byName(vs []godap.Variable) map[string]godap.Variable {
	m := map[string]godap.Variable{}
	for _, v := range vs {
		m[v.Name] = v
	}
	return m
}

func (c *client) evaluate(frame int, expression string) godap.EvaluateResponseBody {
	c.t.Helper()
	c.send("evaluate", map[string]any{"expression": expression, "frameId": frame, "context": "watch"})
	return expect[*godap.EvaluateResponse](c).Body
}

// expectStop reads a stopped event and checks its reason.
func (c *client) expectStop(reason string) *godap.StoppedEvent {
	c.t.Helper()
	e := expect[*godap.StoppedEvent](c)
	if e.Body.Reason != reason || !e.Body.AllThreadsStopped {
		c.t.Fatalf("stopped %+v, want reason %q with all threads stopped", e.Body, reason)
	}
	return e
}

// expectEnd reads exited (with code) and terminated, ignoring thread events.
func (c *client) expectEnd(code int) {
	c.t.Helper()
	c.skip["thread"] = true
	if e := expect[*godap.ExitedEvent](c); e.Body.ExitCode != code {
		c.t.Errorf("exit code %d, want %d; output:\n%s", e.Body.ExitCode, code, c.out.String())
	}
	expect[*godap.TerminatedEvent](c)
}

// ---- fixtures ----

var (
	fixtureOnce sync.Once
	fixtureDir  string
	fixtureErr  error
)

// fixtures compiles testdata/java (javac -g, cached) and returns the class directory.
func fixtures(t testing.TB) string {
	t.Helper()
	jvmtest.RequireJava(t)
	fixtureOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		fixtureDir, fixtureErr = jvmtest.CompileCached(ctx, "testdata/java")
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixtureDir
}

// source returns the absolute path of a fixture source.
func source(t testing.TB, name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", "java", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// line returns the line of a fixture marked "// @marker".
func line(t testing.TB, file, marker string) int {
	t.Helper()
	b, err := os.ReadFile(source(t, file))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasSuffix(strings.TrimSpace(l), "// @"+marker) {
			return i + 1
		}
	}
	t.Fatalf("no line marked @%s in %s", marker, file)
	return 0
}

func bp(t testing.TB, file, marker string, kv ...string) map[string]any {
	m := map[string]any{"line": line(t, file, marker)}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func launchArgs(t testing.TB, mainClass string, extra ...any) map[string]any {
	m := map[string]any{"mainClass": mainClass, "classPaths": []string{fixtures(t)}, "sourcePaths": []string{source(t, "")}}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return m
}

func frameAt(t testing.TB, f godap.StackFrame, name string, line int) {
	t.Helper()
	if f.Name != name && frameName(f) != name || f.Line != line {
		t.Fatalf("frame %s:%d, want %s:%d", f.Name, f.Line, name, line)
	}
}

// frameName is a frame's name without the parameter types shown by default:
// "Basic.main(String[])" → "Basic.main".
func frameName(f godap.StackFrame) string {
	if i := strings.IndexByte(f.Name, '('); i > 0 && strings.HasSuffix(f.Name, ")") {
		return f.Name[:i]
	}
	return f.Name
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var _ = fmt.Sprint

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
