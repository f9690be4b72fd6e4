package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
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
	c := &cancelOnLook{Context: ctx, cancel: cancel, at: 2} // in the depth-first search (at 128 Ki objects)
	err = hprofViews(c, &hprofRun{file: "list.hprof"}, h, nil, hprofFlags{doms: true, asJSON: true})
	if !errors.Is(err, context.Canceled) || out.Len() != 0 {
		t.Fatalf("--dominators cancelled: %v, output %q; want context.Canceled and nothing printed", err, out.String())
	}
	if c.looks != 2 {
		t.Errorf("the computation looked at its context %d times, want 2 (stopped at the look that saw it cancelled)", c.looks)
	}
	out.Reset()
	if err := hprofViews(withStdout(t.Context(), &out), &hprofRun{file: "list.hprof"}, h, nil, hprofFlags{doms: true, asJSON: true}); err != nil ||
		!strings.Contains(out.String(), `"dominators"`) {
		t.Errorf("--dominators after a cancelled one: %v, %q", err, out.String())
	}
}

// lineWatch keeps what a process writes and closes seen once a line
// contains want.
type lineWatch struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func (w *lineWatch) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := strings.Contains(w.buf.String(), w.want)
	w.buf.Write(b)
	if !had && strings.Contains(w.buf.String(), w.want) {
		close(w.seen)
	}
	return len(b), nil
}

func (w *lineWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestHprofDominatorsStopOnSignal interrupts a real ddmbridge process while
// it computes the dominator tree of a real HotSpot dump (a 1,000,000-node
// list) with a temporary file (--max-memory leaves no room for the tree in
// memory), once it has logged that the computation starts: it exits, code
// 130, saying it was computing the dominator tree, and leaves no file.
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
	var stdout bytes.Buffer
	stderr := &lineWatch{want: "computing the dominator tree", seen: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		t.Fatalf("the command ended (%v) before it said it computes the dominator tree; stderr: %s", err, stderr.String())
	case <-ctx.Done():
		t.Fatalf("no word of the dominator tree after %v; stderr: %s", ctx.Err(), stderr.String())
	case <-stderr.seen:
	}
	if !strings.Contains(stderr.String(), `"spill":true`) && !strings.Contains(stderr.String(), "spill=true") {
		t.Errorf("the tree is not computed with a temporary file: %s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = <-exited
	var exit *exec.ExitError
	if ctx.Err() != nil {
		t.Fatalf("still running %v after SIGINT; stderr: %s", ctx.Err(), stderr.String())
	}
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("after SIGINT: %v, want exit 130; stderr: %s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if last := lines[len(lines)-1]; last != "ddmbridge hprof: interrupted while computing the dominator tree" || stdout.Len() != 0 {
		t.Errorf("stderr %q, stdout %q: want the last line to say it was computing the dominator tree, nothing printed", stderr.String(), stdout.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("files left in TMPDIR: %q", names)
	}
}
