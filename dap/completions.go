package dap

import (
	"context"
	"errors"
	"sort"
	"strings"
	"unicode"

	"github.com/ddmbridge/ddmbridge/dap/expr"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	godap "github.com/google/go-dap"
)

// completions in the debug console: after "expr." the fields and methods of
// the value's runtime type (static members after a class name); otherwise
// the frame's locals, this's fields and methods, and the statics of the
// frame's class. The receiver is evaluated without running methods.

func (s *session) completions(ctx context.Context, r *godap.CompletionsRequest) (godap.CompletionsResponseBody, error) {
	d := s.dbg
	env, err := d.requestEnv(ctx, r.Arguments.FrameId)
	if err != nil {
		return godap.CompletionsResponseBody{}, err
	}
	env.noInvoke = "completions do not run methods"
	text := []rune(r.Arguments.Text)
	col := r.Arguments.Column
	if s.client.ColumnsStartAt1 || col > len(text) {
		col--
	}
	col = max(0, min(col, len(text)))
	before := text[:col]
	start := col
	for start > 0 && (unicode.IsLetter(before[start-1]) || unicode.IsDigit(before[start-1]) || before[start-1] == '_' || before[start-1] == '$') {
		start--
	}
	partial := string(before[start:])
	var items []godap.CompletionItem
	if start > 0 && before[start-1] == '.' {
		items, err = d.memberCompletions(ctx, env, string(before[:start-1]))
	} else {
		items, err = d.scopeCompletions(ctx, env)
	}
	if err != nil {
		return godap.CompletionsResponseBody{}, err
	}
	out := []godap.CompletionItem{}
	for _, it := range items {
		if strings.HasPrefix(it.Label, partial) {
			if s.client.ColumnsStartAt1 {
				it.Start = start + 1
			} else {
				it.Start = start
			}
			it.Length = len([]rune(partial))
			out = append(out, it)
		}
	}
	return godap.CompletionsResponseBody{Targets: out}, nil
}

// receiverWindow bounds how much of the text before the cursor receiverOf
// looks at: each start is parsed on its own, so the cost grows with the
// square of the text, and a receiver longer than this is not typed by hand.
const receiverWindow = 512

// receiverOf finds the longest expression ending the text (the receiver of
// the member being completed), within its last receiverWindow bytes.
func receiverOf(text string) (expr.Node, bool) {
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

// memberCompletions lists the members of what the text before the dot is.
func (d *debuggee) memberCompletions(ctx context.Context, env *frameEnv, recv string) ([]godap.CompletionItem, error) {
	n, ok := receiverOf(recv)
	if !ok {
		return nil, nil
	}
	v, err := expr.Eval(ctx, n, d.evalEnv(ctx, env))
	if err == nil {
		switch {
		case v.Kind == expr.KindObject && strings.HasPrefix(v.Type, "["):
			items := []godap.CompletionItem{{Label: "length", Type: "property", Detail: "int"}}
			more, err := d.members(ctx, "Ljava/lang/Object;", false)
			return append(items, more...), err
		case v.Kind.IsRef() && v.Kind != expr.KindNull:
			return d.members(ctx, typeSigOf(v), false)
		}
		return nil, nil
	}
	if !errors.Is(err, expr.ErrUnknownName) {
		return nil, nil
	}
	class, cerr := env.Class(ctx, n.String())
	if cerr != nil {
		return nil, nil
	}
	return d.members(ctx, class, true)
}

func typeSigOf(v expr.Value) string {
	if v.Kind == expr.KindString {
		return "Ljava/lang/String;"
	}
	return v.Type
}

// members lists the fields and methods of a class and its supertypes;
// statics only, or instance members too.
func (d *debuggee) members(ctx context.Context, class string, staticOnly bool) ([]godap.CompletionItem, error) {
	t, err := d.vm.ClassBySignature(ctx, class)
	if err != nil {
		return nil, err
	}
	var items []godap.CompletionItem
	seen := map[string]bool{}
	chain, err := d.vm.FieldChain(ctx, t)
	if err != nil {
		return nil, err
	}
	for _, f := range chain {
		if seen[f.Name] || f.ModBits&jdwp.AccSynthetic != 0 || staticOnly && f.ModBits&jdwp.AccStatic == 0 {
			continue
		}
		seen[f.Name] = true
		items = append(items, godap.CompletionItem{Label: f.Name, Text: f.Name, Type: "field", Detail: javalang.SimpleTypeName(f.Signature)})
	}
	classes, ifaces, err := d.vm.Hierarchy(ctx, t)
	if err != nil {
		return nil, err
	}
	var methods []godap.CompletionItem
	for _, c := range append(classes, ifaces...) {
		ms, err := d.vm.Methods(ctx, c)
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
			methods = append(methods, godap.CompletionItem{
				Label: m.Name + "(" + strings.Join(names, ", ") + ")", Text: text, Type: "method", Detail: javalang.SimpleTypeName(ret),
			})
		}
	}
	sort.SliceStable(methods, func(i, j int) bool { return methods[i].Label < methods[j].Label })
	return append(items, methods...), nil
}

// scopeCompletions lists what a simple name can mean in the frame.
func (d *debuggee) scopeCompletions(ctx context.Context, env *frameEnv) ([]godap.CompletionItem, error) {
	if _, err := env.frameID(ctx); err != nil {
		return nil, err
	}
	var items []godap.CompletionItem
	seen := map[string]bool{}
	vars, _, err := d.vm.VisibleVariables(ctx, env.f.Loc)
	if err != nil {
		return nil, err
	}
	for i := len(vars) - 1; i >= 0; i-- {
		v := vars[i]
		if !seen[v.Name] {
			seen[v.Name] = true
			items = append(items, godap.CompletionItem{Label: v.Name, Text: v.Name, Type: "variable", Detail: javalang.SimpleTypeName(v.Signature)})
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Label < items[j].Label })
	class, err := d.vm.Signature(ctx, env.f.Loc.Class)
	if err != nil {
		return nil, err
	}
	_, thisErr := env.This(ctx)
	members, err := d.members(ctx, class, thisErr != nil)
	if err != nil {
		return nil, err
	}
	if thisErr == nil {
		items = append(items, godap.CompletionItem{Label: "this", Text: "this", Type: "keyword"})
	}
	for _, m := range members {
		if !seen[m.Label] {
			items = append(items, m)
		}
	}
	return items, nil
}
