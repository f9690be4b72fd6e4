package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestBenchHprof runs `bench hprof` on a 30 MB dump of a real HotSpot VM
// (HprofFill) made in a directory of the test's, and checks its JSON line:
// a dump of about the size asked for, about three objects per list node,
// figures for the histogram and the dominator tree, in memory and with the
// spill file (bench hprof fails if the two trees differ); the dump is removed
// afterwards (no --keep).
func TestBenchHprof(t *testing.T) {
	jvmtest.RequireJava(t)
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if rc := run([]string{"bench", "hprof", "--sizes", "30MB", "--dir", dir, "--timeout", "10m"}, &out, &errb); rc != 0 {
		t.Fatalf("bench hprof: exit %d\n%s", rc, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("bench hprof printed %d lines, want one:\n%s", len(lines), out.String())
	}
	var r hprofBenchResult
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil {
		t.Fatalf("%q: %v", lines[0], err)
	}
	t.Logf("%s", lines[0])
	nodes := int64(30_000_000 / hprofFillBytesPerNode)
	if r.DumpBytes < 20e6 || r.DumpBytes > 45e6 || r.Objects < 3*nodes || r.Objects > 3*nodes+20000 {
		t.Errorf("a %d-byte dump of %d objects for %d list nodes: want about 30 MB, 3 objects a node and the JDK's", r.DumpBytes, r.Objects, nodes)
	}
	if r.HistoSecs <= 0 || r.HistoMBps <= 0 || r.HistoPeakMi <= 0 || r.HistoRatio <= 0 || r.DomSecs <= 0 || r.DomPeakMi <= 0 || r.DomRatio <= 0 || r.DomNsPerObj <= 0 ||
		r.SpillSecs <= 0 || r.SpillPeakMi <= 0 || r.SpillRatio <= 0 || r.HistoCPU <= 0 || r.DomCPU <= 0 || r.SpillCPU <= 0 ||
		r.CompactSecs <= 0 || r.CompactPeakMi <= 0 || r.CompactRatio <= 0 || r.CompactCPU <= 0 || r.CompactNsPerObj <= 0 {
		t.Errorf("implausible figures %+v", r)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.hprof")); len(left) != 0 {
		t.Errorf("dumps left behind: %q", left)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("--dir removed: %v", err)
	}
}

// TestBenchHprofSynthetic: `bench hprof --synthetic N` streams a generated
// dump of N objects (the figure for more than 2^31 objects, at a size a
// test can afford) and prints its figures; the command itself checks the
// counts.
func TestBenchHprofSynthetic(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := run([]string{"bench", "hprof", "--synthetic", "300001"}, &out, &errb); rc != 0 {
		t.Fatalf("bench hprof --synthetic: exit %d\n%s", rc, errb.String())
	}
	var r syntheticBenchResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%q: %v", out.String(), err)
	}
	if r.Synthetic != 300001 || r.Objects != 300003 || r.StreamBytes < 300001*14 || r.HistoSecs <= 0 || r.HistoMBps <= 0 || r.HistoPeakMi <= 0 {
		t.Errorf("implausible figures %+v", r)
	}
}
