package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Node is a node of an expression's syntax tree. String renders it back as
// Java source, fully parenthesised where precedence matters, so that
// Parse(n.String()) yields an equal tree.
type Node interface {
	String() string
	// Pos is the byte offset of the node in the source.
	Pos() int
}

type (
	// Lit is a literal: Value holds its kind and value (KindNull for null).
	Lit struct {
		At    int
		Value Value
	}
	// Name is a simple identifier: a local, a field of this, a static field of
	// the current class, or (as the left side of a Select) a class or package.
	Name struct {
		At   int
		Name string
	}
	// This is the keyword this.
	This struct{ At int }
	// Select is X.Name (a field, array length, or a qualified name part).
	Select struct {
		X    Node
		Name string
	}
	// Index is X[Index].
	Index struct {
		X, Index Node
	}
	// Call is X(Args...), where X is a Name or a Select naming the method.
	Call struct {
		Fun  Node
		Args []Node
	}
	// Unary is Op X for Op in + - ! ~.
	Unary struct {
		At int
		Op string
		X  Node
	}
	// Binary is X Op Y.
	Binary struct {
		Op   string
		X, Y Node
	}
	// Cond is Cond ? Then : Else.
	Cond struct {
		Cond, Then, Else Node
	}
	// Cast is (Type) X; Type is a primitive type name or a (qualified) class name.
	Cast struct {
		At   int
		Type string
		X    Node
	}
	// InstanceOf is X instanceof Type, or X instanceof Type Bind (a
	// pattern: Bind names X, as Type, where the test is true).
	InstanceOf struct {
		X    Node
		Type string
		Bind string
	}
	// NewArray is new Type[Len] (Init nil) or new Type[]{Init...}; Type is
	// the array type ("int[]", "String[][]").
	NewArray struct {
		At   int
		Type string
		Len  Node
		Init *ArrayInit
	}
	// ArrayInit is {X, Y, ...}, the elements of an array being created.
	ArrayInit struct {
		At    int
		Elems []Node
	}
	// ClassLit is Type.class.
	ClassLit struct {
		At   int
		Type string
	}
	// Assign is X = Y, or X op= Y for a compound operator (Op "+", "-", …;
	// "" for plain assignment); X++ and X-- are X += 1 with Post set, ++X
	// and --X without.
	Assign struct {
		Op   string
		X, Y Node
		Post bool
	}
	// New is new Type(Args...): an instance created by a constructor.
	New struct {
		At   int
		Type string
		Args []Node
	}
)

func (n *Lit) Pos() int        { return n.At }
func (n *Name) Pos() int       { return n.At }
func (n *This) Pos() int       { return n.At }
func (n *Select) Pos() int     { return n.X.Pos() }
func (n *Index) Pos() int      { return n.X.Pos() }
func (n *Call) Pos() int       { return n.Fun.Pos() }
func (n *Unary) Pos() int      { return n.At }
func (n *Binary) Pos() int     { return n.X.Pos() }
func (n *Cond) Pos() int       { return n.Cond.Pos() }
func (n *Cast) Pos() int       { return n.At }
func (n *InstanceOf) Pos() int { return n.X.Pos() }
func (n *New) Pos() int        { return n.At }
func (n *NewArray) Pos() int   { return n.At }
func (n *ArrayInit) Pos() int  { return n.At }
func (n *ClassLit) Pos() int   { return n.At }
func (n *Assign) Pos() int     { return n.X.Pos() }

func (n *NewArray) String() string {
	if n.Init != nil {
		return "new " + n.Type + n.Init.String()
	}
	return "new " + strings.Replace(n.Type, "[]", "["+n.Len.String()+"]", 1)
}
func (n *ArrayInit) String() string {
	s := make([]string, len(n.Elems))
	for i, e := range n.Elems {
		s[i] = e.String()
	}
	return "{" + strings.Join(s, ", ") + "}"
}
func (n *ClassLit) String() string { return n.Type + ".class" }
func (n *Assign) String() string {
	switch {
	case n.Post && n.Op == "+" && isOne(n.Y):
		return "(" + n.X.String() + "++)"
	case n.Post && n.Op == "-" && isOne(n.Y):
		return "(" + n.X.String() + "--)"
	}
	return "(" + n.X.String() + " " + n.Op + "= " + n.Y.String() + ")"
}

func isOne(n Node) bool {
	l, ok := n.(*Lit)
	return ok && l.Value.Kind == KindInt && l.Value.I == 1
}

func (n *Lit) String() string {
	s := n.Value.Literal()
	// A negative literal prints as a negation, except the two minimum values,
	// which only exist as literals.
	if strings.HasPrefix(s, "-") && !isMinMagnitude(s[1:]) {
		return "(" + s + ")"
	}
	return s
}
func (n *Name) String() string   { return n.Name }
func (n *This) String() string   { return "this" }
func (n *Select) String() string { return n.X.String() + "." + n.Name }
func (n *Index) String() string  { return n.X.String() + "[" + n.Index.String() + "]" }
func (n *Call) String() string   { return n.Fun.String() + argList(n.Args) }
func (n *New) String() string    { return "new " + n.Type + argList(n.Args) }

func argList(args []Node) string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = a.String()
	}
	return "(" + strings.Join(s, ", ") + ")"
}
func (n *Unary) String() string  { return "(" + n.Op + n.X.String() + ")" }
func (n *Binary) String() string { return "(" + n.X.String() + " " + n.Op + " " + n.Y.String() + ")" }
func (n *Cond) String() string {
	return "(" + n.Cond.String() + " ? " + n.Then.String() + " : " + n.Else.String() + ")"
}
func (n *Cast) String() string { return "((" + n.Type + ") " + n.X.String() + ")" }
func (n *InstanceOf) String() string {
	if n.Bind != "" {
		return "(" + n.X.String() + " instanceof " + n.Type + " " + n.Bind + ")"
	}
	return "(" + n.X.String() + " instanceof " + n.Type + ")"
}

// SyntaxError is a parse failure at a byte offset of the source.
type SyntaxError struct {
	Src string
	Pos int
	Msg string
}

func (e *SyntaxError) Error() string {
	near := e.Src[e.Pos:]
	if len(near) > 20 {
		near = near[:20] + "…"
	}
	src := e.Src
	if len(src) > maxQuoted { // a message, not a copy of a huge input
		src = fmt.Sprintf("%.*s… (%d bytes)", maxQuoted, src, len(src))
	}
	if near == "" {
		return fmt.Sprintf("syntax error at end of %q: %s", src, e.Msg)
	}
	return fmt.Sprintf("syntax error at offset %d of %q (near %q): %s", e.Pos, src, near, e.Msg)
}

// maxQuoted is how much of the source an error message quotes.
const maxQuoted = 200

// MaxDepth bounds the nesting of an expression (parentheses, unary
// operators, right-associative operators), so hostile input cannot exhaust
// the stack.
const MaxDepth = 200

// MaxTokens bounds the tokens (operands and operators) of one expression.
// It bounds the tree's size and so its height: a left-associative chain such
// as 1+1+…+1 is parsed in a loop, but every walk over the tree (evaluation,
// printing, positions) recurses along it. Expressions a person writes hold
// tens of tokens; the limit refuses generated megabyte inputs with a clear
// error before they cost memory or stack. Raise it here (a rebuild) if a
// real expression needs more.
const MaxTokens = 4096

// Parse parses one Java expression.
func Parse(src string) (Node, error) {
	if err := unsupported(src); err != nil {
		return nil, err
	}
	p := &parser{lx: lexer{src: src}}
	p.next()
	n := p.expr(0)
	if p.err == nil && p.tok.kind != tEOF {
		p.fail(p.tok.pos, "unexpected %s after the expression", p.tok)
	}
	if p.err != nil {
		return nil, p.err
	}
	return n, nil
}

// unsupported names the Java constructs the engine does not evaluate, so
// the user reads "lambdas are not supported here" rather than a syntax
// error at an arrow.
func unsupported(src string) error {
	lx := lexer{src: src}
	var prev token
	braces := 0 // open braces inside the block bodies of lambdas
	for n := 1; ; n++ {
		t, err := lx.scan()
		if err != nil || t.kind == tEOF {
			return nil // the parser reports it
		}
		switch {
		case n > MaxTokens: // stop here: scanning the rest of a huge input costs for nothing
			return &SyntaxError{Src: src, Pos: t.pos, Msg: fmt.Sprintf("the expression has more than %d tokens (operands and operators): split it into smaller ones", MaxTokens)}
		case t.kind == tIdent && t.text == "switch":
			return &SyntaxError{Src: src, Pos: t.pos, Msg: "switch expressions are not supported here: use the conditional operator ?:"}
		case t.kind == tOp && t.text == "{" && (braces > 0 || prev.kind == tOp && prev.text == "->"):
			braces++ // a lambda's block body, and braces in it
		case t.kind == tOp && t.text == "}" && braces > 0:
			braces--
		case t.kind == tOp && t.text == ";" && braces == 0:
			return &SyntaxError{Src: src, Pos: t.pos, Msg: "statements are not supported here: evaluate one expression (statements go in the block body of a lambda)"}
		case t.kind == tOp && t.text == "{" && !(prev.kind == tOp && (prev.text == "]" || prev.text == "{" || prev.text == ",")):
			return &SyntaxError{Src: src, Pos: t.pos, Msg: "blocks and anonymous classes are not supported here: evaluate one expression"}
		}
		prev = t
	}
}

// ---- lexer ----

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tInt    // int or long literal (text kept)
	tFloat  // float or double literal
	tChar   // character literal (val decoded)
	tString // string literal (val decoded)
	tOp
)

type token struct {
	kind tokKind
	pos  int
	text string // source text, or the decoded value for tChar/tString
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		return strconv.Quote(t.text)
	}
	return strconv.Quote(t.text)
}

type lexer struct {
	src string
	pos int
}

// ops lists operators longest first, so the lexer takes the longest match.
var ops = []string{">>>=", "<<=", ">>=", ">>>", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--", "->", "::",
	"+", "-", "*", "/", "%", "<", ">", "!", "~", "&", "|", "^", "?", ":", "(", ")", "[", "]", ".", ",", "=", "{", "}", ";", "@"}

func (lx *lexer) scan() (token, error) {
	for lx.pos < len(lx.src) && strings.IndexByte(" \t\r\n", lx.src[lx.pos]) >= 0 {
		lx.pos++
	}
	start := lx.pos
	if lx.pos >= len(lx.src) {
		return token{kind: tEOF, pos: start}, nil
	}
	c := lx.src[lx.pos]
	switch {
	case c >= '0' && c <= '9' || c == '.' && lx.pos+1 < len(lx.src) && isDigit(lx.src[lx.pos+1]):
		return lx.number()
	case c == '"':
		s, err := lx.quoted('"')
		return token{kind: tString, pos: start, text: s}, err
	case c == '\'':
		s, err := lx.quoted('\'')
		if r, _ := utf8.DecodeRuneInString(s); err == nil && (utf8.RuneCountInString(s) != 1 || r > 0xFFFF) {
			err = fmt.Errorf("a character literal holds exactly one UTF-16 character")
		}
		return token{kind: tChar, pos: start, text: s}, err
	}
	r, size := utf8.DecodeRuneInString(lx.src[lx.pos:])
	if isIdentStart(r) {
		lx.pos += size
		for lx.pos < len(lx.src) {
			r, size := utf8.DecodeRuneInString(lx.src[lx.pos:])
			if !isIdentStart(r) && !unicode.IsDigit(r) {
				break
			}
			lx.pos += size
		}
		return token{kind: tIdent, pos: start, text: lx.src[start:lx.pos]}, nil
	}
	for _, op := range ops {
		if strings.HasPrefix(lx.src[lx.pos:], op) {
			lx.pos += len(op)
			return token{kind: tOp, pos: start, text: op}, nil
		}
	}
	return token{pos: start}, fmt.Errorf("unexpected character %q", r)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) }

func (lx *lexer) number() (token, error) {
	start := lx.pos
	src := lx.src
	isFloat := false
	if strings.HasPrefix(src[lx.pos:], "0x") || strings.HasPrefix(src[lx.pos:], "0X") {
		lx.pos += 2
		for lx.pos < len(src) && (strings.IndexByte("0123456789abcdefABCDEF_", src[lx.pos]) >= 0) {
			lx.pos++
		}
	} else if strings.HasPrefix(src[lx.pos:], "0b") || strings.HasPrefix(src[lx.pos:], "0B") {
		lx.pos += 2
		for lx.pos < len(src) && (strings.IndexByte("01_", src[lx.pos]) >= 0) {
			lx.pos++
		}
	} else {
		for lx.pos < len(src) && (isDigit(src[lx.pos]) || src[lx.pos] == '_') {
			lx.pos++
		}
		if lx.pos < len(src) && src[lx.pos] == '.' && (lx.pos+1 >= len(src) || !isIdentStartByte(src[lx.pos+1])) {
			isFloat = true
			lx.pos++
			for lx.pos < len(src) && (isDigit(src[lx.pos]) || src[lx.pos] == '_') {
				lx.pos++
			}
		}
		if lx.pos < len(src) && (src[lx.pos] == 'e' || src[lx.pos] == 'E') {
			isFloat = true
			lx.pos++
			if lx.pos < len(src) && (src[lx.pos] == '+' || src[lx.pos] == '-') {
				lx.pos++
			}
			for lx.pos < len(src) && isDigit(src[lx.pos]) {
				lx.pos++
			}
		}
	}
	if lx.pos < len(src) && strings.IndexByte("lLfFdD", src[lx.pos]) >= 0 {
		if strings.IndexByte("fFdD", src[lx.pos]) >= 0 && !strings.HasPrefix(src[start:], "0x") && !strings.HasPrefix(src[start:], "0X") {
			isFloat = true
		}
		lx.pos++
	}
	if lx.pos < len(src) && isIdentStartByte(src[lx.pos]) {
		return token{pos: start}, fmt.Errorf("malformed number %q", src[start:lx.pos+1])
	}
	kind := tInt
	if isFloat {
		kind = tFloat
	}
	return token{kind: kind, pos: start, text: src[start:lx.pos]}, nil
}

func isIdentStartByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// quoted reads a Java string or character literal with its escapes.
func (lx *lexer) quoted(q byte) (string, error) {
	lx.pos++ // opening quote
	var b strings.Builder
	for {
		if lx.pos >= len(lx.src) || lx.src[lx.pos] == '\n' {
			return "", fmt.Errorf("unterminated %c literal", q)
		}
		c := lx.src[lx.pos]
		if c == q {
			lx.pos++
			return b.String(), nil
		}
		if c != '\\' {
			r, size := utf8.DecodeRuneInString(lx.src[lx.pos:])
			b.WriteRune(r)
			lx.pos += size
			continue
		}
		lx.pos++
		if lx.pos >= len(lx.src) {
			return "", fmt.Errorf("unterminated %c literal", q)
		}
		e := lx.src[lx.pos]
		lx.pos++
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 's':
			b.WriteByte(' ')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(e - '0')
			for i := 0; i < 2 && lx.pos < len(lx.src) && lx.src[lx.pos] >= '0' && lx.src[lx.pos] <= '7' && v*8+int(lx.src[lx.pos]-'0') <= 0377; i++ {
				v = v*8 + int(lx.src[lx.pos]-'0')
				lx.pos++
			}
			b.WriteRune(rune(v))
		case 'u':
			for lx.pos < len(lx.src) && lx.src[lx.pos] == 'u' {
				lx.pos++
			}
			if lx.pos+4 > len(lx.src) {
				return "", fmt.Errorf("short \\u escape")
			}
			v, err := strconv.ParseUint(lx.src[lx.pos:lx.pos+4], 16, 16)
			if err != nil {
				return "", fmt.Errorf("bad \\u escape %q", lx.src[lx.pos:lx.pos+4])
			}
			lx.pos += 4
			b.WriteRune(rune(v))
		case '\\', '\'', '"':
			b.WriteByte(e)
		default:
			return "", fmt.Errorf("unknown escape \\%c", e)
		}
	}
}

// ---- parser ----

type parser struct {
	lx     lexer
	tok    token
	err    error
	depth  int
	tokens int // scanned so far, bounded by MaxTokens
}

func (p *parser) fail(pos int, format string, args ...any) {
	if p.err == nil {
		p.err = &SyntaxError{Src: p.lx.src, Pos: min(pos, len(p.lx.src)), Msg: fmt.Sprintf(format, args...)}
	}
	p.tok = token{kind: tEOF, pos: len(p.lx.src)}
}

func (p *parser) next() {
	if p.err != nil {
		return
	}
	t, err := p.lx.scan()
	if err != nil {
		p.fail(t.pos, "%v", err)
		return
	}
	if p.tokens++; p.tokens > MaxTokens {
		p.fail(t.pos, "the expression has more than %d tokens (operands and operators): split it into smaller ones", MaxTokens)
		return
	}
	p.tok = t
}

func (p *parser) isOp(s string) bool { return p.tok.kind == tOp && p.tok.text == s }

func (p *parser) expect(s string) {
	if !p.isOp(s) {
		p.fail(p.tok.pos, "expected %q, found %s", s, p.tok)
		return
	}
	p.next()
}

// binaryPrec is each binary operator's precedence (higher binds tighter).
var binaryPrec = map[string]int{
	"||": 3, "&&": 4, "|": 5, "^": 6, "&": 7,
	"==": 8, "!=": 8,
	"<": 9, ">": 9, "<=": 9, ">=": 9, // instanceof too
	"<<": 10, ">>": 10, ">>>": 10,
	"+": 11, "-": 11,
	"*": 12, "/": 12, "%": 12,
}

const (
	condPrec   = 2
	assignPrec = 1
)

// assignOps are the assignment operators and the binary operator each
// applies ("" for plain assignment).
var assignOps = map[string]string{"=": "", "+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%",
	"&=": "&", "|=": "|", "^=": "^", "<<=": "<<", ">>=": ">>", ">>>=": ">>>"}

// assignable reports whether n can be assigned to.
func assignable(n Node) bool {
	switch n.(type) {
	case *Name, *Select, *Index:
		return true
	}
	return false
}

// expr parses an expression whose operators bind tighter than minPrec.
func (p *parser) expr(minPrec int) Node {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > MaxDepth {
		p.fail(p.tok.pos, "expression nested deeper than %d", MaxDepth)
		return nil
	}
	x := p.unary()
	for p.err == nil {
		if p.tok.kind == tIdent && p.tok.text == "instanceof" && minPrec < 9 {
			p.next()
			io := &InstanceOf{X: x, Type: p.typeName()}
			if p.tok.kind == tIdent && p.tok.text != "instanceof" {
				io.Bind = p.tok.text
				p.next()
			}
			x = io
			continue
		}
		if op, ok := assignOps[p.tok.text]; ok && p.tok.kind == tOp && minPrec < assignPrec {
			pos := p.tok.pos
			if !assignable(x) {
				p.fail(pos, "only a variable, a field or an array element can be assigned")
				return nil
			}
			p.next()
			x = &Assign{Op: op, X: x, Y: p.expr(assignPrec - 1)} // right-associative
			continue
		}
		if p.isOp("?") && minPrec < condPrec {
			p.next()
			then := p.expr(0)
			p.expect(":")
			els := p.expr(condPrec - 1) // right-associative
			x = &Cond{Cond: x, Then: then, Else: els}
			continue
		}
		prec, ok := binaryPrec[p.tok.text]
		if p.tok.kind != tOp || !ok || prec <= minPrec {
			return x
		}
		op := p.tok.text
		p.next()
		y := p.expr(prec)
		x = &Binary{Op: op, X: x, Y: y}
	}
	return x
}

var primitiveTypes = map[string]bool{"boolean": true, "byte": true, "char": true, "short": true, "int": true, "long": true, "float": true, "double": true}

func (p *parser) unary() Node {
	pos := p.tok.pos
	if p.tok.kind == tOp {
		switch p.tok.text {
		case "+", "-", "!", "~":
			op := p.tok.text
			p.next()
			p.depth++
			defer func() { p.depth-- }()
			if p.depth > MaxDepth {
				p.fail(pos, "expression nested deeper than %d", MaxDepth)
				return nil
			}
			// -2147483648 and -9223372036854775808L are literals in Java.
			if op == "-" && p.tok.kind == tInt && isMinMagnitude(p.tok.text) {
				t := p.tok
				p.next()
				return p.postfix(p.intLit(t, true))
			}
			return &Unary{At: pos, Op: op, X: p.unary()}
		case "++", "--":
			op := p.tok.text[:1]
			p.next()
			x := p.postfix(p.primary())
			if p.err == nil && !assignable(x) {
				p.fail(pos, "%s needs a variable, a field or an array element", op+op)
				return nil
			}
			return &Assign{Op: op, X: x, Y: &Lit{At: pos, Value: IntValue(1)}}
		case "(":
			if params, ok := p.lambdaParams(); ok {
				return p.lambda(pos, params, false)
			}
			// A cast: ( primitive ) unary, or ( Qualified.Name ) followed by
			// something that can only start an operand.
			save, saveTok, saveN := p.lx, p.tok, p.tokens
			p.next()
			if p.tok.kind == tIdent {
				typ := p.typeName()
				if p.err == nil && p.isOp(")") {
					p.next()
					if primitiveTypes[strings.TrimRight(typ, "[]")] && !strings.HasSuffix(typ, "]") && p.startsOperand(true) ||
						p.startsOperand(false) {
						return &Cast{At: pos, Type: typ, X: p.unary()}
					}
				}
			}
			// Not a cast: parse it again as a parenthesised expression.
			p.lx, p.tok, p.err, p.tokens = save, saveTok, nil, saveN
		}
	}
	return p.postfix(p.primary())
}

// startsOperand reports whether the current token can start the operand of a
// cast: after a primitive type anything unary can follow; after a class name
// only what cannot continue a parenthesised expression.
func (p *parser) startsOperand(primitive bool) bool {
	switch p.tok.kind {
	case tIdent:
		return p.tok.text != "instanceof"
	case tInt, tFloat, tChar, tString:
		return true
	case tOp:
		switch p.tok.text {
		case "(", "!", "~":
			return true
		case "+", "-":
			return primitive
		}
	}
	return false
}

// typeName parses a (qualified) type name with optional [] suffixes.
func (p *parser) typeName() string {
	name := p.qualifiedName()
	for p.err == nil && p.isOp("[") {
		p.next()
		p.expect("]")
		name += "[]"
	}
	return name
}

// qualifiedName parses a name with dots: a.b.C.
func (p *parser) qualifiedName() string {
	if p.tok.kind != tIdent {
		p.fail(p.tok.pos, "expected a type name, found %s", p.tok)
		return ""
	}
	name := p.tok.text
	p.next()
	for p.isOp(".") {
		p.next()
		if p.tok.kind != tIdent {
			p.fail(p.tok.pos, "expected a name after '.', found %s", p.tok)
			return ""
		}
		name += "." + p.tok.text
		p.next()
	}
	return name
}

func (p *parser) primary() Node {
	t := p.tok
	switch t.kind {
	case tInt:
		p.next()
		return p.intLit(t, false)
	case tFloat:
		p.next()
		return p.floatLit(t)
	case tChar:
		p.next()
		r, _ := utf8.DecodeRuneInString(t.text)
		return &Lit{At: t.pos, Value: CharValue(uint16(r))}
	case tString:
		p.next()
		return &Lit{At: t.pos, Value: StringLit(t.text)}
	case tIdent:
		if p.peekIs("->") {
			return p.lambda(t.pos, []string{t.text}, true)
		}
		p.next()
		switch t.text {
		case "true", "false":
			return &Lit{At: t.pos, Value: BoolValue(t.text == "true")}
		case "null":
			return &Lit{At: t.pos, Value: Null}
		case "this":
			return &This{At: t.pos}
		case "instanceof":
			p.fail(t.pos, "instanceof needs a value on its left")
			return nil
		case "new":
			typ := p.qualifiedName()
			p.typeArgs()
			if p.err == nil && p.isOp("[") {
				return p.newArray(t.pos, typ)
			}
			if !p.isOp("(") {
				p.fail(p.tok.pos, "expected ( after new %s, found %s", typ, p.tok)
				return nil
			}
			return &New{At: t.pos, Type: typ, Args: p.args()}
		}
		return &Name{At: t.pos, Name: t.text}
	case tOp:
		if t.text == "(" {
			p.next()
			x := p.expr(0)
			p.expect(")")
			return x
		}
	}
	p.fail(t.pos, "expected a value, found %s", t)
	return nil
}

// typeArgs skips type arguments (<>, <String>, <K, List<V>>): the VM's
// types are erased.
func (p *parser) typeArgs() {
	if !p.isOp("<") {
		return
	}
	depth := 0
	for p.err == nil {
		switch {
		case p.isOp("<"):
			depth++
		case p.isOp(">"):
			depth--
		case p.isOp(">>"):
			depth -= 2
		case p.isOp(">>>"):
			depth -= 3
		case p.tok.kind == tIdent || p.isOp(",") || p.isOp(".") || p.isOp("?") || p.isOp("[") || p.isOp("]"):
		default:
			p.fail(p.tok.pos, "unexpected %s in type arguments", p.tok)
			return
		}
		p.next()
		if depth <= 0 {
			if depth < 0 {
				p.fail(p.tok.pos, "unbalanced > in type arguments")
			}
			return
		}
	}
}

// newArray parses the rest of new Type[n] or new Type[]...{...}.
func (p *parser) newArray(at int, elem string) Node {
	p.next() // [
	if p.isOp("]") {
		p.next()
		typ := elem + "[]"
		for p.isOp("[") {
			p.next()
			p.expect("]")
			typ += "[]"
		}
		if !p.isOp("{") {
			p.fail(p.tok.pos, "expected { with the elements of new %s, found %s", typ, p.tok)
			return nil
		}
		return &NewArray{At: at, Type: typ, Init: p.arrayInit()}
	}
	n := p.expr(0)
	p.expect("]")
	typ := elem + "[]"
	for p.err == nil && p.isOp("[") {
		p.next()
		if !p.isOp("]") {
			p.fail(p.tok.pos, "arrays with several sizes (new %s[a][b]) are not supported here: give one size", elem)
			return nil
		}
		p.next()
		typ += "[]"
	}
	return &NewArray{At: at, Type: typ, Len: n}
}

// arrayInit parses {a, b, {c}}.
func (p *parser) arrayInit() *ArrayInit {
	init := &ArrayInit{At: p.tok.pos}
	p.expect("{")
	for p.err == nil && !p.isOp("}") {
		if p.isOp("{") {
			init.Elems = append(init.Elems, p.arrayInit())
		} else {
			init.Elems = append(init.Elems, p.expr(0))
		}
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	p.expect("}")
	return init
}

func (p *parser) postfix(x Node) Node {
	for p.err == nil {
		switch {
		case p.isOp("++") || p.isOp("--"):
			if !assignable(x) {
				p.fail(p.tok.pos, "%s needs a variable, a field or an array element", p.tok.text)
				return nil
			}
			x = &Assign{Op: p.tok.text[:1], X: x, Y: &Lit{At: p.tok.pos, Value: IntValue(1)}, Post: true}
			p.next()
		case p.isOp(".") && isTypeName(x):
			// Type.class, or a field or method of a class or object.
			save, saveTok, saveN := p.lx, p.tok, p.tokens
			p.next()
			if p.tok.kind == tIdent && p.tok.text == "class" {
				name, _ := dotted(x)
				x = &ClassLit{At: x.Pos(), Type: name}
				p.next()
				continue
			}
			p.lx, p.tok, p.tokens = save, saveTok, saveN
			p.next()
			if p.tok.kind != tIdent {
				p.fail(p.tok.pos, "expected a field or method name after '.', found %s", p.tok)
				return nil
			}
			x = &Select{X: x, Name: p.tok.text}
			p.next()
		case p.isOp("[") && isTypeName(x) && p.peekIs("]"):
			// Type[].class
			name, _ := dotted(x)
			for p.isOp("[") {
				p.next()
				p.expect("]")
				name += "[]"
			}
			p.expect(".")
			if p.tok.kind != tIdent || p.tok.text != "class" {
				p.fail(p.tok.pos, "expected class after %s., found %s", name, p.tok)
				return nil
			}
			p.next()
			x = &ClassLit{At: x.Pos(), Type: name}
		case p.isOp("."):
			p.next()
			if p.tok.kind != tIdent {
				p.fail(p.tok.pos, "expected a field or method name after '.', found %s", p.tok)
				return nil
			}
			x = &Select{X: x, Name: p.tok.text}
			p.next()
		case p.isOp("::"):
			p.next()
			if p.tok.kind != tIdent {
				p.fail(p.tok.pos, "expected a method name or new after ::, found %s", p.tok)
				return nil
			}
			x = &MethodRef{X: x, Name: p.tok.text}
			p.next()
		case p.isOp("["):
			p.next()
			i := p.expr(0)
			p.expect("]")
			x = &Index{X: x, Index: i}
		case p.isOp("("):
			switch x.(type) {
			case *Name, *Select:
			default:
				p.fail(p.tok.pos, "only a named method can be called")
				return nil
			}
			x = &Call{Fun: x, Args: p.args()}
		default:
			return x
		}
	}
	return x
}

// isTypeName reports whether n could name a type (a.b.C, int).
func isTypeName(n Node) bool {
	for s, ok := n.(*Select); ok; s, ok = n.(*Select) {
		n = s.X
	}
	_, ok := n.(*Name)
	return ok
}

// peekIs reports whether the token after the current one is op s.
func (p *parser) peekIs(s string) bool {
	lx := p.lx
	t, err := lx.scan()
	return err == nil && t.kind == tOp && t.text == s
}

// args parses a parenthesised, comma-separated argument list.
func (p *parser) args() []Node {
	p.expect("(")
	var args []Node
	for p.err == nil && !p.isOp(")") {
		args = append(args, p.expr(0))
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	p.expect(")")
	return args
}

func (p *parser) intLit(t token, neg bool) Node {
	text := strings.ReplaceAll(t.text, "_", "")
	long := strings.HasSuffix(text, "l") || strings.HasSuffix(text, "L")
	text = strings.TrimRight(text, "lL")
	base := 10
	switch {
	case strings.HasPrefix(text, "0x") || strings.HasPrefix(text, "0X"):
		base, text = 16, text[2:]
	case strings.HasPrefix(text, "0b") || strings.HasPrefix(text, "0B"):
		base, text = 2, text[2:]
	case len(text) > 1 && text[0] == '0':
		base, text = 8, text[1:]
	}
	bits := 32
	if long {
		bits = 64
	}
	u, err := strconv.ParseUint(text, base, 64)
	if err != nil {
		p.fail(t.pos, "bad integer literal %q", t.text)
		return nil
	}
	// Java allows hex/octal literals to fill all bits (0xFFFFFFFF is -1);
	// decimal ones may reach 2^(bits-1) only when negated.
	limit := uint64(1)<<(bits-1) - 1
	if base != 10 {
		limit = uint64(1)<<bits - 1
		if bits == 64 {
			limit = math.MaxUint64
		}
	} else if neg {
		limit++
	}
	if u > limit {
		p.fail(t.pos, "integer literal %q is too large for %s", t.text, map[bool]string{false: "int", true: "long"}[long])
		return nil
	}
	v := int64(u)
	if neg {
		v = -v
	}
	if long {
		return &Lit{At: t.pos, Value: LongValue(v)}
	}
	return &Lit{At: t.pos, Value: IntValue(int32(v))}
}

func (p *parser) floatLit(t token) Node {
	text := strings.ReplaceAll(t.text, "_", "")
	float := strings.HasSuffix(text, "f") || strings.HasSuffix(text, "F")
	text = strings.TrimRight(text, "fFdD")
	if float {
		f, err := strconv.ParseFloat(text, 32)
		if err != nil && !strings.Contains(err.Error(), "range") {
			p.fail(t.pos, "bad float literal %q", t.text)
			return nil
		}
		return &Lit{At: t.pos, Value: FloatValue(float32(f))}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		p.fail(t.pos, "bad double literal %q", t.text)
		return nil
	}
	return &Lit{At: t.pos, Value: DoubleValue(f)}
}

// isMinMagnitude reports whether an integer literal is 2147483648 or
// 9223372036854775808L, which Java accepts only as the operand of unary minus.
func isMinMagnitude(text string) bool {
	t := strings.ReplaceAll(text, "_", "")
	return t == "2147483648" || t == "9223372036854775808L" || t == "9223372036854775808l"
}
