package layering

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestModuleKeepsTheLayers lists every package of the module with go list
// and fails on each import that breaks the rule, naming it.
func TestModuleKeepsTheLayers(t *testing.T) {
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
	// The walk must have seen the module: a rule checked against nothing
	// proves nothing.
	seen := map[string]bool{}
	for _, p := range pkgs {
		seen[strings.TrimPrefix(p.ImportPath, Module+"/")] = true
	}
	for _, want := range []string{"jdwp", "jdwp/mirror", "ddm", "ddm/simvm", "internal/framing", "dap", "bridge", "cmd/ddmbridge"} {
		if !seen[want] {
			t.Fatalf("go list did not list %s (listed %d packages)", want, len(pkgs))
		}
	}
	for _, line := range Check(pkgs) {
		t.Error(line)
	}
}

// TestCheckCatches feeds Check the imports this rule exists to refuse, and
// the ones it allows.
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
		{"jdwp imports jdwp/queue", Package{ImportPath: m("jdwp"), Imports: []string{m("jdwp/queue")}}, false},
		{"dap imports internal/*", Package{ImportPath: m("dap"), Imports: []string{m("internal/framing"), m("internal/hotspot")}}, false},
		{"ddm/simvm imports jdwp/hostproc", Package{ImportPath: m("ddm/simvm"), Imports: []string{m("jdwp/hostproc"), m("ddm/hprof"), "fmt"}}, false},
		{"dap/fngen imports dap/expr", Package{ImportPath: m("dap/fngen"), Imports: []string{m("dap/expr")}}, false},
		{"bridge's test drives dap", Package{ImportPath: m("bridge"), TestImports: []string{m("dap")}}, false},
		{"cmd imports both", Package{ImportPath: m("cmd/ddmbridge"), Imports: []string{m("dap"), m("bridge")}}, false},
	}
	for _, c := range cases {
		got := Check([]Package{c.pkg})
		if (len(got) > 0) != c.bad {
			t.Errorf("%s: Check = %q, want a violation: %v", c.name, got, c.bad)
		}
	}
}
