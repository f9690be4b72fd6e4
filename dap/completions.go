package dap

import (
	"context"
	"strings"
	"unicode"

	"github.com/ddmbridge/ddmbridge/jdwp/eval"
	godap "github.com/google/go-dap"
)

// completions in the debug console: what package jdwp/eval offers at the
// cursor (members after "expr.", else the names of the frame's scope),
// with positions in the client's columns.

func (s *session) completions(ctx context.Context, r *godap.CompletionsRequest) (godap.CompletionsResponseBody, error) {
	d := s.dbg
	env, err := d.requestEnv(ctx, r.Arguments.FrameId)
	if err != nil {
		return godap.CompletionsResponseBody{}, err
	}
	text := []rune(r.Arguments.Text)
	col := max(0, min(r.Arguments.Column-1, len(text))) // 1-based (package clientview converts)
	before := text[:col]
	start := col
	for start > 0 && (unicode.IsLetter(before[start-1]) || unicode.IsDigit(before[start-1]) || before[start-1] == '_' || before[start-1] == '$') {
		start--
	}
	partial := string(before[start:])
	var items []eval.Completion
	if start > 0 && before[start-1] == '.' {
		items, err = env.MemberCompletions(ctx, string(before[:start-1]))
	} else {
		items, err = env.ScopeCompletions(ctx)
	}
	if err != nil {
		return godap.CompletionsResponseBody{}, err
	}
	out := []godap.CompletionItem{}
	for _, it := range items {
		if strings.HasPrefix(it.Label, partial) {
			it := godap.CompletionItem{Label: it.Label, Text: it.Text, Type: godap.CompletionItemType(it.Kind), Detail: it.Detail}
			it.Start = start + 1
			it.Length = len([]rune(partial))
			out = append(out, it)
		}
	}
	return godap.CompletionsResponseBody{Targets: out}, nil
}
