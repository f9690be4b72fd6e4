package dap

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	godap "github.com/google/go-dap"
)

// threads lists the platform threads and the threads met at events or
// stops (virtual ones included: JDWP lists no virtual thread unless its
// agent was told to), by name alone. The editor shows each thread's state
// itself (paused and why, or running) from the stopped and continued
// events, and asks for the list again only at a stop, so a state in the
// name went stale as soon as the thread ran on ("main (breakpoint)" next
// to RUNNING); a virtual thread's name says it is virtual, and on which
// carrier it was mounted at the stop. The list is bounded: the virtual
// threads never met are counted (virtualThreads pages through them). The
// JDWP states, CPU times and suspension of every thread are the monitor's
// vm/threads (the Threads view). Without a debuggee (before launch, after
// a launch failed: VS Code asks then) the list is empty.
func (s *session) threads(ctx context.Context, r *godap.ThreadsRequest) (godap.ThreadsResponseBody, error) {
	d := s.dbg
	if d == nil || d.isEnded() {
		return godap.ThreadsResponseBody{Threads: []godap.Thread{}}, nil
	}
	// The threads met at events matter only where the VM leaves some out
	// (virtual threads); they are read beside the platform threads, not
	// after them (no round trip added).
	var met []jdwp.ThreadID
	metDone := make(chan struct{})
	if d.t.VirtualThreads() {
		go func() {
			defer close(metDone)
			met = d.t.MetThreads(ctx)
		}()
	} else {
		close(metDone)
	}
	ids, err := d.t.PlatformThreads(ctx)
	<-metDone
	if err != nil {
		return godap.ThreadsResponseBody{}, err
	}
	platform := len(ids)
	seen := make(map[jdwp.ThreadID]bool, len(ids))
	for _, t := range ids {
		seen[t] = true
	}
	for _, t := range met {
		if !seen[t] {
			seen[t] = true
			ids = append(ids, t)
		}
	}
	stopThread, _, _ := d.stops.Latest()
	names := make([]string, len(ids))
	gone := make([]bool, len(ids))
	err = parallel(len(ids), func(i int) error {
		name, err := d.threadName(ctx, ids[i], i >= platform)
		if c := jdwp.Code(err); c == jdwp.ErrInvalidThread || c == jdwp.ErrInvalidObject {
			name, err, gone[i] = "<exited>", nil, i >= platform
		}
		names[i] = name
		return err
	})
	if err != nil {
		return godap.ThreadsResponseBody{}, err
	}
	hidden := make([]bool, len(ids))
	if d.opts.HideSystemThreads {
		parallel(platform, func(i int) error {
			hidden[i] = ids[i] != stopThread && d.vm.SystemThread(ctx, ids[i], names[i])
			return nil
		})
	}
	// The stopped thread first, then the others stopped, as VS Code shows
	// them in that order.
	at := make(map[jdwp.ThreadID]int, len(ids))
	for i, t := range ids {
		at[t] = i
	}
	threads := make([]godap.Thread, 0, len(ids))
	for _, t := range d.stops.StoppedFirst(ids) {
		if i := at[t]; !hidden[i] && !gone[i] {
			threads = append(threads, godap.Thread{Id: d.refs.threads.id(t), Name: names[i]})
		}
	}
	if d.t.VirtualThreads() {
		d.countUnlisted(seen)
	}
	return godap.ThreadsResponseBody{Threads: threads}, nil
}

// countUnlisted counts, after the threads response, the virtual threads
// an agent run with includevirtualthreads=y lists and the response left
// out (listed holds the ones it has), and says in the console how many
// when that changed. One count runs at a time: reading 100,000 threads
// takes the VM about as long as the response may.
func (d *debuggee) countUnlisted(listed map[jdwp.ThreadID]bool) {
	if !d.counting.CompareAndSwap(false, true) {
		return
	}
	d.spawn(func() {
		defer d.counting.Store(false)
		ctx, cancel := context.WithTimeout(d.s.ctx, d.s.cfg.RequestTimeout)
		defer cancel()
		all, err := d.vm.Threads(ctx)
		if err != nil {
			return
		}
		rest := 0
		for _, t := range all {
			if !listed[t] {
				rest++
			}
		}
		if d.unlisted.Swap(int64(rest)) != int64(rest) && rest > 0 {
			d.s.output("console", fmt.Sprintf("%d more virtual threads are not in the threads list (it shows the platform threads and the ones met at events and stops): the Virtual Threads view groups them all by stack\n", rest))
		}
	})
}

// threadName is a thread's name as the threads list shows it. A thread
// the VM did not list (met at an event) may be virtual: an unnamed one is
// "virtual#<id>" as the JDK's tools call it (its Thread.threadId()), and
// the name says it is virtual and on which carrier it is mounted.
func (d *debuggee) threadName(ctx context.Context, t jdwp.ThreadID, maybeVirtual bool) (string, error) {
	name, err := d.vm.ThreadName(ctx, t)
	if err != nil || !maybeVirtual {
		return name, err
	}
	virtual, err := d.t.IsVirtual(ctx, t)
	if err != nil || !virtual {
		return name, err
	}
	if name == "" {
		name = "virtual#" + strconv.FormatUint(uint64(t), 10)
		if v, ok, err := d.vm.Field(ctx, jdwp.ObjectID(t), "tid"); err == nil && ok {
			name = "virtual#" + strconv.FormatInt(v.Int(), 10)
		}
	}
	if v, ok, err := d.vm.Field(ctx, jdwp.ObjectID(t), "carrierThread"); err == nil && ok && !v.IsNull() {
		if carrier, err := d.vm.ThreadName(ctx, jdwp.ThreadID(v.Object())); err == nil {
			return name + " (virtual, on " + carrier + ")", nil
		}
	}
	return name + " (virtual)", nil
}

func (s *session) stackTrace(ctx context.Context, r *godap.StackTraceRequest) (godap.StackTraceResponseBody, error) {
	d := s.dbg
	t, ok := d.refs.threads.key(r.Arguments.ThreadId)
	if !ok {
		return godap.StackTraceResponseBody{}, fmt.Errorf("unknown thread id %d", r.Arguments.ThreadId)
	}
	// The whole stack, from the stop while a method runs in the thread
	// (a toString of the Variables view): its frames do not change.
	all, err := d.t.Stack(ctx, t)
	if err != nil {
		return godap.StackTraceResponseBody{}, err
	}
	// A coroutine's async stack goes in above the runtime's resume frame:
	// a label frame, then the continuations that resume later.
	at, async, err := d.t.AsyncStack(ctx, t, all)
	if err != nil {
		d.log.Debug().Err(err).Msg("async stack")
		at, async = -1, nil
	}
	extra := int32(0)
	if at >= 0 && len(async) > 0 {
		extra = int32(1 + len(async))
	}
	// entry i of the whole list: a real frame's index in all, or -1 with
	// the async frame (or the label: async -1).
	entry := func(i int32) (real int32, asyncAt int) {
		switch {
		case extra == 0 || i < int32(at):
			return i, 0
		case i < int32(at)+extra:
			return -1, int(i-int32(at)) - 1
		}
		return i - extra, 0
	}
	jvmTotal := int32(len(all))
	total := jvmTotal + extra
	start := min(int32(max(r.Arguments.StartFrame, 0)), total)
	n := total - start
	if r.Arguments.Levels > 0 && int32(r.Arguments.Levels) < n {
		n = int32(r.Arguments.Levels)
	}
	out := make([]godap.StackFrame, n)
	// the frames under an inlined one: outer inline functions', the caller's
	inlined := make([][]godap.StackFrame, n)
	hidden := make([]bool, n) // frames the language hides
	err = parallel(int(n), func(i int) error {
		real, ai := entry(start + int32(i))
		if real < 0 {
			out[i] = d.asyncFrame(t, async, ai)
			return nil
		}
		f := all[real]
		if f.Loc.Method == 0 {
			sf, err := d.describeObsolete(ctx, f, jvmTotal)
			if err != nil {
				return err
			}
			sf.Id = d.refs.frames.add(f)
			sf.CanRestart = d.caps.CanPopFrames && real < jvmTotal-1
			out[i] = sf
			return nil
		}
		sf, err := d.describeFrame(ctx, f.Loc)
		if err != nil {
			return err
		}
		sf.Id = d.refs.frames.add(f)
		if ff := d.frameFormat(r.Arguments.Format); ff != nil {
			sf.Name = d.formatFrameName(withHex(ctx, &ff.ValueFormat), ff, f, sf)
		}
		sf.CanRestart = d.caps.CanPopFrames && real < jvmTotal-1
		if real > 0 && (d.hiddenFrame(ctx, f) || sf.Line < 0 && d.resumeWrapper(ctx, f.Loc)) {
			hidden[i] = true
			return nil
		}
		if top, below, ok := d.splitInlined(ctx, f, sf); ok {
			for k := range below {
				below[k].Id = d.refs.frames.add(f)
			}
			sf, inlined[i] = top, below
		}
		out[i] = sf
		return nil
	})
	if err != nil {
		return godap.StackTraceResponseBody{}, err
	}
	shown := total
	for i := len(out) - 1; i >= 0; i-- {
		switch {
		case hidden[i]:
			out = append(out[:i], out[i+1:]...)
			shown--
		case inlined[i] != nil:
			out = append(out[:i+1], append(append([]godap.StackFrame(nil), inlined[i]...), out[i+1:]...)...)
			shown += int32(len(inlined[i]))
		}
	}
	return godap.StackTraceResponseBody{StackFrames: out, TotalFrames: int(shown)}, nil
}

// asyncLabel names the frame that separates a coroutine's frames from
// its async stack, as IntelliJ does.
const asyncLabel = "Async stack trace"

// asyncRef is a frame of a coroutine's async stack as a frame id names it:
// a continuation (nil: the label frame) and the thread whose stack holds it.
type asyncRef struct {
	af     *debugger.AsyncFrame
	thread jdwp.ThreadID
}

// asyncFrame is the stack frame of a coroutine's async stack in thread's
// stack: i -1 its label (no source, line 0: a front end shows its name
// alone), else the continuation async[i], whose Locals scope shows its
// spilled variables and in which expressions evaluate over them.
func (d *debuggee) asyncFrame(thread jdwp.ThreadID, async []debugger.AsyncFrame, i int) godap.StackFrame {
	if i < 0 {
		return godap.StackFrame{Id: d.refs.asyncFrames.add(asyncRef{thread: thread}), Name: asyncLabel, PresentationHint: "label"}
	}
	af := &async[i]
	sf := d.asyncFrameOf(af)
	sf.Id = d.refs.asyncFrames.add(asyncRef{af, thread})
	return sf
}

// asyncFrameOf names a continuation by its suspend function (Owner.name,
// the owner named as a frame of its source's language names it; or the
// continuation's class without metadata) at the line it suspended on.
func (d *debuggee) asyncFrameOf(af *debugger.AsyncFrame) godap.StackFrame {
	name := af.Method
	if name == "" {
		name = javalang.SimpleName(af.Owner)
	} else if owner := javalang.SimpleName(af.Owner); owner != "" {
		if n, ok := d.langOfFile(af.Rel).(lang.FrameNamer); ok && af.Rel != "" {
			owner = n.FrameClass(owner) // Tally.Companion.twiceOf, as its JVM frame reads
		}
		name = owner + "." + name
	}
	sf := godap.StackFrame{Name: name, Line: af.Line}
	if af.Rel != "" {
		sf.Source = d.sourceOfRel(af.Rel)
		if sf.Source == nil {
			sf.Source = &godap.Source{Name: path.Base(af.Rel), PresentationHint: "deemphasize", Origin: "not found in sourcePaths: " + af.Rel}
		}
	}
	return sf
}

// resumeWrapper reports whether a frame without a line is a continuation
// class's invokeSuspend that only calls its suspend function (the frame
// above it): hidden, as IntelliJ hides it.
func (d *debuggee) resumeWrapper(ctx context.Context, loc jdwp.Location) bool {
	for _, l := range d.srcs.langs {
		s, ok := l.(lang.Suspending)
		if !ok {
			continue
		}
		m, err := d.vm.Method(ctx, loc.Class, loc.Method)
		return err == nil && m.Name == s.Continuations().InvokeSuspend
	}
	return false
}

// frameHider is a language that hides some compiler-made methods' frames
// by default (Kotlin's $default, access$, bridges: jdwp/lang/kotlin).
type frameHider interface {
	HiddenFrame(method string, bridge bool) bool
}

// hiddenFrame reports whether a frame (never the top one: the caller
// checks) is hidden from the stack as its language says.
func (d *debuggee) hiddenFrame(ctx context.Context, f mirror.Frame) bool {
	if f.Loc.Method == 0 {
		return false
	}
	h, ok := d.langOfClass(ctx, f.Loc.Class).(frameHider)
	if !ok {
		// A Kotlin multifile facade's method, which only calls its
		// part, has no SourceFile to name its language.
		return d.t.MultifileFacade(ctx, f.Loc)
	}
	m, err := d.vm.Method(ctx, f.Loc.Class, f.Loc.Method)
	return err == nil && h.HiddenFrame(m.Name, m.ModBits&jdwp.AccBridge != 0)
}

// inliner is a language that can say a location is code inlined from
// another function (Kotlin's inline functions: jdwp/lang/kotlin).
type inliner interface {
	Inlined(at lang.Located, markers []string) (fn string, callSite lang.Where, ok bool)
}

// deepInliner is an inliner that tells every level of inline functions
// inlined into each other (jdwp/lang/kotlin).
type deepInliner interface {
	InlinedFrames(at lang.Located, markers []lang.Marker, lineAt func(codeIndex uint64) int) (frames []lang.InlineFrame, callSite lang.Where, ok bool)
}

// splitInlined shows code inlined into a frame's method as the inline
// function's own frame (top: the inline function at its file and line, as
// sf already reads), above each outer inline function's frame at its call
// of the inner one (an inline function inlined into another), above the
// method's frame at the call site (below: those frames, the caller last),
// as IntelliJ shows Kotlin's inline functions. Every frame's scopes are the
// method's. ok is false for a frame that is not in inlined code, or of a
// language without inlining.
func (d *debuggee) splitInlined(ctx context.Context, f mirror.Frame, sf godap.StackFrame) (top godap.StackFrame, below []godap.StackFrame, ok bool) {
	if sf.Line <= 0 || f.Loc.Method == 0 {
		return sf, nil, false
	}
	il, isInliner := d.langOfClass(ctx, f.Loc.Class).(inliner)
	if !isInliner {
		return sf, nil, false
	}
	sig, err := d.vm.Signature(ctx, f.Loc.Class)
	if err != nil {
		return sf, nil, false
	}
	lt, err := d.vm.LineTable(ctx, f.Loc.Class, f.Loc.Method)
	if err != nil || lt.Absent {
		return sf, nil, false
	}
	var markers []lang.Marker
	if vt, err := d.vm.VariableTable(ctx, f.Loc.Class, f.Loc.Method); err == nil && !vt.Absent {
		for _, v := range vt.Variables {
			if v.CodeIndex <= f.Loc.Index && f.Loc.Index < v.CodeIndex+uint64(v.Length) {
				markers = append(markers, lang.Marker{Name: v.Name, Start: v.CodeIndex})
			}
		}
	}
	at := lang.Located{ClassSig: sig, Line: int(lt.LineFor(f.Loc.Index)), SMAP: d.smapOf(f.Loc.Class)}
	var levels []lang.InlineFrame
	var call lang.Where
	if deep, ok := il.(deepInliner); ok {
		levels, call, ok = deep.InlinedFrames(at, markers, func(i uint64) int { return int(lt.LineFor(i)) })
		if !ok {
			return sf, nil, false
		}
	} else {
		names := make([]string, len(markers))
		for i, m := range markers {
			names[i] = m.Name
		}
		fn, c, ok := il.Inlined(at, names)
		if !ok {
			return sf, nil, false
		}
		levels, call = []lang.InlineFrame{{Fn: fn}}, c
	}
	inlinedFrame := func(fn string) godap.StackFrame {
		fr := sf
		if fn == "" {
			fn = "inlined code"
		}
		fr.Name = fn + " (inlined)"
		fr.CanRestart = false
		return fr
	}
	top = inlinedFrame(levels[0].Fn)
	for _, l := range levels[1:] {
		fr := inlinedFrame(l.Fn)
		fr.Line = l.At.Line
		fr.Source = d.sourceOfRel(l.At.Rel)
		if fr.Source == nil {
			fr.Source = &godap.Source{Name: path.Base(l.At.Rel), PresentationHint: "deemphasize", Origin: "inlined from " + l.At.Rel + ", not found in sourcePaths"}
		}
		below = append(below, fr)
	}
	caller := sf
	caller.Line = call.Line
	if src := d.sourceOfRel(call.Rel); src != nil {
		caller.Source = src
	}
	return top, append(below, caller), true
}

// frameFormat is the format a stackTrace request asked for, or the
// default: parameter types (OrderApp.describe(Order)) unless
// showFrameParameterTypes is false.
func (d *debuggee) frameFormat(ff *godap.StackFrameFormat) *godap.StackFrameFormat {
	if ff == nil && (d.opts.ShowFrameParameterTypes == nil || *d.opts.ShowFrameParameterTypes) {
		return &godap.StackFrameFormat{ParameterTypes: true}
	}
	return ff
}

// formatFrameName adds what a stackTrace format asks for to a frame's
// name: its parameters (types, names, values; values in hex if asked) and
// its line.
func (d *debuggee) formatFrameName(ctx context.Context, ff *godap.StackFrameFormat, f mirror.Frame, sf godap.StackFrame) string {
	name := sf.Name
	all := ff.IncludeAll
	if ff.Parameters || ff.ParameterTypes || ff.ParameterNames || ff.ParameterValues || all {
		m, err := d.vm.Method(ctx, f.Loc.Class, f.Loc.Method)
		params, _ := javalang.ParamSigs(m.Signature)
		var parts []string
		var args []jdwp.Variable
		if vt, verr := d.vm.VariableTable(ctx, f.Loc.Class, f.Loc.Method); verr == nil && !vt.Absent {
			first := int32(0)
			if m.ModBits&jdwp.AccStatic == 0 {
				first = 1
			}
			for _, v := range vt.Variables {
				if v.Slot >= first && v.Slot < vt.ArgCount && v.CodeIndex == 0 {
					args = append(args, v)
				}
			}
		}
		var vals []jdwp.Value
		if (ff.ParameterValues || all) && len(args) == len(params) && len(args) > 0 {
			vals, _ = d.vm.ReadLocals(ctx, f, args)
		}
		for i, p := range params {
			var part []string
			if ff.ParameterTypes || all || !(ff.ParameterNames || ff.ParameterValues) {
				part = append(part, javalang.SimpleTypeName(p))
			}
			if (ff.ParameterNames || all) && len(args) == len(params) {
				part = append(part, args[i].Name)
			}
			if i < len(vals) {
				if v, err := d.variable(withNoInvoke(ctx, "frame names run no methods"), "", "", vals[i]); err == nil {
					if len(part) > 0 {
						part = append(part, "=")
					}
					part = append(part, v.Value)
				}
			}
			parts = append(parts, strings.Join(part, " "))
		}
		if err == nil {
			name += "(" + strings.Join(parts, ", ") + ")"
		}
	}
	if (ff.Line || all) && sf.Line > 0 {
		name += fmt.Sprintf(" line %d", sf.Line)
	}
	return name
}

// describeFrame names a location: "Class.method", its line and source file.
func (d *debuggee) describeFrame(ctx context.Context, loc jdwp.Location) (godap.StackFrame, error) {
	sig, err := d.vm.Signature(ctx, loc.Class)
	if err != nil {
		return godap.StackFrame{}, err
	}
	if loc.Method == 0 {
		return d.obsoleteFrame(ctx, loc.Class, sig)
	}
	m, err := d.vm.Method(ctx, loc.Class, loc.Method)
	if err != nil {
		return godap.StackFrame{}, err
	}
	name, hidden := frameClassName(sig)
	if n, ok := d.langOfClass(ctx, loc.Class).(lang.FrameNamer); ok && !hidden {
		name = n.FrameClass(name) // Kotlin: Shop.Companion, not Shop$Companion
	}
	sf := godap.StackFrame{Name: name + "." + m.Name, Column: 1}
	if hidden {
		// A lambda's proxy (a hidden class): named after the class that made
		// it, dimmed like library code; the user's code is the lambda$ frame.
		sf.PresentationHint = "subtle"
	}
	if m.ModBits&jdwp.AccNative != 0 {
		sf.PresentationHint = "subtle"
		sf.Name += " (native)"
		return sf, nil
	}
	lt, err := d.vm.LineTable(ctx, loc.Class, loc.Method)
	if err != nil {
		return godap.StackFrame{}, err
	}
	if !lt.Absent {
		sf.Line = int(lt.LineFor(loc.Index))
	}
	src, err := d.source(ctx, loc.Class, sig)
	if err != nil {
		return godap.StackFrame{}, err
	}
	if sf.Line > 0 && src != nil && src.SourceReference == 0 {
		src, sf.Line = d.stratumSource(ctx, loc.Class, sig, src, sf.Line)
	}
	sf.Source = src
	if src == nil || src.Path == "" {
		sf.PresentationHint = "subtle"
	}
	if src != nil && src.SourceReference != 0 {
		if _, archived := d.archived(src.SourceReference); !archived {
			// The outline: its own line numbers, at the frame's instruction.
			if l := d.outlineLine(ctx, loc); l > 0 {
				sf.Line = l
			}
		}
	}
	return sf, nil
}

// describeObsolete names a frame still running the old code of a method a
// hot code replace changed: the method and line it was at, from the old
// method's line table (mirror.Obsolete), in its source file; restartFrame
// re-enters the new code. A frame whose thread was running at the
// redefinition is only known by its class.
func (d *debuggee) describeObsolete(ctx context.Context, f mirror.Frame, total int32) (godap.StackFrame, error) {
	sig, err := d.vm.Signature(ctx, f.Loc.Class)
	if err != nil {
		return godap.StackFrame{}, err
	}
	old, ok := d.t.Obsolete().Find(f, total)
	if !ok {
		return d.obsoleteFrame(ctx, f.Loc.Class, sig)
	}
	name, _ := frameClassName(sig)
	sf := godap.StackFrame{Name: name + "." + old.Method.Name + " (obsolete code: restart the frame to run the new)", Column: 1}
	if !old.Lines.Absent {
		sf.Line = int(old.Lines.LineFor(f.Loc.Index))
	}
	if sf.Source, err = d.source(ctx, f.Loc.Class, sig); err != nil {
		return godap.StackFrame{}, err
	}
	if sf.Source == nil || sf.Source.Path == "" {
		sf.PresentationHint = "subtle"
	}
	return sf, nil
}

// stratumSource maps a frame's line through its class's language (a
// Kotlin class's source map: code inlined from another file, its lines past
// the class's file's end, reads as that file and line); a line the language
// leaves alone keeps the class's own source.
func (d *debuggee) stratumSource(ctx context.Context, class jdwp.ReferenceTypeID, sig string, own *godap.Source, line int) (*godap.Source, int) {
	l := d.langOfClass(ctx, class)
	w := l.Locate(lang.Located{ClassSig: sig, SourceFile: own.Name, Line: line, SMAP: d.smapOf(class)})
	if w.Line == line && w.Rel == l.Locate(lang.Located{ClassSig: sig, SourceFile: own.Name}).Rel {
		return own, line
	}
	if src := d.sourceOfRel(w.Rel); src != nil {
		return src, w.Line
	}
	return &godap.Source{Name: path.Base(w.Rel), PresentationHint: "deemphasize", Origin: "inlined from " + w.Rel + ", not found in sourcePaths"}, w.Line
}

// sourceOfRel finds a source file by its path relative to a source root:
// under the source paths, then without them; nil when neither has it.
func (d *debuggee) sourceOfRel(rel string) *godap.Source {
	for _, root := range d.srcs.sourcePaths {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if _, err := os.Stat(p); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			return &godap.Source{Name: path.Base(rel), Path: p}
		}
	}
	return d.autoSource(rel)
}

// source maps a class to its source file through the source paths: the
// class's package directory plus its SourceFile attribute, under the first
// source root that has it. Without a local file the source has only a name.
func (d *debuggee) source(ctx context.Context, class jdwp.ReferenceTypeID, sig string) (*godap.Source, error) {
	return d.srcs.sources.Get(class, func() (*godap.Source, error) {
		file, err := d.vm.SourceFile(ctx, class)
		if mirror.Absent(err) {
			name, _ := frameClassName(sig)
			return &godap.Source{Name: name + ".class", SourceReference: d.sourceRef(class), PresentationHint: "deemphasize", Origin: "no SourceFile attribute: outline and bytecode"}, nil
		}
		if err != nil {
			return nil, err
		}
		rel := d.srcs.langs.ForClass(file).Locate(lang.Located{ClassSig: sig, SourceFile: file}).Rel
		for _, root := range d.srcs.sourcePaths {
			p := filepath.Join(root, filepath.FromSlash(rel))
			if _, err := os.Stat(p); err == nil {
				if abs, err := filepath.Abs(p); err == nil {
					p = abs
				}
				return &godap.Source{Name: file, Path: p}, nil
			}
		}
		if src := d.autoSource(rel); src != nil {
			return src, nil
		}
		return &godap.Source{Name: file, SourceReference: d.sourceRef(class), PresentationHint: "deemphasize", Origin: "not found in sourcePaths: " + rel + "; outline and bytecode"}, nil
	})
}

// Scopes: "Locals" (this first, then the method's visible variables) and
// "Static" (the static fields of the frame's class).
func (s *session) scopes(_ context.Context, r *godap.ScopesRequest) (godap.ScopesResponseBody, error) {
	d := s.dbg
	if ar, ok := d.refs.asyncFrames.get(r.Arguments.FrameId); ok {
		af := ar.af
		if af == nil {
			return godap.ScopesResponseBody{Scopes: []godap.Scope{}}, nil
		}
		return godap.ScopesResponseBody{Scopes: []godap.Scope{
			{Name: "Locals", PresentationHint: "locals", VariablesReference: d.refs.vars.add(&spilledScope{af: af})},
		}}, nil
	}
	f, ok := d.refs.frames.get(r.Arguments.FrameId)
	if !ok {
		return godap.ScopesResponseBody{}, fmt.Errorf("unknown frame id %d (frames are forgotten when the VM resumes)", r.Arguments.FrameId)
	}
	scopes := []godap.Scope{
		{Name: "Locals", PresentationHint: "locals", VariablesReference: d.refs.vars.add(&localsScope{f: f})},
		{Name: "Static", VariablesReference: d.refs.vars.add(&staticsScope{class: f.Loc.Class, thread: f.Thread, loc: f.Loc})},
	}
	return godap.ScopesResponseBody{Scopes: scopes}, nil
}

// hiddenSuffix is the address HotSpot appends to a hidden class's name
// (Orders$$Lambda$14/0x0000000800c03000; in a signature the slash reads as
// a package separator).
var hiddenSuffix = regexp.MustCompile(`[./]0x[0-9a-fA-F]+$`)

// frameClassName is the simple class name a stack frame shows for a class
// signature, and whether the class is hidden (a lambda proxy): its address
// suffix is dropped, so a frame reads Orders$$Lambda$14.applyAsInt, never
// 0x0000000800c03000.applyAsInt.
func frameClassName(sig string) (string, bool) {
	name := javalang.TypeName(sig)
	hidden := false
	if loc := hiddenSuffix.FindStringIndex(name); loc != nil {
		name, hidden = name[:loc[0]], true
	}
	return name[strings.LastIndexByte(name, '.')+1:], hidden
}
