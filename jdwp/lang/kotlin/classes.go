package kotlin

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// File is what a .kt file says about the classes compiled from it.
type File struct {
	// Package is the file's package ("" for the default package).
	Package string
	// Base is the file's name ("Main.kt"), as its classes' SourceFile
	// attribute says it.
	Base string
	// Facade is the binary name of the class holding the file's top-level
	// functions and properties: app.MainKt, or @file:JvmName's name; with
	// @JvmMultifileClass the part that holds this file's code
	// (app.Multi__MultiAKt), the facade itself only delegating.
	Facade string
	// Multifile says the file is one part of a @JvmMultifileClass facade.
	Multifile bool
	// Types are the binary names of the file's top-level classes, objects
	// and interfaces (app.Shop).
	Types []string
}

var (
	kComments  = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	kPackage   = regexp.MustCompile(`(?m)^\s*package\s+([\p{L}_][\p{L}\p{N}_]*(?:\s*\.\s*[\p{L}_][\p{L}\p{N}_]*)*)\s*;?`)
	kJvmName   = regexp.MustCompile(`@file\s*:\s*JvmName\s*\(\s*"([^"]+)"\s*\)`)
	kMultifile = regexp.MustCompile(`@file\s*:\s*JvmMultifileClass\b`)
	kTypeDecl  = regexp.MustCompile(`^(?:(?:public|internal|private|protected|open|final|abstract|sealed|data|enum|annotation|inner|value|inline|expect|actual|external|fun)\s+)*(?:class|object|interface)\s+([\p{L}_][\p{L}\p{N}_]*|` + "`[^`]+`" + `)`)
	kAnnotated = regexp.MustCompile(`^@[\p{L}_][\p{L}\p{N}_.]*(?:\([^)]*\))?\s*`)
)

// ParseFile reads what a Kotlin source says about its classes; name is the
// file's path (only its base name is used).
func ParseFile(name string, src []byte) File {
	base := filepath.Base(name)
	text := stripStrings(kComments.ReplaceAllString(string(src), " "))
	f := File{Base: base}
	if m := kPackage.FindStringSubmatch(text); m != nil {
		f.Package = strings.Join(strings.Fields(strings.ReplaceAll(m[1], ".", " ")), ".")
	}
	stem := facadeStem(strings.TrimSuffix(base, filepath.Ext(base)))
	facade := stem + "Kt"
	if m := kJvmName.FindStringSubmatch(string(src)); m != nil {
		facade = m[1]
	}
	if kMultifile.MatchString(string(src)) {
		f.Multifile = true
		facade += "__" + stem + "Kt"
	}
	f.Facade = qualify(f.Package, facade)
	for _, name := range topLevelTypes(text) {
		f.Types = append(f.Types, qualify(f.Package, name))
	}
	return f
}

// ReadFile is ParseFile of the file at path; an unreadable file is judged
// by its name (the package unknown).
func ReadFile(path string) File {
	b, err := os.ReadFile(path)
	f := ParseFile(path, b)
	if err == nil {
		noteFacade(f) // where evaluation finds the file's top-level functions
	}
	return f
}

func qualify(pkg, name string) string {
	if pkg == "" {
		return name
	}
	return pkg + "." + name
}

// facadeStem is the part of a facade's name kotlinc makes from a file name:
// the name with its first letter upper-cased and what cannot be in a Java
// identifier replaced by '_'.
func facadeStem(stem string) string {
	var b strings.Builder
	for i, r := range stem {
		switch {
		case i == 0:
			b.WriteRune(unicode.ToUpper(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// stripStrings blanks the contents of string and character literals (raw
// strings too), keeping the quotes, so braces and keywords in them count
// for nothing.
func stripStrings(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch {
		case strings.HasPrefix(s[i:], `"""`):
			end := strings.Index(s[i+3:], `"""`)
			if end < 0 {
				end = len(s) - i - 3
			}
			for j := i + 3; j < i+3+end; j++ {
				if b[j] != '\n' {
					b[j] = ' '
				}
			}
			i += end + 5
		case b[i] == '"' || b[i] == '\'':
			q := b[i]
			j := i + 1
			for ; j < len(b) && b[j] != q && b[j] != '\n'; j++ {
				if b[j] == '\\' && j+1 < len(b) {
					b[j] = ' '
					j++
				}
				b[j] = ' '
			}
			i = j
		}
	}
	return string(b)
}

// topLevelTypes lists the names of the classes, objects and interfaces
// declared at brace depth 0.
func topLevelTypes(text string) []string {
	var out []string
	depth := 0
	for _, line := range strings.Split(text, "\n") {
		if depth == 0 {
			l := strings.TrimSpace(line)
			for {
				m := kAnnotated.FindStringIndex(l)
				if m == nil || strings.HasPrefix(l, "@file") {
					break
				}
				l = l[m[1]:]
			}
			if m := kTypeDecl.FindStringSubmatch(l); m != nil {
				out = append(out, strings.Trim(m[1], "`"))
			}
		}
		depth += strings.Count(line, "{") - strings.Count(line, "}")
		if depth < 0 {
			depth = 0
		}
	}
	return out
}

// Roots are the binary names under which the file's code lies: the facade
// and every top-level type.
func (f File) Roots() []string { return append([]string{f.Facade}, f.Types...) }

// Patterns are the class-prepare patterns to watch: each root, and what
// kotlinc nests under it ('$').
func (f File) Patterns() []string {
	var out []string
	for _, r := range f.Roots() {
		out = append(out, r, r+"$*")
	}
	return out
}

// Holds reports whether the class of binary name name was compiled from
// the file: it is a root or nested in one, and its SourceFile attribute
// (when it has one) names the file.
func (f File) Holds(name string, sourceFile func() string) bool {
	for _, r := range f.Roots() {
		if name == r || strings.HasPrefix(name, r+"$") {
			if sourceFile == nil {
				return true
			}
			sf := sourceFile()
			return sf == "" || sf == f.Base
		}
	}
	return false
}

// Top is the facade.
func (f File) Top() string { return f.Facade }
