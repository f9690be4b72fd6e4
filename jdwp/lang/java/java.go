package java

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

// Lang is the Java language.
var Lang lang.Language = language{}

type language struct{}

func (language) Name() string         { return "Java" }
func (language) Extensions() []string { return []string{".java"} }
func (language) Engine() lang.Engine  { return engine{} }

// Variable shows a variable as javac names it.
func (language) Variable(name string) (string, bool) { return name, true }

var (
	comments = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	pkgDecl  = regexp.MustCompile(`^\s*package\s+([\p{L}_$][\p{L}\p{N}_$]*(?:\s*\.\s*[\p{L}_$][\p{L}\p{N}_$]*)*)\s*;`)
)

// packageRE is a package declaration at the start of a line of a file's
// head (comments blanked first: a package word in a license header is not
// the declaration).
var packageRE = regexp.MustCompile(`(?m)^\s*package\s+([\w.]+)\s*;`)

// Package reads the package declaration in a Java file's head ("" for the
// default package).
func (language) Package(head []byte) string {
	if m := packageRE.FindSubmatch(stripComments(head)); m != nil {
		return string(m[1])
	}
	return ""
}

// stripComments blanks /* */ and // comments, keeping the length and the
// line breaks.
func stripComments(b []byte) []byte {
	out := make([]byte, len(b))
	copy(out, b)
	for i := 0; i+1 < len(out); i++ {
		switch {
		case out[i] == '/' && out[i+1] == '*':
			j := i
			for ; j+1 < len(out) && !(out[j] == '*' && out[j+1] == '/'); j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			for k := j; k < len(out) && k <= j+1; k++ {
				out[k] = ' '
			}
			i = j + 1
		case out[i] == '/' && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		}
	}
	return out
}

// ClassForSource returns the binary name of a source file's top-level
// class: its package declaration plus the file's base name.
func ClassForSource(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	b, err := os.ReadFile(file)
	if err != nil {
		return base
	}
	src := comments.ReplaceAllString(string(b), " ")
	if m := pkgDecl.FindStringSubmatch(src); m != nil {
		return strings.Join(strings.Fields(strings.ReplaceAll(m[1], ".", " ")), ".") + "." + base
	}
	return base
}

// Classes of a Java file: its top-level class and the classes nested in it
// (Outer$Inner, Outer$1).
func (language) Classes(file string) lang.Classes { return classes(ClassForSource(file)) }

type classes string

func (c classes) Top() string        { return string(c) }
func (c classes) Patterns() []string { return []string{string(c) + "*"} }
func (c classes) Holds(name string, _ func() string) bool {
	return name == string(c) || strings.HasPrefix(name, string(c)+"$")
}

// NoCode reports whether a line is blank, a comment or braces only.
func (language) NoCode(text string) bool {
	l := strings.TrimSpace(text)
	if l == "" || strings.HasPrefix(l, "//") || strings.HasPrefix(l, "/*") || strings.HasPrefix(l, "*") {
		return true
	}
	return strings.Trim(l, "{}); \t") == ""
}

// Locate finds a class's source in its package's directory; lines are the
// class file's own (Java has one stratum).
func (language) Locate(at lang.Located) lang.Where {
	rel := at.SourceFile
	if name := javalang.InternalName(at.ClassSig); strings.Contains(name, "/") {
		rel = path.Join(path.Dir(name), at.SourceFile)
	}
	return lang.Where{Rel: rel, Line: at.Line}
}

type engine struct{}

func (engine) Parse(src string) (lang.Expression, error) {
	n, err := expr.Parse(src)
	if err != nil {
		return nil, err
	}
	return expression{n}, nil
}

func (engine) ParseTemplate(src string) (lang.Template, error) {
	t, err := expr.ParseTemplate(src)
	if err != nil {
		return nil, err
	}
	return t, nil
}

type expression struct{ n expr.Node }

func (e expression) Eval(ctx context.Context, env expr.Env) (expr.Value, error) {
	return expr.Eval(ctx, e.n, env)
}

func (e expression) Truth(ctx context.Context, env expr.Env) (bool, error) {
	return expr.Truth(ctx, e.n, env)
}
