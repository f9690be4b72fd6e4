package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/hprof"
)

// TestHprofStopsOnSignal runs a real ddmbridge process on an endless dump
// (a named pipe fed a real HotSpot dump's records and then empty records
// without end, as a dump of any size would keep it parsing) and interrupts
// it: with SIGINT and with SIGTERM it exits, code 130, saying where it was.
func TestHprofStopsOnSignal(t *testing.T) {
	dir := t.TempDir()
	file, _ := deepListDump(t, dir, 1000)
	dump, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			fifo := filepath.Join(dir, "pipe-"+strings.ReplaceAll(sig.String(), " ", ""))
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			cmd := child(ctx, "hprof", fifo, "--histo")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // returns once the child opened it
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if _, err := w.Write(dump); err != nil {
				t.Fatal(err)
			}
			// 64 MiB of empty records more: the child is parsing when they
			// are in the pipe (a pipe holds 64 KiB).
			zeros := make([]byte, 9<<16)
			for range 64 << 20 / len(zeros) {
				if _, err := w.Write(zeros); err != nil {
					t.Fatalf("the child stopped reading: %v; stderr: %s", err, stderr.String())
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			go func() { // keep it parsing until it exits (then writes fail)
				for {
					if _, err := w.Write(zeros); err != nil {
						return
					}
				}
			}()
			err = cmd.Wait()
			var exit *exec.ExitError
			if ctx.Err() != nil {
				t.Fatalf("still running %v after %v; stderr: %s", ctx.Err(), sig, stderr.String())
			}
			if !errors.As(err, &exit) || exit.ExitCode() != 130 {
				t.Fatalf("after %v: %v, want exit 130; stderr: %s", sig, err, stderr.String())
			}
			msg := stderr.String()
			if !strings.HasPrefix(msg, "ddmbridge hprof: interrupted while parsing "+fifo+" (") || strings.Contains(msg, "goroutine ") ||
				strings.Count(msg, "\n") != 1 {
				t.Errorf("stderr: %q: want one line saying it was interrupted while parsing", msg)
			}
			t.Logf("after %v: %s", sig, strings.TrimSpace(msg))
		})
	}
}

// TestHprofRefusesTooLarge: for a view that needs the model (--top), a dump
// larger than the memory the machine has (a sparse file of 4 TiB) is
// refused before parsing with what it needs and
// how to go on, not a Go "fatal error: runtime: out of memory"; a limit set
// with --max-memory is held to as well, and raising it lets the dump through.
// The summary, the histogram, the diff and the duplicate strings, streamed
// in memory bounded by the classes (and a budget for the strings), are not
// refused for their size.
func TestHprofRefusesTooLarge(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.hprof")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("JAVA PROFILE 1.0.2\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00")
	if err := f.Truncate(4 << 40); err != nil {
		f.Close()
		t.Fatalf("a 4 TiB sparse file: %v", err)
	}
	f.Close()
	var out, errb bytes.Buffer
	if code := run([]string{"hprof", big, "--top", "5"}, &out, &errb); code != 1 {
		t.Fatalf("4 TiB dump: exit %d, want 1; stderr %s", code, errb.String())
	}
	msg := errb.String()
	if !strings.Contains(msg, "big.hprof is 4096.0GiB: analysing it takes about 4096.1GiB of memory and ") ||
		!strings.Contains(msg, "pass --max-memory 4096.1GiB to try anyway") || out.Len() != 0 {
		t.Errorf("4 TiB dump: stderr %q", msg)
	}

	small, _ := deepListDump(t, dir, 1000)
	errb.Reset()
	if code := run([]string{"hprof", small, "--max-memory", "1MiB", "--top", "5"}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "and 1MiB is --max-memory; raise --max-memory to ") {
		t.Errorf("--top 5 --max-memory 1MiB: exit %d, stderr %q", code, errb.String())
	}
	// The streamed duplicate strings hold a quarter of the bound at most
	// (the rest in sorted runs in a temporary file): not refused, the same
	// list.
	var free, bounded bytes.Buffer
	errb.Reset()
	if code := run([]string{"hprof", small, "--dups", "3", "--json"}, &free, &errb); code != 0 {
		t.Fatalf("--dups 3: exit %d, stderr %q", code, errb.String())
	}
	if code := run([]string{"hprof", small, "--dups", "3", "--json", "--max-memory", "1MiB"}, &bounded, &errb); code != 0 ||
		bounded.String() != free.String() || !strings.Contains(free.String(), `"duplicateStrings"`) {
		t.Errorf("--dups 3 --max-memory 1MiB: exit %d, stderr %q, output %s; without the bound %s", code, errb.String(), bounded.String(), free.String())
	}
	// With --diff and a view that needs the model, both dumps are held at
	// once: the bound is on their sum.
	fi, err := os.Stat(small)
	if err != nil {
		t.Fatal(err)
	}
	one := hprof.MemoryNeeded(fi.Size(), false)
	errb.Reset()
	if code := run([]string{"hprof", small, "--diff", small, "--png", filepath.Join(dir, "map.png"), "--max-memory", strconv.FormatUint(one*3/2, 10)}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), " is left under --max-memory; raise --max-memory to "+gib(2*one)+" to try") {
		t.Errorf("--diff under a --max-memory for one dump: exit %d, stderr %q", code, errb.String())
	}
	// A bound the model and the dominator tree in memory exceed, but not
	// with a temporary file, chooses the file: the same tree.
	var mem bytes.Buffer
	if code := run([]string{"hprof", small, "--dominators", "--top", "5", "--json"}, &mem, &errb); code != 0 {
		t.Fatalf("--dominators: exit %d, stderr %q", code, errb.String())
	}
	// Between the compact strategy's need and the tree in memory's: the
	// model's arrays are held packed, no file.
	errb.Reset()
	out.Reset()
	compact := hprof.MemoryNeededCompact(fi.Size())
	if code := run([]string{"hprof", small, "--dominators", "--top", "5", "--json", "--max-memory", strconv.FormatUint(compact, 10)}, &out, &errb); code != 0 ||
		out.String() != mem.String() || !strings.Contains(errb.String(), "arrays are held packed") || strings.Contains(errb.String(), "temporary file") {
		t.Errorf("--dominators under --max-memory %d (compact): exit %d, stderr %q, the tree the same: %v", compact, code, errb.String(), out.String() == mem.String())
	}
	errb.Reset()
	out.Reset()
	spill := hprof.MemoryNeededSpill(fi.Size())
	if code := run([]string{"hprof", small, "--dominators", "--top", "5", "--json", "--max-memory", strconv.FormatUint(spill, 10)}, &out, &errb); code != 0 ||
		out.String() != mem.String() || !strings.Contains(errb.String(), "temporary file") {
		t.Errorf("--dominators under --max-memory %d (in memory it takes %d): exit %d, stderr %q, the tree the same: %v",
			spill, hprof.MemoryNeeded(fi.Size(), true), code, errb.String(), out.String() == mem.String())
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "ddmbridge-hprof-*.spill")); len(left) != 0 {
		t.Errorf("spill files left: %q", left)
	}
	errb.Reset()
	if code := run([]string{"hprof", small, "--dominators", "--max-memory", strconv.FormatUint(spill-1, 10)}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "raise --max-memory to "+gib(spill)) {
		t.Errorf("--dominators under --max-memory below the spill's need: exit %d, stderr %q", code, errb.String())
	}
	// The summary, the histogram and the diff alone are streamed: a bound
	// below the dump's size does not stop them.
	for _, args := range [][]string{{}, {"--histo", "--top", "1"}, {"--diff", small, "--top", "1"}} {
		errb.Reset()
		out.Reset()
		if code := run(append([]string{"hprof", small, "--max-memory", strconv.FormatInt(fi.Size()/2, 10)}, args...), &out, &errb); code != 0 || out.Len() == 0 {
			t.Errorf("%q under --max-memory of half the dump: exit %d, stderr %q", args, code, errb.String())
		}
	}
	errb.Reset()
	out.Reset()
	if code := run([]string{"hprof", small, "--max-memory", "1GiB", "--histo", "--top", "1"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "class histogram: the 1 biggest of ") {
		t.Errorf("--max-memory 1GiB: exit %d, stderr %q, out %q", code, errb.String(), out.String())
	}
}
