package java

import (
	"sort"
	"strconv"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/lang"
)

// Lambdas finds the lambdas of a line (their arrows), skipping string and character
// literals and a trailing comment: each arrow's body runs to the bracket
// that closes the one open before it, or to a comma or semicolon at its own
// depth.
func (language) Lambdas(text string) []lang.Lambda {
	var out []lang.Lambda
	var pending []int // indexes into out of bodies not yet closed, innermost last
	depthAt := []int{}
	depth := 0
	closeTo := func(col int, keep func(d int) bool) {
		for len(pending) > 0 {
			i := pending[len(pending)-1]
			if keep(depthAt[len(depthAt)-1]) {
				return
			}
			out[i].End = col
			pending = pending[:len(pending)-1]
			depthAt = depthAt[:len(depthAt)-1]
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '"' || c == '\'':
			for j := i + 1; j < len(text); j++ {
				if text[j] == '\\' {
					j++
					continue
				}
				if text[j] == c {
					i = j
					break
				}
				if j == len(text)-1 {
					i = j
				}
			}
		case c == '/' && i+1 < len(text) && text[i+1] == '/':
			i = len(text)
		case c == '(' || c == '{' || c == '[':
			depth++
		case c == ')' || c == '}' || c == ']':
			depth--
			closeTo(i+1, func(d int) bool { return d <= depth })
		case c == ',' || c == ';':
			closeTo(i+1, func(d int) bool { return d < depth })
		case c == '-' && i+1 < len(text) && text[i+1] == '>':
			j := i + 2
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			out = append(out, lang.Lambda{Arrow: i + 1, Body: j + 1, End: len(text) + 1})
			pending = append(pending, len(out)-1)
			depthAt = append(depthAt, depth)
			i++
		}
	}
	return out
}

// LambdaAt returns the index, in javac's numbering order (post-order), of
// the innermost lambda of spans whose arrow or body holds column, or -1.
func (language) LambdaAt(spans []lang.Lambda, column int) int {
	best := -1
	for i, s := range spans {
		if column >= s.Arrow && column <= s.End && (best < 0 || s.Arrow > spans[best].Arrow) {
			best = i
		}
	}
	if best < 0 {
		return -1
	}
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	// Post-order: a lambda comes after the lambdas inside it; siblings in
	// source order.
	sort.SliceStable(order, func(a, b int) bool {
		x, y := spans[order[a]], spans[order[b]]
		if x.End != y.End {
			return x.End < y.End
		}
		return x.Arrow > y.Arrow
	})
	for pos, i := range order {
		if i == best {
			return pos
		}
	}
	return -1
}

// LambdaMethod says whether a method holds a lambda's body (javac names it
// lambda$main$3) and the number javac gave it (3; -1 when unnumbered).
func (language) LambdaMethod(name string) (int, bool) {
	if !strings.HasPrefix(name, "lambda$") {
		return -1, false
	}
	n, err := strconv.Atoi(name[strings.LastIndexByte(name, '$')+1:])
	if err != nil {
		return -1, true
	}
	return n, true
}
