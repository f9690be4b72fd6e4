package kexpr

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

// ErrNotSupported is wrapped by the errors of Kotlin constructs the engine
// does not evaluate yet: they are refused by name, never mis-evaluated.
var ErrNotSupported = errors.New("not supported in evaluation yet")

// maxDepth bounds the parser's nesting (parentheses, templates, calls).
const maxDepth = 200

// MaxLen bounds an expression's length.
const MaxLen = 64 << 10

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tNum
	tChar
	tStr // the opening quote of a string: the parser reads its parts
	tOp
)

type token struct {
	kind tokKind
	text string
	at   int
}

type parser struct {
	src   string
	pos   int // where the next token is lexed
	tok   token
	depth int
	// newline reports whether a line break came before tok (Kotlin ends
	// some constructs there; the engine reads one expression, so only a
	// when's branches use it).
	newline bool
}

// SyntaxError is a parse failure at a byte offset.
type SyntaxError struct {
	At  int
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("syntax error at %d: %s", e.At, e.Msg) }

type bail struct{ err error }

func (p *parser) fail(at int, format string, args ...any) {
	panic(bail{&SyntaxError{at, fmt.Sprintf(format, args...)}})
}

// refuse fails the parse naming what is not supported: "Kotlin lambdas
// are not supported in evaluation yet".
func refuse(what string) {
	head, _, _ := strings.Cut(what, " (")
	verb := "is"
	if strings.HasSuffix(head, "s") {
		verb = "are"
	}
	panic(bail{fmt.Errorf("%s %s %w", what, verb, ErrNotSupported)})
}

// Parse parses one Kotlin expression.
func Parse(src string) (n Node, err error) {
	if len(src) > MaxLen {
		return nil, fmt.Errorf("the expression is longer than %d bytes", MaxLen)
	}
	p := &parser{src: src}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			n, err = nil, b.err
		}
	}()
	p.next()
	n = p.expr()
	if p.tok.kind != tEOF {
		if p.tok.text == "=" {
			refuse("Kotlin assignment")
		}
		p.fail(p.tok.at, "unexpected %q after the expression", p.tok.text)
	}
	return n, nil
}

// ---- lexer

var ops = []string{
	"===", "!==", "..<", "?.", "?:", "!!", "==", "!=", "<=", ">=", "&&", "||", "..", "::", "->", "++", "--",
	"+=", "-=", "*=", "/=", "%=",
	"+", "-", "*", "/", "%", "<", ">", "!", "(", ")", "[", "]", "{", "}", ",", ".", "?", ":", "=", "@", ";", "&", "|", "^", "~", "#",
}

func isIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }
func isIdentPart(r rune) bool  { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func (p *parser) skipSpace() {
	p.newline = false
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '\n':
			p.newline = true
			p.pos++
		case c == ' ' || c == '\t' || c == '\r':
			p.pos++
		case strings.HasPrefix(p.src[p.pos:], "//"):
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case strings.HasPrefix(p.src[p.pos:], "/*"):
			end := strings.Index(p.src[p.pos+2:], "*/")
			if end < 0 {
				p.fail(p.pos, "unterminated comment")
			}
			p.pos += end + 4
		default:
			return
		}
	}
}

func (p *parser) next() {
	p.skipSpace()
	at := p.pos
	if p.pos >= len(p.src) {
		p.tok = token{tEOF, "", at}
		return
	}
	r, size := utf8.DecodeRuneInString(p.src[p.pos:])
	switch {
	case r == '`':
		end := strings.IndexAny(p.src[p.pos+1:], "`\n")
		if end <= 0 || p.src[p.pos+1+end] != '`' {
			p.fail(at, "unterminated `name`")
		}
		p.tok = token{tIdent, p.src[p.pos+1 : p.pos+1+end], at}
		p.pos += end + 2
	case isIdentStart(r):
		p.pos += size
		for p.pos < len(p.src) {
			r, size := utf8.DecodeRuneInString(p.src[p.pos:])
			if !isIdentPart(r) {
				break
			}
			p.pos += size
		}
		p.tok = token{tIdent, p.src[at:p.pos], at}
	case r >= '0' && r <= '9' || r == '.' && p.pos+1 < len(p.src) && p.src[p.pos+1] >= '0' && p.src[p.pos+1] <= '9':
		p.pos++
		for p.pos < len(p.src) {
			c := p.src[p.pos]
			if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' {
				p.pos++
				continue
			}
			if c == '.' && p.pos+1 < len(p.src) && p.src[p.pos+1] >= '0' && p.src[p.pos+1] <= '9' && !strings.ContainsAny(p.src[at:p.pos], ".xXbB") {
				p.pos++
				continue
			}
			if (c == '+' || c == '-') && (p.src[p.pos-1] == 'e' || p.src[p.pos-1] == 'E') && !strings.ContainsAny(p.src[at:p.pos], "xX") {
				p.pos++
				continue
			}
			break
		}
		p.tok = token{tNum, p.src[at:p.pos], at}
	case r == '\'':
		p.pos++
		for p.pos < len(p.src) && p.src[p.pos] != '\'' && p.src[p.pos] != '\n' {
			if p.src[p.pos] == '\\' {
				p.pos++
			}
			p.pos++
		}
		if p.pos >= len(p.src) || p.src[p.pos] != '\'' {
			p.fail(at, "unterminated character literal")
		}
		p.pos++
		p.tok = token{tChar, p.src[at:p.pos], at}
	case r == '"':
		p.tok = token{tStr, `"`, at}
	default:
		for _, op := range ops {
			if strings.HasPrefix(p.src[p.pos:], op) {
				p.pos += len(op)
				p.tok = token{tOp, op, at}
				return
			}
		}
		p.fail(at, "unexpected character %q", r)
	}
}

func (p *parser) is(op string) bool { return p.tok.kind == tOp && p.tok.text == op }
func (p *parser) isWord(w string) bool {
	return p.tok.kind == tIdent && p.tok.text == w && p.src[p.tok.at] != '`'
}

func (p *parser) expect(op string) {
	if !p.is(op) {
		if p.tok.kind == tEOF {
			p.fail(p.tok.at, "expected %q, found the end", op)
		}
		p.fail(p.tok.at, "expected %q, found %q", op, p.tok.text)
	}
	p.next()
}

func (p *parser) enter() {
	if p.depth++; p.depth > maxDepth {
		p.fail(p.tok.at, "the expression is nested deeper than %d levels", maxDepth)
	}
}
func (p *parser) leave() { p.depth-- }

// ---- grammar, lowest precedence first (Kotlin's grammar: disjunction,
// conjunction, equality, comparison, named checks, elvis, infix function,
// range, additive, multiplicative, as, prefix, postfix)

func (p *parser) expr() Node {
	p.enter()
	defer p.leave()
	if p.is("=") || p.is("+=") || p.is("-=") || p.is("*=") || p.is("/=") || p.is("%=") {
		refuse("Kotlin assignment")
	}
	n := p.disjunction()
	if p.is("=") || p.is("+=") || p.is("-=") || p.is("*=") || p.is("/=") || p.is("%=") {
		refuse("Kotlin assignment")
	}
	return n
}

func (p *parser) disjunction() Node {
	x := p.conjunction()
	for p.is("||") {
		p.next()
		x = &Binary{"||", x, p.conjunction()}
	}
	return x
}

func (p *parser) conjunction() Node {
	x := p.equality()
	for p.is("&&") {
		p.next()
		x = &Binary{"&&", x, p.equality()}
	}
	return x
}

func (p *parser) equality() Node {
	x := p.comparison()
	for p.is("==") || p.is("!=") || p.is("===") || p.is("!==") {
		op := p.tok.text
		p.next()
		x = &Binary{op, x, p.comparison()}
	}
	return x
}

func (p *parser) comparison() Node {
	x := p.namedCheck()
	for p.is("<") || p.is(">") || p.is("<=") || p.is(">=") {
		op := p.tok.text
		p.next()
		x = &Binary{op, x, p.namedCheck()}
	}
	return x
}

// notWord reports whether the tokens are "!" followed at once by word (!in, !is).
func (p *parser) notWord(word string) bool {
	return p.is("!") && strings.HasPrefix(p.src[p.pos:], word) &&
		(p.pos+len(word) == len(p.src) || !isIdentPart(rune(p.src[p.pos+len(word)])))
}

func (p *parser) namedCheck() Node {
	x := p.elvis()
	for {
		switch {
		case p.isWord("in"):
			p.next()
			x = &Binary{"in", x, p.elvis()}
		case p.notWord("in"):
			p.next()
			p.next()
			x = &Binary{"!in", x, p.elvis()}
		case p.isWord("is"):
			p.next()
			x = &Is{X: x, Type: p.typeName()}
		case p.notWord("is"):
			p.next()
			p.next()
			x = &Is{X: x, Type: p.typeName(), Not: true}
		default:
			return x
		}
	}
}

func (p *parser) elvis() Node {
	x := p.infix()
	for p.is("?:") {
		p.next()
		x = &Binary{"?:", x, p.infix()}
	}
	return x
}

var infixWords = map[string]bool{"until": true, "downTo": true, "step": true, "to": true, "and": true, "or": true, "xor": true, "shl": true, "shr": true, "ushr": true}

func (p *parser) infix() Node {
	x := p.rangeExpr()
	for p.tok.kind == tIdent && !p.newline {
		w := p.tok.text
		if !infixWords[w] {
			if w == "in" || w == "is" || w == "as" || w == "else" {
				return x
			}
			refuse("the infix call " + w + " (call it as x." + w + "(y))")
		}
		p.next()
		x = &Binary{w, x, p.rangeExpr()}
	}
	return x
}

func (p *parser) rangeExpr() Node {
	x := p.additive()
	for p.is("..") || p.is("..<") {
		op := p.tok.text
		p.next()
		x = &Binary{op, x, p.additive()}
	}
	return x
}

func (p *parser) additive() Node {
	x := p.multiplicative()
	for p.is("+") || p.is("-") {
		op := p.tok.text
		p.next()
		x = &Binary{op, x, p.multiplicative()}
	}
	return x
}

func (p *parser) multiplicative() Node {
	x := p.asExpr()
	for p.is("*") || p.is("/") || p.is("%") {
		op := p.tok.text
		p.next()
		x = &Binary{op, x, p.asExpr()}
	}
	return x
}

func (p *parser) asExpr() Node {
	x := p.prefix()
	for p.isWord("as") {
		p.next()
		safe := false
		if p.is("?") {
			safe = true
			p.next()
		}
		x = &As{X: x, Type: p.typeName(), Safe: safe}
	}
	return x
}

func (p *parser) prefix() Node {
	p.enter()
	defer p.leave()
	switch {
	case p.is("-") || p.is("+") || p.is("!"):
		at, op := p.tok.at, p.tok.text
		p.next()
		x := p.prefix()
		if l, ok := x.(*Lit); ok && op == "-" && l.Value.Kind.IsNumeric() {
			return negate(l)
		}
		return &Unary{at, op, x}
	case p.is("!!"):
		at := p.tok.at
		p.next()
		return &Unary{at, "!", &Unary{at + 1, "!", p.prefix()}}
	case p.is("++") || p.is("--"):
		refuse("Kotlin " + p.tok.text + " (assignment)")
	case p.is("@"):
		refuse("annotated or labelled expressions")
	}
	return p.postfix(p.primary())
}

func negate(l *Lit) Node {
	v := l.Value
	switch v.Kind {
	case expr.KindInt:
		v = expr.IntValue(int32(-v.I))
	case expr.KindLong:
		v = expr.LongValue(-v.I)
	case expr.KindFloat:
		v = expr.FloatValue(float32(-v.F))
	case expr.KindDouble:
		v = expr.DoubleValue(-v.F)
	default:
		return &Unary{l.At, "-", l}
	}
	return &Lit{l.At, v}
}

func (p *parser) postfix(x Node) Node {
	for {
		switch {
		case p.is(".") || p.is("?."):
			safe := p.is("?.")
			p.next()
			if p.tok.kind != tIdent {
				p.fail(p.tok.at, "expected a name after %q", map[bool]string{false: ".", true: "?."}[safe])
			}
			name := p.tok.text
			p.next()
			x = &Select{X: x, Name: name, Safe: safe}
		case p.is("(") && !p.newline:
			p.next()
			x = &Call{Fun: x, Args: p.args(")")}
			if p.is("{") {
				refuse("Kotlin lambdas")
			}
		case p.is("{") && !p.newline:
			if _, ok := x.(*Name); ok {
				refuse("Kotlin lambdas")
			}
			if _, ok := x.(*Select); ok {
				refuse("Kotlin lambdas")
			}
			if _, ok := x.(*Call); ok {
				refuse("Kotlin lambdas")
			}
			return x
		case p.is("[") && !p.newline:
			p.next()
			idx := p.args("]")
			if len(idx) == 0 {
				p.fail(p.tok.at, "an index needs a value")
			}
			x = &Index{X: x, Index: idx}
		case p.is("!!"):
			p.next()
			x = &NotNull{X: x}
		case p.is("::"):
			refuse("Kotlin callable references (::)")
		case p.is("++") || p.is("--"):
			refuse("Kotlin " + p.tok.text + " (assignment)")
		case p.is("<") && p.typeArgsFollow():
			refuse("explicit type arguments")
		default:
			return x
		}
	}
}

// typeArgsFollow: a < that opens type arguments of a call (f<Int>(…)).
func (p *parser) typeArgsFollow() bool {
	depth := 0
	for i := p.tok.at; i < len(p.src); i++ {
		switch c := p.src[i]; {
		case c == '<':
			depth++
		case c == '>':
			depth--
			if depth == 0 {
				rest := strings.TrimLeft(p.src[i+1:], " ")
				return strings.HasPrefix(rest, "(")
			}
		case c == '.' || c == ',' || c == ' ' || c == '?' || isIdentPart(rune(c)):
		default:
			return false
		}
	}
	return false
}

func (p *parser) args(close string) []Node {
	var out []Node
	for !p.is(close) {
		if p.tok.kind == tIdent && strings.HasPrefix(strings.TrimLeft(p.src[p.pos:], " \t"), "=") && !strings.HasPrefix(strings.TrimLeft(p.src[p.pos:], " \t"), "==") {
			refuse("named arguments")
		}
		if p.is("*") {
			refuse("the spread operator *")
		}
		out = append(out, p.expr())
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.expect(close)
	return out
}

var keywordsRefused = map[string]string{
	"object":   "Kotlin object expressions",
	"fun":      "Kotlin anonymous functions",
	"try":      "try",
	"throw":    "throw",
	"return":   "return",
	"break":    "break",
	"continue": "continue",
	"super":    "super calls",
	"val":      "declarations (val)",
	"var":      "declarations (var)",
	"for":      "loops",
	"while":    "loops",
	"do":       "loops",
}

func (p *parser) primary() Node {
	t := p.tok
	switch t.kind {
	case tEOF:
		p.fail(t.at, "an expression is missing")
	case tNum:
		p.next()
		return &Lit{t.at, p.number(t)}
	case tChar:
		p.next()
		return &Lit{t.at, p.char(t)}
	case tStr:
		return p.str()
	case tIdent:
		if p.src[t.at] == '`' {
			p.next()
			return &Name{t.at, t.text}
		}
		switch t.text {
		case "true", "false":
			p.next()
			return &Lit{t.at, expr.BoolValue(t.text == "true")}
		case "null":
			p.next()
			return &Lit{t.at, expr.Value{Kind: expr.KindNull}}
		case "this":
			p.next()
			if p.is("@") && p.tok.at == t.at+4 {
				p.next()
				if p.tok.kind != tIdent {
					p.fail(p.tok.at, "expected a label after this@")
				}
				l := p.tok.text
				p.next()
				return &This{t.at, l}
			}
			return &This{t.at, ""}
		case "if":
			return p.ifExpr()
		case "when":
			return p.when()
		}
		if what, ok := keywordsRefused[t.text]; ok {
			refuse(what)
		}
		p.next()
		if p.is("@") && p.tok.at == t.at+len(t.text) {
			refuse("labels (" + t.text + "@)")
		}
		return &Name{t.at, t.text}
	case tOp:
		switch t.text {
		case "(":
			p.next()
			x := p.expr()
			p.expect(")")
			return x
		case "{":
			refuse("Kotlin lambdas")
		case "::":
			refuse("Kotlin callable references (::)")
		case "[":
			refuse("collection literals")
		}
	}
	p.fail(t.at, "unexpected %q", t.text)
	return nil
}

func (p *parser) ifExpr() Node {
	at := p.tok.at
	p.next()
	p.expect("(")
	c := p.expr()
	p.expect(")")
	if p.is("{") {
		refuse("if with a block (write if (c) a else b)")
	}
	then := p.expr()
	if !p.isWord("else") {
		refuse("if without else (an if used as an expression needs its else)")
	}
	p.next()
	if p.is("{") {
		refuse("if with a block (write if (c) a else b)")
	}
	return &If{at, c, then, p.expr()}
}

func (p *parser) when() Node {
	at := p.tok.at
	p.next()
	w := &When{At: at}
	if p.is("(") {
		p.next()
		if p.isWord("val") {
			refuse("when with a val subject")
		}
		w.Subject = p.expr()
		p.expect(")")
	}
	p.expect("{")
	for !p.is("}") {
		if p.tok.kind == tEOF {
			p.fail(p.tok.at, "a when needs its }")
		}
		if p.isWord("else") {
			p.next()
			p.expect("->")
			w.Else = p.branchBody()
		} else {
			var b Branch
			for {
				b.Conds = append(b.Conds, p.whenCond(w.Subject != nil))
				if !p.is(",") {
					break
				}
				p.next()
			}
			p.expect("->")
			b.Body = p.branchBody()
			w.Branches = append(w.Branches, b)
		}
		for p.is(";") {
			p.next()
		}
	}
	p.next()
	return w
}

func (p *parser) branchBody() Node {
	if p.is("{") {
		refuse("when branches with a block (write cond -> value)")
	}
	return p.expr()
}

func (p *parser) whenCond(subject bool) WhenCond {
	if subject {
		switch {
		case p.isWord("in"):
			p.next()
			return WhenCond{Op: "in", X: p.expr()}
		case p.notWord("in"):
			p.next()
			p.next()
			return WhenCond{Op: "!in", X: p.expr()}
		case p.isWord("is"):
			p.next()
			return WhenCond{Op: "is", Type: p.typeName()}
		case p.notWord("is"):
			p.next()
			p.next()
			return WhenCond{Op: "!is", Type: p.typeName()}
		}
	}
	return WhenCond{X: p.expr()}
}

// typeName reads a type: a dotted name with type arguments (kept, then
// erased by the evaluator) and a trailing ? for nullable.
func (p *parser) typeName() string {
	if p.is("(") {
		refuse("function types")
	}
	if p.tok.kind != tIdent {
		p.fail(p.tok.at, "expected a type")
	}
	var b strings.Builder
	b.WriteString(p.tok.text)
	p.next()
	for p.is(".") {
		p.next()
		if p.tok.kind != tIdent {
			p.fail(p.tok.at, "expected a type name after .")
		}
		b.WriteString("." + p.tok.text)
		p.next()
	}
	if p.is("<") {
		depth := 0
		for {
			switch {
			case p.is("<"):
				depth++
			case p.is(">"):
				depth--
			case p.tok.kind == tEOF:
				p.fail(p.tok.at, "type arguments need their >")
			}
			p.next()
			if depth == 0 {
				break
			}
		}
	}
	if p.is("?") {
		p.next()
		b.WriteString("?")
	}
	return b.String()
}

// ---- literals

func (p *parser) number(t token) expr.Value {
	s := t.text
	if strings.HasSuffix(s, "_") || strings.Contains(s, "_.") || strings.Contains(s, "._") {
		p.fail(t.at, "malformed number %s", s)
	}
	clean := strings.ReplaceAll(s, "_", "")
	lower := strings.ToLower(clean)
	if strings.HasSuffix(lower, "u") || strings.HasSuffix(lower, "ul") {
		refuse("unsigned literals (" + s + ")")
	}
	hex := strings.HasPrefix(lower, "0x")
	bin := strings.HasPrefix(lower, "0b")
	if hex || bin {
		digits, long := clean[2:], false
		if strings.HasSuffix(digits, "L") {
			digits, long = digits[:len(digits)-1], true
		}
		base := 16
		if bin {
			base = 2
		}
		u, err := strconv.ParseUint(digits, base, 64)
		if err != nil || digits == "" {
			p.fail(t.at, "malformed number %s", s)
		}
		if !long && u <= math.MaxInt32 {
			return expr.IntValue(int32(u))
		}
		if u > math.MaxInt64 {
			p.fail(t.at, "the number %s is out of range", s)
		}
		return expr.LongValue(int64(u))
	}
	switch {
	case strings.HasSuffix(clean, "L"):
		d := clean[:len(clean)-1]
		if strings.ContainsAny(d, ".eE") {
			p.fail(t.at, "malformed number %s", s)
		}
		v, err := strconv.ParseInt(d, 10, 64)
		if err != nil {
			p.fail(t.at, "the number %s is out of range for Long", s)
		}
		return expr.LongValue(v)
	case strings.HasSuffix(lower, "f"):
		v, err := strconv.ParseFloat(clean[:len(clean)-1], 32)
		if err != nil {
			p.fail(t.at, "malformed number %s", s)
		}
		return expr.FloatValue(float32(v))
	case strings.ContainsAny(lower, ".e"):
		v, err := strconv.ParseFloat(clean, 64)
		if err != nil || strings.ContainsAny(lower, "abcdghijklmnopqrstuvwxyz") {
			p.fail(t.at, "malformed number %s", s)
		}
		return expr.DoubleValue(v)
	}
	if len(clean) > 1 && clean[0] == '0' {
		p.fail(t.at, "Kotlin has no octal literals (%s)", s)
	}
	v, err := strconv.ParseInt(clean, 10, 64)
	if err != nil {
		p.fail(t.at, "malformed or out of range number %s", s)
	}
	if v <= math.MaxInt32 {
		return expr.IntValue(int32(v))
	}
	return expr.LongValue(v) // Kotlin types a too-large integer literal as Long
}

func (p *parser) char(t token) expr.Value {
	body := t.text[1 : len(t.text)-1]
	r, rest := p.escape(t.at, body)
	if rest != "" || r > 0xFFFF || r < 0 {
		p.fail(t.at, "malformed character literal %s", t.text)
	}
	return expr.CharValue(uint16(r))
}

// escape decodes one character (an escape or a rune) at the start of s.
func (p *parser) escape(at int, s string) (rune, string) {
	if s == "" {
		p.fail(at, "empty character literal")
	}
	if s[0] != '\\' {
		r, size := utf8.DecodeRuneInString(s)
		return r, s[size:]
	}
	if len(s) < 2 {
		p.fail(at, "malformed escape")
	}
	switch s[1] {
	case 't':
		return '\t', s[2:]
	case 'b':
		return '\b', s[2:]
	case 'n':
		return '\n', s[2:]
	case 'r':
		return '\r', s[2:]
	case '\'', '"', '\\', '$':
		return rune(s[1]), s[2:]
	case 'u':
		if len(s) < 6 {
			p.fail(at, "malformed \\u escape")
		}
		v, err := strconv.ParseUint(s[2:6], 16, 16)
		if err != nil {
			p.fail(at, "malformed \\u escape")
		}
		return rune(v), s[6:]
	}
	p.fail(at, "unknown escape \\%c", s[1])
	return 0, ""
}

// str reads a string literal at the current token (its opening quote):
// "…" with escapes, or """…""" raw; $name and ${expr} make it a template.
func (p *parser) str() Node {
	at := p.tok.at
	raw := strings.HasPrefix(p.src[at:], `"""`)
	i := at + 1
	if raw {
		i = at + 3
	}
	var parts []Node
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 || len(parts) == 0 {
			parts = append(parts, &Lit{at, expr.StringLit(lit.String())})
		}
		lit.Reset()
	}
	for {
		if i >= len(p.src) {
			p.fail(at, "unterminated string")
		}
		c := p.src[i]
		switch {
		case raw && strings.HasPrefix(p.src[i:], `"""`):
			i += 3
			for i < len(p.src) && p.src[i] == '"' { // """a"""" ends with a quote
				lit.WriteByte('"')
				i++
			}
			goto done
		case !raw && c == '"':
			i++
			goto done
		case !raw && c == '\n':
			p.fail(at, "unterminated string")
		case !raw && c == '\\':
			r, rest := p.escape(i, p.src[i:])
			lit.WriteRune(r)
			i = len(p.src) - len(rest)
		case c == '$' && i+1 < len(p.src) && p.src[i+1] == '{':
			if lit.Len() > 0 {
				parts = append(parts, &Lit{at, expr.StringLit(lit.String())})
				lit.Reset()
			}
			p.pos = i + 2
			p.next()
			parts = append(parts, p.expr())
			if !p.is("}") {
				p.fail(p.tok.at, "expected } to end ${…} in the string")
			}
			i = p.pos
		case c == '$' && identAt(p.src, i+1):
			if lit.Len() > 0 {
				parts = append(parts, &Lit{at, expr.StringLit(lit.String())})
				lit.Reset()
			}
			j := i + 1
			for j < len(p.src) {
				r, size := utf8.DecodeRuneInString(p.src[j:])
				if !isIdentPart(r) {
					break
				}
				j += size
			}
			name := p.src[i+1 : j]
			if name == "this" {
				parts = append(parts, &This{i + 1, ""})
			} else {
				parts = append(parts, &Name{i + 1, name})
			}
			i = j
		default:
			_, size := utf8.DecodeRuneInString(p.src[i:])
			lit.WriteString(p.src[i : i+size])
			i += size
		}
	}
done:
	p.pos = i
	p.next()
	if lit.Len() > 0 || len(parts) == 0 {
		flush()
	}
	if len(parts) == 1 {
		if l, ok := parts[0].(*Lit); ok {
			return l
		}
	}
	return &StrTemplate{at, parts}
}

// identAt reports whether an identifier starts at s[i].
func identAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r != utf8.RuneError && isIdentStart(r)
}
