package lang

import (
	"context"
	"path"
	"path/filepath"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

// Language is one source language as the debugger needs it.
type Language interface {
	// Name is the language's name as a user reads it ("Java").
	Name() string
	// Extensions are the file-name extensions of its sources (".java"),
	// lower case, with the dot.
	Extensions() []string
	// Package returns the package a source file declares, read from its
	// head (its first bytes; "" for the default package or none found).
	// Zero-config source lookup indexes a workspace's files by it.
	Package(head []byte) string
	// Classes says which classes can hold the lines of the source file at
	// path (read from disk; an unreadable file is judged by its name).
	Classes(path string) Classes
	// NoCode reports whether a source line (its text) holds no statement:
	// blank, a comment, braces only. A breakpoint there moves to the next
	// line with code.
	NoCode(text string) bool
	// Lambdas finds the lambdas of a source line (its text), in source
	// order: inline breakpoints are offered at their bodies, and a
	// breakpoint's column picks one of them.
	Lambdas(text string) []Lambda
	// LambdaAt returns the position, in the order the language's compiler
	// numbers a line's lambdas, of the innermost of spans (Lambdas) at
	// column, or -1 (a language whose compiler inlines lambdas, Kotlin:
	// their position in source order; the debugger matches them to code).
	LambdaAt(spans []Lambda, column int) int
	// LambdaMethod says whether a method (by name) holds a lambda's body,
	// and the number the compiler gave it (-1 when it gave none).
	LambdaMethod(name string) (n int, ok bool)
	// Locate maps a location in a class to the source file (relative to a
	// source root, slash-separated) and line a user reads. A front end may
	// ask for the line alone (Located.SourceFile then ""), or the file alone
	// (Located.Line 0).
	Locate(at Located) Where
	// Variable says how a frame's variable (its name in the class file's
	// variable table) is shown, and whether it is shown at all.
	Variable(name string) (shown string, ok bool)
	// Engine is the language's expressions.
	Engine() Engine
}

// Classes is which classes can hold a source file's lines.
type Classes interface {
	// Patterns are the class-name patterns (JDWP ClassMatch: a leading or
	// trailing '*') of the classes to watch as they are prepared.
	Patterns() []string
	// Holds reports whether the class of binary name name was compiled
	// from the file. sourceFile returns the class's SourceFile attribute
	// ("" when it has none), read only when the language needs it.
	Holds(name string, sourceFile func() string) bool
	// Top is the binary name of the file's main class (Java: its top-level
	// class), for messages.
	Top() string
}

// Lambda is one lambda on a source line: the 1-based column of its arrow
// (or opening), of its body's first character, and of the end of its body
// (the closing bracket, comma or semicolon that ends it, or the end of the
// line).
type Lambda struct {
	Arrow, Body, End int
	// Callee is the function the lambda is passed to, where the language
	// says ("forEach" for Kotlin's `orders.forEach { … }`): a compiler that
	// inlines the lambda into its caller marks its code with that name.
	Callee string
	// Later says the lambda's body starts on a later line (`forEach { o ->`
	// closing the line): Body is then where it would start on this one.
	Later bool
}

// Located is what the VM says of a location: the class's JNI signature,
// its SourceFile attribute ("" when absent), and the line its line table
// gives (the Java stratum; 0 when none).
type Located struct {
	ClassSig   string
	SourceFile string
	Line       int
	// SMAP returns the class's SourceDebugExtension (JSR-45), read only
	// when the language maps lines through strata; nil when the debugger
	// cannot read it.
	SMAP func(ctx context.Context) (string, error)
}

// Where is a location in source: the file, relative to a source root
// (slash-separated: "com/example/App.java"), and its 1-based line (0 when
// unknown).
type Where struct {
	Rel  string
	Line int
}

// Engine is a language's expressions, parsed once and evaluated in a
// frame's environment (jdwp/eval.Frame implements expr.Env over the
// mirror).
type Engine interface {
	// Parse compiles an expression: a condition, a watch, the console's.
	Parse(src string) (Expression, error)
	// ParseTemplate compiles a log message: text with {expressions}.
	ParseTemplate(src string) (Template, error)
}

// Expression is a parsed expression.
type Expression interface {
	// Eval evaluates it in env.
	Eval(ctx context.Context, env expr.Env) (expr.Value, error)
	// Truth evaluates it as a breakpoint condition: it must yield a
	// boolean, and it must not assign.
	Truth(ctx context.Context, env expr.Env) (bool, error)
}

// Template is a parsed log message.
type Template interface {
	// Eval formats the message in env; an expression that fails shows its
	// error in its place.
	Eval(ctx context.Context, env expr.Env) string
}

// Set is the languages a session knows, the first being the default (the
// language of a file no other one claims).
type Set []Language

// ForFile returns the language of a source file, by its extension (the
// default language when none claims it).
func (s Set) ForFile(name string) Language {
	return s.byExt(filepath.Ext(name))
}

// Claims returns the language whose extension a file name has, or nil
// when none of the set claims it.
func (s Set) Claims(name string) Language {
	ext := strings.ToLower(path.Ext(filepath.ToSlash(name)))
	for _, l := range s {
		for _, e := range l.Extensions() {
			if e == ext {
				return l
			}
		}
	}
	return nil
}

// ForClass returns the language of a class by its SourceFile attribute
// ("" when absent: the default language).
func (s Set) ForClass(sourceFile string) Language {
	return s.byExt(path.Ext(sourceFile))
}

func (s Set) byExt(ext string) Language {
	if len(s) == 0 {
		return nil
	}
	if l := s.Claims("x" + ext); l != nil {
		return l
	}
	return s[0]
}

// VariableNamer is a Language whose frame variables are named together: a
// variable's name may depend on the others live beside it (kotlinc names
// the receiver of an inline lambda $this$main_u24lambda_u241 and marks the
// lambda with $i$a$-apply-…: together they read this@apply). Front ends
// name a frame's variables with VariableNames, not one by one.
type VariableNamer interface {
	// Variables says how each of a frame's variables (their names in the
	// class file's variable table, in its order) is shown, and whether.
	Variables(names []string) (shown []string, ok []bool)
}

// FrameNamer is a Language that names a frame's class as its users read
// it (Kotlin: Shop.Companion.open, where the class file says
// Shop$Companion); a language without one shows the class's simple binary
// name (Java's Outer$Inner, as jdb and IntelliJ show it).
type FrameNamer interface {
	// FrameClass names a class in a frame, given its simple binary name
	// (the binary name after the package: Shop$Companion).
	FrameClass(simple string) string
}

// VariableNames names a frame's variables in language l: together when l
// is a VariableNamer, else each by Variable.
func VariableNames(l Language, names []string) (shown []string, ok []bool) {
	if n, is := l.(VariableNamer); is {
		return n.Variables(names)
	}
	shown, ok = make([]string, len(names)), make([]bool, len(names))
	for i, name := range names {
		shown[i], ok[i] = l.Variable(name)
	}
	return shown, ok
}

// Marker is a variable live at a location, with the code index its range
// starts at (a language reads its compiler's marker variables: Kotlin's
// $i$f$… and $i$a$… say which inline function or lambda the code came
// from).
type Marker struct {
	Name  string
	Start uint64
}

// InlineFrame is one level of code inlined into a method: the inline
// function's name and where in its source the code stands.
type InlineFrame struct {
	Fn string
	At Where
}
