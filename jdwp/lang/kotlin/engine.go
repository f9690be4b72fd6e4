package kotlin

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

// engine is Kotlin's expressions until Kotlin has an engine of its own: the
// Java engine, for what Java reads as Kotlin does, behind a check that
// refuses by name what Java would read otherwise.
type engine struct{}

// ErrNotYet is the error of a Kotlin construct the debugger does not
// evaluate yet.
var ErrNotYet = errors.New("not evaluated in Kotlin frames yet")

func refuse(what, hint string) error {
	return fmt.Errorf("%s: %w (%s)", what, ErrNotYet, hint)
}

func (engine) Parse(src string) (lang.Expression, error) {
	if err := Check(src); err != nil {
		return nil, err
	}
	n, err := expr.Parse(src)
	if err != nil {
		return nil, err
	}
	if err := checkEquality(n); err != nil {
		return nil, err
	}
	return java.Lang.Engine().Parse(src)
}

func (engine) ParseTemplate(src string) (lang.Template, error) {
	for _, part := range templateExprs(src) {
		if err := Check(part); err != nil {
			return nil, err
		}
		if n, err := expr.Parse(part); err == nil {
			if err := checkEquality(n); err != nil {
				return nil, err
			}
		}
	}
	return java.Lang.Engine().ParseTemplate(src)
}

// Check refuses the Kotlin syntax Java would read otherwise or not at all:
// string templates, safe calls, the elvis operator, not-null assertions,
// identity equality.
func Check(src string) error {
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' {
					j++
					continue
				}
				if src[j] == '$' && j+1 < len(src) && (src[j+1] == '{' || isIdentStart(src[j+1])) {
					return refuse("string template "+quoteFrom(src, i), "concatenate with + instead: \"a\" + x")
				}
			}
			i = j
		case c == '\'':
			j := i + 1
			for j < len(src) && src[j] != '\'' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case strings.HasPrefix(src[i:], "?."):
			return refuse("safe call ?.", "test for null first: x != null ? x.y : null")
		case strings.HasPrefix(src[i:], "?:"):
			return refuse("elvis operator ?:", "x != null ? x : y")
		case strings.HasPrefix(src[i:], "!!") && i > 0 && isPostfixEnd(src[:i]):
			return refuse("not-null assertion !!", "use the value itself")
		case strings.HasPrefix(src[i:], "===") || strings.HasPrefix(src[i:], "!=="):
			return refuse("identity equality "+src[i:i+3], "Kotlin's identity test")
		}
	}
	return nil
}

func quoteFrom(src string, i int) string {
	end := strings.IndexByte(src[i+1:], '"')
	if end < 0 {
		return src[i:]
	}
	return src[i : i+end+2]
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// isPostfixEnd: the text before "!!" ends an operand (x!!, f()!!, a[0]!!).
func isPostfixEnd(before string) bool {
	c := before[len(before)-1]
	return isIdentStart(c) || c >= '0' && c <= '9' || c == ')' || c == ']'
}

// checkEquality refuses == and != between two operands neither of which is
// a literal: Kotlin's == is equals(), Java's an identity test for objects;
// with a number, character, boolean or null literal on one side both agree.
func checkEquality(n expr.Node) error {
	var err error
	walk(n, func(n expr.Node) {
		b, ok := n.(*expr.Binary)
		if !ok || err != nil || b.Op != "==" && b.Op != "!=" {
			return
		}
		if isPlainLiteral(b.X) || isPlainLiteral(b.Y) {
			return
		}
		err = refuse(b.Op+" between two values ("+b.String()+")",
			"in Kotlin it calls equals(): write a.equals(b), or compare with a literal")
	})
	return err
}

func isPlainLiteral(n expr.Node) bool {
	switch n := n.(type) {
	case *expr.Lit:
		return n.Value.Kind != expr.KindString
	case *expr.Unary:
		return isPlainLiteral(n.X)
	}
	return false
}

// walk visits n and every node below it.
func walk(n expr.Node, visit func(expr.Node)) {
	if n == nil {
		return
	}
	visit(n)
	switch n := n.(type) {
	case *expr.Select:
		walk(n.X, visit)
	case *expr.Index:
		walk(n.X, visit)
		walk(n.Index, visit)
	case *expr.Call:
		walk(n.Fun, visit)
		for _, a := range n.Args {
			walk(a, visit)
		}
	case *expr.Unary:
		walk(n.X, visit)
	case *expr.Binary:
		walk(n.X, visit)
		walk(n.Y, visit)
	case *expr.Cond:
		walk(n.Cond, visit)
		walk(n.Then, visit)
		walk(n.Else, visit)
	case *expr.Cast:
		walk(n.X, visit)
	case *expr.InstanceOf:
		walk(n.X, visit)
	case *expr.Assign:
		walk(n.X, visit)
		walk(n.Y, visit)
	case *expr.New:
		for _, a := range n.Args {
			walk(a, visit)
		}
	}
}

// templateExprs returns the {expression} parts of a log message ("{{" and
// "}}" are literal braces; braces in an expression's string literals do
// not end it).
func templateExprs(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(s[i:], "{{") || strings.HasPrefix(s[i:], "}}") {
			i++
			continue
		}
		if s[i] != '{' {
			continue
		}
		depth, j := 1, i+1
		for ; j < len(s) && depth > 0; j++ {
			switch s[j] {
			case '"', '\'':
				q := s[j]
				for j++; j < len(s) && s[j] != q; j++ {
					if s[j] == '\\' {
						j++
					}
				}
			case '{':
				depth++
			case '}':
				depth--
			}
		}
		if depth == 0 {
			out = append(out, s[i+1:j-1])
		}
		i = j - 1
	}
	return out
}
