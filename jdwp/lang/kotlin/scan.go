package kotlin

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A small Kotlin scanner: the tokens of source text that matter to where
// breakpoints go (names, brackets, arrows, operators), with the comments
// (nested block comments too), strings (raw strings, escapes) and
// character literals skipped. A string template's expression (`${…}`) is
// code: its tokens are kept, its braces are not ('{' of "${" is the
// template's, never a block or a lambda).

type token struct {
	text      string
	line, col int // 1-based; col in bytes of the line
	ident     bool
	nl        bool // the first token of its line
}

// operators are the tokens of more than one character the scanner keeps
// whole ("==" is not '=' twice); longest first.
var operators = []string{"===", "!==", "..<", "->", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "&&", "||", "?.", "?:", "::", "..", "!!", "++", "--"}

// scan returns the tokens of src.
func scan(src string) []token {
	s := scanner{src: src, line: 1, lineStart: 0, lastLine: 0}
	s.code(false)
	return s.out
}

type scanner struct {
	src       string
	i         int
	line      int
	lineStart int
	lastLine  int // the line of the last token kept
	out       []token
}

func (s *scanner) emit(start int, ident bool) {
	t := token{text: s.src[start:s.i], line: s.line, col: start - s.lineStart + 1, ident: ident, nl: s.line != s.lastLine}
	s.lastLine = s.line
	s.out = append(s.out, t)
}

// newline notes a '\n' at s.i (already passed).
func (s *scanner) newline(at int) {
	s.line++
	s.lineStart = at + 1
}

// code scans code until the end, or, in a template, the '}' that ends it.
func (s *scanner) code(template bool) {
	depth := 0
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\n':
			s.newline(s.i)
			s.i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			s.i++
		case strings.HasPrefix(s.src[s.i:], "//"):
			for s.i < len(s.src) && s.src[s.i] != '\n' {
				s.i++
			}
		case strings.HasPrefix(s.src[s.i:], "/*"):
			s.blockComment()
		case strings.HasPrefix(s.src[s.i:], `"""`):
			s.i += 3
			s.str(true)
		case c == '"':
			s.i++
			s.str(false)
		case c == '\'':
			s.char()
		case c == '`':
			start := s.i
			s.i++
			for s.i < len(s.src) && s.src[s.i] != '`' && s.src[s.i] != '\n' {
				s.i++
			}
			if s.i < len(s.src) && s.src[s.i] == '`' {
				s.i++
			}
			s.emit(start, true)
		case c == '{':
			depth++
			start := s.i
			s.i++
			s.emit(start, false)
		case c == '}':
			if template && depth == 0 {
				s.i++
				return
			}
			depth--
			start := s.i
			s.i++
			s.emit(start, false)
		case c >= '0' && c <= '9':
			start := s.i
			for s.i < len(s.src) {
				d := s.src[s.i]
				if d == '.' && s.i+1 < len(s.src) && s.src[s.i+1] >= '0' && s.src[s.i+1] <= '9' {
					s.i += 2
					continue
				}
				if d < utf8.RuneSelf && (d == '_' || d >= '0' && d <= '9' || d >= 'a' && d <= 'z' || d >= 'A' && d <= 'Z') {
					s.i++
					continue
				}
				break
			}
			s.emit(start, false)
		default:
			r, n := utf8.DecodeRuneInString(s.src[s.i:])
			if r == '_' || unicode.IsLetter(r) {
				start := s.i
				for s.i < len(s.src) {
					r, n := utf8.DecodeRuneInString(s.src[s.i:])
					if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
						break
					}
					s.i += n
				}
				s.emit(start, true)
				continue
			}
			start := s.i
			op := ""
			for _, o := range operators {
				if strings.HasPrefix(s.src[s.i:], o) {
					op = o
					break
				}
			}
			if op != "" {
				s.i += len(op)
			} else {
				s.i += n
			}
			s.emit(start, false)
		}
	}
}

// blockComment passes a /* … */ comment, nested ones included.
func (s *scanner) blockComment() {
	depth := 0
	for s.i < len(s.src) {
		switch {
		case strings.HasPrefix(s.src[s.i:], "/*"):
			depth++
			s.i += 2
		case strings.HasPrefix(s.src[s.i:], "*/"):
			depth--
			s.i += 2
			if depth == 0 {
				return
			}
		default:
			if s.src[s.i] == '\n' {
				s.newline(s.i)
			}
			s.i++
		}
	}
}

// str passes a string's contents and its closing quote(s), scanning its
// templates' expressions as code.
func (s *scanner) str(raw bool) {
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case raw && strings.HasPrefix(s.src[s.i:], `"""`):
			s.i += 3
			for s.i < len(s.src) && s.src[s.i] == '"' { // """"x"""": the last three close it
				s.i++
			}
			return
		case !raw && c == '"':
			s.i++
			return
		case !raw && c == '\n': // an unterminated string ends with its line
			return
		case !raw && c == '\\':
			s.i++
			if s.i < len(s.src) && s.src[s.i] != '\n' {
				s.i++
			}
		case strings.HasPrefix(s.src[s.i:], "${"):
			s.i += 2
			s.code(true)
		default:
			if c == '\n' {
				s.newline(s.i)
			}
			s.i++
		}
	}
}

// char passes a character literal: 'a', '\n', '\u0041' or a quote escaped.
func (s *scanner) char() {
	s.i++
	for s.i < len(s.src) && s.src[s.i] != '\'' && s.src[s.i] != '\n' {
		if s.src[s.i] == '\\' && s.i+1 < len(s.src) && s.src[s.i+1] != '\n' {
			s.i++
		}
		s.i++
	}
	if s.i < len(s.src) && s.src[s.i] == '\'' {
		s.i++
	}
}
