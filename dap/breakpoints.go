package dap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/ddmbridge/ddmbridge/dap/expr"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	godap "github.com/google/go-dap"
)

// sourceFile is a source file with breakpoints and the loaded classes
// compiled from it (its top-level class and the classes nested in it).
type sourceFile struct {
	path    string
	class   string // binary name of the top-level class, e.g. "com.example.App"
	classes map[jdwp.ReferenceTypeID]string
	bps     []*breakpoint
}

// owns reports whether a class (binary name) was compiled from the file.
func (f *sourceFile) owns(name string) bool {
	return name == f.class || strings.HasPrefix(name, f.class+"$")
}

// breakpoint is one line breakpoint or logpoint of a setBreakpoints request.
type breakpoint struct {
	id       int
	file     *sourceFile
	line     int // requested line
	column   int // requested column: picks the enclosing method or a lambda on the line
	actual   int // resolved line, once verified
	cond     expr.Node
	hit      *hitCondition
	log      *expr.Template
	bad      string // why the condition, hit condition or message is invalid
	hits     int
	reqs     []int32
	verified bool
	done     map[jdwp.ReferenceTypeID]bool // classes already searched

	// Function and data breakpoints (file is nil).
	fn       *funcSpec
	data     *dataTarget
	src      *godap.Source    // where a function breakpoint resolved
	prepReq  int32            // a function breakpoint's class-prepare request
	reqKinds []jdwp.EventKind // a data breakpoint's request kinds, by reqs index
	reason   string           // the stopped event's reason: "breakpoint" unless set
}

// where names a breakpoint in messages.
func (bp *breakpoint) where() string {
	switch {
	case bp.fn != nil:
		return "function breakpoint " + bp.fn.text
	case bp.data != nil:
		return "data breakpoint on " + bp.data.desc
	}
	return fmt.Sprintf("breakpoint at %s:%d", filepath.Base(bp.file.path), bp.line)
}

func (bp *breakpoint) stopReason() string {
	if bp.reason != "" {
		return bp.reason
	}
	return "breakpoint"
}

func (bp *breakpoint) dap() godap.Breakpoint {
	if bp.file == nil {
		out := godap.Breakpoint{Id: bp.id, Verified: bp.verified, Source: bp.src, Line: bp.actual, Message: bp.bad}
		if !bp.verified && bp.bad == "" && bp.fn != nil {
			out.Message = fmt.Sprintf("no loaded class has %s yet; the breakpoint is set when one loads", bp.fn.text)
		}
		return out
	}
	out := godap.Breakpoint{Id: bp.id, Verified: bp.verified, Line: bp.line, Source: &godap.Source{Name: filepath.Base(bp.file.path), Path: bp.file.path}}
	switch {
	case bp.bad != "":
		out.Message = bp.bad
	case bp.verified:
		out.Line = bp.actual
	case len(bp.file.classes) == 0:
		out.Message = fmt.Sprintf("%s is not loaded yet; the breakpoint is set when it loads", bp.file.class)
	default:
		out.Message = fmt.Sprintf("no code at line %d in the loaded classes of %s", bp.line, filepath.Base(bp.file.path))
	}
	return out
}

// hitCondition is a breakpoint's hitCondition: "N" or "== N" stops on the
// Nth hit only; ">= N", "> N", "<= N", "< N" compare the hit count; "% N"
// stops on every Nth hit.
type hitCondition struct {
	op string
	n  int
}

func parseHitCondition(s string) (*hitCondition, error) {
	s = strings.TrimSpace(s)
	op := "=="
	for _, o := range []string{">=", "<=", "==", ">", "<", "%", "="} {
		if strings.HasPrefix(s, o) {
			op, s = o, strings.TrimSpace(s[len(o):])
			break
		}
	}
	if op == "=" {
		op = "=="
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || op == "%" && n == 0 {
		return nil, fmt.Errorf("hit condition %q: expected a count such as \"5\", \">= 5\" or \"%% 5\"", s)
	}
	return &hitCondition{op, n}, nil
}

func (h *hitCondition) ok(hits int) bool {
	switch h.op {
	case ">=":
		return hits >= h.n
	case ">":
		return hits > h.n
	case "<=":
		return hits <= h.n
	case "<":
		return hits < h.n
	case "%":
		return hits%h.n == 0
	}
	return hits == h.n
}

var (
	javaComments = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	javaPackage  = regexp.MustCompile(`^\s*package\s+([\p{L}_$][\p{L}\p{N}_$]*(?:\s*\.\s*[\p{L}_$][\p{L}\p{N}_$]*)*)\s*;`)
)

// classForSource returns the binary name of a source file's top-level class:
// its package declaration plus the file's base name.
func classForSource(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	b, err := os.ReadFile(path)
	if err != nil {
		return base
	}
	src := javaComments.ReplaceAllString(string(b), " ")
	if m := javaPackage.FindStringSubmatch(src); m != nil {
		return strings.Join(strings.Fields(strings.ReplaceAll(m[1], ".", " ")), ".") + "." + base
	}
	return base
}

func (s *session) setBreakpoints(ctx context.Context, r *godap.SetBreakpointsRequest) (godap.SetBreakpointsResponseBody, error) {
	path := r.Arguments.Source.Path
	if path == "" {
		return godap.SetBreakpointsResponseBody{}, fmt.Errorf("source.path is required (sources without a file are not supported)")
	}
	want := r.Arguments.Breakpoints
	if want == nil {
		for _, l := range r.Arguments.Lines {
			want = append(want, godap.SourceBreakpoint{Line: l})
		}
	}
	bps, err := s.dbg.setBreakpoints(ctx, path, want)
	if err != nil {
		return godap.SetBreakpointsResponseBody{}, asIs(fmt.Errorf("%s: %w", path, err))
	}
	out := make([]godap.Breakpoint, len(bps))
	for i, bp := range bps {
		out[i] = bp
	}
	return godap.SetBreakpointsResponseBody{Breakpoints: out}, nil
}

// setBreakpoints replaces the breakpoints of a source file and installs them
// in the classes of the file that are loaded; the others are installed when
// their class is prepared.
func (d *debuggee) setBreakpoints(ctx context.Context, path string, want []godap.SourceBreakpoint) ([]godap.Breakpoint, error) {
	d.bpMu.Lock()
	defer d.bpMu.Unlock()
	d.mu.Lock()
	f := d.bps.files[path]
	newFile := f == nil
	if newFile {
		f = &sourceFile{path: path, class: classForSource(path), classes: map[jdwp.ReferenceTypeID]string{}}
		d.bps.files[path] = f
	}
	old := f.bps
	f.bps = nil
	for _, bp := range old {
		for _, id := range bp.reqs {
			delete(d.bps.bpByReq, id)
		}
	}
	for _, w := range want {
		bp := &breakpoint{id: d.bps.nextBP, file: f, line: w.Line, column: w.Column, done: map[jdwp.ReferenceTypeID]bool{}}
		d.bps.nextBP++
		bp.parse(w)
		f.bps = append(f.bps, bp)
	}
	d.mu.Unlock()
	for _, bp := range old {
		for _, id := range bp.reqs {
			d.clearRequest(ctx, jdwp.EventBreakpoint, id)
		}
	}
	if newFile {
		// Ask for the file's classes as they load, then look at those loaded
		// already; a class loading in between is seen twice, harmlessly.
		id, err := d.setRequest(ctx, jdwp.EventClassPrepare, jdwp.SuspendEventThread, jdwp.ClassMatch(f.class+"*"))
		if err != nil {
			return nil, fmt.Errorf("watch for class %s: %w", f.class, err)
		}
		d.mu.Lock()
		d.bps.prepByReq[id] = f
		d.mu.Unlock()
		all, err := d.vm.AllClasses(ctx)
		if err != nil {
			return nil, fmt.Errorf("list loaded classes: %w", err)
		}
		for _, c := range all {
			if c.Status&jdwp.ClassPrepared != 0 && strings.HasPrefix(c.Signature, "L") {
				if name := javalang.TypeName(c.Signature); f.owns(name) {
					f.classes[c.ID] = name
				}
			}
		}
	}
	for class := range f.classes {
		for _, bp := range f.bps {
			if err := d.install(ctx, bp, class); err != nil {
				return nil, err
			}
		}
	}
	out := make([]godap.Breakpoint, len(f.bps))
	for i, bp := range f.bps {
		out[i] = bp.dap()
	}
	return out, nil
}

// parse reads a breakpoint's condition, hit condition and log message.
func (bp *breakpoint) parse(w godap.SourceBreakpoint) {
	var err error
	if w.Condition != "" {
		if bp.cond, err = expr.Parse(w.Condition); err != nil {
			bp.bad = fmt.Sprintf("condition: %v", err)
		}
	}
	if w.HitCondition != "" {
		if bp.hit, err = parseHitCondition(w.HitCondition); err != nil {
			bp.bad = err.Error()
		}
	}
	if w.LogMessage != "" {
		if bp.log, err = expr.ParseTemplate(w.LogMessage); err != nil {
			bp.bad = fmt.Sprintf("log message: %v", err)
		}
	}
}

// install sets the JDWP breakpoint requests of bp in one class. Callers hold bpMu.
func (d *debuggee) install(ctx context.Context, bp *breakpoint, class jdwp.ReferenceTypeID) error {
	if bp.bad != "" || bp.done[class] {
		return nil
	}
	locs, err := d.lineLocations(ctx, class, bp.line)
	if err != nil {
		return err
	}
	line := bp.line
	if len(locs) == 0 && bp.file != nil && noCodeLine(bp.file.path, bp.line) {
		if line, locs, err = d.nextCodeLine(ctx, class, bp.file.path, bp.line); err != nil {
			return err
		}
	}
	if bp.column > 0 && bp.file != nil {
		locs = d.byColumn(ctx, locs, bp.file.path, line, bp.column)
	}
	for _, loc := range locs {
		id, err := d.setRequest(ctx, jdwp.EventBreakpoint, stopPolicy, jdwp.LocationOnly(loc))
		if err != nil {
			return fmt.Errorf("set breakpoint at line %d: %w", line, err)
		}
		d.mu.Lock()
		bp.reqs = append(bp.reqs, id)
		d.bps.bpByReq[id] = bp
		d.mu.Unlock()
	}
	bp.done[class] = true
	if len(locs) > 0 {
		bp.verified, bp.actual = true, line
	}
	return nil
}

// lineLocations returns, for each method of class with code on line, the
// first code index of that line.
func (d *debuggee) lineLocations(ctx context.Context, class jdwp.ReferenceTypeID, line int) ([]jdwp.Location, error) {
	ms, err := d.vm.Methods(ctx, class)
	if err != nil {
		return nil, fmt.Errorf("methods of class %d: %w", class, err)
	}
	tables := make([]mirror.Lines, len(ms))
	if err := parallel(len(ms), func(i int) error {
		if ms[i].ModBits&(jdwp.AccNative|jdwp.AccAbstract) != 0 {
			tables[i] = mirror.Lines{Absent: true}
			return nil
		}
		var err error
		tables[i], err = d.vm.LineTable(ctx, class, ms[i].ID)
		return err
	}); err != nil {
		return nil, fmt.Errorf("line tables: %w", err)
	}
	var out []jdwp.Location
	for i, lt := range tables {
		best, found := uint64(0), false
		for _, e := range lt.Lines {
			if int(e.Line) == line && (!found || e.CodeIndex < best) {
				best, found = e.CodeIndex, true
			}
		}
		if found {
			out = append(out, jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: class, Method: ms[i].ID, Index: best})
		}
	}
	return out, nil
}

// onClassPrepare installs the breakpoints of a class that just loaded, while
// its thread is suspended, and reports the ones that became verified.
func (d *debuggee) onClassPrepare(ctx context.Context, e jdwp.Event) {
	d.mu.Lock()
	f := d.bps.prepByReq[e.RequestID]
	entry := d.bps.entryReqs[e.RequestID]
	fn := d.bps.fnPrep[e.RequestID]
	d.mu.Unlock()
	if fn != nil {
		d.onFuncClassPrepare(ctx, fn, e)
		return
	}
	if entry {
		d.entryBreakpoint(ctx, e.RefType)
		d.clearRequest(ctx, jdwp.EventClassPrepare, e.RequestID)
		return
	}
	if f == nil {
		return
	}
	name := javalang.TypeName(e.Signature)
	d.bpMu.Lock()
	if !f.owns(name) {
		d.bpMu.Unlock()
		return
	}
	f.classes[e.RefType] = name
	var changed []godap.Breakpoint
	for _, bp := range f.bps {
		was := bp.verified
		if err := d.install(ctx, bp, e.RefType); err != nil {
			d.log.Warn().Err(err).Str("class", name).Msg("install breakpoint")
		}
		if bp.verified && !was {
			changed = append(changed, bp.dap())
		}
	}
	d.bpMu.Unlock()
	for _, b := range changed {
		d.s.send(&godap.BreakpointEvent{Event: newEvent("breakpoint"), Body: godap.BreakpointEventBody{Reason: "changed", Breakpoint: b}})
	}
}

// onBreakpoint decides whether a breakpoint hit stops: it evaluates the
// condition and hit condition, and prints a logpoint's message instead of
// stopping.
func (d *debuggee) onBreakpoint(ctx context.Context, e jdwp.Event) *stopInfo {
	d.mu.Lock()
	bp := d.bps.bpByReq[e.RequestID]
	entry := d.bps.entryReqs[e.RequestID]
	delete(d.bps.entryReqs, e.RequestID)
	d.mu.Unlock()
	if entry {
		d.clearRequest(ctx, jdwp.EventBreakpoint, e.RequestID)
		return &stopInfo{reason: "entry", thread: e.Thread}
	}
	if bp == nil {
		return nil // cleared while the event was on its way
	}
	return d.hit(ctx, bp, e, "")
}

// hit applies a breakpoint's condition, hit condition and log message to
// one hit and returns the stop, if it stops.
func (d *debuggee) hit(ctx context.Context, bp *breakpoint, e jdwp.Event, text string) *stopInfo {
	env := d.frameEnv(e.Thread, 0, 0, e.Location)
	ectx, cancel := context.WithTimeout(ctx, d.evalTimeout())
	defer cancel()
	if bp.cond != nil {
		ok, err := expr.Truth(ectx, bp.cond, env)
		if err != nil {
			if c := jdwp.Code(err); d.conn.Err() != nil || c == jdwp.ErrInvalidThread || c == jdwp.ErrVMDead {
				return nil // the VM or the thread is gone (a daemon at exit): nothing to stop
			} else if c == jdwp.ErrThreadNotSuspended {
				// The VM let the thread go (it does so for daemons as it
				// exits): there is nothing to stop.
				d.s.output("console", fmt.Sprintf("%s: condition not evaluated: the VM no longer holds the thread (%v)\n", bp.where(), err))
				return nil
			}
			if d.vm.StillRunning(e.Thread) {
				msg := fmt.Sprintf("%s: the condition did not finish in %v (%v); not stopping: the thread goes on when the method returns (does it wait for a lock another thread holds?)", bp.where(), d.evalTimeout(), err)
				d.s.output("important", msg+"\n")
				return d.handOff(ctx, e.Thread)
			}
			msg := fmt.Sprintf("%s: condition failed: %v", bp.where(), err)
			d.s.output("console", msg+"\n")
			return &stopInfo{reason: bp.stopReason(), thread: e.Thread, bps: []int{bp.id}, description: "Breakpoint condition failed", text: msg}
		}
		if !ok {
			return nil
		}
	}
	d.mu.Lock()
	bp.hits++
	hits := bp.hits
	d.mu.Unlock()
	if bp.hit != nil && !bp.hit.ok(hits) {
		return nil
	}
	if bp.log != nil {
		out := godap.OutputEventBody{Category: "console", Output: bp.log.Eval(ectx, env) + "\n"}
		if bp.file != nil {
			out.Source, out.Line = &godap.Source{Name: filepath.Base(bp.file.path), Path: bp.file.path}, bp.line
		}
		d.s.send(&godap.OutputEvent{Event: newEvent("output"), Body: out})
		if d.vm.StillRunning(e.Thread) {
			return d.handOff(ctx, e.Thread)
		}
		return nil
	}
	return &stopInfo{reason: bp.stopReason(), thread: e.Thread, bps: []int{bp.id}, text: text}
}
