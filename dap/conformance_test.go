package dap

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	godap "github.com/google/go-dap"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The conformance test: sessions of a client that speaks only the standard
// protocol, in each of the conventions a client may choose in initialize,
// recorded on the wire and checked against the official DAP JSON schema
// (testdata/dapschema) and the protocol's rules.

// wireLog records both directions of a DAP stream, in the order the bytes
// passed.
type wireLog struct {
	net.Conn
	mu     sync.Mutex
	chunks []wireChunk
}

type wireChunk struct {
	out  bool // client → adapter
	data []byte
}

func (w *wireLog) Read(p []byte) (int, error) {
	n, err := w.Conn.Read(p)
	if n > 0 {
		w.mu.Lock()
		w.chunks = append(w.chunks, wireChunk{false, append([]byte(nil), p[:n]...)})
		w.mu.Unlock()
	}
	return n, err
}

func (w *wireLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.chunks = append(w.chunks, wireChunk{true, append([]byte(nil), p...)})
	w.mu.Unlock()
	return w.Conn.Write(p)
}

// wireMsg is one message of a recorded session.
type wireMsg struct {
	fromClient bool
	raw        []byte
	hdr        struct {
		Seq        int    `json:"seq"`
		Type       string `json:"type"`
		Command    string `json:"command"`
		Event      string `json:"event"`
		RequestSeq int    `json:"request_seq"`
		Success    bool   `json:"success"`
	}
}

// messages splits the log into messages, in the order their last byte
// passed.
func (w *wireLog) messages(t *testing.T) []wireMsg {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []wireMsg
	var bufs [2]bytes.Buffer
	for _, c := range w.chunks {
		b := &bufs[0]
		if c.out {
			b = &bufs[1]
		}
		b.Write(c.data)
		for {
			r := bufio.NewReader(bytes.NewReader(b.Bytes()))
			raw, err := godap.ReadBaseMessage(r)
			if err != nil {
				break // incomplete: wait for more bytes
			}
			b.Next(b.Len() - r.Buffered())
			m := wireMsg{fromClient: c.out, raw: raw}
			if err := json.Unmarshal(raw, &m.hdr); err != nil {
				t.Fatalf("undecodable message %s: %v", raw, err)
			}
			out = append(out, m)
		}
	}
	return out
}

// dapSchema compiles the official schema's definitions on demand.
type dapSchema struct {
	c     *jsonschema.Compiler
	known map[string]bool // definitions in the schema
	cache map[string]*jsonschema.Schema
}

func loadDAPSchema(t *testing.T) *dapSchema {
	t.Helper()
	const file = "testdata/dapschema/debugAdapterProtocol.json"
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	if err := c.AddResource("dap.json", doc); err != nil {
		t.Fatal(err)
	}
	s := &dapSchema{c: c, known: map[string]bool{}, cache: map[string]*jsonschema.Schema{}}
	for name := range doc.(map[string]any)["definitions"].(map[string]any) {
		s.known[name] = true
	}
	return s
}

// definition is the schema definition a message must satisfy: the one of
// its command or event ("StackTraceResponse", "StoppedEvent"), ErrorResponse
// for a failure, and the generic one for custom requests and events.
func (s *dapSchema) definition(m wireMsg) string {
	upper := func(x string) string {
		if x == "" {
			return x
		}
		return strings.ToUpper(x[:1]) + x[1:]
	}
	var name, generic string
	switch m.hdr.Type {
	case "request":
		name, generic = upper(m.hdr.Command)+"Request", "Request"
	case "response":
		name, generic = upper(m.hdr.Command)+"Response", "Response"
		if !m.hdr.Success {
			name = "ErrorResponse"
		}
	case "event":
		name, generic = upper(m.hdr.Event)+"Event", "Event"
	default:
		return "ProtocolMessage"
	}
	if s.known[name] {
		return name
	}
	return generic
}

func (s *dapSchema) validate(m wireMsg) error {
	def := s.definition(m)
	sch, ok := s.cache[def]
	if !ok {
		var err error
		if sch, err = s.c.Compile("dap.json#/definitions/" + def); err != nil {
			return fmt.Errorf("compile %s: %v", def, err)
		}
		s.cache[def] = sch
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(m.raw))
	if err != nil {
		return err
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("%s: %v", def, err)
	}
	return nil
}

// resuming lists the requests after whose response the VM runs.
var resuming = map[string]bool{"continue": true, "next": true, "stepIn": true, "stepOut": true, "restartFrame": true, "stepBack": true, "reverseContinue": true, "goto": true}

// optIn names the client capability each opt-in event needs.
var optIn = map[string]string{"progressStart": "supportsProgressReporting", "progressUpdate": "supportsProgressReporting",
	"progressEnd": "supportsProgressReporting", "invalidated": "supportsInvalidatedEvent", "memory": "supportsMemoryEvent"}

// checkSession validates every message of a recorded session against the
// schema and checks the protocol's rules: seq numbers, one response per
// request with the right request_seq and command, no stopped event between
// a resuming request and its response, no continued event after a
// resuming request's response, opt-in events only when the client set
// their capability, custom events only after a custom request. It returns
// the violations.
func checkSession(schema *dapSchema, msgs []wireMsg, caps map[string]bool) []string {
	requests := map[int]string{} // client seq → command
	answered := map[int]int{}
	pendingResume := map[int]string{}
	lastSeq := [2]int{}
	custom := false
	var violations []string
	fail := func(format string, args ...any) {
		violations = append(violations, fmt.Sprintf(format, args...))
	}
	for i, m := range msgs {
		if err := schema.validate(m); err != nil {
			fail("message %d %s violates the DAP schema: %v", i, m.raw, err)
		}
		dir := 0
		if m.fromClient {
			dir = 1
		}
		if m.hdr.Seq != lastSeq[dir]+1 {
			fail("message %d %s: seq %d after %d", i, m.raw, m.hdr.Seq, lastSeq[dir])
		}
		lastSeq[dir] = m.hdr.Seq
		if m.fromClient {
			if m.hdr.Type == "request" {
				requests[m.hdr.Seq] = m.hdr.Command
				if resuming[m.hdr.Command] {
					pendingResume[m.hdr.Seq] = m.hdr.Command
				}
				if schema.definition(m) == "Request" {
					custom = true
				}
			}
			continue
		}
		switch m.hdr.Type {
		case "response":
			cmd, ok := requests[m.hdr.RequestSeq]
			switch {
			case !ok:
				fail("response %s answers no request of the client", m.raw)
			case cmd != m.hdr.Command:
				fail("response %s: command %q, but request %d was %q", m.raw, m.hdr.Command, m.hdr.RequestSeq, cmd)
			}
			answered[m.hdr.RequestSeq]++
			if answered[m.hdr.RequestSeq] > 1 {
				fail("request %d (%s) answered %d times", m.hdr.RequestSeq, cmd, answered[m.hdr.RequestSeq])
			}
			delete(pendingResume, m.hdr.RequestSeq)
			if resuming[cmd] && m.hdr.Success && i+1 < len(msgs) {
				if n := msgs[i+1]; !n.fromClient && n.hdr.Event == "continued" {
					fail("a continued event %s right after the response to %s (the request implies it)", n.raw, cmd)
				}
			}
		case "event":
			if m.hdr.Event == "stopped" {
				for seq, cmd := range pendingResume {
					fail("stopped event %s before the response to %s (request %d)", m.raw, cmd, seq)
				}
			}
			if c, ok := optIn[m.hdr.Event]; ok && !caps[c] {
				fail("event %s sent to a client without %s", m.raw, c)
			}
			if schema.definition(m) == "Event" && !custom {
				fail("custom event %s sent to a client that sent no custom request", m.raw)
			}
		case "request":
			if c := m.hdr.Command; c == "runInTerminal" && !caps["supportsRunInTerminalRequest"] || c == "startDebugging" && !caps["supportsStartDebuggingRequest"] {
				fail("reverse request %s to a client that did not announce it", m.raw)
			}
		}
	}
	for seq, cmd := range requests {
		if answered[seq] != 1 {
			fail("request %d (%s) answered %d times, want once", seq, cmd, answered[seq])
		}
	}
	return violations
}

// convention is how a client counts lines and columns and names files.
type convention struct {
	name         string
	line0, col0  bool
	uri          bool
	variableType bool
}

func (cv convention) initArgs() map[string]any {
	a := map[string]any{"adapterID": "ddmbridge", "clientID": "conformance", "linesStartAt1": !cv.line0, "columnsStartAt1": !cv.col0,
		"pathFormat": "path", "supportsVariableType": cv.variableType}
	if cv.uri {
		a["pathFormat"] = "uri"
	}
	return a
}

func (cv convention) lineOut(l int) int { // adapter (1-based) → client
	if cv.line0 {
		return l - 1
	}
	return l
}

func (cv convention) lineIn(l int) int { // client → 1-based
	if cv.line0 {
		return l + 1
	}
	return l
}

func (cv convention) colIn(c int) int {
	if cv.col0 {
		return c + 1
	}
	return c
}

func (cv convention) path(t *testing.T, p string) string {
	if cv.uri {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return p
}

// pathIn reads a path the adapter sent, checking its format.
func (cv convention) pathIn(t *testing.T, p string) string {
	t.Helper()
	if !cv.uri {
		if strings.HasPrefix(p, "file:") {
			t.Errorf("a file URI %q to a client whose pathFormat is path", p)
		}
		return p
	}
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "file" {
		t.Errorf("path %q to a client whose pathFormat is uri", p)
		return p
	}
	return u.Path
}

// stopSeen is a stop as the adapter's own convention reads it.
type stopSeen struct {
	Reason string
	Frame  string
	Line   int
	Path   string
}

// conformanceSession runs the standard-only scenario on Basic in one
// convention and returns its stops (converted back to 1-based lines and
// paths) and the recorded messages.
func conformanceSession(t *testing.T, cv convention) ([]stopSeen, []wireMsg) {
	c := startSession(t, Config{})
	rec := &wireLog{Conn: c.conn}
	c.conn, c.r = rec, bufio.NewReader(rec)
	c.send("initialize", cv.initArgs())
	expect[*godap.InitializeResponse](c)
	c.launch(launchArgs(t, "Basic"))
	file := source(t, "Basic.java")
	callAdd := line(t, "Basic.java", "call-add")

	twice := line(t, "Basic.java", "twice-first")
	c.send("setBreakpoints", map[string]any{"source": map[string]any{"path": cv.path(t, file)}, "breakpoints": []map[string]any{
		{"line": cv.lineOut(callAdd)}, {"line": cv.lineOut(twice), "logMessage": "twice {x}"}}})
	bps := expect[*godap.SetBreakpointsResponse](c).Body.Breakpoints
	if len(bps) != 2 || !bps[0].Verified || cv.lineIn(bps[0].Line) != callAdd || cv.lineIn(bps[1].Line) != twice {
		t.Fatalf("%s: breakpoints %s, want them verified at lines %d and %d", cv.name, mustJSON(bps), cv.lineOut(callAdd), cv.lineOut(twice))
	}
	if bps[0].Source != nil {
		if p := cv.pathIn(t, bps[0].Source.Path); p != file {
			t.Errorf("%s: breakpoint source %q, want %q", cv.name, p, file)
		}
	}
	c.send("breakpointLocations", map[string]any{"source": map[string]any{"path": cv.path(t, file)}, "line": cv.lineOut(callAdd)})
	locs := expect[*godap.BreakpointLocationsResponse](c).Body.Breakpoints
	text := strings.Split(readFile(t, file), "\n")[callAdd-1]
	indent := len(text) - len(strings.TrimLeft(text, " "))
	if len(locs) == 0 || cv.lineIn(locs[0].Line) != callAdd || cv.colIn(locs[0].Column) != indent+1 {
		t.Errorf("%s: breakpoint locations %s, want line %d at the statement's column (%d 1-based)", cv.name, mustJSON(locs), cv.lineOut(callAdd), indent+1)
	}
	c.configurationDone()

	var stops []stopSeen
	stop := func(reason string) (int, godap.StackFrame) {
		t.Helper()
		e := c.expectStop(reason)
		th := e.Body.ThreadId
		c.send("threads", nil)
		if ts := expect[*godap.ThreadsResponse](c).Body.Threads; len(ts) == 0 {
			t.Fatalf("%s: no threads while stopped", cv.name)
		}
		c.send("stackTrace", map[string]any{"threadId": th, "startFrame": 0, "levels": 20})
		frames := expect[*godap.StackTraceResponse](c).Body.StackFrames
		top := frames[0]
		s := stopSeen{Reason: reason, Frame: frameName(top), Line: cv.lineIn(top.Line)}
		if top.Source != nil {
			s.Path = cv.pathIn(t, top.Source.Path)
		}
		stops = append(stops, s)
		return th, top
	}
	th, top := stop("breakpoint")

	c.send("stepInTargets", map[string]any{"frameId": top.Id})
	targets := expect[*godap.StepInTargetsResponse](c).Body.Targets
	if len(targets) == 0 || !strings.Contains(targets[0].Label, "add") || cv.lineIn(targets[0].Line) != callAdd {
		t.Errorf("%s: step-in targets %s, want add at line %d", cv.name, mustJSON(targets), cv.lineOut(callAdd))
	}
	c.send("loadedSources", nil)
	found := false
	for _, src := range expect[*godap.LoadedSourcesResponse](c).Body.Sources {
		if src.Name == "Basic.java" {
			found = cv.pathIn(t, src.Path) == file
		}
	}
	if !found {
		t.Errorf("%s: loadedSources lacks Basic.java at %s", cv.name, cv.path(t, file))
	}

	c.send("scopes", map[string]any{"frameId": top.Id})
	scopes := expect[*godap.ScopesResponse](c).Body.Scopes
	vars := byName(c.variables(scopes[0].VariablesReference))
	if x := vars["x"]; x.Value != "1" || (x.Type != "") != cv.variableType {
		t.Errorf("%s: x = %s, type %q; want 1 with a type only if the client set supportsVariableType", cv.name, x.Value, x.Type)
	}
	c.send("evaluate", map[string]any{"expression": "x + 1", "frameId": top.Id, "context": "watch"})
	if r := expect[*godap.EvaluateResponse](c).Body; r.Result != "2" || (r.Type != "") != cv.variableType {
		t.Errorf("%s: x + 1 = %s (type %q)", cv.name, r.Result, r.Type)
	}
	for _, ctx := range []string{"repl", "watch", "hover"} {
		c.send("evaluate", map[string]any{"expression": "noSuchName", "frameId": top.Id, "context": ctx})
		if e := c.expectError(ErrUnableToEvaluate, "noSuchName"); e.Body.Error.ShowUser {
			t.Errorf("%s: an evaluation error in the %s context asks the client to pop it up: %s", cv.name, ctx, mustJSON(e.Body))
		}
	}
	// Completions of "b.ad" with the cursor at its end: "add", starting
	// at the a.
	cursor := 5
	if cv.col0 {
		cursor = 4
	}
	c.send("completions", map[string]any{"frameId": top.Id, "text": "b.ad", "column": cursor})
	var add *godap.CompletionItem
	for _, it := range expect[*godap.CompletionsResponse](c).Body.Targets {
		if strings.HasPrefix(it.Label, "add(") {
			add = &it
		}
	}
	if want := cursor - 2; add == nil || add.Start != want && !(want == 0 && add.Start == 0) {
		t.Errorf("%s: completion of b.ad: %s, want add starting at column %d", cv.name, mustJSON(add), want)
	}

	for _, step := range []string{"stepIn", "next", "stepOut"} {
		c.send(step, map[string]any{"threadId": th})
		if r := expect[godap.ResponseMessage](c).GetResponse(); !r.Success || r.Command != step {
			t.Fatalf("%s: %s answered %s", cv.name, step, mustJSON(r))
		}
		stop("step")
	}
	c.send("continue", map[string]any{"threadId": th})
	expect[*godap.ContinueResponse](c)
	c.expectEnd(0)
	if !strings.Contains(c.out.String(), "done 20 50") {
		t.Errorf("%s: the program's output %q lacks its last line (output events carry it)", cv.name, c.out.String())
	}
	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
	msgs := rec.messages(t)
	// The logpoint's output event says where it is, in the client's terms.
	logged := false
	for _, m := range msgs {
		if m.fromClient || m.hdr.Event != "output" {
			continue
		}
		var o godap.OutputEvent
		json.Unmarshal(m.raw, &o)
		if strings.Contains(o.Body.Output, "twice 10") {
			logged = true
			if cv.lineIn(o.Body.Line) != twice || o.Body.Source == nil || cv.pathIn(t, o.Body.Source.Path) != file {
				t.Errorf("%s: logpoint output %s, want line %d of %s", cv.name, m.raw, cv.lineOut(twice), cv.path(t, file))
			}
		}
	}
	if !logged {
		t.Errorf("%s: no output event of the logpoint", cv.name)
	}
	return stops, msgs
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDAPConformance runs the same standard-only session (launch, a
// breakpoint, breakpointLocations, threads, stacks, scopes, variables,
// evaluate, completions, the three steps, continue to the end) on a real
// JVM in four client conventions: 1-based lines and paths with variable
// types, 0-based lines and columns, file: URIs, and both. Every message
// of every session validates against the official DAP schema and keeps the
// protocol's rules, and the sessions see the same stops.
func TestDAPConformance(t *testing.T) {
	schema := loadDAPSchema(t)
	conventions := []convention{
		{name: "1-based, paths", variableType: true},
		{name: "0-based", line0: true, col0: true},
		{name: "uri", uri: true},
		{name: "0-based, uri", line0: true, col0: true, uri: true},
	}
	var want []stopSeen
	file, _ := filepath.Abs(source(t, "Basic.java"))
	for i, cv := range conventions {
		stops, msgs := conformanceSession(t, cv)
		bad := checkSession(schema, msgs, map[string]bool{})
		t.Logf("%s: %d messages checked against the DAP schema and the protocol's rules, %d violations", cv.name, len(msgs), len(bad))
		for j, v := range bad {
			if j == 20 {
				t.Errorf("%s: and %d more", cv.name, len(bad)-j)
				break
			}
			t.Errorf("%s: %s", cv.name, v)
		}
		if i == 0 {
			want = stops
			exp := []stopSeen{
				{"breakpoint", "Basic.main", line(t, "Basic.java", "call-add"), file},
				{"step", "Basic.add", line(t, "Basic.java", "add-first"), file},
				{"step", "Basic.add", line(t, "Basic.java", "add-first") + 1, file},
				{"step", "Basic.main", line(t, "Basic.java", "call-add"), file},
			}
			if mustJSON(stops) != mustJSON(exp) {
				t.Errorf("%s: stops %s, want %s", cv.name, mustJSON(stops), mustJSON(exp))
			}
			continue
		}
		if mustJSON(stops) != mustJSON(want) {
			t.Errorf("%s: stops %s, want the same as %s: %s", cv.name, mustJSON(stops), conventions[0].name, mustJSON(want))
		}
	}
}

// TestConformanceChecksCatch feeds the checks messages that break the
// rules, so a check that cannot fail does not pass for one that holds.
func TestConformanceChecksCatch(t *testing.T) {
	schema := loadDAPSchema(t)
	msg := func(fromClient bool, raw string) wireMsg {
		m := wireMsg{fromClient: fromClient, raw: []byte(raw)}
		json.Unmarshal(m.raw, &m.hdr)
		return m
	}
	for _, tc := range []struct {
		name string
		msgs []wireMsg
	}{
		{"a stack frame without a line", []wireMsg{
			msg(true, `{"seq":1,"type":"request","command":"stackTrace","arguments":{"threadId":1}}`),
			msg(false, `{"seq":1,"type":"response","request_seq":1,"success":true,"command":"stackTrace","body":{"stackFrames":[{"id":1,"name":"m","column":1}]}}`)}},
		{"a stop before the step's response", []wireMsg{
			msg(true, `{"seq":1,"type":"request","command":"next","arguments":{"threadId":1}}`),
			msg(false, `{"seq":1,"type":"event","event":"stopped","body":{"reason":"step","threadId":1}}`),
			msg(false, `{"seq":2,"type":"response","request_seq":1,"success":true,"command":"next"}`)}},
		{"two responses", []wireMsg{
			msg(true, `{"seq":1,"type":"request","command":"threads"}`),
			msg(false, `{"seq":1,"type":"response","request_seq":1,"success":true,"command":"threads","body":{"threads":[]}}`),
			msg(false, `{"seq":2,"type":"response","request_seq":1,"success":true,"command":"threads","body":{"threads":[]}}`)}},
		{"a progress event unasked", []wireMsg{
			msg(false, `{"seq":1,"type":"event","event":"progressStart","body":{"progressId":"1","title":"x"}}`)}},
		{"a continued event after a step", []wireMsg{
			msg(true, `{"seq":1,"type":"request","command":"next","arguments":{"threadId":1}}`),
			msg(false, `{"seq":1,"type":"response","request_seq":1,"success":true,"command":"next"}`),
			msg(false, `{"seq":2,"type":"event","event":"continued","body":{"threadId":1}}`)}},
	} {
		if len(checkSession(schema, tc.msgs, map[string]bool{})) == 0 {
			t.Errorf("%s: the checks found nothing wrong", tc.name)
		}
	}
}
