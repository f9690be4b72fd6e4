package eval

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// Completions: after "expr." the fields and methods of the value's runtime
// type (static members after a class name); otherwise the frame's locals,
// this's fields and methods, and the statics of the frame's class. The
// receiver is evaluated without running methods.

// Completion is one name completions offer.
type Completion struct {
	Label  string // "count", "get(int)"
	Text   string // what is inserted: "count", "get("
	Kind   string // "variable", "field", "method", "property", "keyword"
	Detail string // its type, simply named
}

// receiverWindow bounds how much of the text before the cursor ReceiverOf
// looks at: each start is parsed on its own, so the cost grows with the
// square of the text, and a receiver longer than this is not typed by hand.
const receiverWindow = 512

// ReceiverOf finds the longest expression ending the text (the receiver of
// the member being completed), within its last receiverWindow bytes.
func ReceiverOf(text string) (expr.Node, bool) {
	if len(text) > receiverWindow {
		text = text[len(text)-receiverWindow:]
	}
	for i := 0; i < len(text); i++ {
		n, err := expr.Parse(text[i:])
		if err != nil {
			continue
		}
		switch n.(type) {
		case *expr.Name, *expr.Select, *expr.Index, *expr.Call, *expr.This, *expr.Lit, *expr.New:
			return n, true
		}
		if t := strings.TrimSpace(text[i:]); strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") {
			return n, true
		}
	}
	return nil, false
}

// MemberCompletions lists the members of what recv (the text before the
// dot) is. Methods do not run: e is made to refuse them.
func (e *Frame) MemberCompletions(ctx context.Context, recv string) ([]Completion, error) {
	e.NoInvoke("completions do not run methods")
	n, ok := ReceiverOf(recv)
	if !ok {
		return nil, nil
	}
	v, err := expr.Eval(ctx, n, e.ev.Env(ctx, e))
	if err == nil {
		switch {
		case v.Kind == expr.KindObject && strings.HasPrefix(v.Type, "["):
			items := []Completion{{Label: "length", Kind: "property", Detail: "int"}}
			more, err := e.ev.members(ctx, "Ljava/lang/Object;", false)
			return append(items, more...), err
		case v.Kind.IsRef() && v.Kind != expr.KindNull:
			return e.ev.members(ctx, typeSigOf(v), false)
		}
		return nil, nil
	}
	if !errors.Is(err, expr.ErrUnknownName) {
		return nil, nil
	}
	class, cerr := e.Class(ctx, n.String())
	if cerr != nil {
		return nil, nil
	}
	return e.ev.members(ctx, class, true)
}

func typeSigOf(v expr.Value) string {
	if v.Kind == expr.KindString {
		return "Ljava/lang/String;"
	}
	return v.Type
}

// members lists the fields and methods of a class and its supertypes;
// statics only, or instance members too.
func (ev *Evaluator) members(ctx context.Context, class string, staticOnly bool) ([]Completion, error) {
	t, err := ev.vm.ClassBySignature(ctx, class)
	if err != nil {
		return nil, err
	}
	var items []Completion
	seen := map[string]bool{}
	chain, err := ev.vm.FieldChain(ctx, t)
	if err != nil {
		return nil, err
	}
	for _, f := range chain {
		if seen[f.Name] || f.ModBits&jdwp.AccSynthetic != 0 || staticOnly && f.ModBits&jdwp.AccStatic == 0 {
			continue
		}
		seen[f.Name] = true
		items = append(items, Completion{Label: f.Name, Text: f.Name, Kind: "field", Detail: javalang.SimpleTypeName(f.Signature)})
	}
	classes, ifaces, err := ev.vm.Hierarchy(ctx, t)
	if err != nil {
		return nil, err
	}
	var methods []Completion
	for _, c := range append(classes, ifaces...) {
		ms, err := ev.vm.Methods(ctx, c)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if strings.HasPrefix(m.Name, "<") || strings.Contains(m.Name, "$") || m.ModBits&(jdwp.AccSynthetic|mirror.AccBridge) != 0 ||
				staticOnly && m.ModBits&jdwp.AccStatic == 0 || seen[m.Name+m.Signature] {
				continue
			}
			seen[m.Name+m.Signature] = true
			params, ret := javalang.ParamSigs(m.Signature)
			names := make([]string, len(params))
			for i, p := range params {
				names[i] = javalang.SimpleTypeName(p)
			}
			text := m.Name + "("
			if len(params) == 0 {
				text += ")"
			}
			methods = append(methods, Completion{
				Label: m.Name + "(" + strings.Join(names, ", ") + ")", Text: text, Kind: "method", Detail: javalang.SimpleTypeName(ret),
			})
		}
	}
	sort.SliceStable(methods, func(i, j int) bool { return methods[i].Label < methods[j].Label })
	return append(items, methods...), nil
}

// ScopeCompletions lists what a simple name can mean in the frame.
func (e *Frame) ScopeCompletions(ctx context.Context) ([]Completion, error) {
	e.NoInvoke("completions do not run methods")
	ev := e.ev
	var items []Completion
	seen := map[string]bool{}
	if e.async != nil {
		// A frame of an async stack: its variables are those its
		// continuation keeps (no JVM frame, no variable table).
		for _, l := range e.async.locals {
			if !seen[l.Name] {
				seen[l.Name] = true
				items = append(items, Completion{Label: l.Name, Text: l.Name, Kind: "variable"})
			}
		}
	} else {
		if _, err := e.FrameID(ctx); err != nil {
			return nil, err
		}
		vars, _, err := ev.vm.VisibleVariables(ctx, e.f.Loc)
		if err != nil {
			return nil, err
		}
		for i := len(vars) - 1; i >= 0; i-- {
			v := vars[i]
			if !seen[v.Name] {
				seen[v.Name] = true
				items = append(items, Completion{Label: v.Name, Text: v.Name, Kind: "variable", Detail: javalang.SimpleTypeName(v.Signature)})
			}
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Label < items[j].Label })
	class, err := ev.vm.Signature(ctx, e.f.Loc.Class)
	if err != nil {
		return nil, err
	}
	_, thisErr := e.This(ctx)
	members, err := ev.members(ctx, class, thisErr != nil)
	if err != nil {
		return nil, err
	}
	if thisErr == nil {
		items = append(items, Completion{Label: "this", Text: "this", Kind: "keyword"})
	}
	for _, m := range members {
		if !seen[m.Label] {
			items = append(items, m)
		}
	}
	// The types the file imports by name.
	if im := e.fileImports(ctx); im != nil {
		for _, name := range im.Single {
			simple := name[strings.LastIndexByte(name, '.')+1:]
			if !seen[simple] {
				seen[simple] = true
				items = append(items, Completion{Label: simple, Text: simple, Kind: "class", Detail: name})
			}
		}
	}
	return items, nil
}
