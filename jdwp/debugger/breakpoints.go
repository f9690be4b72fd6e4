package debugger

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// Breakpoints: line breakpoints and logpoints by source file (set in the
// file's loaded classes at once, in the others as they are prepared),
// function breakpoints (function.go), data breakpoints (data.go), the
// one-shot stop on entry; each hit decided by its condition, hit condition
// and log message.

// Condition decides whether a hit stops; the front end compiles it (an
// expression of the editor's language) and evaluates it in the hit's frame.
type Condition interface {
	Truth(ctx context.Context, at Hit) (bool, error)
}

// Message is a logpoint's message, formatted in the hit's frame.
type Message interface {
	Text(ctx context.Context, at Hit) string
}

// Hit is where a condition or message is evaluated: the thread, suspended
// at the event's location (its top frame), and the exception an exception
// breakpoint's condition names.
type Hit struct {
	Thread    jdwp.ThreadID
	Location  jdwp.Location
	Exception jdwp.TaggedObjectID
}

// BreakpointSpec is one breakpoint as the user asks for it.
type BreakpointSpec struct {
	Line, Column int // a line breakpoint's line and column (0: the whole line)
	Cond         Condition
	Hit          string // a hit condition: "5", ">= 5", "% 5"
	Log          Message
	// Bad says why the front end could not compile the condition or the
	// message: the breakpoint is shown unverified with it.
	Bad string
}

// BreakpointInfo is what a front end shows of a breakpoint.
type BreakpointInfo struct {
	ID       int
	Verified bool
	Line     int    // the line it is set at (where it moved to, once verified)
	Path     string // a line breakpoint's source file
	Message  string // why it is not verified, when it is not
	// Class and ClassSig are where a function breakpoint resolved, for its
	// source.
	Class    jdwp.ReferenceTypeID
	ClassSig string
}

// sourceFile is a source file with breakpoints and the loaded classes
// compiled from it (its top-level class and the classes nested in it).
type sourceFile struct {
	path    string
	lang    lang.Language // the file's language (by its extension)
	class   lang.Classes  // which classes can hold its lines
	classes map[jdwp.ReferenceTypeID]string
	// inlined are the loaded classes of other files holding code inlined
	// from this one (see inline.go).
	inlined map[jdwp.ReferenceTypeID]string
	bps     []*breakpoint
}

// newSourceFile is the file at path as its language reads it.
func (t *Target) newSourceFile(path string) *sourceFile {
	l := t.langs().ForFile(path)
	return &sourceFile{path: path, lang: l, class: l.Classes(path), classes: map[jdwp.ReferenceTypeID]string{}, inlined: map[jdwp.ReferenceTypeID]string{}}
}

// owns reports whether a class (binary name) was compiled from the file;
// the class's SourceFile attribute is read only if the language asks.
func (t *Target) owns(ctx context.Context, f *sourceFile, name string, class jdwp.ReferenceTypeID) bool {
	return f.class.Holds(name, func() string {
		sf, _ := t.VM.SourceFile(ctx, class)
		return sf
	})
}

// breakpoint is one breakpoint of any kind and the requests behind it.
type breakpoint struct {
	id       int
	file     *sourceFile
	line     int // requested line
	column   int // requested column: picks the enclosing method or one lambda on the line
	actual   int // resolved line, once verified
	cond     Condition
	hit      *hitCondition
	log      Message
	bad      string // why the condition, hit condition or message is invalid
	hits     int
	reqs     []int32
	verified bool
	done     map[jdwp.ReferenceTypeID]bool // classes already searched
	// inlineBody says the line is in an inline function's body (inline.go):
	// the classes of every package are watched as they load.
	inlineBody bool

	// Function and data breakpoints (file is nil).
	fn       *funcSpec
	data     *dataTarget
	class    jdwp.ReferenceTypeID // where a function breakpoint resolved
	classSig string
	prepReqs []int32 // a function breakpoint's class-prepare requests
	// partsWatched are the Kotlin multifile facades whose parts a function
	// breakpoint watches for (functions.go: watchParts).
	partsWatched map[string]bool
	// companions are the named companion objects (binary names:
	// app.Crate$Factory of companion object Factory) of the classes a
	// function breakpoint names, watched as they load (Crate.make stops in
	// Crate.Factory.make, as Shop.open in Shop$Companion's).
	companions map[string]bool
	reqKinds   []jdwp.EventKind // a data breakpoint's request kinds, by reqs index
	reason     string           // the stop's reason: "breakpoint" unless set
	// receivers are the requests of a function breakpoint set in a
	// supertype's method: the class named, whose instances the hits must be.
	receivers map[int32]jdwp.ReferenceTypeID
	// resumers are the requests of a function breakpoint set in a Kotlin
	// suspend function: the binary-name prefix of its continuation classes
	// (app.MainKt$fetchOne$), whose invokeSuspend re-enters the function
	// each time it resumes (functions.go: resumedSuspend).
	resumers map[int32]string
}

// bpTables are the session's breakpoints of every kind and the event
// requests behind them (guarded by Target.mu).
type bpTables struct {
	files     map[string]*sourceFile
	bpByReq   map[int32]*breakpoint
	prepByReq map[int32]*sourceFile
	funcBPs   []*breakpoint
	fnPrep    map[int32]*breakpoint // function breakpoints by class-prepare request
	dataBPs   []*breakpoint
	dataByReq map[int32]*breakpoint // data breakpoints by field watch request
	nextBP    int
	exc       excState
	entryReqs map[int32]bool // the stop-on-entry class-prepare and breakpoint requests
	// inlinerWatch is the class-prepare request watching every package for
	// classes inlining a file's code while a breakpoint stands in an inline
	// body (0: none; inline.go).
	inlinerWatch int32
}

func newBPTables() bpTables {
	return bpTables{
		files:     map[string]*sourceFile{},
		bpByReq:   map[int32]*breakpoint{},
		prepByReq: map[int32]*sourceFile{},
		fnPrep:    map[int32]*breakpoint{},
		dataByReq: map[int32]*breakpoint{},
		entryReqs: map[int32]bool{},
		exc:       excState{last: map[jdwp.ThreadID]jdwp.TaggedObjectID{}, caught: map[jdwp.ThreadID]bool{}},
		nextBP:    1,
	}
}

// newBreakpoint numbers a breakpoint and reads its spec. Callers hold mu.
func (t *Target) newBreakpoint(s BreakpointSpec, reason string) *breakpoint {
	bp := &breakpoint{id: t.bps.nextBP, line: s.Line, column: s.Column, cond: s.Cond, log: s.Log, bad: s.Bad, reason: reason, done: map[jdwp.ReferenceTypeID]bool{}}
	t.bps.nextBP++
	if s.Hit != "" && bp.bad == "" {
		h, err := parseHitCondition(s.Hit)
		if err != nil {
			bp.bad = err.Error()
		}
		bp.hit = h
	}
	return bp
}

// where names a breakpoint in messages.
func (bp *breakpoint) where() string {
	switch {
	case bp.fn != nil:
		return "function breakpoint " + bp.fn.text
	case bp.data != nil:
		return "data breakpoint on " + bp.data.Desc
	}
	return fmt.Sprintf("breakpoint at %s:%d", filepath.Base(bp.file.path), bp.line)
}

func (bp *breakpoint) stopReason() string {
	if bp.reason != "" {
		return bp.reason
	}
	return "breakpoint"
}

// info is what the front end shows of bp.
func (bp *breakpoint) info() BreakpointInfo {
	if bp.file == nil {
		out := BreakpointInfo{ID: bp.id, Verified: bp.verified, Line: bp.actual, Message: bp.bad, Class: bp.class, ClassSig: bp.classSig}
		if !bp.verified && bp.bad == "" && bp.fn != nil {
			out.Message = fmt.Sprintf("no loaded class has %s yet; the breakpoint is set when one loads", bp.fn.text)
		}
		return out
	}
	out := BreakpointInfo{ID: bp.id, Verified: bp.verified, Line: bp.line, Path: bp.file.path}
	switch {
	case bp.bad != "":
		out.Message = bp.bad
	case bp.verified:
		out.Line = bp.actual
	case len(bp.file.classes) == 0:
		out.Message = fmt.Sprintf("%s is not loaded yet; the breakpoint is set when it loads", bp.file.class.Top())
	default:
		out.Message = fmt.Sprintf("no code at line %d in the loaded classes of %s", bp.line, filepath.Base(bp.file.path))
	}
	return out
}

// hitCondition is a breakpoint's hit condition: "N" or "== N" stops on the
// Nth hit only; ">= N", "> N", "<= N", "< N" compare the hit count; "% N"
// stops on every Nth hit.
type hitCondition struct {
	op string
	n  int
}

// ParseHitCondition checks a hit condition the way a breakpoint reads it.
func ParseHitCondition(s string) error {
	_, err := parseHitCondition(s)
	return err
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

// SetBreakpoints replaces the breakpoints of a source file and installs
// them in the classes of the file that are loaded; the others are
// installed when their class is prepared.
func (t *Target) SetBreakpoints(ctx context.Context, path string, want []BreakpointSpec) ([]BreakpointInfo, error) {
	t.bpMu.Lock()
	defer t.bpMu.Unlock()
	t.mu.Lock()
	f := t.bps.files[path]
	newFile := f == nil
	if newFile {
		f = t.newSourceFile(path)
		t.bps.files[path] = f
	}
	old := f.bps
	f.bps = nil
	for _, bp := range old {
		for _, id := range bp.reqs {
			delete(t.bps.bpByReq, id)
		}
	}
	for _, w := range want {
		bp := t.newBreakpoint(w, "")
		bp.file = f
		f.bps = append(f.bps, bp)
	}
	t.mu.Unlock()
	t.markInlineBodies(f)
	waitWatch := t.watchInliners(ctx)
	for _, bp := range old {
		for _, id := range bp.reqs {
			t.Requests.Clear(ctx, jdwp.EventBreakpoint, id)
		}
	}
	if err := t.setBreakpoints(ctx, f, newFile); err != nil {
		waitWatch()
		return nil, err
	}
	if err := waitWatch(); err != nil {
		return nil, err
	}
	t.unwatchInliners(ctx)
	out := make([]BreakpointInfo, len(f.bps))
	for i, bp := range f.bps {
		out[i] = bp.info()
	}
	return out, nil
}

// setBreakpoints installs f's breakpoints (newFile: the file's watch set
// and its loaded classes found first). Callers hold bpMu.
func (t *Target) setBreakpoints(ctx context.Context, f *sourceFile, newFile bool) error {
	if newFile {
		// Ask for the file's classes as they load, then look at those loaded
		// already; a class loading in between is seen twice, harmlessly.
		// The requests and the list leave in one burst, in this order (each
		// command is queued before the next is sent): one round trip.
		patterns := f.class.Patterns()
		if inlines(f.lang) {
			patterns = append(patterns, inlinerPatterns(f)...)
		}
		ids := make([]int32, len(patterns))
		errs := make([]error, len(patterns))
		var wg sync.WaitGroup
		for i, pattern := range patterns {
			queued := make(chan struct{})
			sent := sync.OnceFunc(func() { close(queued) })
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer sent() // it failed before it was queued
				ids[i], errs[i] = t.Requests.Set(jdwp.WithQueued(ctx, sent), jdwp.EventClassPrepare, jdwp.SuspendEventThread, jdwp.ClassMatch(pattern))
			}()
			<-queued
		}
		all, err := t.VM.AllClasses(ctx)
		wg.Wait()
		for i, pattern := range patterns {
			if errs[i] != nil {
				return fmt.Errorf("watch for class %s: %w", pattern, errs[i])
			}
			t.mu.Lock()
			t.bps.prepByReq[ids[i]] = f
			t.mu.Unlock()
		}
		if err != nil {
			return fmt.Errorf("list loaded classes: %w", err)
		}
		// The classes named like the file's are confirmed by their SourceFile
		// all at once (a .kt file's ten classes cost ten sequential round
		// trips one by one: bench kotlin).
		var named []jdwp.ClassInfo
		for _, c := range all {
			if c.Status&jdwp.ClassPrepared != 0 && strings.HasPrefix(c.Signature, "L") {
				named = append(named, c)
			}
		}
		held := make([]bool, len(named))
		mirror.Parallel(len(named), func(i int) error {
			held[i] = t.owns(ctx, f, javalang.TypeName(named[i].Signature), named[i].ID)
			return nil
		})
		for i, c := range named {
			if held[i] {
				f.classes[c.ID] = javalang.TypeName(c.Signature)
			}
		}
	}
	if len(f.bps) > 0 {
		t.prefetchLines(ctx, f.classes)
	}
	if inlines(f.lang) {
		if err := t.findInliners(ctx, f); err != nil {
			return err
		}
		if len(f.bps) > 0 {
			t.prefetchLines(ctx, f.inlined)
		}
	}
	for class := range f.classes {
		for _, bp := range f.bps {
			if err := t.install(ctx, bp, class); err != nil {
				return err
			}
		}
	}
	return t.installInlinedAll(ctx, f)
}

// install sets the JDWP breakpoint requests of bp in one class. Callers
// hold bpMu.
func (t *Target) install(ctx context.Context, bp *breakpoint, class jdwp.ReferenceTypeID) error {
	if bp.bad != "" || bp.done[class] {
		return nil
	}
	if bp.file != nil {
		if _, ok := bp.file.inlined[class]; ok {
			return t.installInlined(ctx, bp, class)
		}
	}
	locs, err := t.LineLocations(ctx, class, bp.line)
	if err != nil {
		return err
	}
	if bp.file != nil && inlines(bp.file.lang) {
		// The file's own class may inline its own inline functions too:
		// every JVM line the source line became.
		if outs, ok := t.mappedLines(ctx, bp.file, class, bp.line); ok {
			for _, out := range outs {
				if out == bp.line {
					continue
				}
				more, err := t.LineLocations(ctx, class, out)
				if err != nil {
					return err
				}
				locs = append(locs, more...)
			}
		}
	}
	line := bp.line
	if len(locs) == 0 && bp.file != nil && t.noCodeLine(bp.file.path, bp.line) {
		if line, locs, err = t.nextCodeLine(ctx, class, bp.file.path, bp.line); err != nil {
			return err
		}
	}
	if bp.column > 0 && bp.file != nil {
		if li, ok := bp.file.lang.(LambdaInliner); ok {
			locs = t.byLambdaColumn(ctx, li, bp.file, class, locs, line, bp.column)
		} else {
			locs = t.byColumn(ctx, locs, bp.file.path, line, bp.column)
		}
	}
	for _, loc := range locs {
		t.booking.RLock()
		id, err := t.Requests.Set(ctx, jdwp.EventBreakpoint, stopPolicy, jdwp.LocationOnly(loc))
		if err != nil {
			t.booking.RUnlock()
			return fmt.Errorf("set breakpoint at line %d: %w", line, err)
		}
		t.mu.Lock()
		bp.reqs = append(bp.reqs, id)
		t.bps.bpByReq[id] = bp
		t.mu.Unlock()
		t.booking.RUnlock()
	}
	bp.done[class] = true
	if len(locs) > 0 {
		bp.verified, bp.actual = true, line
	}
	return nil
}

// prefetchLines reads the methods and line tables of classes into the
// mirror's caches, every class at once: installing breakpoints in them then
// costs a round trip per request set, where reading class by class cost
// two more per class (a file's class and its nested and anonymous ones, on
// a slow link). Errors are left to the install that meets them.
func (t *Target) prefetchLines(ctx context.Context, classes map[jdwp.ReferenceTypeID]string) {
	ids := make([]jdwp.ReferenceTypeID, 0, len(classes))
	for c := range classes {
		ids = append(ids, c)
	}
	mirror.Parallel(len(ids), func(i int) error {
		ms, err := t.VM.Methods(ctx, ids[i])
		if err != nil {
			return nil
		}
		mirror.Parallel(len(ms), func(j int) error {
			if ms[j].ModBits&(jdwp.AccNative|jdwp.AccAbstract) == 0 {
				t.VM.LineTable(ctx, ids[i], ms[j].ID)
			}
			return nil
		})
		return nil
	})
}

// LineLocations returns, for each method of class with code on line, the
// first code index of that line.
func (t *Target) LineLocations(ctx context.Context, class jdwp.ReferenceTypeID, line int) ([]jdwp.Location, error) {
	ms, err := t.VM.Methods(ctx, class)
	if err != nil {
		return nil, fmt.Errorf("methods of class %d: %w", class, err)
	}
	tables := make([]mirror.Lines, len(ms))
	if err := mirror.Parallel(len(ms), func(i int) error {
		if ms[i].ModBits&(jdwp.AccNative|jdwp.AccAbstract) != 0 {
			tables[i] = mirror.Lines{Absent: true}
			return nil
		}
		var err error
		tables[i], err = t.VM.LineTable(ctx, class, ms[i].ID)
		return err
	}); err != nil {
		return nil, fmt.Errorf("line tables: %w", err)
	}
	var out, bridges []jdwp.Location
	for i, lt := range tables {
		best, found := uint64(0), false
		for _, e := range lt.Lines {
			if int(e.Line) == line && (!found || e.CodeIndex < best) {
				best, found = e.CodeIndex, true
			}
		}
		if !found {
			continue
		}
		loc := jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: class, Method: ms[i].ID, Index: best}
		if ms[i].ModBits&jdwp.AccBridge != 0 {
			// A bridge (kotlinc's invoke(Object) of a lambda class, javac's
			// of a generic override) only calls the method it bridges: a
			// stop there is a second stop on the same line.
			bridges = append(bridges, loc)
			continue
		}
		out = append(out, loc)
	}
	if len(out) == 0 {
		return bridges, nil
	}
	return out, nil
}

// onClassPrepare installs the breakpoints of a class that just loaded,
// while its thread is suspended, and reports the ones that became
// verified.
func (t *Target) onClassPrepare(ctx context.Context, e jdwp.Event) {
	t.mu.Lock()
	f := t.bps.prepByReq[e.RequestID]
	entry := t.bps.entryReqs[e.RequestID]
	fn := t.bps.fnPrep[e.RequestID]
	t.mu.Unlock()
	if fn != nil {
		t.onFuncClassPrepare(ctx, fn, e)
		return
	}
	if entry {
		t.entryBreakpoint(ctx, e.RefType)
		t.Requests.Clear(ctx, jdwp.EventClassPrepare, e.RequestID)
		return
	}
	if f == nil {
		if t.isInlinerWatch(e.RequestID) {
			t.onInlinerPrepare(ctx, e)
		}
		return
	}
	name := javalang.TypeName(e.Signature)
	t.bpMu.Lock()
	switch {
	case t.owns(ctx, f, name, e.RefType):
		f.classes[e.RefType] = name
	case inlines(f.lang) && t.inlinedIn(ctx, f, e.RefType):
		f.inlined[e.RefType] = name
	default:
		t.bpMu.Unlock()
		return
	}
	var changed []BreakpointInfo
	for _, bp := range f.bps {
		was := bp.verified
		if err := t.install(ctx, bp, e.RefType); err != nil {
			t.log.Warn().Err(err).Str("class", name).Msg("install breakpoint")
		}
		if bp.verified && !was {
			changed = append(changed, bp.info())
		}
	}
	t.bpMu.Unlock()
	for _, b := range changed {
		t.fe.BreakpointChanged(b)
	}
}

// onBreakpoint decides whether a breakpoint hit stops: it evaluates the
// condition and hit condition, and prints a logpoint's message instead of
// stopping.
func (t *Target) onBreakpoint(ctx context.Context, e jdwp.Event) *Stop {
	if stop, ok := t.onResume(ctx, e); ok {
		return stop
	}
	t.mu.Lock()
	bp := t.bps.bpByReq[e.RequestID]
	entry := t.bps.entryReqs[e.RequestID]
	delete(t.bps.entryReqs, e.RequestID)
	t.mu.Unlock()
	if entry {
		t.Requests.Clear(ctx, jdwp.EventBreakpoint, e.RequestID)
		return &Stop{Reason: "entry", Thread: e.Thread}
	}
	if bp == nil && !entry {
		// Set a moment ago, its answer not booked yet: wait for the booking.
		t.booking.Lock()
		t.booking.Unlock() //nolint:staticcheck // a barrier: the sets under way are booked
		t.mu.Lock()
		bp = t.bps.bpByReq[e.RequestID]
		t.mu.Unlock()
	}
	if bp == nil {
		return nil // cleared while the event was on its way
	}
	if !t.inheritedHit(ctx, bp, e) || t.resumedSuspend(ctx, bp, e) {
		return nil
	}
	return t.hit(ctx, bp, e, "")
}

// hit applies a breakpoint's condition, hit condition and log message to
// one hit and returns the stop, if it stops.
func (t *Target) hit(ctx context.Context, bp *breakpoint, e jdwp.Event, text string) *Stop {
	at := Hit{Thread: e.Thread, Location: e.Location}
	ectx, cancel := context.WithTimeout(ctx, t.evalTimeout())
	defer cancel()
	if bp.cond != nil {
		ok, err := bp.cond.Truth(ectx, at)
		if err != nil {
			if c := jdwp.Code(err); t.Conn.Err() != nil || c == jdwp.ErrInvalidThread || c == jdwp.ErrVMDead {
				return nil // the VM or the thread is gone (a daemon at exit): nothing to stop
			} else if c == jdwp.ErrThreadNotSuspended {
				// The VM let the thread go (it does so for daemons as it
				// exits): there is nothing to stop.
				t.fe.Output("console", fmt.Sprintf("%s: condition not evaluated: the VM no longer holds the thread (%v)\n", bp.where(), err))
				return nil
			}
			if t.StillRunning(e.Thread) {
				msg := fmt.Sprintf("%s: the condition did not finish in %v (%v); not stopping: the thread goes on when the method returns (does it wait for a lock another thread holds?)", bp.where(), t.evalTimeout(), err)
				t.fe.Output("important", msg+"\n")
				return t.handOff(ctx, e.Thread)
			}
			msg := fmt.Sprintf("%s: condition failed: %v", bp.where(), err)
			t.fe.Output("console", msg+"\n")
			return &Stop{Reason: bp.stopReason(), Thread: e.Thread, Breakpoints: []int{bp.id}, Description: "Breakpoint condition failed", Text: msg}
		}
		if !ok {
			return nil
		}
	}
	t.mu.Lock()
	bp.hits++
	hits := bp.hits
	t.mu.Unlock()
	if bp.hit != nil && !bp.hit.ok(hits) {
		return nil
	}
	if bp.log != nil {
		t.fe.Logpoint(bp.info(), bp.log.Text(ectx, at))
		if t.StillRunning(e.Thread) {
			return t.handOff(ctx, e.Thread)
		}
		return nil
	}
	return &Stop{Reason: bp.stopReason(), Thread: e.Thread, Breakpoints: []int{bp.id}, Text: text}
}

// ReinstallBreakpoints sets the line breakpoints of redefined classes
// again, in their new code. The VM clears the breakpoints of a redefined
// class (JDI deletes their requests likewise), so without this they would
// stay shown as verified and never hit again.
func (t *Target) ReinstallBreakpoints(ctx context.Context, redefined map[jdwp.ReferenceTypeID]bool) {
	t.bpMu.Lock()
	defer t.bpMu.Unlock()
	var files []*sourceFile
	var old []int32
	t.mu.Lock()
	for _, f := range t.bps.files {
		owns := false
		for c := range f.classes {
			owns = owns || redefined[c]
		}
		if !owns {
			continue
		}
		files = append(files, f)
		for _, bp := range f.bps {
			for _, id := range bp.reqs {
				delete(t.bps.bpByReq, id)
				old = append(old, id)
			}
			bp.reqs = nil
			bp.done = map[jdwp.ReferenceTypeID]bool{}
		}
	}
	t.mu.Unlock()
	for _, id := range old {
		t.Requests.Clear(ctx, jdwp.EventBreakpoint, id)
	}
	for _, f := range files {
		for class := range f.classes {
			for _, bp := range f.bps {
				if err := t.install(ctx, bp, class); err != nil {
					t.log.Warn().Err(err).Str("file", f.path).Int("line", bp.line).Msg("breakpoint not set again after hot code replace")
				}
			}
		}
	}
}

// armEntry arranges a stop at the first line of mainClass.main.
func (t *Target) armEntry(ctx context.Context, mainClass string) error {
	id, err := t.Requests.Set(ctx, jdwp.EventClassPrepare, jdwp.SuspendEventThread, jdwp.ClassMatch(mainClass))
	if err != nil {
		return fmt.Errorf("stopOnEntry: %w", err)
	}
	t.mu.Lock()
	t.bps.entryReqs[id] = true
	t.mu.Unlock()
	loaded, err := t.VM.Loaded(ctx, javalang.Signature(mainClass))
	if err != nil {
		return fmt.Errorf("stopOnEntry: %w", err)
	}
	for _, c := range loaded {
		t.entryBreakpoint(ctx, c.ID)
	}
	return nil
}

// entryBreakpoint sets a one-shot breakpoint at the start of class's main.
func (t *Target) entryBreakpoint(ctx context.Context, class jdwp.ReferenceTypeID) {
	ms, err := t.VM.Methods(ctx, class)
	if err != nil {
		t.log.Warn().Err(err).Msg("stopOnEntry: methods of the main class")
		return
	}
	for _, m := range ms {
		if m.Name != "main" || m.ModBits&jdwp.AccNative != 0 {
			continue
		}
		idx := uint64(0)
		if lt, err := t.VM.LineTable(ctx, class, m.ID); err == nil && !lt.Absent {
			idx = lt.Start
		}
		id, err := t.Requests.Set(ctx, jdwp.EventBreakpoint, stopPolicy,
			jdwp.LocationOnly{TypeTag: jdwp.TypeTagClass, Class: class, Method: m.ID, Index: idx}, jdwp.Count(1))
		if err != nil {
			t.log.Warn().Err(err).Msg("stopOnEntry: breakpoint on main")
			return
		}
		t.mu.Lock()
		t.bps.entryReqs[id] = true
		t.mu.Unlock()
		return
	}
}
