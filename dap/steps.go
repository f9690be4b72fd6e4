package dap

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ddmbridge/ddmbridge/dap/classfile"
	"github.com/ddmbridge/ddmbridge/dap/expr"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	godap "github.com/google/go-dap"
)

// Stepping: line steps with step filters, restartFrame's step back into
// the restarted method, and step into a chosen call (stepInTargets).
//
// Step filters (LaunchConfig.StepFilters) work in two ways: class patterns
// become JDWP ClassExclude modifiers, so the VM itself passes over those
// classes; synthetic methods, static initializers and constructors cannot
// be excluded by the VM, so a step that lands in one (deeper than where the
// step began) steps out of it and then into the rest of the line again.

// jdkClasses are the classes "$JDK" stands for (and the default filter).
var jdkClasses = []string{"java.*", "javax.*", "jdk.*", "sun.*", "com.sun.*"}

// stepState is the step in progress.
type stepState struct {
	thread   jdwp.ThreadID
	depth    jdwp.StepDepth
	reason   string // the stopped event's reason: "step" or "restart"
	origin   int32  // frames on the thread when the step began
	from     jdwp.Location
	fromLine int32
	leaving  bool // stepping out of a filtered method
	hops     int  // filtered methods left so far
	target   *stepTarget
	entryReq int32 // the method-entry request of a step into a target
}

// stepTarget is a call stepInTargets offered.
type stepTarget struct {
	thread            jdwp.ThreadID
	class, name, desc string // class as a binary name
	static            bool
}

// skipClasses are the class patterns step-into excludes.
func (d *debuggee) skipClasses() []string {
	f := d.opts.StepFilters
	if f == nil {
		return jdkClasses
	}
	var out []string
	for _, p := range f.SkipClasses {
		switch p {
		case "$JDK":
			out = append(out, jdkClasses...)
		case "$Libraries":
			// Without a project model the adapter cannot tell libraries from
			// the program; ignored.
		default:
			out = append(out, p)
		}
	}
	return out
}

// startStep begins a step of a thread (the VM stays suspended until the
// caller resumes it).
func (d *debuggee) startStep(ctx context.Context, t jdwp.ThreadID, depth jdwp.StepDepth, reason string) error {
	d.clearSteps(ctx, t)
	st := &stepState{thread: t, depth: depth, reason: reason}
	if f := d.opts.StepFilters; depth == jdwp.StepInto && f != nil && (f.SkipConstructors || f.SkipStaticInitializers || f.SkipSynthetics) {
		n, err := d.vm.FrameCount(ctx, t)
		if err != nil {
			return err
		}
		fs, err := d.vm.Frames(ctx, t, 0, 1)
		if err != nil || len(fs) == 0 {
			return fmt.Errorf("the thread's top frame: %v", err)
		}
		st.origin, st.from = n, fs[0].Loc
		if lt, err := d.vm.LineTable(ctx, st.from.Class, st.from.Method); err == nil && !lt.Absent {
			st.fromLine = lt.LineFor(st.from.Index)
		}
	}
	d.mu.Lock()
	d.stepSt.stepping[t] = st
	d.mu.Unlock()
	return d.stepRequest(ctx, t, depth)
}

// stepRequest sets a one-shot line step request.
func (d *debuggee) stepRequest(ctx context.Context, t jdwp.ThreadID, depth jdwp.StepDepth) error {
	mods := []jdwp.Modifier{jdwp.Step{Thread: t, Size: jdwp.StepLine, Depth: depth}}
	if depth == jdwp.StepInto {
		for _, p := range d.skipClasses() {
			mods = append(mods, jdwp.ClassExclude(p))
		}
	}
	mods = append(mods, jdwp.Count(1))
	id, err := d.setRequest(ctx, jdwp.EventSingleStep, stopPolicy, mods...)
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.stepSt.steps[t] = append(d.stepSt.steps[t], id)
	d.mu.Unlock()
	return nil
}

// filtered reports whether step filters pass over the method at loc.
func (d *debuggee) filtered(ctx context.Context, loc jdwp.Location) bool {
	f := d.opts.StepFilters
	if f == nil {
		return false
	}
	m, err := d.vm.Method(ctx, loc.Class, loc.Method)
	if err != nil {
		return false
	}
	switch {
	case f.SkipConstructors && m.Name == "<init>", f.SkipStaticInitializers && m.Name == "<clinit>":
		return true
	case f.SkipSynthetics:
		if m.ModBits&(jdwp.AccSynthetic|mirror.AccBridge) != 0 || strings.HasPrefix(m.Name, "lambda$") {
			return true
		}
		sig, err := d.vm.Signature(ctx, loc.Class)
		return err == nil && strings.Contains(sig, "$$Lambda")
	}
	return false
}

// onStep decides whether a completed step stops, or goes on past a
// filtered method.
func (d *debuggee) onStep(ctx context.Context, e jdwp.Event) *stopInfo {
	d.clearRequest(ctx, jdwp.EventSingleStep, e.RequestID)
	d.mu.Lock()
	st := d.stepSt.stepping[e.Thread]
	if ids := d.stepSt.steps[e.Thread]; len(ids) > 0 {
		d.stepSt.steps[e.Thread] = removeID(ids, e.RequestID)
	}
	d.mu.Unlock()
	if st == nil || st.thread != e.Thread {
		return &stopInfo{reason: "step", thread: e.Thread}
	}
	stop := &stopInfo{reason: st.reason, thread: e.Thread}
	if st.leaving {
		st.leaving = false
		if err := d.stepRequest(ctx, e.Thread, jdwp.StepInto); err != nil {
			d.log.Warn().Err(err).Msg("step into after leaving a filtered method")
			return stop
		}
		return nil
	}
	if st.hops < 20 {
		if depth, again := d.stepOn(ctx, st, e.Location); again {
			st.hops++
			if err := d.stepRequest(ctx, e.Thread, depth); err == nil {
				return nil
			}
		}
	}
	if st.depth != jdwp.StepInto || st.hops >= 20 || d.opts.StepFilters == nil {
		return stop
	}
	n, err := d.vm.FrameCount(ctx, e.Thread)
	if err != nil {
		return stop
	}
	switch {
	case n > st.origin && d.filtered(ctx, e.Location):
		st.hops++
		st.leaving = true
		if err := d.stepRequest(ctx, e.Thread, jdwp.StepOut); err == nil {
			return nil
		}
		st.leaving = false
	case st.hops > 0 && n == st.origin && e.Location.Class == st.from.Class && e.Location.Method == st.from.Method:
		// Back on the line the step began on, after a filtered call
		// returned: the step is not over yet.
		if lt, err := d.vm.LineTable(ctx, e.Location.Class, e.Location.Method); err == nil && !lt.Absent && lt.LineFor(e.Location.Index) == st.fromLine {
			st.hops++
			if err := d.stepRequest(ctx, e.Thread, jdwp.StepInto); err == nil {
				return nil
			}
		}
	}
	return stop
}

// onMethodEntry stops a step into a target when the target is entered.
func (d *debuggee) onMethodEntry(ctx context.Context, e jdwp.Event) *stopInfo {
	d.mu.Lock()
	st := d.stepSt.stepping[e.Thread]
	d.mu.Unlock()
	if st == nil || st.target == nil || st.thread != e.Thread {
		return nil
	}
	m, err := d.vm.Method(ctx, e.Location.Class, e.Location.Method)
	if err != nil || m.Name != st.target.name || m.Signature != st.target.desc {
		return nil
	}
	return &stopInfo{reason: "step", thread: e.Thread}
}

func (s *session) stepInTargets(ctx context.Context, r *godap.StepInTargetsRequest) (godap.StepInTargetsResponseBody, error) {
	d := s.dbg
	if err := d.cannot("supportsStepInTargetsRequest"); err != nil {
		return godap.StepInTargetsResponseBody{}, failWith(ErrVMCannot, err)
	}
	f, ok := d.refs.frames.get(r.Arguments.FrameId)
	if !ok {
		return godap.StepInTargetsResponseBody{}, fmt.Errorf("unknown frame id %d", r.Arguments.FrameId)
	}
	calls, line, err := d.callsOnLine(ctx, f.Loc)
	if err != nil {
		return godap.StepInTargetsResponseBody{}, err
	}
	targets := []godap.StepInTarget{}
	for _, m := range calls {
		t := &stepTarget{thread: f.Thread, class: javalang.ClassName(m.Class), name: m.Name, desc: m.Descriptor}
		label := expr.Method{Class: javalang.ClassSignature(m.Class), Name: m.Name, Signature: m.Descriptor}.String()
		targets = append(targets, godap.StepInTarget{Id: d.refs.targets.add(t), Label: label, Line: line})
	}
	return godap.StepInTargetsResponseBody{Targets: targets}, nil
}

// callsOnLine lists the methods called on the rest of loc's line, in order.
func (d *debuggee) callsOnLine(ctx context.Context, loc jdwp.Location) ([]classfile.Member, int, error) {
	lt, err := d.vm.LineTable(ctx, loc.Class, loc.Method)
	if err != nil {
		return nil, 0, err
	}
	if lt.Absent {
		return nil, 0, fmt.Errorf("the method has no line numbers (compiled without -g)")
	}
	line := lt.LineFor(loc.Index)
	entries := slices.Clone(lt.Lines)
	slices.SortFunc(entries, func(a, b jdwp.LineEntry) int { return int(a.CodeIndex) - int(b.CodeIndex) })
	inLine := func(idx uint64) bool {
		for i, e := range entries {
			end := lt.End + 1
			if i+1 < len(entries) {
				end = entries[i+1].CodeIndex
			}
			if e.Line == line && idx >= e.CodeIndex && idx < end {
				return true
			}
		}
		return false
	}
	ins, err := d.disassemble(ctx, loc.Class, loc.Method)
	if err != nil {
		return nil, 0, err
	}
	var out []classfile.Member
	for _, in := range ins {
		if in.IsInvoke() && in.Member != nil && uint64(in.Offset) >= loc.Index && inLine(uint64(in.Offset)) {
			out = append(out, *in.Member)
		}
	}
	return out, int(line), nil
}

// disassemble decodes a method's bytecodes with its class's constant pool.
func (d *debuggee) disassemble(ctx context.Context, class jdwp.ReferenceTypeID, method jdwp.MethodID) ([]classfile.Instruction, error) {
	pool, err := d.pool(ctx, class)
	if err != nil {
		return nil, err
	}
	code, err := d.vm.Bytecodes(ctx, class, method)
	if err != nil {
		return nil, fmt.Errorf("bytecodes: %w", err)
	}
	return classfile.Disassemble(code, pool)
}

func (d *debuggee) pool(ctx context.Context, class jdwp.ReferenceTypeID) (*classfile.Pool, error) {
	return d.srcs.pools.Get(class, func() (*classfile.Pool, error) {
		count, data, err := d.vm.ConstantPool(ctx, class)
		if err != nil {
			return nil, fmt.Errorf("constant pool: %w", err)
		}
		p, _, err := classfile.ParsePool(int(count), data)
		return p, err
	})
}

// stepInTarget steps into one call of the current line: it watches method
// entries in the thread until the target is entered, and steps over the
// line in case it is not.
func (s *session) stepInTarget(ctx context.Context, r *godap.StepInRequest) (resumePlan, error) {
	d := s.dbg
	target, ok := d.refs.targets.get(r.Arguments.TargetId)
	if !ok {
		return resumePlan{}, fmt.Errorf("unknown target id %d (targets are forgotten when the VM resumes)", r.Arguments.TargetId)
	}
	d.clearSteps(ctx, target.thread)
	mods := []jdwp.Modifier{jdwp.ThreadOnly(target.thread)}
	if !strings.HasPrefix(target.class, "java.") {
		for _, p := range jdkClasses {
			mods = append(mods, jdwp.ClassExclude(p))
		}
	}
	entry, err := d.setRequest(ctx, jdwp.EventMethodEntry, stopPolicy, mods...)
	if err != nil {
		return resumePlan{}, err
	}
	d.mu.Lock()
	d.stepSt.stepping[target.thread] = &stepState{thread: target.thread, depth: jdwp.StepOver, reason: "step", target: target, entryReq: entry}
	d.mu.Unlock()
	if err := d.stepRequest(ctx, target.thread, jdwp.StepOver); err != nil {
		return resumePlan{}, err
	}
	return resumePlan{thread: target.thread, continued: r.Arguments.ThreadId}, nil
}
