package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestBenchDumpBoundedMemory runs `bench dump` on a 96 MiB heap of a JVM
// and a 96 MiB HPDS dump of a DDM VM, both ways each: the monitor writing
// the file, and the CLI reading chunks. Neither the
// monitor (a serve child) nor the CLI (a heap child) may grow by 64 MiB
// over its baseline: before issue 25 a dump travelled base64 in one reply
// (a 267 MiB dump peaked at 1.90 GiB in the CLI, 2.71 GiB in the monitor),
// so a 96 MiB one grew each side by far more than the dump.
//
// Under the race detector (which multiplies every process's memory and
// slows the stream tenfold) an 8 MiB heap is dumped both ways and only the
// dumps and figures are checked.
func TestBenchDumpBoundedMemory(t *testing.T) {
	jvmtest.RequireJava(t)
	size, minBytes := "96MiB", int64(96<<20)
	if raceEnabled {
		size, minBytes = "8MiB", 8<<20
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"bench", "dump", "--sizes", size, "--modes", "path,stream", "--vms", "hotspot,ddm", "--timeout", "10m"}, &out, &errb); rc != 0 {
		t.Fatalf("bench dump: exit %d\n%s", rc, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("bench dump printed %d lines, want one per VM and mode:\n%s", len(lines), out.String())
	}
	for _, l := range lines {
		var r dumpBenchResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		t.Logf("%s", l)
		if r.DumpBytes < minBytes || r.MonitorBaselineMiB <= 0 || r.CLIBaselineMiB <= 0 || r.MBps <= 0 || (r.Mode == "stream") != (r.VsPath > 0) {
			t.Errorf("%s: implausible figures %+v", r.Mode, r)
		}
		if raceEnabled {
			continue
		}
		if d := r.MonitorPeakMiB - r.MonitorBaselineMiB; d >= 64 {
			t.Errorf("%s %s: the monitor grew by %.0f MiB during a %d MiB dump", r.VM, r.Mode, d, r.DumpBytes>>20)
		}
		if d := r.CLIPeakMiB - r.CLIBaselineMiB; d >= 64 {
			t.Errorf("%s %s: the CLI peaked %.0f MiB above its baseline during a %d MiB dump", r.VM, r.Mode, d, r.DumpBytes>>20)
		}
	}
}
