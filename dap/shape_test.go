package dap

import (
	"go/ast"
	"go/parser"
	"go/token"
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
