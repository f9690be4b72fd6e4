package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/internal/hotspot"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestHprofCommand dumps a real HotSpot VM (attach) and runs the hprof
// command's views on it: the JSON histogram's exact shape, the dominator
// tree, a diff against a dump taken with more objects, the heap map.
func TestHprofCommand(t *testing.T) {
	dir := t.TempDir()
	dump := func(nodes int) string {
		vm := jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: []string{"-Dobjects=" + strconv.Itoa(nodes), "-Dthreads=2"}})
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		b, err := hotspot.DumpHeap(ctx, vm.Pid, true)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, strconv.Itoa(nodes)+".hprof")
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	small, big := dump(1000), dump(3000)
	cli := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	var hist []map[string]any
	if err := json.Unmarshal([]byte(cli("hprof", big, "--histo", "--json")), &hist); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range hist {
		if len(c) != 3 {
			t.Fatalf("histogram entry %v: want exactly class, instances, bytes", c)
		}
		if c["class"] == "BenchTarget$Node" {
			found = c["instances"] == float64(3000) && c["bytes"] == float64(3000*48)
		}
	}
	if !found {
		t.Errorf("no BenchTarget$Node entry with 3000 instances of 48 bytes")
	}
	if out := cli("hprof", big, "--diff", small); !strings.Contains(out, "+2000") || !strings.Contains(out, "BenchTarget$Node") {
		t.Errorf("--diff does not show the 2000 new nodes:\n%s", out)
	}
	if out := cli("hprof", big, "--dominators", "--top", "3"); !strings.Contains(out, "RETAINED BYTES") || strings.Count(out, "\n") != 5 {
		t.Errorf("--dominators --top 3:\n%s", out)
	}
	png := filepath.Join(dir, "map.png")
	cli("hprof", big, "--png", png)
	if b, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("heap map: %v", err)
	}
	var errb bytes.Buffer
	if code := run([]string{"hprof", filepath.Join(dir, "nope.hprof")}, &bytes.Buffer{}, &errb); code != 1 {
		t.Errorf("missing file: exit %d", code)
	}
}

// TestHprofSummaryFacts: `hprof FILE --json`'s summary carries the
// reference width, the partial flag and the warnings, end to end from real
// HotSpot dumps: a VM with compressed oops, one run with
// -XX:-UseCompressedOops (inferred wide from the addresses), and the first
// dump cut short (partial, with a warning saying where it stops). The
// output passes the schema's strict decoder.
func TestHprofSummaryFacts(t *testing.T) {
	dir := t.TempDir()
	dump := func(vmArgs ...string) []byte {
		vm := jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: append([]string{"-Dobjects=2000", "-Dthreads=1", "-Xmx64m"}, vmArgs...)})
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		b, err := hotspot.DumpHeap(ctx, vm.Pid, true)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	summary := func(b []byte, name string) hprof.SummaryJSON {
		t.Helper()
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := run([]string{"hprof", f, "--json"}, &out, &errb); code != 0 {
			t.Fatalf("hprof %s --json: exit %d: %s", name, code, errb.String())
		}
		var got struct{ Summary json.RawMessage }
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		s, err := hprof.DecodeSummaryJSON(got.Summary)
		if err != nil {
			t.Fatalf("%s: the summary does not pass the schema: %v\n%s", name, err, got.Summary)
		}
		return s
	}
	compressed := dump()
	if s := summary(compressed, "compressed.hprof"); s.Oops != "compressed" || s.Partial || len(s.Warnings) != 0 {
		t.Errorf("compressed: oops %q, partial %v, warnings %q", s.Oops, s.Partial, s.Warnings)
	}
	if s := summary(dump("-XX:-UseCompressedOops"), "wide.hprof"); s.Oops != "wide" || s.Partial {
		t.Errorf("-XX:-UseCompressedOops: oops %q, partial %v, warnings %q", s.Oops, s.Partial, s.Warnings)
	}
	s := summary(compressed[:len(compressed)*3/5], "cut.hprof")
	if !s.Partial || len(s.Warnings) == 0 || !strings.Contains(s.Warnings[0], "partial") || s.Objects == 0 {
		t.Errorf("cut short: partial %v, %d objects, warnings %q", s.Partial, s.Objects, s.Warnings)
	}
	t.Logf("cut at 60%%: %d objects; %q", s.Objects, s.Warnings)
}

// TestBenchHeapAgainstDdmlib generates a capture, decodes it and has
// ddmlib's HeapSegment decode the same file: both must count the same units.
func TestBenchHeapAgainstDdmlib(t *testing.T) {
	jvmtest.RequireJava(t)
	if _, err := os.Stat(ddmlibClassPath); err != nil {
		t.Fatalf("ddmlib is missing: apt-get install -y libandroid-ddms-java (%v)", err)
	}
	file := filepath.Join(t.TempDir(), "cap.bin")
	var out, errb bytes.Buffer
	if code := run([]string{"bench", "heap", "--generate", "64MiB", file}, &out, &errb); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := run([]string{"bench", "heap", file, "--ddmlib", "--runs", "1"}, &out, &errb); code != 0 {
		t.Fatalf("bench heap: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[2], "ddmbridge/ddmlib throughput: ") {
		t.Fatalf("output:\n%s", out.String())
	}
	var ours, theirs heapBenchResult
	json.Unmarshal([]byte(lines[0]), &ours)
	json.Unmarshal([]byte(lines[1]), &theirs)
	if ours.Client != "ddmbridge" || theirs.Client != "ddmlib" || ours.Items != 64<<20/8 || theirs.Items != ours.Items || theirs.Bytes != ours.Bytes || ours.Seconds <= 0 {
		t.Errorf("ddmbridge %+v, ddmlib %+v", ours, theirs)
	}
}

// Help that is asked for is the command's output: stdout, exit 0, and the
// per-VM commands name their ID argument.
func TestHelpToStdout(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"threads", "--help"}, {"heap", "-h"}, {"select", "--help"}, {"hprof", "--help"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Errorf("%q: exit %d", args, code)
		}
		if out.Len() == 0 || errb.Len() != 0 {
			t.Errorf("%q: stdout %q, stderr %q: want the help on stdout only", args, out.String(), errb.String())
		}
		if len(args) == 2 && args[0] != "hprof" && !strings.Contains(out.String(), "ddmbridge "+args[0]+" ID") {
			t.Errorf("%q: help does not show the ID argument:\n%s", args, out.String())
		}
	}
}

// TestParseProgress: on a terminal a parse shows one line, rewritten at
// each percent (not at each read), and clears it when done.
func TestParseProgress(t *testing.T) {
	var w bytes.Buffer
	a := &hprofRun{progressTo: &w}
	if a.progress("x.hprof", 0) != nil {
		t.Error("a progress line for a dump of unknown size")
	}
	p := a.progress("/tmp/dumps/x.hprof", 3<<30)
	for _, n := range []int64{1 << 20, 2 << 20, 3 << 29, 3<<29 + 1, 3 << 30, 4 << 30} {
		p.update(n)
	}
	p.done()
	want := "\rreading x.hprof: 0% of 3.0GiB\rreading x.hprof: 50% of 3.0GiB\rreading x.hprof: 100% of 3.0GiB\r\033[K"
	if w.String() != want {
		t.Errorf("progress wrote %q, want %q", w.String(), want)
	}
	(*parseProgress)(nil).update(1) // no terminal: nothing, no panic
	(*parseProgress)(nil).done()
}
