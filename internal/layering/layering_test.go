package layering

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listModule lists every package of the module with go list.
func listModule(t *testing.T) []Package {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-json", Module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -json %s/...: %v\n%s", Module, err, stderr.String())
	}
	var pkgs []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p Package
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decoding go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestModuleKeepsTheLayers lists every package of the module with go list
// and fails on each import that breaks the rule, naming it.
func TestModuleKeepsTheLayers(t *testing.T) {
	pkgs := listModule(t)
	// The walk must have seen the module: a rule checked against nothing
	// proves nothing.
	seen := map[string]bool{}
	for _, p := range pkgs {
		seen[strings.TrimPrefix(p.ImportPath, Module+"/")] = true
	}
	for _, want := range []string{"jdwp", "jdwp/mirror", "ddm", "ddm/simvm", "internal/framing", "dap", "bridge", "cmd/ddmbridge", "jdwp/lang", "jdwp/eval", "jdwp/debugger"} {
		if !seen[want] {
			t.Fatalf("go list did not list %s (listed %d packages)", want, len(pkgs))
		}
	}
	for i := range pkgs {
		if err := pkgs[i].ReadWireNames(); err != nil {
			t.Fatalf("reading %s: %v", pkgs[i].ImportPath, err)
		}
	}
	for _, line := range Check(pkgs) {
		t.Error(line)
	}
}

// TestEveryPackageIsDocumented holds README's layout table to the
// module's packages (a row each) and each package's doc.go to saying what
// it owns and what it must not touch.
func TestEveryPackageIsDocumented(t *testing.T) {
	pkgs := listModule(t)
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(string(readme), "\n") {
		if f := strings.Split(line, "`"); strings.HasPrefix(line, "| `") && len(f) > 2 {
			rows[strings.TrimSuffix(f[1], "/")] = true
		}
	}
	if len(rows) < 10 {
		t.Fatalf("README's layout table has %d rows: not found", len(rows))
	}
	for _, p := range pkgs {
		rel, ok := strings.CutPrefix(p.ImportPath, Module+"/")
		if !ok {
			continue
		}
		if !rows[rel] {
			t.Errorf("README's layout table has no row for %s", rel)
		}
		doc, err := os.ReadFile(filepath.Join(p.Dir, "doc.go"))
		if err != nil {
			t.Errorf("%s has no doc.go saying what it owns and must not touch", rel)
			continue
		}
		text := strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(string(doc), "//", " ")), " "))
		if !strings.Contains(text, "own") || !strings.Contains(text, "must not") && !strings.Contains(text, "never") {
			t.Errorf("%s/doc.go does not say what it owns and what it must not touch", rel)
		}
	}
}

// TestCheckCatches feeds Check the imports this rule exists to refuse —
// each upward or harness arrow the module had when the rule learnt the
// layers of jdwp (issue 36) among them — and the ones it allows.
func TestCheckCatches(t *testing.T) {
	m := func(s string) string { return Module + "/" + s }
	cases := []struct {
		name string
		pkg  Package
		bad  bool
	}{
		{"ddm/* imports bridge/*", Package{ImportPath: m("ddm/simvm"), Imports: []string{m("bridge/hostproc")}}, true},
		{"dap imports bridge/*", Package{ImportPath: m("dap"), Imports: []string{m("bridge/hotspot")}}, true},
		{"bridge imports dap/*", Package{ImportPath: m("bridge"), Imports: []string{m("dap/framing")}}, true},
		{"jdwp imports jdwp/mirror", Package{ImportPath: m("jdwp"), Imports: []string{m("jdwp/mirror")}}, true},
		{"ddm/* test imports dap", Package{ImportPath: m("ddm/hprof"), XTestImports: []string{m("dap")}}, true},
		{"unknown top-level directory", Package{ImportPath: m("util")}, true},
		{"jdwp/* in no layer", Package{ImportPath: m("jdwp/newthing")}, true},
		// The layers within jdwp.
		{"the mirror imports the debugger layer", Package{ImportPath: m("jdwp/mirror"), Imports: []string{m("jdwp/debugger")}}, true},
		{"the mirror imports evaluation", Package{ImportPath: m("jdwp/mirror"), Imports: []string{m("jdwp/eval")}}, true},
		{"the mirror imports a language", Package{ImportPath: m("jdwp/mirror"), Imports: []string{m("jdwp/lang/java/expr")}}, true},
		{"a language imports the debugger layer", Package{ImportPath: m("jdwp/lang/java"), Imports: []string{m("jdwp/debugger")}}, true},
		{"the seam imports evaluation", Package{ImportPath: m("jdwp/lang"), Imports: []string{m("jdwp/eval")}}, true},
		{"javalang imports the mirror", Package{ImportPath: m("jdwp/javalang"), Imports: []string{m("jdwp/mirror")}}, true},
		{"localjvm imports the debugger layer", Package{ImportPath: m("jdwp/localjvm"), Imports: []string{m("jdwp/debugger")}}, true},
		{"the wire imports javalang", Package{ImportPath: m("jdwp"), Imports: []string{m("jdwp/javalang")}}, true},
		{"the debugger layer imports ddm", Package{ImportPath: m("jdwp/debugger"), Imports: []string{m("ddm")}}, true},
		// Production code and the harnesses (issue 36's arrows).
		{"dap/launch.go imports jdwp/jvmrun", Package{ImportPath: m("dap"), Imports: []string{m("jdwp/jvmrun")}}, true},
		{"bridge/vm.go imports ddm/simvm", Package{ImportPath: m("bridge"), Imports: []string{m("ddm/simvm")}}, true},
		{"dap/ddmalloc imports ddm/simvm", Package{ImportPath: m("dap/ddmalloc"), Imports: []string{m("ddm/simvm")}}, true},
		{"ddm/ddmalloc imports ddm/simvm", Package{ImportPath: m("ddm/ddmalloc"), Imports: []string{m("ddm/simvm")}}, true},
		{"jdwp/mirror imports jdwp/jvmtest", Package{ImportPath: m("jdwp/mirror"), Imports: []string{m("jdwp/jvmtest")}}, true},
		{"cmd imports a test harness", Package{ImportPath: m("cmd/ddmbridge"), Imports: []string{m("jdwp/jvmtest")}}, true},
		{"bridge/adb imports simdevice", Package{ImportPath: m("bridge/adb"), Imports: []string{m("bridge/adb/simdevice")}}, true},
		// The floors within bridge (issue 36: one package held the monitor,
		// the multiplexer and the control API).
		{"the multiplexer imports the monitor", Package{ImportPath: m("bridge/mux"), Imports: []string{m("bridge")}}, true},
		{"the multiplexer imports the control API", Package{ImportPath: m("bridge/mux"), Imports: []string{m("bridge/rpc")}}, true},
		{"the monitor imports the control API", Package{ImportPath: m("bridge"), Imports: []string{m("bridge/rpc")}}, true},
		{"the adb client imports the monitor", Package{ImportPath: m("bridge/adb"), Imports: []string{m("bridge")}}, true},
		// The wire rule (issue 36: dap and dap/eval called the connection).
		{"dap uses jdwp.Handshake", Package{ImportPath: m("dap"), WireNames: []string{"Handshake", "ObjectID"}}, true},
		{"dap names jdwp.Conn", Package{ImportPath: m("dap"), WireNames: []string{"Conn"}}, true},
		{"dap holds a connection", Package{ImportPath: m("dap"), WireNames: []string{".Conn"}}, true},
		{"dap/eval calls the connection", Package{ImportPath: m("dap/eval"), WireNames: []string{".Conn"}}, true},
		{"jdwp/eval calls the connection", Package{ImportPath: m("jdwp/eval"), WireNames: []string{".Conn"}}, true},
		{"dap/ext sends a command", Package{ImportPath: m("dap/ext"), WireNames: []string{"CmdVMVersion"}}, true},
		// The seam rule.
		{"the debugger layer imports Java's floor", Package{ImportPath: m("jdwp/debugger"), Imports: []string{m("jdwp/lang/java")}}, true},
		{"dap imports Kotlin's floor", Package{ImportPath: m("dap"), Imports: []string{m("jdwp/lang/kotlin")}}, true},
		// Allowed.
		{"dap imports the shared values and the outline", Package{ImportPath: m("dap"), Imports: []string{m("jdwp/lang"), m("jdwp/lang/langs"), m("jdwp/lang/java/expr"), m("jdwp/lang/java/outline")}}, false},
		{"langs lists the languages", Package{ImportPath: m("jdwp/lang/langs"), Imports: []string{m("jdwp/lang/java"), m("jdwp/lang/kotlin")}}, false},
		{"Kotlin's floor builds on Java's", Package{ImportPath: m("jdwp/lang/kotlin"), Imports: []string{m("jdwp/lang/java/expr"), m("jdwp/lang/java")}}, false},
		{"jdwp imports jdwp/queue", Package{ImportPath: m("jdwp"), Imports: []string{m("jdwp/queue")}}, false},
		{"dap imports internal/*", Package{ImportPath: m("dap"), Imports: []string{m("internal/framing"), m("internal/hotspot")}}, false},
		{"ddm/simvm imports jdwp/hostproc", Package{ImportPath: m("ddm/simvm"), Imports: []string{m("jdwp/hostproc"), m("ddm/hprof"), "fmt"}}, false},
		{"fngen imports expr", Package{ImportPath: m("jdwp/lang/java/fngen"), Imports: []string{m("jdwp/lang/java/expr"), m("jdwp/lang/java/classgen")}}, false},
		{"the debugger layer imports the seam", Package{ImportPath: m("jdwp/debugger"), Imports: []string{m("jdwp/lang"), m("jdwp/lang/langs"), m("jdwp/mirror")}}, false},
		{"evaluation imports a language and the mirror", Package{ImportPath: m("jdwp/eval"), Imports: []string{m("jdwp/lang/java/expr"), m("jdwp/mirror"), m("jdwp/srclookup")}}, false},
		{"a language's outline reads the mirror", Package{ImportPath: m("jdwp/lang/java/outline"), Imports: []string{m("jdwp/mirror"), m("jdwp/classfile")}}, false},
		{"ddm/ddmalloc imports the debugger layer", Package{ImportPath: m("ddm/ddmalloc"), Imports: []string{m("jdwp/debugger"), m("ddm")}}, false},
		{"dap names ids, values, tags and codes", Package{ImportPath: m("dap"), WireNames: []string{"ObjectID", "Value", "TagInt", "AccStatic", "ErrInvalidThread", "Code", "Options"}}, false},
		{"bridge speaks the wire", Package{ImportPath: m("bridge"), WireNames: []string{"Handshake", ".Conn"}}, false},
		{"bridge's test drives dap", Package{ImportPath: m("bridge"), TestImports: []string{m("dap")}}, false},
		{"the monitor imports the multiplexer and adb", Package{ImportPath: m("bridge"), Imports: []string{m("bridge/mux"), m("bridge/adb")}}, false},
		{"the control API imports the monitor", Package{ImportPath: m("bridge/rpc"), Imports: []string{m("bridge"), m("bridge/mux")}}, false},
		{"the multiplexer's test reaches up to the monitor", Package{ImportPath: m("bridge/mux"), XTestImports: []string{m("bridge")}}, false},
		{"a test imports a harness", Package{ImportPath: m("jdwp/mirror"), TestImports: []string{m("jdwp/jvmtest")}, XTestImports: []string{m("ddm/simvm")}}, false},
		{"a harness imports a runner", Package{ImportPath: m("jdwp/jvmtest"), Imports: []string{m("jdwp/jvmrun")}}, false},
		{"cmd imports both and the runners", Package{ImportPath: m("cmd/ddmbridge"), Imports: []string{m("dap"), m("bridge"), m("ddm/simvm"), m("jdwp/jvmrun"), m("bridge/demoapp")}}, false},
	}
	for _, c := range cases {
		got := Check([]Package{c.pkg})
		if (len(got) > 0) != c.bad {
			t.Errorf("%s: Check = %q, want a violation: %v", c.name, got, c.bad)
		}
	}
}

// TestReadWireNames reads a file's selectors on package jdwp, under its
// own name or another, and any selector named Conn.
func TestReadWireNames(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import (
	"net"

	w "` + Module + `/jdwp"
)

type s struct{ t *target }
type target struct{ Conn int }

func f(x s, _ net.Conn) (w.ObjectID, int) {
	_ = w.Handshake
	return 0, x.t.Conn
}
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Package{ImportPath: Module + "/dap/p", Dir: dir, GoFiles: []string{"p.go"}}
	if err := p.ReadWireNames(); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(p.WireNames, " "), ".Conn Handshake ObjectID"; got != want {
		t.Errorf("WireNames = %q, want %q", got, want)
	}
	if got := Check([]Package{p}); len(got) != 2 {
		t.Errorf("Check = %q, want the connection and Handshake", got)
	}
}
