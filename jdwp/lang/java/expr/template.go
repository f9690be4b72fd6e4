package expr

import (
	"context"
	"fmt"
	"strings"
)

// Template is a logpoint message: text with {expression} parts.
type Template struct {
	parts []TemplatePart[Node]
}

// TemplatePart is a piece of a log message: plain text, or an
// expression's source (Text) and its parse (Expr, IsExpr set).
type TemplatePart[N any] struct {
	Text   string
	Expr   N
	IsExpr bool
}

// SplitTemplate splits a log message into text and {expression} parts,
// for any language: closing finds the } that closes the { at open (how
// the language's strings hide braces), parse reads an expression. "{{"
// and "}}" stand for literal braces.
func SplitTemplate[N any](s string, closing func(s string, open int) (int, error), parse func(string) (N, error)) ([]TemplatePart[N], error) {
	var parts []TemplatePart[N]
	var text strings.Builder
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "{{"), strings.HasPrefix(s[i:], "}}"):
			text.WriteByte(s[i])
			i += 2
		case s[i] == '{':
			end, err := closing(s, i)
			if err != nil {
				return nil, err
			}
			n, err := parse(s[i+1 : end])
			if err != nil {
				return nil, fmt.Errorf("in {%s}: %w", s[i+1:end], err)
			}
			if text.Len() > 0 {
				parts = append(parts, TemplatePart[N]{Text: text.String()})
				text.Reset()
			}
			parts = append(parts, TemplatePart[N]{Text: s[i+1 : end], Expr: n, IsExpr: true})
			i = end + 1
		default:
			text.WriteByte(s[i])
			i++
		}
	}
	if text.Len() > 0 {
		parts = append(parts, TemplatePart[N]{Text: text.String()})
	}
	return parts, nil
}

// ParseTemplate parses a message such as "x = {x}, name = {p.name}". Braces
// inside string and character literals of an expression do not end it; "{{"
// and "}}" stand for literal braces.
func ParseTemplate(s string) (*Template, error) {
	parts, err := SplitTemplate(s, matchBrace, Parse)
	if err != nil {
		return nil, err
	}
	return &Template{parts: parts}, nil
}

// matchBrace returns the index of the '}' closing the '{' at open.
func matchBrace(s string, open int) (int, error) {
	var quote byte
	for i := open + 1; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '}':
			return i, nil
		}
	}
	return 0, fmt.Errorf("the { at offset %d has no closing }", open)
}

// Exprs returns the template's expressions, as source.
func (t *Template) Exprs() []string {
	var out []string
	for _, p := range t.parts {
		if p.IsExpr {
			out = append(out, p.Text)
		}
	}
	return out
}

// Eval renders the template. An expression that fails renders as
// "{expr: error}" so a logpoint always prints something.
func (t *Template) Eval(ctx context.Context, env Env) string {
	var b strings.Builder
	for _, p := range t.parts {
		if !p.IsExpr {
			b.WriteString(p.Text)
			continue
		}
		ev := evaluator{env: env, noAssign: "a logpoint cannot assign"}
		v, err := ev.eval(ctx, p.Expr)
		var s string
		if err == nil {
			s, err = ToString(ctx, env, v)
		}
		if err != nil {
			fmt.Fprintf(&b, "{%s: %v}", p.Text, err)
			continue
		}
		b.WriteString(s)
	}
	return b.String()
}
