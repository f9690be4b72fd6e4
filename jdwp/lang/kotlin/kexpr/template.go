package kexpr

import (
	"context"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

// Template is a log message: text with {expression} parts in Kotlin.
type Template struct {
	parts []expr.TemplatePart[Node]
	opt   Options
}

// ParseTemplate parses a log message ("x = {x}, {o?.name ?: "-"}"); "{{"
// and "}}" are literal braces, and braces inside an expression's strings
// and templates do not end it.
func ParseTemplate(s string, opt Options) (*Template, error) {
	parts, err := expr.SplitTemplate(s, closing, Parse)
	if err != nil {
		return nil, err
	}
	return &Template{parts: parts, opt: opt}, nil
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
		if !p.IsExpr {
			b.WriteString(p.Text)
			continue
		}
		ev := &evaluator{env: env, opt: t.opt}
		v, err := ev.eval(ctx, p.Expr)
		var s string
		if err == nil {
			s, err = ev.str(ctx, p.Expr, v)
		}
		if err != nil {
			b.WriteString("{" + p.Text + ": " + err.Error() + "}")
			continue
		}
		b.WriteString(s)
	}
	return b.String()
}
