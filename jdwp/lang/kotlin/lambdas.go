package kotlin

import (
	"strconv"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/lang"
)

// Lambdas on a line, for breakpoints by column (IntelliJ's "lambda"
// breakpoints). A '{' opens a lambda literal unless it opens a block: a
// control structure's (`if (…) {`, `else {`, `try {`, `when (x) {`, a
// when branch's `-> {`), a declaration's body (`fun f() {`, `class A : B
// {`, `object O {`, `init {`, `get() {`), or a line that starts with it
// (the previous line's). A string template's `${` is neither (the scanner
// keeps no brace of it). kotlinc compiles each lambda either to a method
// (Kotlin 2's invokedynamic `main$lambda$1`, or a class's `invoke` with
// -Xlambdas=class) or, passed to an inline function, into the caller,
// inside the scope of a marker variable `$i$a$-forEach-…`: the call a
// lambda is passed to (its Callee) says which marker is its.

// blockAfter are the words after which '{' opens a block.
var blockAfter = map[string]bool{
	"else": true, "try": true, "finally": true, "do": true, "init": true, "when": true,
	"object": true, "companion": true, "interface": true, "class": true, "enum": true,
}

// blockCalls are the words whose parenthesised part a block follows.
var blockCalls = map[string]bool{
	"if": true, "while": true, "for": true, "when": true, "catch": true, "constructor": true,
	"get": true, "set": true, "init": true,
}

// declWords start declarations whose header a body's '{' ends.
var declWords = map[string]bool{"fun": true, "class": true, "interface": true, "object": true, "enum": true}

// Lambdas finds the lambdas opened on a line, in source order: Arrow is
// the column of the '{', Body that of the body's first token (after the
// parameters' `->`; for a body that starts on a later line, Later, where
// it would start on this one), End that of the closing '}' (or the end of
// the line), Callee the function the lambda is passed to ("" when none:
// assigned, returned). An empty lambda `{ }` is none.
func (language) Lambdas(text string) []lang.Lambda { return Lambdas(text) }

// Lambdas is the language's Lambdas.
func Lambdas(text string) []lang.Lambda {
	toks := scan(text)
	if len(toks) > 0 && toks[0].line != 1 {
		return nil
	}
	var out []lang.Lambda
	for k, t := range toks {
		if t.text != "{" || t.line != 1 || !opensLambda(toks, k) {
			continue
		}
		end := len(text) + 1
		closing := matching(toks, k)
		if closing >= 0 && toks[closing].line == 1 {
			end = toks[closing].col
		}
		body := bodyStart(toks, k, closing)
		switch {
		case body >= 0 && toks[body].line == 1:
			out = append(out, lang.Lambda{Arrow: t.col, Body: toks[body].col, End: end, Callee: callee(toks, k)})
		case body < 0 && closing < 0:
			// Its body starts on a later line: offered where it would start
			// on this one, after the parameters' arrow if any.
			at := t.col + 1
			for j := k + 1; j < len(toks); j++ {
				if toks[j].text == "->" {
					at = toks[j].col + 2
				}
			}
			out = append(out, lang.Lambda{Arrow: t.col, Body: min(at, end), End: end, Callee: callee(toks, k), Later: true})
		}
	}
	return out
}

// opensLambda reports whether the '{' at toks[k] opens a lambda literal.
func opensLambda(toks []token, k int) bool {
	if k == 0 {
		return false // a line starting with '{': the previous line's block
	}
	prev := toks[k-1]
	switch {
	case prev.text == "->" || prev.text == "}" || prev.text == ";":
		return false
	case prev.ident && blockAfter[prev.text]:
		return false
	case prev.text == ")":
		open := matchingOpen(toks, k-1)
		if open > 0 && toks[open-1].ident && blockCalls[toks[open-1].text] {
			return false
		}
		return !declHeader(toks, k)
	case prev.ident || prev.text == ">" || prev.text == "?":
		return !declHeader(toks, k)
	}
	return true
}

// declHeader reports whether the '{' at toks[k] ends a declaration's
// header: a declaration word before it at its nesting, with no '=' after
// the word (`fun f() = run {` is an expression body).
func declHeader(toks []token, k int) bool {
	depth := 0
	for j := k - 1; j >= 0; j-- {
		switch toks[j].text {
		case ")", "]", "}":
			depth++
		case "(", "[", "{":
			depth--
			if depth < 0 {
				return false
			}
		case "=":
			if depth == 0 {
				return false
			}
		}
		if depth == 0 && toks[j].ident && declWords[toks[j].text] {
			return true
		}
	}
	return false
}

// matchingOpen returns the index of the '(' or '[' the ')' or ']' at
// toks[j] closes, -1 when none does.
func matchingOpen(toks []token, j int) int {
	depth := 0
	for k := j; k >= 0; k-- {
		switch toks[k].text {
		case ")", "]":
			depth++
		case "(", "[":
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// bodyStart returns the index of the first token of the body of the lambda
// opened at toks[k] (closed at toks[closing], -1 for not on the line):
// after its parameters and `->` when it has some; -1 for an empty body.
func bodyStart(toks []token, k, closing int) int {
	last := len(toks)
	if closing >= 0 {
		last = closing
	}
	depth := 0
	for j := k + 1; j < last; j++ {
		t := toks[j]
		switch {
		case t.text == "->" && depth == 0:
			if j+1 < last {
				return j + 1
			}
			return -1
		case t.text == "(":
			depth++
		case t.text == ")":
			depth--
		case t.ident, t.text == ",", t.text == ":", t.text == "<", t.text == ">", t.text == "?", t.text == ".":
		default:
			j = last // not a parameter list
		}
	}
	if k+1 < last {
		return k + 1
	}
	return -1
}

// callee names the function the lambda opened at toks[k] is passed to: a
// trailing lambda's call (`forEach {`, `logged("x") {`, `f<T> {`), or the
// call whose parentheses hold it (`f(1, { … })`, `f(block = { … })`).
func callee(toks []token, k int) string {
	prev := toks[k-1]
	switch {
	case prev.ident:
		return prev.text
	case prev.text == ")":
		if open := matchingOpen(toks, k-1); open > 0 {
			return nameBefore(toks, open)
		}
	case prev.text == ">":
		return nameBefore(toks, k)
	case prev.text == "(" || prev.text == "," || prev.text == "=" && k >= 3 && toks[k-2].ident && (toks[k-3].text == "(" || toks[k-3].text == ","):
		depth := 0
		for j := k - 1; j >= 0; j-- {
			switch toks[j].text {
			case ")", "]", "}":
				depth++
			case "[", "{":
				depth--
				if depth < 0 {
					return ""
				}
			case "(":
				depth--
				if depth < 0 {
					return nameBefore(toks, j)
				}
			}
		}
	}
	return ""
}

// nameBefore is the name of the call whose '(' (or a trailing '{') stands
// at toks[j], type arguments passed over; "" when none.
func nameBefore(toks []token, j int) string {
	i := j - 1
	if i >= 0 && toks[i].text == ">" {
		depth := 0
		for ; i >= 0; i-- {
			if toks[i].text == ">" {
				depth++
			} else if toks[i].text == "<" {
				depth--
				if depth == 0 {
					i--
					break
				}
			}
		}
	}
	if i >= 0 && toks[i].ident {
		return toks[i].text
	}
	return ""
}

// LambdaAt returns the position, in source order, of the innermost lambda
// of spans at column (kotlinc's own numbering differs between lambdas
// compiled to methods and lambdas inlined: the debugger matches them to
// the code by their calls), or -1.
func (language) LambdaAt(spans []lang.Lambda, column int) int {
	best := -1
	for i, s := range spans {
		if column >= s.Arrow && column <= s.End && (best < 0 || s.Arrow > spans[best].Arrow) {
			best = i
		}
	}
	return best
}

// InlinedLambda says whether a local variable marks the code of a lambda
// inlined into its caller (`$i$a$-forEach-MainKt$total$1`; with
// -Xuse-inline-scopes-numbers `$i$a$-forEach-…\2\40\1`) and names the
// inline function it was passed to.
func (language) InlinedLambda(variable string) (string, bool) {
	rest, ok := strings.CutPrefix(variable, "$i$a$")
	if !ok {
		return "", false
	}
	rest = strings.TrimPrefix(rest, "-")
	if i := strings.IndexAny(rest, "-\\"); i >= 0 {
		rest = rest[:i]
	}
	return rest, rest != ""
}

// LambdaBody says whether a method holds a lambda's body: Kotlin 2's
// invokedynamic lambdas (main$lambda$1: number 1), or the invoke (or a
// suspend lambda's invokeSuspend) of a lambda class (-Xlambdas=class:
// MainKt$main$square$1, numbered by its last part).
func (l language) LambdaBody(class, method string) (int, bool) {
	if n, ok := l.LambdaMethod(method); ok {
		return n, true
	}
	if method != "invoke" && method != "invokeSuspend" {
		return -1, false
	}
	i := strings.LastIndexByte(class, '$')
	if i < 0 {
		return -1, false
	}
	n, err := strconv.Atoi(class[i+1:])
	if err != nil {
		return -1, false
	}
	return n, true
}
