package debugger

import (
	"context"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Function breakpoints: "Class.method", "pkg.Class.method",
// "Outer.Inner.method", with an optional signature as JNI ("(I)V") or as
// Java parameter types ("(int, String)"). Class names may be simple. The
// breakpoint is set at the first line of every matching method of every
// matching class, the loaded ones at once and the others when they are
// prepared; it stops with reason "function breakpoint".

// funcSpec is a parsed function breakpoint name.
type funcSpec struct {
	text   string
	class  string   // as written: binary, qualified or simple
	method string   // "<init>" for a constructor (Class.Class or Class.<init>)
	desc   string   // a full JNI descriptor, or ""
	params []string // Java parameter type names, when given that way
	typed  bool     // a parameter list was given
}

func parseFuncName(s string) (*funcSpec, error) {
	s = strings.TrimSpace(s)
	spec := &funcSpec{text: s}
	head := s
	if i := strings.IndexByte(s, '('); i >= 0 {
		head, spec.typed = s[:i], true
		sig := s[i:]
		close := strings.IndexByte(sig, ')')
		if close < 0 {
			return nil, fmt.Errorf("%q: the parameter list has no )", s)
		}
		if rest := strings.TrimSpace(sig[close+1:]); rest != "" {
			if _, ret := javalang.ParamSigs(sig); ret == "" || strings.ContainsAny(sig, " ,") {
				return nil, fmt.Errorf("%q: %q is neither a JNI descriptor such as (I)V nor Java parameter types such as (int, String)", s, sig)
			}
			spec.desc = sig
		} else if inner := strings.TrimSpace(sig[1:close]); inner != "" {
			for _, p := range strings.Split(inner, ",") {
				spec.params = append(spec.params, strings.TrimSpace(p))
			}
		}
	}
	dot := strings.LastIndexAny(head, ".#")
	if dot <= 0 || dot == len(head)-1 {
		return nil, fmt.Errorf("%q: name a method as Class.method, e.g. com.example.App.main or App.run(int)", s)
	}
	spec.class, spec.method = strings.TrimSpace(head[:dot]), strings.TrimSpace(head[dot+1:])
	if spec.method == javalang.SimpleName(strings.ReplaceAll(spec.class, "$", ".")) {
		spec.method = "<init>"
	}
	return spec, nil
}

// simple is the spec's class's simple name.
func (f *funcSpec) simple() string {
	return javalang.SimpleName(strings.ReplaceAll(f.class, "$", "."))
}

// matchesClass reports whether a loaded class (binary name) is the spec's,
// or the companion object of the spec's class (Kotlin: Shop.open names the
// companion's open, Shop$Companion.open, as IntelliJ reads it).
func (f *funcSpec) matchesClass(name string) bool {
	if f.matchesOwnClass(name) {
		return true
	}
	if f.method == "<init>" || f.method == "<clinit>" {
		return false // Shop.Shop is Shop's constructor, never its companion's
	}
	if facade, _, ok := strings.Cut(name, "__"); ok && f.matchesOwnClass(facade) {
		return true // a part of a Kotlin multifile facade (app.Multi__MultiAKt)
	}
	outer, ok := strings.CutSuffix(name, "$Companion")
	return ok && f.matchesOwnClass(outer)
}

// matchesOwnClass reports whether a class (binary name) is the one the spec
// names.
func (f *funcSpec) matchesOwnClass(name string) bool {
	dotted := strings.ReplaceAll(name, "$", ".")
	want := strings.ReplaceAll(f.class, "$", ".")
	return dotted == want || strings.HasSuffix(dotted, "."+want)
}

// matchesMethod reports whether a method is the spec's.
func (f *funcSpec) matchesMethod(m jdwp.MethodInfo) bool {
	if m.Name != f.method || m.ModBits&(jdwp.AccNative|jdwp.AccAbstract) != 0 {
		return false
	}
	switch {
	case f.desc != "":
		return m.Signature == f.desc
	case !f.typed:
		return true
	}
	params, _ := javalang.ParamSigs(m.Signature)
	if len(params) != len(f.params) {
		return false
	}
	for i, p := range params {
		have := javalang.TypeName(p)
		want := strings.ReplaceAll(f.params[i], " ", "")
		if have != want && !strings.HasSuffix(strings.ReplaceAll(have, "$", "."), "."+want) {
			return false
		}
	}
	return true
}

// ParseFunctionName checks a function breakpoint's name the way
// SetFunctionBreakpoints reads it.
func ParseFunctionName(s string) error {
	_, err := parseFuncName(s)
	return err
}

// FunctionSpec is one function breakpoint as the user asks for it.
type FunctionSpec struct {
	Name string // "Class.method", with an optional signature
	BreakpointSpec
}

// SetFunctionBreakpoints replaces the function breakpoints.
func (t *Target) SetFunctionBreakpoints(ctx context.Context, want []FunctionSpec) ([]BreakpointInfo, error) {
	t.bpMu.Lock()
	defer t.bpMu.Unlock()
	t.mu.Lock()
	old := t.bps.funcBPs
	t.bps.funcBPs = nil
	for _, bp := range old {
		for _, id := range bp.reqs {
			delete(t.bps.bpByReq, id)
		}
	}
	for id := range t.bps.fnPrep {
		delete(t.bps.fnPrep, id)
	}
	t.mu.Unlock()
	for _, bp := range old {
		for _, id := range bp.reqs {
			t.Requests.Clear(ctx, jdwp.EventBreakpoint, id)
		}
		for _, id := range bp.prepReqs {
			t.Requests.Clear(ctx, jdwp.EventClassPrepare, id)
		}
	}
	var all []jdwp.ClassInfo
	out := make([]BreakpointInfo, 0, len(want))
	for _, w := range want {
		t.mu.Lock()
		bp := t.newBreakpoint(BreakpointSpec{Cond: w.Cond, Hit: w.Hit, Bad: w.Bad}, "function breakpoint")
		t.mu.Unlock()
		spec, err := parseFuncName(w.Name)
		if err != nil {
			bp.bad = err.Error()
			out = append(out, bp.info())
			continue
		}
		bp.fn = spec
		t.mu.Lock()
		t.bps.funcBPs = append(t.bps.funcBPs, bp)
		t.mu.Unlock()
		if bp.bad != "" {
			out = append(out, bp.info())
			continue
		}
		patterns := []string{"*" + spec.simple()}
		if spec.simple() != "Companion" {
			patterns = append(patterns, "*"+spec.simple()+"$Companion")
		}
		for _, pattern := range patterns {
			id, err := t.Requests.Set(ctx, jdwp.EventClassPrepare, jdwp.SuspendEventThread, jdwp.ClassMatch(pattern))
			if err != nil {
				return nil, fmt.Errorf("watch for class %s: %w", spec.class, err)
			}
			bp.prepReqs = append(bp.prepReqs, id)
			t.mu.Lock()
			t.bps.fnPrep[id] = bp
			t.mu.Unlock()
		}
		if all == nil {
			if all, err = t.VM.AllClasses(ctx); err != nil {
				return nil, fmt.Errorf("list loaded classes: %w", err)
			}
		}
		for _, c := range all {
			if c.Status&jdwp.ClassPrepared != 0 && strings.HasPrefix(c.Signature, "L") && spec.matchesClass(javalang.TypeName(c.Signature)) {
				if err := t.installFunc(ctx, bp, c.ID); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, bp.info())
	}
	return out, nil
}

// installFunc sets a function breakpoint in the matching methods of a
// class. Callers hold bpMu.
func (t *Target) installFunc(ctx context.Context, bp *breakpoint, class jdwp.ReferenceTypeID) error {
	if bp.done[class] {
		return nil
	}
	bp.done[class] = true
	if err := t.watchNamedCompanion(ctx, bp, class); err != nil {
		return err
	}
	if skip, err := t.outerHasFunc(ctx, bp, class); err != nil || skip {
		return err
	}
	declaring, ms, err := t.funcMethods(ctx, bp.fn, class)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if !bp.fn.matchesMethod(m) {
			continue
		}
		if declaring == class {
			if facade, err := t.watchParts(ctx, bp, class, m); err != nil || facade {
				if err != nil {
					return err
				}
				continue
			}
		}
		cont, err := t.suspendResumer(ctx, declaring, m)
		if err != nil {
			return err
		}
		idx, line := uint64(0), 0
		lt, err := t.VM.LineTable(ctx, declaring, m.ID)
		if err != nil {
			return err
		}
		if !lt.Absent {
			idx, line = lt.Start, int(lt.LineFor(lt.Start))
			if line < 0 {
				// No line at the method's start: kotlinc checks the
				// parameters (Intrinsics.checkNotNullParameter) before the
				// first line's code. Stop at the first line instead.
				first := false
				for _, e := range lt.Lines {
					if !first || e.CodeIndex < idx {
						idx, line, first = e.CodeIndex, int(e.Line), true
					}
				}
			}
			if cont != "" {
				// A suspend function's state machine: the code on its
				// header line (the continuation made or taken, the
				// dispatch on its label) runs at every resumption; the
				// first code of another line is the body's start, which
				// only a call runs (a resumption jumps past it to its
				// label's code).
				idx, line = firstBodyLine(lt.Lines, idx, line)
			}
		}
		id, err := t.Requests.Set(ctx, jdwp.EventBreakpoint, stopPolicy, jdwp.LocationOnly{TypeTag: jdwp.TypeTagClass, Class: declaring, Method: m.ID, Index: idx})
		if err != nil {
			return fmt.Errorf("set function breakpoint %s: %w", bp.fn.text, err)
		}
		t.mu.Lock()
		bp.reqs = append(bp.reqs, id)
		t.bps.bpByReq[id] = bp
		if declaring != class {
			// Inherited: the hit counts when this is a class's.
			if bp.receivers == nil {
				bp.receivers = map[int32]jdwp.ReferenceTypeID{}
			}
			bp.receivers[id] = class
		}
		if cont != "" {
			if bp.resumers == nil {
				bp.resumers = map[int32]string{}
			}
			bp.resumers[id] = cont
		}
		t.mu.Unlock()
		if !bp.verified {
			bp.verified, bp.actual, bp.class = true, line, class
			bp.classSig, _ = t.VM.Signature(ctx, class)
		}
	}
	return nil
}

// watchParts reports whether m is a method of a Kotlin multifile facade
// (Multi.partA, which only calls Multi__MultiAKt.partA: see
// multifileFacade); then the breakpoint goes in the facade's parts, those
// loaded and those that load later (a class-prepare request for
// <facade>__*), never in the facade, which has no source.
func (t *Target) watchParts(ctx context.Context, bp *breakpoint, class jdwp.ReferenceTypeID, m jdwp.MethodInfo) (bool, error) {
	sig, err := t.VM.Signature(ctx, class)
	if err != nil {
		return false, err
	}
	name := javalang.TypeName(sig)
	if !t.multifileFacade(ctx, name, jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: class, Method: m.ID}) {
		return false, nil
	}
	if bp.partsWatched == nil {
		bp.partsWatched = map[string]bool{}
	}
	if bp.partsWatched[name] {
		return true, nil
	}
	bp.partsWatched[name] = true
	id, err := t.Requests.Set(ctx, jdwp.EventClassPrepare, jdwp.SuspendEventThread, jdwp.ClassMatch(name+"__*"))
	if err != nil {
		return true, fmt.Errorf("watch for the parts of %s: %w", name, err)
	}
	t.mu.Lock()
	bp.prepReqs = append(bp.prepReqs, id)
	t.bps.fnPrep[id] = bp
	t.mu.Unlock()
	all, err := t.VM.AllClasses(ctx)
	if err != nil {
		return true, err
	}
	prefix := "L" + strings.ReplaceAll(name, ".", "/") + "__"
	for _, c := range all {
		if c.Status&jdwp.ClassPrepared != 0 && strings.HasPrefix(c.Signature, prefix) {
			if err := t.installFunc(ctx, bp, c.ID); err != nil {
				return true, err
			}
		}
	}
	return true, nil
}

// watchNamedCompanion: a class the spec names (Crate for Crate.make) whose
// companion object has a name of its own (companion object Factory: the
// class app.Crate$Factory, held in Crate's static final field Factory, of
// its type; a nested object's instance is in its own class instead) has
// the breakpoint in its companion too, loaded or loading later (a
// class-prepare request for its name), as Shop$Companion is matched by
// its name. Callers hold bpMu.
func (t *Target) watchNamedCompanion(ctx context.Context, bp *breakpoint, class jdwp.ReferenceTypeID) error {
	if bp.fn.method == "<init>" || bp.fn.method == "<clinit>" {
		return nil
	}
	sig, err := t.VM.Signature(ctx, class)
	if err != nil || !strings.HasPrefix(sig, "L") || !bp.fn.matchesOwnClass(javalang.TypeName(sig)) {
		return err
	}
	fields, err := t.VM.DeclaredFields(ctx, class)
	if err != nil {
		return err
	}
	const mods = jdwp.AccStatic | jdwp.AccFinal
	for _, f := range fields {
		if f.ModBits&mods != mods || f.Name == "Companion" || f.Signature != strings.TrimSuffix(sig, ";")+"$"+f.Name+";" {
			continue
		}
		comp := javalang.TypeName(f.Signature)
		if bp.companions[comp] {
			continue
		}
		if bp.companions == nil {
			bp.companions = map[string]bool{}
		}
		bp.companions[comp] = true
		id, err := t.Requests.Set(ctx, jdwp.EventClassPrepare, jdwp.SuspendEventThread, jdwp.ClassMatch(comp))
		if err != nil {
			return fmt.Errorf("watch for the companion %s: %w", comp, err)
		}
		t.mu.Lock()
		bp.prepReqs = append(bp.prepReqs, id)
		t.bps.fnPrep[id] = bp
		t.mu.Unlock()
		loaded, err := t.VM.ClassesBySignature(ctx, f.Signature)
		if err != nil {
			return err
		}
		for _, c := range loaded {
			if c.Status&jdwp.ClassPrepared != 0 {
				if err := t.installFunc(ctx, bp, c.ID); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// outerHasFunc reports whether class is a companion object the spec
// matched through its outer class (Shop$Companion for Shop.open, a named
// companion Crate$Factory for Crate.make) while the outer class declares
// the method itself (a @JvmStatic one, which calls the companion's): the
// breakpoint stops there, once.
func (t *Target) outerHasFunc(ctx context.Context, bp *breakpoint, class jdwp.ReferenceTypeID) (bool, error) {
	fn := bp.fn
	sig, err := t.VM.Signature(ctx, class)
	if err != nil {
		return false, err
	}
	name := javalang.TypeName(sig)
	outer, ok := strings.CutSuffix(name, "$Companion")
	if bp.companions[name] {
		outer, ok = name[:strings.LastIndexByte(name, '$')], true
	}
	if !ok || fn.matchesOwnClass(name) {
		return false, nil
	}
	outers, err := t.VM.ClassesBySignature(ctx, "L"+strings.ReplaceAll(outer, ".", "/")+";")
	if err != nil {
		return false, err
	}
	for _, o := range outers {
		ms, err := t.VM.Methods(ctx, o.ID)
		if err != nil {
			return false, err
		}
		for _, m := range ms {
			if fn.matchesMethod(m) {
				t.log.Debug().Str("class", outer).Str("function", fn.text).Msg("function breakpoint: the outer class declares it; its companion's is not set")
				return true, nil
			}
		}
	}
	return false, nil
}

// funcMethods are the methods of class a function breakpoint may name:
// its own, or, when none of them matches, those of the nearest supertype
// that declares a match (Element.attr declared in Node; a default method
// of an interface), with that type.
func (t *Target) funcMethods(ctx context.Context, fn *funcSpec, class jdwp.ReferenceTypeID) (jdwp.ReferenceTypeID, []jdwp.MethodInfo, error) {
	ms, err := t.VM.Methods(ctx, class)
	if err != nil {
		return 0, nil, err
	}
	if fn.method == "<init>" || fn.method == "<clinit>" {
		return class, ms, nil
	}
	for _, m := range ms {
		if fn.matchesMethod(m) {
			return class, ms, nil
		}
	}
	seen := map[jdwp.ReferenceTypeID]bool{class: true}
	queue := []jdwp.ReferenceTypeID{class}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		var next []jdwp.ReferenceTypeID
		if sup, err := t.VM.Superclass(ctx, c); err == nil && sup != 0 {
			next = append(next, sup)
		}
		if ifaces, err := t.VM.Interfaces(ctx, c); err == nil {
			next = append(next, ifaces...)
		}
		for _, n := range next {
			if seen[n] {
				continue
			}
			seen[n] = true
			nms, err := t.VM.Methods(ctx, n)
			if err != nil {
				return 0, nil, err
			}
			for _, m := range nms {
				if fn.matchesMethod(m) {
					return n, nms, nil
				}
			}
			queue = append(queue, n)
		}
	}
	return class, ms, nil
}

// inheritedHit reports whether the hit of an inherited function
// breakpoint's request is in an instance of the class it names (this of
// the top frame): Element.attr set in Node.attr stops for Elements only.
func (t *Target) inheritedHit(ctx context.Context, bp *breakpoint, e jdwp.Event) bool {
	t.mu.Lock()
	want, ok := bp.receivers[e.RequestID]
	t.mu.Unlock()
	if !ok {
		return true
	}
	frames, err := t.Conn.Frames(ctx, e.Thread, 0, 1)
	if err != nil || len(frames) == 0 {
		return true
	}
	this, err := t.Conn.ThisObject(ctx, e.Thread, frames[0].ID)
	if err != nil || this.ID == 0 {
		return true // a static method: declared where it is
	}
	typ, _, err := t.VM.ObjectType(ctx, this.ID)
	if err != nil {
		return true
	}
	have, err1 := t.VM.Signature(ctx, typ)
	sup, err2 := t.VM.Signature(ctx, want)
	if err1 != nil || err2 != nil {
		return true
	}
	is, err := t.VM.Subtype(ctx, have, sup)
	return err != nil || is
}

// suspendResumer is, for a suspend function (isSuspendFunction), the
// binary-name prefix of the continuation classes the compiler makes for it
// (Kotlin's app.MainKt$fetchOne$), else "". Its state machine is entered
// again each time it resumes after a suspension: the continuation's
// invokeSuspend calls the method with itself, and the code jumps to the
// label it left at.
func (t *Target) suspendResumer(ctx context.Context, class jdwp.ReferenceTypeID, m jdwp.MethodInfo) (string, error) {
	s := t.suspending()
	if s == nil || !isSuspendFunction(m, s.Continuations()) {
		return "", nil
	}
	sig, err := t.VM.Signature(ctx, class)
	if err != nil {
		return "", err
	}
	return javalang.TypeName(sig) + "$" + m.Name + "$", nil
}

// firstBodyLine is the first code, in code order after idx, of a line
// other than the header's (line at idx), or idx and line when there is
// none (a body on the header's line).
func firstBodyLine(lines []jdwp.LineEntry, idx uint64, line int) (uint64, int) {
	best, bestLine, found := idx, line, false
	for _, e := range lines {
		if int(e.Line) != line && e.CodeIndex > idx && (!found || e.CodeIndex < best) {
			best, bestLine, found = e.CodeIndex, int(e.Line), true
		}
	}
	return best, bestLine
}

// resumedSuspend reports whether a function breakpoint's hit in a suspend
// function is its resumption, not a call: the caller is the function's own
// continuation's invokeSuspend. A function breakpoint stops once a call,
// as a line breakpoint on its first line does (which the resumption jumps
// past). One round trip (the caller's frame) where a hit may be a
// resumption; none for other methods. (The breakpoint is set at the body's
// first line, which a resumption jumps past: this catches what runs again
// where the body shares its header's line.)
func (t *Target) resumedSuspend(ctx context.Context, bp *breakpoint, e jdwp.Event) bool {
	t.mu.Lock()
	prefix, ok := bp.resumers[e.RequestID]
	t.mu.Unlock()
	if !ok {
		return false
	}
	frames, err := t.Conn.Frames(ctx, e.Thread, 1, 1)
	if err != nil || len(frames) == 0 {
		return false
	}
	caller := frames[0].Location
	sig, err := t.VM.Signature(ctx, caller.Class)
	if err != nil || !strings.HasPrefix(javalang.TypeName(sig), prefix) {
		return false
	}
	m, err := t.VM.Method(ctx, caller.Class, caller.Method)
	return err == nil && m.Name == t.suspending().Continuations().InvokeSuspend
}

// onFuncClassPrepare installs function breakpoints in a class that just
// loaded and reports the ones that became verified.
func (t *Target) onFuncClassPrepare(ctx context.Context, bp *breakpoint, e jdwp.Event) {
	t.bpMu.Lock()
	if name := javalang.TypeName(e.Signature); !bp.fn.matchesClass(name) && !bp.companions[name] {
		t.bpMu.Unlock()
		return
	}
	was := bp.verified
	if err := t.installFunc(ctx, bp, e.RefType); err != nil {
		t.log.Warn().Err(err).Msg("install function breakpoint")
	}
	changed := bp.verified && !was
	b := bp.info()
	t.bpMu.Unlock()
	if changed {
		t.fe.BreakpointChanged(b)
	}
}
