package expr

import "strings"

// Statements, in the block body of a lambda (x -> { int y = x * 2; return
// y + 1; }): what javac accepts there that a debugger can run — local
// variable declarations, expression statements, return, if, while, do,
// for, the enhanced for, break, continue, throw, and try with catch
// clauses (not finally). A console expression
// itself stays one expression; the evaluator runs statements only as the
// body of a lambda compiled into the VM (package jdwp/lang/java/fngen).

type (
	// Block is { Stmts... }.
	Block struct {
		At    int
		Stmts []Node
	}
	// VarDecl declares locals of one type ("var", "int", "List", "int[]";
	// type arguments are dropped): Inits[i] is Names[i]'s initializer, or nil.
	VarDecl struct {
		At    int
		Type  string
		Names []string
		Inits []Node
	}
	// ExprStmt is an expression evaluated for its effect.
	ExprStmt struct{ X Node }
	// Return is return X; (X nil for return;).
	Return struct {
		At int
		X  Node
	}
	// If is if (Cond) Then else Else (Else nil without else).
	If struct {
		At               int
		Cond, Then, Else Node
	}
	// While is while (Cond) Body, or do Body while (Cond); with Do set.
	While struct {
		At         int
		Cond, Body Node
		Do         bool
	}
	// For is for (Init; Cond; Update) Body; Cond may be nil.
	For struct {
		At     int
		Init   []Node // a *VarDecl or *ExprStmts
		Cond   Node
		Update []Node
		Body   Node
	}
	// ForEach is for (Type Name : X) Body.
	ForEach struct {
		At         int
		Type, Name string
		X, Body    Node
	}
	// Jump is break; or continue; (Continue set).
	Jump struct {
		At       int
		Continue bool
	}
	// Throw is throw X;.
	Throw struct {
		At int
		X  Node
	}
	// Try is try Body catch (...) {...}...; finally and resources are
	// refused.
	Try struct {
		At      int
		Body    *Block
		Catches []*Catch
	}
	// Catch is catch (Types[0] | Types[1]... Name) Body.
	Catch struct {
		At    int
		Types []string
		Name  string
		Body  *Block
	}
)

func (n *Block) Pos() int    { return n.At }
func (n *VarDecl) Pos() int  { return n.At }
func (n *ExprStmt) Pos() int { return n.X.Pos() }
func (n *Return) Pos() int   { return n.At }
func (n *If) Pos() int       { return n.At }
func (n *While) Pos() int    { return n.At }
func (n *For) Pos() int      { return n.At }
func (n *ForEach) Pos() int  { return n.At }
func (n *Jump) Pos() int     { return n.At }
func (n *Throw) Pos() int    { return n.At }
func (n *Try) Pos() int      { return n.At }
func (n *Catch) Pos() int    { return n.At }

func (n *Block) String() string {
	s := make([]string, len(n.Stmts))
	for i, st := range n.Stmts {
		s[i] = st.String()
	}
	if len(s) == 0 {
		return "{ }"
	}
	return "{ " + strings.Join(s, " ") + " }"
}
func (n *VarDecl) String() string { return n.decl() + ";" }
func (n *VarDecl) decl() string {
	s := make([]string, len(n.Names))
	for i, name := range n.Names {
		s[i] = name
		if n.Inits[i] != nil {
			s[i] += " = " + n.Inits[i].String()
		}
	}
	return n.Type + " " + strings.Join(s, ", ")
}
func (n *ExprStmt) String() string { return n.X.String() + ";" }
func (n *Return) String() string {
	if n.X == nil {
		return "return;"
	}
	return "return " + n.X.String() + ";"
}
func (n *If) String() string {
	s := "if (" + n.Cond.String() + ") " + n.Then.String()
	if n.Else != nil {
		s += " else " + n.Else.String()
	}
	return s
}
func (n *While) String() string {
	if n.Do {
		return "do " + n.Body.String() + " while (" + n.Cond.String() + ");"
	}
	return "while (" + n.Cond.String() + ") " + n.Body.String()
}
func (n *For) String() string {
	init := make([]string, len(n.Init))
	for i, x := range n.Init {
		switch x := x.(type) {
		case *VarDecl:
			init[i] = x.decl()
		case *ExprStmt:
			init[i] = x.X.String()
		}
	}
	upd := make([]string, len(n.Update))
	for i, x := range n.Update {
		upd[i] = x.(*ExprStmt).X.String()
	}
	cond := ""
	if n.Cond != nil {
		cond = n.Cond.String()
	}
	return "for (" + strings.Join(init, ", ") + "; " + cond + "; " + strings.Join(upd, ", ") + ") " + n.Body.String()
}
func (n *ForEach) String() string {
	return "for (" + n.Type + " " + n.Name + " : " + n.X.String() + ") " + n.Body.String()
}
func (n *Jump) String() string {
	if n.Continue {
		return "continue;"
	}
	return "break;"
}
func (n *Throw) String() string { return "throw " + n.X.String() + ";" }
func (n *Try) String() string {
	s := "try " + n.Body.String()
	for _, c := range n.Catches {
		s += " " + c.String()
	}
	return s
}
func (n *Catch) String() string {
	return "catch (" + strings.Join(n.Types, " | ") + " " + n.Name + ") " + n.Body.String()
}

// ---- parsing ----

// block parses { statements }.
func (p *parser) block() *Block {
	b := &Block{At: p.tok.pos}
	p.expect("{")
	for p.err == nil && !p.isOp("}") && p.tok.kind != tEOF {
		b.Stmts = append(b.Stmts, p.stmt())
	}
	p.expect("}")
	return b
}

func (p *parser) keyword(s string) bool { return p.tok.kind == tIdent && p.tok.text == s }

// stmt parses one statement.
func (p *parser) stmt() Node {
	p.depth++
	defer func() { p.depth-- }()
	at := p.tok.pos
	if p.depth > MaxDepth {
		p.fail(at, "statements nested deeper than %d", MaxDepth)
		return nil
	}
	switch {
	case p.isOp("{"):
		return p.block()
	case p.isOp(";"):
		p.next()
		return &Block{At: at}
	case p.keyword("return"):
		p.next()
		r := &Return{At: at}
		if !p.isOp(";") {
			r.X = p.expr(0)
		}
		p.expect(";")
		return r
	case p.keyword("if"):
		p.next()
		n := &If{At: at, Cond: p.parenExpr()}
		n.Then = p.stmt()
		if p.keyword("else") {
			p.next()
			n.Else = p.stmt()
		}
		return n
	case p.keyword("while"):
		p.next()
		n := &While{At: at, Cond: p.parenExpr()}
		n.Body = p.stmt()
		return n
	case p.keyword("do"):
		p.next()
		n := &While{At: at, Do: true, Body: p.stmt()}
		if !p.keyword("while") {
			p.fail(p.tok.pos, "expected while after the body of do, found %s", p.tok)
			return nil
		}
		p.next()
		n.Cond = p.parenExpr()
		p.expect(";")
		return n
	case p.keyword("for"):
		return p.forStmt(at)
	case p.keyword("break"), p.keyword("continue"):
		n := &Jump{At: at, Continue: p.tok.text == "continue"}
		p.next()
		if p.tok.kind == tIdent {
			p.fail(p.tok.pos, "labelled break and continue are not supported here")
			return nil
		}
		p.expect(";")
		return n
	case p.keyword("throw"):
		p.next()
		n := &Throw{At: at, X: p.expr(0)}
		p.expect(";")
		return n
	case p.keyword("try"):
		return p.tryStmt(at)
	case p.keyword("switch"), p.keyword("synchronized"), p.keyword("class"),
		p.keyword("interface"), p.keyword("record"), p.keyword("enum"), p.keyword("yield"), p.keyword("assert"):
		p.fail(at, "%s statements are not supported inside a lambda here", p.tok.text)
		return nil
	}
	if d, ok := p.varDecl(at); ok {
		p.expect(";")
		return d
	}
	x := p.expr(0)
	p.expect(";")
	return &ExprStmt{X: x}
}

// tryStmt parses try { } catch (A | B e) { }...
func (p *parser) tryStmt(at int) Node {
	p.next()
	if p.isOp("(") {
		p.fail(p.tok.pos, "try with resources is not supported inside a lambda here")
		return nil
	}
	n := &Try{At: at, Body: p.block()}
	for p.err == nil && p.keyword("catch") {
		c := &Catch{At: p.tok.pos}
		p.next()
		p.expect("(")
		if p.keyword("final") {
			p.next()
		}
		c.Types = append(c.Types, p.typeName())
		for p.err == nil && p.isOp("|") {
			p.next()
			c.Types = append(c.Types, p.typeName())
		}
		if p.tok.kind != tIdent {
			p.fail(p.tok.pos, "expected the name of the caught exception, found %s", p.tok)
			return nil
		}
		c.Name = p.tok.text
		p.next()
		p.expect(")")
		c.Body = p.block()
		n.Catches = append(n.Catches, c)
	}
	if p.keyword("finally") {
		p.fail(p.tok.pos, "finally is not supported inside a lambda here: catch, and do the work after the try")
		return nil
	}
	if len(n.Catches) == 0 && p.err == nil {
		p.fail(p.tok.pos, "a try needs a catch here, found %s", p.tok)
		return nil
	}
	return n
}

// parenExpr parses (expr).
func (p *parser) parenExpr() Node {
	p.expect("(")
	x := p.expr(0)
	p.expect(")")
	return x
}

// forStmt parses for (init; cond; update) body and for (T x : xs) body.
func (p *parser) forStmt(at int) Node {
	p.next()
	p.expect("(")
	var init []Node
	if !p.isOp(";") {
		if typ, name, ok := p.declHead(); ok {
			if p.isOp(":") {
				p.next()
				n := &ForEach{At: at, Type: typ, Name: name, X: p.expr(0)}
				p.expect(")")
				n.Body = p.stmt()
				return n
			}
			init = append(init, p.declRest(at, typ, name))
		} else {
			for p.err == nil {
				init = append(init, &ExprStmt{X: p.expr(0)})
				if !p.isOp(",") {
					break
				}
				p.next()
			}
		}
	}
	p.expect(";")
	n := &For{At: at, Init: init}
	if !p.isOp(";") {
		n.Cond = p.expr(0)
	}
	p.expect(";")
	for p.err == nil && !p.isOp(")") {
		n.Update = append(n.Update, &ExprStmt{X: p.expr(0)})
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	p.expect(")")
	n.Body = p.stmt()
	return n
}

// varDecl parses a local variable declaration (without its semicolon)
// when one starts here; otherwise nothing is consumed.
func (p *parser) varDecl(at int) (*VarDecl, bool) {
	typ, name, ok := p.declHead()
	if !ok {
		return nil, false
	}
	return p.declRest(at, typ, name), true
}

// declRest parses the initializer of the first name and the further names.
func (p *parser) declRest(at int, typ, name string) *VarDecl {
	d := &VarDecl{At: at, Type: typ}
	for p.err == nil {
		var init Node
		if p.isOp("=") {
			p.next()
			if p.isOp("{") {
				init = &NewArray{At: p.tok.pos, Type: typ, Init: p.arrayInit()}
			} else {
				init = p.expr(0)
			}
		}
		d.Names, d.Inits = append(d.Names, name), append(d.Inits, init)
		if !p.isOp(",") {
			break
		}
		p.next()
		if p.tok.kind != tIdent {
			p.fail(p.tok.pos, "expected a variable name, found %s", p.tok)
			break
		}
		name = p.tok.text
		p.next()
	}
	return d
}

// declHead reads ahead for [final] Type Name followed by =, ;, , or :
// (Type: a qualified name with type arguments and array brackets). On
// success the parser stands after Name; otherwise nothing is consumed.
func (p *parser) declHead() (typ, name string, ok bool) {
	lx, tok := p.lx, p.tok
	restore := func() (string, string, bool) {
		p.lx, p.tok = lx, tok
		return "", "", false
	}
	scan := func() bool {
		t, err := p.lx.scan()
		if err != nil {
			return false
		}
		p.tok = t
		return true
	}
	if p.keyword("final") && !scan() {
		return restore()
	}
	if p.tok.kind != tIdent {
		return restore()
	}
	var b strings.Builder
	b.WriteString(p.tok.text)
	if !scan() {
		return restore()
	}
	for p.isOp(".") {
		if !scan() || p.tok.kind != tIdent {
			return restore()
		}
		b.WriteString("." + p.tok.text)
		if !scan() {
			return restore()
		}
	}
	if p.isOp("<") {
		for depth := 0; ; {
			switch {
			case p.isOp("<"):
				depth++
			case p.isOp(">"):
				depth--
			case p.isOp(">>"):
				depth -= 2
			case p.isOp(">>>"):
				depth -= 3
			case p.tok.kind == tIdent, p.isOp("."), p.isOp(","), p.isOp("?"), p.isOp("["), p.isOp("]"), p.isOp("&"):
			default:
				return restore()
			}
			if !scan() {
				return restore()
			}
			if depth <= 0 {
				break
			}
		}
	}
	for p.isOp("[") {
		if !scan() || !p.isOp("]") || !scan() {
			return restore()
		}
		b.WriteString("[]")
	}
	if p.tok.kind != tIdent {
		return restore()
	}
	name = p.tok.text
	if !scan() || !(p.isOp("=") || p.isOp(";") || p.isOp(",") || p.isOp(":")) {
		return restore()
	}
	switch b.String() {
	case "return", "throw", "new", "instanceof", "this", "super", "else", "case":
		return restore()
	}
	return b.String(), name, true
}
