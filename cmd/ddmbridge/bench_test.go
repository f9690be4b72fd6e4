package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"version"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(out.String(), "ddmbridge ") {
		t.Errorf("version printed %q", out.String())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"nope"}, {"bench"}, {"bench", "jdwp", "--workload", "nope"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
		if out.Len() != 0 {
			t.Errorf("%q: printed on stdout: %q", args, out.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"version", "--trace", "bogus"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "unknown kind") {
		t.Errorf("--trace bogus: exit %d, stderr %q", code, errb.String())
	}
}

// TestBenchJSONLine checks the exact JSON line of `bench jdwp` that scripts
// depend on, and that logs stay off stdout even at trace level.
func TestBenchJSONLine(t *testing.T) {
	jvmtest.RequireJava(t)
	vm := jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: []string{"-Dthreads=4", "-Ddepth=3", "-Dobjects=100"}})
	var out, errb bytes.Buffer
	code := run([]string{"bench", "jdwp", "--attach", vm.Addr, "--workload", "objects,classes", "--trace", "jdwp.cmd"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// Each workload with a floor is followed by its floor's run.
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	names := []string{"objects", "objectsfloor", "classes", "classesfloor"}
	if len(lines) != len(names) {
		t.Fatalf("want %d lines on stdout, got %q", len(names), out.String())
	}
	for i, name := range names {
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &m); err != nil {
			t.Fatalf("line %q: %v", lines[i], err)
		}
		if len(m) != 4 || m["client"] != "ddmbridge" || m["workload"] != name {
			t.Errorf("line %q: want exactly client, workload, items, seconds", lines[i])
		}
		if _, ok := m["items"].(float64); !ok {
			t.Errorf("line %q: items not a number", lines[i])
		}
		if _, ok := m["seconds"].(float64); !ok {
			t.Errorf("line %q: seconds not a number", lines[i])
		}
	}
	if !strings.Contains(out.String(), `"items":100`) {
		t.Errorf("objects workload on a 100-object graph: %q", lines[0])
	}
	if !strings.Contains(errb.String(), "VirtualMachine.") {
		t.Errorf("--trace jdwp.cmd logged no commands to stderr")
	}
}
