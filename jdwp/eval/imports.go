package eval

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Imports is what a Java compilation unit declares before its first type:
// its package and its import declarations, which decide what a simple
// type name written in the file means (JLS 7.5, 6.4.1).
type Imports struct {
	Package  string   // "com.acme.app"; "" for the unnamed package
	Single   []string // single-type imports: "com.acme.model.Box"
	OnDemand []string // type-import-on-demand: "com.acme.util" for com.acme.util.*
	// Static and StaticOnDemand are the static imports ("a.b.C.name",
	// "a.b.C" for a.b.C.*), kept for what reads them.
	Static, StaticOnDemand []string
}

// maxHeader bounds how much of a source file ParseImports reads: a package
// and its imports come first, and no file has megabytes of them.
const maxHeader = 1 << 20

// ParseImports reads the package and import declarations of a Java source
// file. It is a tolerant scanner, not a parser: comments, string, character
// and text-block literals (in annotations) and annotations themselves are
// skipped, and it stops at the first token that is none of these
// declarations (the first type's modifiers or keyword). A malformed
// declaration is skipped up to its semicolon.
func ParseImports(src []byte) Imports {
	if len(src) > maxHeader {
		src = src[:maxHeader]
	}
	s := &scanner{src: src}
	var im Imports
	for {
		t := s.next()
		switch t {
		case "":
			return im
		case "@":
			if s.next() == "interface" {
				return im // an annotation type declaration
			}
			s.skipAnnotation()
		case ";":
		case "package":
			if name, _, ok := s.name(); ok {
				im.Package = name
			}
		case "import":
			static := false
			name, star, ok := s.name()
			if ok && name == "static" {
				static = true
				name, star, ok = s.name()
			}
			if !ok {
				continue
			}
			switch {
			case static && star:
				im.StaticOnDemand = append(im.StaticOnDemand, name)
			case static:
				im.Static = append(im.Static, name)
			case star:
				im.OnDemand = append(im.OnDemand, name)
			default:
				im.Single = append(im.Single, name)
			}
		default:
			return im
		}
	}
}

// scanner yields the tokens of Java source that a header is made of:
// identifiers, and single punctuation characters; everything else it
// passes over.
type scanner struct {
	src []byte
	pos int
}

// next returns the next token, "" at the end.
func (s *scanner) next() string {
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			s.pos++
		case c == '/' && s.peek(1) == '/':
			for s.pos < len(s.src) && s.src[s.pos] != '\n' {
				s.pos++
			}
		case c == '/' && s.peek(1) == '*':
			end := strings.Index(string(s.src[s.pos+2:]), "*/")
			if end < 0 {
				s.pos = len(s.src)
			} else {
				s.pos += 2 + end + 2
			}
		case c == '"' && s.peek(1) == '"' && s.peek(2) == '"':
			end := strings.Index(string(s.src[s.pos+3:]), `"""`)
			if end < 0 {
				s.pos = len(s.src)
			} else {
				s.pos += 3 + end + 3
			}
			return "literal"
		case c == '"' || c == '\'':
			s.pos++
			for s.pos < len(s.src) && s.src[s.pos] != c && s.src[s.pos] != '\n' {
				if s.src[s.pos] == '\\' {
					s.pos++
				}
				s.pos++
			}
			s.pos++
			return "literal"
		default:
			r, size := utf8.DecodeRune(s.src[s.pos:])
			if !identStart(r) {
				s.pos += size
				return string(r)
			}
			start := s.pos
			for s.pos < len(s.src) {
				r, size := utf8.DecodeRune(s.src[s.pos:])
				if !identStart(r) && !unicode.IsDigit(r) {
					break
				}
				s.pos += size
			}
			return string(s.src[start:s.pos])
		}
	}
	return ""
}

func (s *scanner) peek(n int) byte {
	if s.pos+n < len(s.src) {
		return s.src[s.pos+n]
	}
	return 0
}

func identStart(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) }

// name reads a qualified name up to its semicolon: a.b.C, or a.b.* (star
// set). ok is false for anything else, which is skipped to the semicolon.
func (s *scanner) name() (name string, star, ok bool) {
	var parts []string
	want := "ident"
	for {
		t := s.next()
		switch {
		case t == "":
			return "", false, false
		case t == ";" && want == "dot" && len(parts) > 0:
			return strings.Join(parts, "."), star, true
		case t == "." && want == "dot" && !star:
			want = "ident"
		case t == "*" && want == "ident" && len(parts) > 0:
			star, want = true, "dot"
		case want == "ident" && t != "" && identStart([]rune(t)[0]):
			parts, want = append(parts, t), "dot"
			if len(parts) == 1 && t == "static" {
				// "import static": the caller asks again
				return t, false, true
			}
		default:
			for t != ";" && t != "" {
				t = s.next()
			}
			return "", false, false
		}
	}
}

// skipAnnotation passes over the rest of an annotation whose @ and first
// name part were read: more name parts, then its arguments in parentheses.
func (s *scanner) skipAnnotation() {
	for {
		save := s.pos
		switch s.next() {
		case ".":
			s.next()
		case "(":
			for depth := 1; depth > 0; {
				switch s.next() {
				case "(":
					depth++
				case ")":
					depth--
				case "":
					return
				}
			}
			return
		default:
			s.pos = save
			return
		}
	}
}
