package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
)

// runBounded runs the CLI in-process and fails the test if it does not
// return within a minute (a usage error must be found before anything
// starts).
func runBounded(t *testing.T, args ...string) (rc int, stdout, stderr string) {
	t.Helper()
	var out, errb lockedbuf.Buffer
	done := make(chan int, 1)
	go func() { done <- run(args, &out, &errb) }()
	select {
	case rc = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("ddmbridge %s did not return within a minute:\n%s", strings.Join(args, " "), errb.String())
	}
	return rc, out.String(), errb.String()
}

// Every command's --help starts with its synopsis, "usage: ddmbridge NAME
// …", goes to stdout and exits 0 (issue 30: serve, jvms and simvm printed
// only "Usage of ddmbridge X:").
func TestEveryCommandHasASynopsis(t *testing.T) {
	if len(commands) < 14 {
		t.Fatalf("only %d commands registered", len(commands))
	}
	for name, c := range commands {
		if !strings.HasPrefix(c.synopsis, "ddmbridge "+name) {
			t.Errorf("%s: synopsis %q does not start with %q", name, c.synopsis, "ddmbridge "+name)
		}
		for _, help := range []string{"--help", "-h"} {
			rc, out, errs := runBounded(t, name, help)
			if rc != 0 || !strings.HasPrefix(out, "usage: ddmbridge "+name) {
				t.Errorf("ddmbridge %s %s: exit %d, stdout %q, stderr %q", name, help, rc, firstLine(out), firstLine(errs))
			}
		}
	}
	// Flags are listed after the synopsis, several forms one per line.
	_, out, _ := runBounded(t, "serve", "--help")
	for _, want := range []string{"usage: ddmbridge serve [--scan", "\n                       [--dap ADDR]", "-no-adb", "-log-level"} {
		if !strings.Contains(out, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = runBounded(t, "heap", "--help")
	if !strings.Contains(out, "usage: ddmbridge heap ID [--json] [--png FILE]") || !strings.Contains(out, "\n       ddmbridge heap ID --hprof FILE") {
		t.Errorf("heap --help does not show both forms:\n%s", out)
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// bench --help lists every bench subcommand with its synopsis (issue 30:
// it showed only bench jdwp); bench SUB --help shows that one's flags.
func TestBenchHelpListsEverySubcommand(t *testing.T) {
	rc, out, _ := runBounded(t, "bench", "--help")
	if rc != 0 {
		t.Fatalf("bench --help: exit %d", rc)
	}
	for _, b := range benchCommands {
		for _, want := range []string{"  " + b.name + " ", "ddmbridge bench " + b.name} {
			if !strings.Contains(out, want) {
				t.Errorf("bench --help lacks %q:\n%s", want, out)
			}
		}
		rc, sub, _ := runBounded(t, "bench", b.name, "--help")
		if rc != 0 || !strings.HasPrefix(sub, "usage: ddmbridge bench "+b.name) {
			t.Errorf("bench %s --help: exit %d\n%s", b.name, rc, sub)
		}
	}
	if len(benchCommands) < 3 {
		t.Errorf("bench lists %d subcommands, want jdwp, heap and dump at least", len(benchCommands))
	}
}

// Every usage error exits 2, as Go's flag package does, says what is wrong
// on stderr and prints nothing on stdout; unknown flags and bad flag values
// included (they exited 1).
func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"nosuch"},
		{"serve", "--bogus"},
		{"serve", "extra"},
		{"serve", "--scan", "nonsense"},
		{"serve", "--scan-interval", "soon"},
		{"jvms", "--bogus"},
		{"jvms", "extra"},
		{"simvm", "--profile", "nope"},
		{"simvm", "--threads", "many"},
		{"simvm", "extra"},
		{"simdevice", "--procs", "-1"},
		{"simdevice", "--bogus"},
		{"demo", "--duration", "long"},
		{"demo", "extra"},
		{"demo", "--scan", ""},
		{"dap", "--listen", "0.0.0.0:1"},
		{"dap", "extra"},
		{"vms", "--bogus"},
		{"vms", "extra"},
		{"devices", "extra"},
		{"select"},
		{"select", "1", "--auto"},
		{"threads"},
		{"threads", "1", "2"},
		{"threads", "1", "--timeout", "soon"},
		{"heap"},
		{"heap", "1", "--force"},
		{"heap", "1", "--png", "a.png", "--hprof", "a.hprof"},
		{"hprof"},
		{"hprof", "--top", "many", "x.hprof"},
		{"bench"},
		{"bench", "nosuch"},
		{"bench", "jdwp", "--runs", "many"},
		{"bench", "jdwp", "extra"},
		{"bench", "heap"},
		{"bench", "dump", "--bogus"},
		{"version", "extra"},
		{"version", "--log-level", "loud"},
		{"vms", "--trace", "nosuch"},
	} {
		rc, out, errs := runBounded(t, args...)
		if rc != 2 || errs == "" || out != "" {
			t.Errorf("ddmbridge %s: exit %d, want 2; stdout %q; stderr %q", strings.Join(args, " "), rc, firstLine(out), firstLine(errs))
		}
		if len(args) > 0 && args[0] != "nosuch" && !strings.Contains(errs, "usage: ddmbridge") {
			t.Errorf("ddmbridge %s: the error is not followed by the usage:\n%s", strings.Join(args, " "), errs)
		}
	}
	// A failure that is no usage error exits 1.
	var errb bytes.Buffer
	if rc := run([]string{"hprof", "/nonexistent/x.hprof"}, &bytes.Buffer{}, &errb); rc != 1 {
		t.Errorf("hprof of a missing file: exit %d, want 1: %s", rc, errb.String())
	}
}
