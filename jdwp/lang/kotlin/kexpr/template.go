package kexpr

import (
	"context"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

// Template is a log message: text with {expression} parts in Kotlin.
type Template struct {
	parts []part
	opt   Options
}

type part struct {
	text string
	n    Node // nil for plain text
}

// ParseTemplate parses a log message ("x = {x}, {o?.name ?: "-"}"); "{{"
// and "}}" are literal braces, and braces inside an expression's strings
// and templates do not end it.
func ParseTemplate(s string, opt Options) (*Template, error) {
	t := &Template{opt: opt}
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
			n, err := Parse(s[i+1 : end])
			if err != nil {
				return nil, fmt.Errorf("in {%s}: %w", s[i+1:end], err)
			}
			if text.Len() > 0 {
				t.parts = append(t.parts, part{text: text.String()})
				text.Reset()
			}
			t.parts = append(t.parts, part{text: s[i+1 : end], n: n})
			i = end + 1
		default:
			text.WriteByte(s[i])
			i++
		}
	}
	if text.Len() > 0 {
		t.parts = append(t.parts, part{text: text.String()})
	}
	return t, nil
}

// closing finds the } that closes the { at open.
func closing(s string, open int) (int, error) {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			q := s[i]
			for i++; i < len(s) && s[i] != q; i++ {
				if s[i] == '\\' {
					i++
				}
				if q == '"' && i+1 < len(s) && s[i] == '$' && s[i+1] == '{' {
					end, err := closing(s, i+1)
					if err != nil {
						return 0, err
					}
					i = end
				}
			}
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("the { at offset %d has no closing }", open)
}

// Eval renders the message; an expression that fails shows as
// "{expr: error}".
func (t *Template) Eval(ctx context.Context, env expr.Env) string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.n == nil {
			b.WriteString(p.text)
			continue
		}
		ev := &evaluator{env: env, opt: t.opt}
		v, err := ev.eval(ctx, p.n)
		var s string
		if err == nil {
			s, err = ev.str(ctx, p.n, v)
		}
		if err != nil {
			b.WriteString("{" + p.text + ": " + err.Error() + "}")
			continue
		}
		b.WriteString(s)
	}
	return b.String()
}
