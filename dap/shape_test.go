package dap

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStructsStaySmall keeps the translator a translator: no struct in
// package dap holds more than 25 fields (session policy — suspension,
// invocation, stop state — lives in package jdwp/debugger).
func TestStructsStaySmall(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			fields := 0
			for _, fl := range st.Fields.List {
				fields += max(len(fl.Names), 1)
			}
			if fields > 25 {
				t.Errorf("%s: struct %s has %d fields; at most 25 (move session policy to package debugger)", fset.Position(ts.Pos()), ts.Name.Name, fields)
			}
			return true
		})
	}
}

// TestTranslatorStaysSmall holds package dap to what it is, a translator
// over the debugger layer: its own .go files (tests aside) stay under 5,000
// lines. Policy goes to jdwp/debugger; self-contained parts (the client's
// conventions, launch configurations, custom messages, evaluation,
// outlines, long requests) are packages of their own under dap/.
func TestTranslatorStaysSmall(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	if lines == 0 {
		t.Fatal("no .go files read: the check checked nothing")
	}
	if lines >= 5000 {
		t.Errorf("package dap's .go files hold %d lines; keep them under 5,000 (move policy to package debugger)", lines)
	}
	t.Logf("dap/*.go: %d lines", lines)
}
