package clientview

import (
	"encoding/json"
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// TestClientViewConverts checks the conversions of the client's view in
// both directions: 0-based lines and columns, file: URIs, no variable
// types, and that the adapter's own values (shared, cached) stay as they
// were.
func TestClientViewConverts(t *testing.T) {
	raw := []byte(`{"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"x","linesStartAt1":false,"columnsStartAt1":false,"pathFormat":"uri"}}`)
	var req godap.InitializeRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		t.Fatal(err)
	}
	v, err := New(req.Arguments, raw)
	if err != nil {
		t.Fatal(err)
	}
	sb := &godap.SetBreakpointsRequest{Arguments: godap.SetBreakpointsArguments{
		Source:      godap.Source{Path: "file:///src/a%20b/App.java"},
		Breakpoints: []godap.SourceBreakpoint{{Line: 9, Column: 4}, {Line: 0}},
	}}
	if err := v.In(sb); err != nil {
		t.Fatal(err)
	}
	if a := sb.Arguments; a.Source.Path != "/src/a b/App.java" || a.Breakpoints[0].Line != 10 || a.Breakpoints[0].Column != 5 || a.Breakpoints[1].Line != 1 || a.Breakpoints[1].Column != 0 {
		t.Errorf("setBreakpoints arguments in the adapter's view: %+v", a)
	}
	if err := v.In(&godap.SourceRequest{Arguments: godap.SourceArguments{Source: &godap.Source{Path: "http://host/App.java"}}}); err == nil || !strings.Contains(err.Error(), "only file: URIs") {
		t.Errorf("an http URI: %v", err)
	}

	shared := &godap.Source{Name: "App.java", Path: "/src/a b/App.java"}
	frames := godap.StackTraceResponseBody{StackFrames: []godap.StackFrame{{Name: "App.main", Source: shared, Line: 10, Column: 1}, {Name: "native", Line: 0}}}
	out := v.Out(&resp[godap.StackTraceResponseBody]{Body: frames})
	got := out.(*resp[any]).Body.(godap.StackTraceResponseBody).StackFrames
	if got[0].Line != 9 || got[0].Column != 0 || got[0].Source.Path != "file:///src/a%20b/App.java" || got[1].Line != 0 {
		t.Errorf("stack frames in the client's view: %+v", got)
	}
	if shared.Path != "/src/a b/App.java" || frames.StackFrames[0].Line != 10 {
		t.Errorf("the adapter's own values changed: %+v %+v", shared, frames.StackFrames[0])
	}

	vars := v.Out(&resp[godap.VariablesResponseBody]{Body: godap.VariablesResponseBody{Variables: []godap.Variable{{Name: "i", Value: "1", Type: "int"}}}})
	if b, _ := json.Marshal(vars); strings.Contains(string(b), `"int"`) {
		t.Errorf("a variable has a type for a client without supportsVariableType: %s", b)
	}
	compl := v.Out(&resp[godap.CompletionsResponseBody]{Body: godap.CompletionsResponseBody{Targets: []godap.CompletionItem{{Label: "foo", Start: 3}}}})
	if s := compl.(*resp[any]).Body.(godap.CompletionsResponseBody).Targets[0].Start; s != 2 {
		t.Errorf("completion start = %d, want 2", s)
	}
	if why := v.Drop(&godap.ProgressStartEvent{Event: godap.Event{ProtocolMessage: godap.ProtocolMessage{Type: "event"}, Event: "progressStart"}}); why != "supportsProgressReporting" {
		t.Errorf("progressStart to a client that did not ask: %q", why)
	}

	// The default view is the adapter's own: nothing changes.
	var id View
	if id.Out(out) != out {
		t.Error("the zero view changed a message")
	}
	if _, err := New(godap.InitializeRequestArguments{PathFormat: "url"}, nil); err == nil {
		t.Error(`pathFormat "url" accepted`)
	}
}

// resp is a response of the adapter's own generic kind, as the view sees it.
type resp[B any] struct {
	godap.Response
	Body B `json:"body,omitempty"`
}

func (r *resp[B]) GetBody() any { return r.Body }

func (r *resp[B]) WithBody(b any) godap.Message { return &resp[any]{Response: r.Response, Body: b} }
