package kexpr

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

// Node is a node of a Kotlin expression's syntax tree. String renders it
// back as Kotlin source, parenthesised where precedence matters, so that
// Parse(n.String()) yields an equal tree.
type Node interface {
	String() string
	// Pos is the byte offset of the node in the source.
	Pos() int
}

type (
	// Lit is a literal (a number, character, boolean, null or a string
	// without templates).
	Lit struct {
		At    int
		Value expr.Value
	}
	// StrTemplate is a string with $name or ${expression} parts: Parts are
	// string Lits and expressions, in order.
	StrTemplate struct {
		At    int
		Parts []Node
	}
	// Name is a simple name: a local, a property of this, a class.
	Name struct {
		At   int
		Name string
	}
	// This is this, or this@Label.
	This struct {
		At    int
		Label string
	}
	// Select is X.Name, or X?.Name (Safe).
	Select struct {
		X    Node
		Name string
		Safe bool
	}
	// Call is Fun(Args...), Fun a Name or a Select.
	Call struct {
		Fun  Node
		Args []Node
	}
	// Index is X[Index...].
	Index struct {
		X     Node
		Index []Node
	}
	// Unary is Op X for Op in - + !.
	Unary struct {
		At int
		Op string
		X  Node
	}
	// NotNull is X!!.
	NotNull struct{ X Node }
	// Binary is X Op Y: arithmetic, comparison, equality (== != === !==),
	// logic (&& ||), ranges (.. ..< until downTo step), elvis (?:),
	// membership (in !in), and the infix functions and, or, xor, shl, shr,
	// ushr, to.
	Binary struct {
		Op   string
		X, Y Node
	}
	// Is is X is Type, or X !is Type (Not).
	Is struct {
		X    Node
		Type string
		Not  bool
	}
	// As is X as Type, or X as? Type (Safe).
	As struct {
		X    Node
		Type string
		Safe bool
	}
	// If is if (Cond) Then else Else.
	If struct {
		At               int
		Cond, Then, Else Node
	}
	// When is when (Subject) { branches } (Subject nil: when { ... }).
	When struct {
		At       int
		Subject  Node
		Branches []Branch
		Else     Node // nil: no else branch
	}
	// Branch is one branch of a when: its conditions, any of which
	// selects Body.
	Branch struct {
		Conds []WhenCond
		Body  Node
	}
	// WhenCond is a when condition: an expression (compared with the
	// subject, or a boolean without one), in/!in X, is/!is Type.
	WhenCond struct {
		Op   string // "", "in", "!in", "is", "!is"
		X    Node
		Type string
	}
)

func (n *Lit) Pos() int         { return n.At }
func (n *StrTemplate) Pos() int { return n.At }
func (n *Name) Pos() int        { return n.At }
func (n *This) Pos() int        { return n.At }
func (n *Select) Pos() int      { return n.X.Pos() }
func (n *Call) Pos() int        { return n.Fun.Pos() }
func (n *Index) Pos() int       { return n.X.Pos() }
func (n *Unary) Pos() int       { return n.At }
func (n *NotNull) Pos() int     { return n.X.Pos() }
func (n *Binary) Pos() int      { return n.X.Pos() }
func (n *Is) Pos() int          { return n.X.Pos() }
func (n *As) Pos() int          { return n.X.Pos() }
func (n *If) Pos() int          { return n.At }
func (n *When) Pos() int        { return n.At }

func (n *Lit) String() string {
	v := n.Value
	switch v.Kind {
	case expr.KindString:
		return `"` + quote(v.Str) + `"`
	case expr.KindLong:
		return strconv.FormatInt(v.I, 10) + "L"
	case expr.KindFloat:
		return v.Literal()
	case expr.KindDouble:
		s := strconv.FormatFloat(v.F, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEIN") {
			s += ".0"
		}
		return s
	}
	return v.Literal()
}

func (n *StrTemplate) String() string {
	var b strings.Builder
	b.WriteByte('"')
	for _, p := range n.Parts {
		if l, ok := p.(*Lit); ok && l.Value.Kind == expr.KindString {
			b.WriteString(quote(l.Value.Str))
			continue
		}
		b.WriteString("${" + p.String() + "}")
	}
	b.WriteByte('"')
	return b.String()
}

func (n *Name) String() string { return ident(n.Name) }
func (n *This) String() string {
	if n.Label != "" {
		return "this@" + n.Label
	}
	return "this"
}
func (n *Select) String() string {
	if n.Safe {
		return n.X.String() + "?." + ident(n.Name)
	}
	return n.X.String() + "." + ident(n.Name)
}
func (n *Call) String() string    { return n.Fun.String() + "(" + join(n.Args) + ")" }
func (n *Index) String() string   { return n.X.String() + "[" + join(n.Index) + "]" }
func (n *Unary) String() string   { return "(" + n.Op + n.X.String() + ")" }
func (n *NotNull) String() string { return n.X.String() + "!!" }
func (n *Binary) String() string {
	return "(" + n.X.String() + " " + n.Op + " " + n.Y.String() + ")"
}
func (n *Is) String() string {
	op := " is "
	if n.Not {
		op = " !is "
	}
	return "(" + n.X.String() + op + n.Type + ")"
}
func (n *As) String() string {
	op := " as "
	if n.Safe {
		op = " as? "
	}
	return "(" + n.X.String() + op + n.Type + ")"
}
func (n *If) String() string {
	return "(if (" + n.Cond.String() + ") " + n.Then.String() + " else " + n.Else.String() + ")"
}
func (n *When) String() string {
	var b strings.Builder
	b.WriteString("when ")
	if n.Subject != nil {
		b.WriteString("(" + n.Subject.String() + ") ")
	}
	b.WriteString("{ ")
	for _, br := range n.Branches {
		for i, c := range br.Conds {
			if i > 0 {
				b.WriteString(", ")
			}
			switch c.Op {
			case "":
				b.WriteString(c.X.String())
			case "in", "!in":
				b.WriteString(c.Op + " " + c.X.String())
			default:
				b.WriteString(c.Op + " " + c.Type)
			}
		}
		b.WriteString(" -> " + br.Body.String() + "; ")
	}
	if n.Else != nil {
		b.WriteString("else -> " + n.Else.String() + " ")
	}
	b.WriteString("}")
	return b.String()
}

func join(ns []Node) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = n.String()
	}
	return strings.Join(s, ", ")
}

// quote escapes s for a Kotlin string literal (without its quotes): the
// escapes Kotlin knows, $ (a template otherwise), other control characters
// as \uXXXX; bytes that are not UTF-8 are kept as they are.
func quote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteByte(s[i])
		case r == '"' || r == '\\' || r == '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\b':
			b.WriteString(`\b`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(fmt.Sprintf(`\u%04x`, r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

var hardKeywords = map[string]bool{
	"as": true, "break": true, "class": true, "continue": true, "do": true, "else": true, "false": true,
	"for": true, "fun": true, "if": true, "in": true, "interface": true, "is": true, "null": true,
	"object": true, "package": true, "return": true, "super": true, "this": true, "throw": true,
	"true": true, "try": true, "typealias": true, "typeof": true, "val": true, "var": true,
	"when": true, "while": true,
}

// ident renders a name, in backticks where it is a keyword or not an
// identifier.
func ident(name string) string {
	plain := name != "" && !hardKeywords[name]
	for i, r := range name {
		if i == 0 && !isIdentStart(r) || !isIdentPart(r) {
			plain = false
		}
	}
	if plain {
		return name
	}
	return "`" + name + "`"
}
