package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/internal/hotspot"
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

	start := time.Now()
	text := cli("hprof", file, "--path", id)
	t.Logf("--path to the end of a %d-node list: %d bytes of text in %v (parse included)", nodes, len(text), time.Since(start).Round(time.Millisecond))
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
	if !strings.Contains(last, "DeepList$Tail @"+id+", ") || !strings.HasSuffix(last, " bytes, in next") {
		t.Errorf("the last step is not the tail, held in the last node's next: %q", last)
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
		p.Elided.After != hprofPathMax/2 || p.Elided.Count != length-hprofPathMax || p.Steps[len(p.Steps)-1].Class != "DeepList$Tail" ||
		p.Steps[len(p.Steps)-1].Field != "next" {
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
	start = time.Now()
	full := cli("hprof", file, "--path", id, "--path-max", "0")
	t.Logf("--path-max 0: %d steps, each with its field read back from the dump, in %v (parse included)", length, time.Since(start).Round(time.Millisecond))
	if n := strings.Count(full, ", in next\n"); n != nodes {
		t.Errorf("--path-max 0: %d steps held in next, want %d", n, nodes)
	}
	if n := strings.Count(full, "\n"); n != length+1 {
		t.Errorf("--path-max 0: %d lines for a path of %d", n, length)
	}
	if len(full) > 100*length {
		t.Errorf("--path-max 0: %d bytes for %d steps: not linear", len(full), length)
	}
}

// TestHprofTopAndTitles: --top limits the histogram (text and JSON) instead
// of adding a table of objects, every table has a title, a class object is
// named after its class in the dominator tree, and counts that mean nothing
// are refused, on a real HotSpot dump.
func TestHprofTopAndTitles(t *testing.T) {
	file, _ := deepListDump(t, t.TempDir(), 1000)
	cli := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	lines := strings.Split(strings.TrimSuffix(cli("hprof", file, "--histo", "--top", "5"), "\n"), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "class histogram: the 5 biggest of ") || !strings.HasPrefix(lines[1], "INSTANCES") {
		t.Errorf("--histo --top 5: want a title, a header and 5 classes:\n%s", strings.Join(lines, "\n"))
	}
	var hist []hprof.ClassStat
	if err := json.Unmarshal([]byte(cli("hprof", file, "--histo", "--top", "5", "--json")), &hist); err != nil || len(hist) != 5 {
		t.Errorf("--histo --top 5 --json: %d classes, %v", len(hist), err)
	}

	// Several views: each table is a block under its title.
	out := cli("hprof", file, "--histo", "--dominators", "--dups", "2", "--top", "3")
	blocks := strings.Split(strings.TrimSuffix(out, "\n"), "\n\n")
	if len(blocks) != 3 {
		t.Fatalf("--histo --dominators --dups 2 --top 3: want 3 tables:\n%s", out)
	}
	for k, want := range []string{"class histogram: the 3 biggest of ", "dominator tree, top level: the 3 biggest of ", "duplicate strings, most wasted bytes first:"} {
		if !strings.HasPrefix(blocks[k], want) {
			t.Errorf("table %d does not start with its title %q:\n%s", k, want, blocks[k])
		}
	}
	if out := cli("hprof", file, "--top", "3"); !strings.HasPrefix(out, "the 3 biggest objects by shallow size:\n") || strings.Count(out, "\n") != 5 {
		t.Errorf("--top 3 alone:\n%s", out)
	}
	// --dups without a view that needs the model streams the dump: the same
	// duplicate strings as the model's.
	var streamed, parsed struct {
		DuplicateStrings []hprof.DupString
	}
	if err := json.Unmarshal([]byte(cli("hprof", file, "--dups", "5", "--json")), &streamed); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(cli("hprof", file, "--dups", "5", "--dominators", "--json")), &parsed); err != nil {
		t.Fatal(err)
	}
	if len(parsed.DuplicateStrings) == 0 || !reflect.DeepEqual(streamed.DuplicateStrings, parsed.DuplicateStrings) {
		t.Errorf("--dups 5 streamed: %v; with the model: %v", streamed.DuplicateStrings, parsed.DuplicateStrings)
	}

	// Class objects in the dominator tree, named as MAT names them. (The
	// primitive types' mirrors are java.lang.Class instances the dump
	// describes no class for: they stay java.lang.Class.)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	h, err := hprof.Parse(bytes.NewReader(b), hprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	classes := map[uint64]string{}
	for _, c := range h.Classes {
		if c.Object >= 0 {
			classes[c.ID] = c.Name
		}
	}
	var doms struct{ Dominators hprof.DominatorsJSON }
	js := cli("hprof", file, "--dominators", "--top", "10000", "--json")
	if err := json.Unmarshal([]byte(js), &doms); err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, c := range doms.Dominators.Children {
		if name, ok := classes[c.ID]; ok {
			if c.Class != "class "+name {
				t.Errorf("class object %#x of %s is listed as %q", c.ID, name, c.Class)
			}
			named++
		}
	}
	if named == 0 {
		t.Errorf("no class object among the %d top dominators", len(doms.Dominators.Children))
	}
	t.Logf("%d class objects among the %d top dominators", named, len(doms.Dominators.Children))

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"hprof", file, "--top", "-5"}, "--top -5: want a positive number of lines"},
		{[]string{"hprof", file, "--histo", "--top", "0"}, "--top 0: want a positive number of lines"},
		{[]string{"hprof", file, "--dups", "0"}, "--dups 0: want a positive number of strings"},
		{[]string{"hprof", file, "--path-max", "5"}, "--path-max applies to --path ID"},
		{[]string{"heap", "1", "--all", "--rpc", "unix:" + filepath.Join(t.TempDir(), "no-monitor")}, "--all applies to a heap dump: add --hprof FILE"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) || out.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q: want exit 2 saying %q", c.args[2:], code, errb.String(), c.want)
		}
	}
}
