package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/hotspot"
	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

//go:embed testdata/DeepList.java
var deepListSource []byte

// deepListDump starts DeepList with nodes nodes in a real HotSpot VM, dumps
// its live heap into dir and returns the file and the Tail's id.
func deepListDump(t *testing.T, dir string, nodes int) (string, uint64) {
	t.Helper()
	jvmtest.RequireJava(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	classes, err := jvmtest.CompileFiles(ctx, map[string][]byte{"DeepList.java": deepListSource})
	if err != nil {
		t.Fatal(err)
	}
	vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{classes}, MainClass: "DeepList",
		VMArgs: []string{fmt.Sprintf("-Dnodes=%d", nodes), "-Xmx512m"}, ReadyLine: "READY", Timeout: 2 * time.Minute})
	b, err := hotspot.DumpHeap(ctx, vm.Pid, true)
	if err != nil {
		t.Fatal(err)
	}
	vm.Close()
	file := filepath.Join(dir, "deep.hprof")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := hprof.Parse(bytes.NewReader(b), hprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range int32(h.NumObjects()) {
		if h.ClassName(i) == "DeepList$Tail" {
			return file, h.ID(i)
		}
	}
	t.Fatal("the dump has no DeepList$Tail")
	return "", 0
}

// TestHprofPathDeepList follows the path to the end of a 1,000,000-node list
// in a real HotSpot dump: the text and the JSON stay a few kilobytes (the
// middle of the chain is elided and counted), where indenting each step by
// its depth wrote terabytes.
func TestHprofPathDeepList(t *testing.T) {
	const nodes = 1_000_000
	file, tail := deepListDump(t, t.TempDir(), nodes)
	id := fmt.Sprintf("%#x", tail)
	cli := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}

	text := cli("hprof", file, "--path", id)
	if len(text) > 8<<10 {
		t.Fatalf("--path wrote %d bytes for a %d-deep path: want at most 8 KiB", len(text), nodes)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "path from a GC root to "+id+", ") || len(lines) != 1+hprofPathMax+1 {
		t.Fatalf("--path: want a title, %d steps and one elision line:\n%s", hprofPathMax, text)
	}
	if !strings.Contains(lines[1], "(GC root: ") {
		t.Errorf("the first step does not name its root kind: %q", lines[1])
	}
	last := lines[len(lines)-1]
	if !strings.Contains(last, "DeepList$Tail @"+id+", ") {
		t.Errorf("the last step is not the tail: %q", last)
	}
	elided := lines[1+hprofPathMax/2]
	if !strings.Contains(elided, "objects elided (") || !strings.Contains(elided, " DeepList$Node") {
		t.Errorf("no elision line in the middle: %q", elided)
	}
	// The steps after the gap are numbered by their place in the whole path.
	var length int
	fmt.Sscanf(strings.ReplaceAll(strings.TrimPrefix(lines[0], "path from a GC root to "+id+", "), ",", ""), "%d", &length)
	if length < nodes+1 {
		t.Errorf("path of %d objects: the list alone is %d", length, nodes+1)
	}
	if !strings.HasPrefix(strings.TrimSpace(last), thousands(length)+"  ") {
		t.Errorf("the last step is not numbered %s: %q", thousands(length), last)
	}

	js := cli("hprof", file, "--path", id, "--json")
	if len(js) > 32<<10 {
		t.Fatalf("--path --json wrote %d bytes: want at most 32 KiB", len(js))
	}
	var got struct{ Path hprof.Path }
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatal(err)
	}
	p := got.Path
	if p.Object != tail || p.Length != length || len(p.Steps) != hprofPathMax || p.Elided == nil ||
		p.Elided.After != hprofPathMax/2 || p.Elided.Count != length-hprofPathMax || p.Steps[len(p.Steps)-1].Class != "DeepList$Tail" {
		t.Errorf("--path --json: %+v", p)
	}
	var listed int
	for _, c := range p.Elided.Classes {
		if c.Class == "DeepList$Node" {
			listed = c.Count
		}
	}
	if listed < nodes-hprofPathMax {
		t.Errorf("the gap counts %d DeepList$Node: want at least %d", listed, nodes-hprofPathMax)
	}

	// Every step, when asked for: one line each, linear in the path.
	full := cli("hprof", file, "--path", id, "--path-max", "0")
	if n := strings.Count(full, "\n"); n != length+1 {
		t.Errorf("--path-max 0: %d lines for a path of %d", n, length)
	}
	if len(full) > 100*length {
		t.Errorf("--path-max 0: %d bytes for %d steps: not linear", len(full), length)
	}
}
