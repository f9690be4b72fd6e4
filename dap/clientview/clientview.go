package clientview

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	godap "github.com/google/go-dap"
)

// View is what the client's initialize arguments say about how it
// reads and writes coordinates, paths and values. The zero value is the
// adapter's own convention (a client that did not initialize).
type View struct {
	line0, col0 bool // lines or columns count from 0
	uri         bool // paths travel as file: URIs
	noType      bool // variables carry no type
	// events lists the opt-in events the client did not ask for.
	dropEvents map[string]string
}

// newClientView reads the initialize arguments; raw is the request's JSON,
// for the booleans whose absence means true.
func New(args godap.InitializeRequestArguments, raw []byte) (View, error) {
	var present struct {
		Arguments struct {
			LinesStartAt1   *bool `json:"linesStartAt1"`
			ColumnsStartAt1 *bool `json:"columnsStartAt1"`
		} `json:"arguments"`
	}
	json.Unmarshal(raw, &present)
	v := View{dropEvents: map[string]string{}}
	v.line0 = present.Arguments.LinesStartAt1 != nil && !*present.Arguments.LinesStartAt1
	v.col0 = present.Arguments.ColumnsStartAt1 != nil && !*present.Arguments.ColumnsStartAt1
	switch args.PathFormat {
	case "", "path":
	case "uri":
		v.uri = true
	default:
		return View{}, fmt.Errorf(`pathFormat %q is not supported; use "path" or "uri"`, args.PathFormat)
	}
	v.noType = !args.SupportsVariableType
	if !args.SupportsProgressReporting {
		for _, e := range []string{"progressStart", "progressUpdate", "progressEnd"} {
			v.dropEvents[e] = "supportsProgressReporting"
		}
	}
	if !args.SupportsInvalidatedEvent {
		v.dropEvents["invalidated"] = "supportsInvalidatedEvent"
	}
	if !args.SupportsMemoryEvent {
		v.dropEvents["memory"] = "supportsMemoryEvent"
	}
	return v, nil
}

// identity reports whether the view changes nothing but events.
func (v *View) identity() bool { return !v.line0 && !v.col0 && !v.uri && !v.noType }

func (v *View) lineIn(l int) int {
	if v.line0 {
		return l + 1
	}
	return l
}

// lineOut converts an adapter line; 0 (no line) stays 0.
func (v *View) lineOut(l int) int {
	if v.line0 && l > 0 {
		return l - 1
	}
	return l
}

// colIn converts a client column; 0 is an absent column (go-dap cannot tell
// the two apart), which for a 0-based client is the first column anyway.
func (v *View) colIn(c int) int {
	if v.col0 && c > 0 {
		return c + 1
	}
	return c
}

func (v *View) colOut(c int) int {
	if v.col0 && c > 0 {
		return c - 1
	}
	return c
}

// pathIn turns a client's path (a file: URI when pathFormat is "uri") into
// a file system path. A plain path is taken as it is either way.
func (v *View) pathIn(p string) (string, error) {
	if !v.uri || p == "" || !strings.Contains(p, ":") || strings.HasPrefix(p, "/") {
		return p, nil
	}
	u, err := url.Parse(p)
	if err != nil {
		return "", fmt.Errorf("path %q is not a URI: %v", p, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("path %q: only file: URIs name sources this adapter can read", p)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("path %q names a file on host %q; only local files can be read", p, u.Host)
	}
	return u.Path, nil
}

// pathOut turns an adapter path into the client's format.
func (v *View) pathOut(p string) string {
	if !v.uri || p == "" {
		return p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

func (v *View) sourceIn(s *godap.Source) error {
	if s == nil {
		return nil
	}
	p, err := v.pathIn(s.Path)
	s.Path = p
	return err
}

// sourceOut returns a converted copy of s (sources are shared and cached).
func (v *View) sourceOut(s *godap.Source) *godap.Source {
	if s == nil {
		return nil
	}
	c := *s
	c.Path = v.pathOut(c.Path)
	if len(s.Sources) > 0 {
		c.Sources = make([]godap.Source, len(s.Sources))
		for i := range s.Sources {
			c.Sources[i] = *v.sourceOut(&s.Sources[i])
		}
	}
	return &c
}

// in converts a decoded request's arguments in place.
func (v *View) In(m godap.RequestMessage) error {
	if v.identity() {
		return nil
	}
	switch r := m.(type) {
	case *godap.SetBreakpointsRequest:
		a := &r.Arguments
		for i := range a.Breakpoints {
			a.Breakpoints[i].Line = v.lineIn(a.Breakpoints[i].Line)
			a.Breakpoints[i].Column = v.colIn(a.Breakpoints[i].Column)
		}
		for i := range a.Lines {
			a.Lines[i] = v.lineIn(a.Lines[i])
		}
		return v.sourceIn(&a.Source)
	case *godap.BreakpointLocationsRequest:
		a := r.Arguments
		if a == nil {
			return nil
		}
		a.Line, a.Column = v.lineIn(a.Line), v.colIn(a.Column)
		if a.EndLine > 0 { // absent: the line alone
			a.EndLine = v.lineIn(a.EndLine)
		}
		a.EndColumn = v.colIn(a.EndColumn)
		return v.sourceIn(&a.Source)
	case *godap.SourceRequest:
		return v.sourceIn(r.Arguments.Source)
	case *godap.CompletionsRequest:
		r.Arguments.Column = v.colIn(r.Arguments.Column)
		if r.Arguments.Line > 0 {
			r.Arguments.Line = v.lineIn(r.Arguments.Line)
		}
	case *godap.GotoTargetsRequest:
		r.Arguments.Line, r.Arguments.Column = v.lineIn(r.Arguments.Line), v.colIn(r.Arguments.Column)
		return v.sourceIn(&r.Arguments.Source)
	case PathsIn:
		return r.PathsIn(v.pathIn)
	}
	return nil
}

// drop reports why an event must not reach the client ("" to send it).
func (v *View) Drop(m godap.Message) string {
	if e, ok := m.(godap.EventMessage); ok {
		return v.dropEvents[e.GetEvent().Event]
	}
	return ""
}

// Bodied is a response or event of the adapter's own types whose body the
// view can read and replace (go-dap's own messages are converted by type).
type Bodied interface {
	godap.Message
	GetBody() any
	WithBody(any) godap.Message
}

// PathsIn is a request of the adapter's own types that carries paths: it
// converts them in place with in.
type PathsIn interface {
	PathsIn(in func(string) (string, error)) error
}

// PathsOut is a body of the adapter's own types that carries paths: it
// returns a copy with each converted by out.
type PathsOut interface {
	PathsOut(out func(string) string) any
}

// out returns m as the client reads it: m itself when nothing changes, else
// a converted copy (bodies share slices and sources with the adapter's state,
// which must stay in its own convention).
func (v *View) Out(m godap.Message) godap.Message {
	if v.identity() {
		return m
	}
	switch m := m.(type) {
	case Bodied:
		if b, ok := v.body(m.GetBody()); ok {
			return m.WithBody(b)
		}
	case *godap.BreakpointEvent:
		c := *m
		c.Body.Breakpoint = v.breakpoint(m.Body.Breakpoint)
		return &c
	case *godap.OutputEvent:
		c := *m
		c.Body.Source = v.sourceOut(m.Body.Source)
		c.Body.Line, c.Body.Column = v.lineOut(m.Body.Line), v.colOut(m.Body.Column)
		return &c
	case *godap.LoadedSourceEvent:
		c := *m
		c.Body.Source = *v.sourceOut(&m.Body.Source)
		return &c
	}
	return m
}

// body converts a response body of a type that carries coordinates, paths
// or types; ok is false for any other.
func (v *View) body(b any) (any, bool) {
	switch b := b.(type) {
	case godap.SetBreakpointsResponseBody:
		return godap.SetBreakpointsResponseBody{Breakpoints: v.breakpoints(b.Breakpoints)}, true
	case godap.SetFunctionBreakpointsResponseBody:
		return godap.SetFunctionBreakpointsResponseBody{Breakpoints: v.breakpoints(b.Breakpoints)}, true
	case godap.SetExceptionBreakpointsResponseBody:
		return godap.SetExceptionBreakpointsResponseBody{Breakpoints: v.breakpoints(b.Breakpoints)}, true
	case godap.SetDataBreakpointsResponseBody:
		return godap.SetDataBreakpointsResponseBody{Breakpoints: v.breakpoints(b.Breakpoints)}, true
	case godap.BreakpointLocationsResponseBody:
		out := make([]godap.BreakpointLocation, len(b.Breakpoints))
		for i, l := range b.Breakpoints {
			out[i] = godap.BreakpointLocation{Line: v.lineOut(l.Line), Column: v.colOut(l.Column), EndLine: v.lineOut(l.EndLine), EndColumn: v.colOut(l.EndColumn)}
		}
		return godap.BreakpointLocationsResponseBody{Breakpoints: out}, true
	case godap.StackTraceResponseBody:
		out := make([]godap.StackFrame, len(b.StackFrames))
		for i, f := range b.StackFrames {
			f.Source = v.sourceOut(f.Source)
			f.Line, f.Column = v.lineOut(f.Line), v.colOut(f.Column)
			f.EndLine, f.EndColumn = v.lineOut(f.EndLine), v.colOut(f.EndColumn)
			out[i] = f
		}
		b.StackFrames = out
		return b, true
	case godap.ScopesResponseBody:
		out := make([]godap.Scope, len(b.Scopes))
		for i, s := range b.Scopes {
			s.Source = v.sourceOut(s.Source)
			s.Line, s.Column = v.lineOut(s.Line), v.colOut(s.Column)
			s.EndLine, s.EndColumn = v.lineOut(s.EndLine), v.colOut(s.EndColumn)
			out[i] = s
		}
		return godap.ScopesResponseBody{Scopes: out}, true
	case godap.StepInTargetsResponseBody:
		out := make([]godap.StepInTarget, len(b.Targets))
		for i, t := range b.Targets {
			t.Line, t.Column = v.lineOut(t.Line), v.colOut(t.Column)
			t.EndLine, t.EndColumn = v.lineOut(t.EndLine), v.colOut(t.EndColumn)
			out[i] = t
		}
		return godap.StepInTargetsResponseBody{Targets: out}, true
	case godap.GotoTargetsResponseBody:
		out := make([]godap.GotoTarget, len(b.Targets))
		for i, t := range b.Targets {
			t.Line, t.Column = v.lineOut(t.Line), v.colOut(t.Column)
			t.EndLine, t.EndColumn = v.lineOut(t.EndLine), v.colOut(t.EndColumn)
			out[i] = t
		}
		return godap.GotoTargetsResponseBody{Targets: out}, true
	case godap.CompletionsResponseBody:
		out := make([]godap.CompletionItem, len(b.Targets))
		for i, t := range b.Targets {
			t.Start = v.colOut(t.Start)
			out[i] = t
		}
		return godap.CompletionsResponseBody{Targets: out}, true
	case godap.LoadedSourcesResponseBody:
		out := make([]godap.Source, len(b.Sources))
		for i := range b.Sources {
			out[i] = *v.sourceOut(&b.Sources[i])
		}
		return godap.LoadedSourcesResponseBody{Sources: out}, true
	case godap.VariablesResponseBody:
		if !v.noType {
			return nil, false
		}
		out := make([]godap.Variable, len(b.Variables))
		for i, x := range b.Variables {
			x.Type = ""
			out[i] = x
		}
		return godap.VariablesResponseBody{Variables: out}, true
	case godap.EvaluateResponseBody:
		if v.noType {
			b.Type = ""
		}
		return b, true
	case godap.SetVariableResponseBody:
		if v.noType {
			b.Type = ""
		}
		return b, true
	case godap.SetExpressionResponseBody:
		if v.noType {
			b.Type = ""
		}
		return b, true
	case PathsOut:
		return b.PathsOut(v.pathOut), true
	}
	return nil, false
}

func (v *View) breakpoint(b godap.Breakpoint) godap.Breakpoint {
	b.Source = v.sourceOut(b.Source)
	b.Line, b.Column = v.lineOut(b.Line), v.colOut(b.Column)
	b.EndLine, b.EndColumn = v.lineOut(b.EndLine), v.colOut(b.EndColumn)
	return b
}

func (v *View) breakpoints(bs []godap.Breakpoint) []godap.Breakpoint {
	if bs == nil {
		return nil
	}
	out := make([]godap.Breakpoint, len(bs))
	for i, b := range bs {
		out[i] = v.breakpoint(b)
	}
	return out
}
