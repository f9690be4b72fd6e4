package dap

import (
	"context"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	godap "github.com/google/go-dap"
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
	if spec.method == simpleName(strings.ReplaceAll(spec.class, "$", ".")) {
		spec.method = "<init>"
	}
	return spec, nil
}

// simple is the spec's class's simple name.
func (f *funcSpec) simple() string {
	return simpleName(strings.ReplaceAll(f.class, "$", "."))
}

// matchesClass reports whether a loaded class (binary name) is the spec's.
func (f *funcSpec) matchesClass(name string) bool {
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

func (s *session) setFunctionBreakpoints(ctx context.Context, r *godap.SetFunctionBreakpointsRequest) (godap.SetFunctionBreakpointsResponseBody, error) {
	bps, err := s.dbg.setFunctionBreakpoints(ctx, r.Arguments.Breakpoints)
	if err != nil {
		return godap.SetFunctionBreakpointsResponseBody{}, err
	}
	return godap.SetFunctionBreakpointsResponseBody{Breakpoints: bps}, nil
}

// setFunctionBreakpoints replaces the function breakpoints.
func (d *debuggee) setFunctionBreakpoints(ctx context.Context, want []godap.FunctionBreakpoint) ([]godap.Breakpoint, error) {
	d.bpMu.Lock()
	defer d.bpMu.Unlock()
	d.mu.Lock()
	old := d.bps.funcBPs
	d.bps.funcBPs = nil
	for _, bp := range old {
		for _, id := range bp.reqs {
			delete(d.bps.bpByReq, id)
		}
	}
	for id := range d.bps.fnPrep {
		delete(d.bps.fnPrep, id)
	}
	d.mu.Unlock()
	for _, bp := range old {
		for _, id := range bp.reqs {
			d.clearRequest(ctx, jdwp.EventBreakpoint, id)
		}
		if bp.prepReq != 0 {
			d.clearRequest(ctx, jdwp.EventClassPrepare, bp.prepReq)
		}
	}
	var all []jdwp.ClassInfo
	out := make([]godap.Breakpoint, 0, len(want))
	for _, w := range want {
		d.mu.Lock()
		bp := &breakpoint{id: d.bps.nextBP, reason: "function breakpoint", done: map[jdwp.ReferenceTypeID]bool{}}
		d.bps.nextBP++
		d.mu.Unlock()
		bp.parse(godap.SourceBreakpoint{Condition: w.Condition, HitCondition: w.HitCondition})
		spec, err := parseFuncName(w.Name)
		if err != nil {
			bp.bad = err.Error()
			out = append(out, bp.dap())
			continue
		}
		bp.fn = spec
		d.bps.funcBPs = append(d.bps.funcBPs, bp)
		if bp.bad != "" {
			out = append(out, bp.dap())
			continue
		}
		id, err := d.setRequest(ctx, jdwp.EventClassPrepare, jdwp.SuspendEventThread, jdwp.ClassMatch("*"+spec.simple()))
		if err != nil {
			return nil, fmt.Errorf("watch for class %s: %w", spec.class, err)
		}
		bp.prepReq = id
		d.mu.Lock()
		d.bps.fnPrep[id] = bp
		d.mu.Unlock()
		if all == nil {
			if all, err = d.vm.AllClasses(ctx); err != nil {
				return nil, fmt.Errorf("list loaded classes: %w", err)
			}
		}
		for _, c := range all {
			if c.Status&jdwp.ClassPrepared != 0 && strings.HasPrefix(c.Signature, "L") && spec.matchesClass(javalang.TypeName(c.Signature)) {
				if err := d.installFunc(ctx, bp, c.ID); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, bp.dap())
	}
	return out, nil
}

// installFunc sets a function breakpoint in the matching methods of a
// class. Callers hold bpMu.
func (d *debuggee) installFunc(ctx context.Context, bp *breakpoint, class jdwp.ReferenceTypeID) error {
	if bp.done[class] {
		return nil
	}
	bp.done[class] = true
	ms, err := d.vm.Methods(ctx, class)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if !bp.fn.matchesMethod(m) {
			continue
		}
		idx, line := uint64(0), 0
		lt, err := d.vm.LineTable(ctx, class, m.ID)
		if err != nil {
			return err
		}
		if !lt.Absent {
			idx, line = lt.Start, int(lt.LineFor(lt.Start))
		}
		id, err := d.setRequest(ctx, jdwp.EventBreakpoint, stopPolicy, jdwp.LocationOnly{TypeTag: jdwp.TypeTagClass, Class: class, Method: m.ID, Index: idx})
		if err != nil {
			return fmt.Errorf("set function breakpoint %s: %w", bp.fn.text, err)
		}
		d.mu.Lock()
		bp.reqs = append(bp.reqs, id)
		d.bps.bpByReq[id] = bp
		d.mu.Unlock()
		if !bp.verified {
			bp.verified, bp.actual = true, line
			if sig, err := d.vm.Signature(ctx, class); err == nil {
				bp.src, _ = d.source(ctx, class, sig)
			}
		}
	}
	return nil
}

// onFuncClassPrepare installs function breakpoints in a class that just
// loaded and reports the ones that became verified.
func (d *debuggee) onFuncClassPrepare(ctx context.Context, bp *breakpoint, e jdwp.Event) {
	if !bp.fn.matchesClass(javalang.TypeName(e.Signature)) {
		return
	}
	d.bpMu.Lock()
	was := bp.verified
	if err := d.installFunc(ctx, bp, e.RefType); err != nil {
		d.log.Warn().Err(err).Msg("install function breakpoint")
	}
	changed := bp.verified && !was
	b := bp.dap()
	d.bpMu.Unlock()
	if changed {
		d.s.send(&godap.BreakpointEvent{Event: newEvent("breakpoint"), Body: godap.BreakpointEventBody{Reason: "changed", Breakpoint: b}})
	}
}
