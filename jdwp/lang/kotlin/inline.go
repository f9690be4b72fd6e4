package kotlin

// Which lines of a source are the bodies of its inline functions: kotlinc
// copies those lines into every caller, in any package, so a breakpoint
// there must follow the classes that load later (the debugger watches for
// them while such a breakpoint exists).

// modifiers may stand between a declaration's start and its keyword.
var modifiers = map[string]bool{
	"public": true, "private": true, "internal": true, "protected": true, "inline": true, "override": true,
	"open": true, "final": true, "abstract": true, "suspend": true, "tailrec": true, "operator": true,
	"infix": true, "external": true, "actual": true, "expect": true, "const": true, "lateinit": true,
}

// declStarts are the tokens that begin a declaration (or end the one before
// it) at the start of a line.
var declStarts = map[string]bool{
	"fun": true, "val": true, "var": true, "class": true, "object": true, "interface": true, "typealias": true,
	"init": true, "constructor": true, "companion": true, "enum": true, "data": true, "sealed": true,
	"annotation": true, "value": true, "@": true, "}": true,
}

// InlineBodies returns the line ranges [from, to] (1-based, inclusive) of
// the inline functions declared in src: from the line of `fun` to the end
// of the body (a block's closing brace, or an expression body's last line).
func InlineBodies(src []byte) [][2]int {
	toks := scan(string(src))
	var out [][2]int
	for i, t := range toks {
		if t.text != "fun" || !t.ident || !inlineModified(toks, i) {
			continue
		}
		if end, ok := bodyEnd(toks, i); ok {
			out = append(out, [2]int{t.line, end})
		}
	}
	return out
}

// InlineBody reports whether line of src lies in an inline function.
func InlineBody(src []byte, line int) bool {
	for _, r := range InlineBodies(src) {
		if line >= r[0] && line <= r[1] {
			return true
		}
	}
	return false
}

// inlineModified reports whether the `fun` at toks[i] has the inline
// modifier among the modifiers and annotations before it.
func inlineModified(toks []token, i int) bool {
	for j := i - 1; j >= 0; j-- {
		t := toks[j]
		switch {
		case t.ident && t.text == "inline":
			return true
		case t.ident && modifiers[t.text]:
		case t.text == ")" && annotationArgs(toks, j) >= 0:
			j = annotationArgs(toks, j)
		case t.ident && j > 0 && toks[j-1].text == "@":
			j--
		case t.ident && j > 1 && toks[j-1].text == "." && toks[j-2].ident:
			j-- // a qualified annotation's name
		default:
			return false
		}
	}
	return false
}

// annotationArgs returns, for the ')' at toks[j] closing an annotation's
// arguments (@Suppress("x")), the index of the annotation's name; -1 when
// it closes something else.
func annotationArgs(toks []token, j int) int {
	depth := 0
	for k := j; k >= 0; k-- {
		switch toks[k].text {
		case ")":
			depth++
		case "(":
			depth--
			if depth == 0 {
				if k >= 2 && toks[k-1].ident && toks[k-2].text == "@" {
					return k - 1
				}
				return -1
			}
		}
	}
	return -1
}

// bodyEnd finds the last line of the body of the function declared at
// toks[i] (`fun`); ok is false for one without a body.
func bodyEnd(toks []token, i int) (int, bool) {
	paren, params := 0, false
	for j := i + 1; j < len(toks); j++ {
		t := toks[j]
		switch t.text {
		case "(", "[":
			paren++
			continue
		case ")", "]":
			paren--
			if paren == 0 {
				params = true
			}
			continue
		}
		if paren > 0 {
			continue
		}
		switch {
		case t.text == "{" && params:
			if k := matching(toks, j); k >= 0 {
				return toks[k].line, true
			}
			return toks[len(toks)-1].line, true
		case t.text == "=" && params:
			return exprEnd(toks, j), true
		case params && t.nl && declStarts[t.text], params && t.nl && t.ident && modifiers[t.text], t.text == "}":
			return 0, false // no body (abstract, an interface's)
		}
	}
	return 0, false
}

// matching returns the index of the '}' closing the '{' at toks[j], -1
// when none does.
func matching(toks []token, j int) int {
	depth := 0
	for k := j; k < len(toks); k++ {
		switch toks[k].text {
		case "{":
			depth++
		case "}":
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// exprEnd is the last line of the expression body starting after the '='
// at toks[j]: it runs until a line at its nesting begins a declaration, or
// its enclosing block closes.
func exprEnd(toks []token, j int) int {
	last := toks[j].line
	depth := 0
	for k := j + 1; k < len(toks); k++ {
		t := toks[k]
		if depth == 0 && t.nl && (declStarts[t.text] || t.ident && modifiers[t.text]) {
			return last
		}
		switch t.text {
		case "{", "(", "[":
			depth++
		case "}", ")", "]":
			depth--
			if depth < 0 {
				return last
			}
		}
		last = t.line
	}
	return last
}
