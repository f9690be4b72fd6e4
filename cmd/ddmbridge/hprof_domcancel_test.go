package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/hprof"
)

// cancelOnLook is a context that cancels itself at its at-th look (Err).
type cancelOnLook struct {
	context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	at     int
	looks  int
}

func (c *cancelOnLook) Err() error {
	c.mu.Lock()
	c.looks++
	if c.looks == c.at {
		c.cancel()
	}
	c.mu.Unlock()
	return c.Context.Err()
}

// TestHprofDominatorsStopWithContext: the --dominators view stops its
// computation when the command's context is done (as a signal makes it),
// returning context.Canceled and printing nothing, instead of running on
// after the command has gone.
func TestHprofDominatorsStopWithContext(t *testing.T) {
	var buf bytes.Buffer
	w := hprof.NewWriter(&buf, 8, time.UnixMilli(1700000000000))
	w.String(1, "java/lang/Object")
	w.String(2, "Node")
	w.String(3, "next")
	w.LoadClass(0x100, 1)
	w.LoadClass(0x110, 2)
	w.ClassDump(0x100, 0, 0, nil, nil)
	w.ClassDump(0x110, 0x100, 8, nil, []hprof.FieldDecl{{NameID: 3, Type: hprof.TypeObject}})
	const nodes = 200_000
	w.Root(hprof.RootJNIGlobal, 0x10000)
	for k := range nodes {
		next := uint64(0)
		if k < nodes-1 {
			next = uint64(0x10000 + 16*(k+1))
		}
		w.Instance(uint64(0x10000+16*k), 0x110, binary.BigEndian.AppendUint64(nil, next))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := hprof.Parse(bytes.NewReader(buf.Bytes()), hprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ctx, cancel := context.WithCancel(withStdout(t.Context(), &out))
	defer cancel()
	c := &cancelOnLook{Context: ctx, cancel: cancel, at: 3} // in the depth-first search
	err = hprofViews(c, &hprofRun{file: "list.hprof"}, h, nil, hprofFlags{doms: true, asJSON: true})
	if !errors.Is(err, context.Canceled) || out.Len() != 0 {
		t.Fatalf("--dominators cancelled: %v, output %q; want context.Canceled and nothing printed", err, out.String())
	}
	if c.looks != 3 {
		t.Errorf("the computation looked at its context %d times, want 3 (stopped at the look that saw it cancelled)", c.looks)
	}
	out.Reset()
	if err := hprofViews(withStdout(t.Context(), &out), &hprofRun{file: "list.hprof"}, h, nil, hprofFlags{doms: true, asJSON: true}); err != nil ||
		!strings.Contains(out.String(), `"dominators"`) {
		t.Errorf("--dominators after a cancelled one: %v, %q", err, out.String())
	}
}

// TestHprofDominatorsStopOnSignal interrupts a real ddmbridge process while
// it computes the dominator tree of a real HotSpot dump (a 1,000,000-node
// list) with a temporary file (--max-memory leaves no room for the tree in
// memory): the tree's file, the second the process opens in TMPDIR after
// the parse's, says when it is there. It exits, code 130, saying it was
// computing the dominator tree, and leaves no file.
func TestHprofDominatorsStopOnSignal(t *testing.T) {
	dir := t.TempDir()
	file, _ := deepListDump(t, dir, 1_000_000)
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := child(ctx, "hprof", file, "--dominators", "--json", "--max-memory", strconv.FormatUint(hprof.MemoryNeededSpill(fi.Size()), 10))
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	fds := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "fd")
	seen := map[string]bool{}
	var err2 error
wait:
	for {
		select {
		case err2 = <-exited:
			t.Fatalf("the command ended (%v) before its dominator tree's file was seen (seen %v); stderr: %s", err2, seen, stderr.String())
		case <-ctx.Done():
			t.Fatalf("no dominator tree's file after %v; seen %v; stderr: %s", ctx.Err(), seen, stderr.String())
		default:
		}
		ents, _ := os.ReadDir(fds)
		for _, e := range ents {
			l, err := os.Readlink(filepath.Join(fds, e.Name()))
			if err != nil || !strings.HasPrefix(l, tmp+"/ddmbridge-hprof-") {
				continue
			}
			seen[l] = true
			if len(seen) == 2 {
				break wait
			}
		}
		time.Sleep(time.Millisecond) // polling /proc for the condition
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err2 = <-exited
	var exit *exec.ExitError
	if ctx.Err() != nil {
		t.Fatalf("still running %v after SIGINT; stderr: %s", ctx.Err(), stderr.String())
	}
	if !errors.As(err2, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("after SIGINT: %v, want exit 130; stderr: %s", err2, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if last := lines[len(lines)-1]; last != "ddmbridge hprof: interrupted while computing the dominator tree" || stdout.Len() != 0 {
		t.Errorf("stderr %q, stdout %q: want the last line to say it was computing the dominator tree, nothing printed", stderr.String(), stdout.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("%d files left in TMPDIR", len(left))
	}
}
