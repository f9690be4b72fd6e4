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
