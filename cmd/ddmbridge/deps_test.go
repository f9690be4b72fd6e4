package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestBinaryLinksNoTestHarness lists what the shipped binary links and fails
// on the testing package or a test harness (jvmtest, adbtest: the
// project's packages whose names end in "test"): the binary's
// JVMs start through jvmrun.
func TestBinaryLinksNoTestHarness(t *testing.T) {
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, gobin, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !slices.Contains(deps, "github.com/ddmbridge/ddmbridge/jdwp") {
		t.Fatalf("go list -deps listed %d packages, without jdwp: %q", len(deps), out)
	}
	for _, p := range deps {
		if p == "testing" || strings.HasPrefix(p, "github.com/ddmbridge/") && strings.HasSuffix(p, "test") {
			t.Errorf("the binary links %s", p)
		}
	}
}
