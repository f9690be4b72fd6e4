package debugger

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneInvocationRoad: no production code of the module but the road
// (invoke.go) sends an invocation command — a call of a JDWP connection's
// InvokeMethod, InvokeStatic, InvokeInterfaceStatic or NewInstance, or a
// use of the invocation command numbers — outside package jdwp, which
// declares them. Presentation, conditions, log messages, evaluation and
// the memory view all run their methods through Target.Invoke.
func TestOneInvocationRoad(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]bool{"InvokeMethod": true, "InvokeStatic": true, "InvokeInterfaceStatic": true, "NewInstance": true}
	road := filepath.Join(root, "jdwp", "debugger", "invoke.go")
	// The monitor's multiplexer names the invocation commands other
	// debuggers send through it (to release what a gone debugger's late
	// reply would hold); it sends none of its own.
	forwarder := filepath.Join(root, "bridge", "mux", "invokes.go")
	files := 0
	var bad []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "node_modules", "vscode-extension", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == road || path == forwarder || filepath.Dir(path) == filepath.Join(root, "jdwp") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			rel, _ := filepath.Rel(root, path)
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "jdwp" && strings.HasPrefix(sel.Sel.Name, "Cmd") && strings.Contains(sel.Sel.Name, "Invoke") {
				bad = append(bad, rel+": jdwp."+sel.Sel.Name)
			}
			if !methods[sel.Sel.Name] {
				return true
			}
			recv := ""
			switch x := sel.X.(type) {
			case *ast.Ident:
				recv = x.Name
			case *ast.SelectorExpr:
				recv = x.Sel.Name
			case *ast.CallExpr:
				if s, ok := x.Fun.(*ast.SelectorExpr); ok {
					recv = s.Sel.Name + "()"
				}
			}
			if strings.EqualFold(strings.TrimSuffix(recv, "()"), "conn") {
				bad = append(bad, rel+": "+recv+"."+sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d files under %s: the check checked nothing", files, root)
	}
	for _, b := range bad {
		t.Errorf("an invocation outside the debugger layer's road (jdwp/debugger/invoke.go): %s", b)
	}
}
