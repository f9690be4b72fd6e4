package hprof

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// cancelAt is a context cancelled by the computation itself at its at-th
// look (a real context.WithCancel underneath): a test stops the tree at
// every place it looks, whatever the machine's speed.
type cancelAt struct {
	context.Context
	cancel context.CancelFunc
	at     int
	looks  int // Err calls
}

func (c *cancelAt) Err() error {
	c.looks++
	if c.looks == c.at {
		c.cancel()
	}
	return c.Context.Err()
}

// openIn lists the files this process holds open under dir (a spill file's
// name is removed at once, but its blocks stay until it is closed).
func openIn(t *testing.T, dir string) []string {
	t.Helper()
	if runtime.GOOS != "linux" {
		return nil
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var open []string
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(l, dir) {
			open = append(open, l)
		}
	}
	return open
}

// TestDominatorsCancel stops the dominator tree at each place its loops look
// at the context (the depth-first search, both passes over the
// predecessors, the semi-dominators, the immediate dominators, the retained
// sizes), in memory and with a spill file: each time it returns
// context.Canceled at the first look after the cancel, holds no spill file
// open or named, and leaves the model whole (the tree computed next is the
// one computed before).
func TestDominatorsCancel(t *testing.T) {
	// A list of 150 k Nodes: each loop passes 64 Ki objects more than once.
	h := parseBytes(t, weakDump(t, 150_000))
	want := h.Dominators()
	for _, mode := range []DomOptions{{}, {Spill: true}, {Lean: true}, {Compact: true}} {
		spill := fmt.Sprintf("%v, lean %v, compact %v", mode.Spill, mode.Lean, mode.Compact)
		dir := t.TempDir()
		opt := mode
		opt.Dir = dir
		// How many times a whole computation looks.
		all := &cancelAt{Context: context.Background()}
		if _, err := h.DominatorsContext(all, opt); err != nil {
			t.Fatalf("spill %v: %v", spill, err)
		}
		if all.looks < 10 {
			t.Fatalf("spill %v: the computation looked at its context %d times, want ≥ 10 (2 or more a loop)", spill, all.looks)
		}
		t.Logf("spill %v: %d looks at the context", spill, all.looks)
		for at := 1; at <= all.looks; at++ {
			ctx, cancel := context.WithCancel(context.Background())
			c := &cancelAt{Context: ctx, cancel: cancel, at: at}
			d, err := h.DominatorsContext(c, opt)
			cancel()
			if !errors.Is(err, context.Canceled) || d != nil {
				t.Fatalf("spill %v, cancelled at look %d of %d: %v, %v; want context.Canceled", spill, at, all.looks, d, err)
			}
			if c.looks != at {
				t.Errorf("spill %v, cancelled at look %d: it looked %d times: not stopped at once", spill, at, c.looks)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("spill %v, cancelled at look %d: %d files left in the spill directory", spill, at, len(left))
			}
			if open := openIn(t, dir); len(open) != 0 {
				t.Errorf("spill %v, cancelled at look %d: still open: %v", spill, at, open)
			}
		}
		got, err := h.DominatorsContext(context.Background(), opt)
		if err != nil {
			t.Fatalf("spill %v, after the cancels: %v", spill, err)
		}
		if !reflect.DeepEqual(got.Idom, want.Idom) || !reflect.DeepEqual(got.Retained, want.Retained) {
			t.Errorf("spill %v: the tree computed after the cancels differs", spill)
		}
	}
}

// TestClassRetainedCancel stops the classes' retained sizes (the class
// histogram's retained column, computed after the tree) at each place its
// loops look at the context: context.Canceled at the first look after the
// cancel, and the answer computed next is the one computed without a
// context.
func TestClassRetainedCancel(t *testing.T) {
	h := parseBytes(t, weakDump(t, 150_000))
	d := h.Dominators()
	want := d.ClassRetained("x")
	all := &cancelAt{Context: context.Background()}
	got, err := d.ClassRetainedContext(all, "x")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("with a context never done: %v, %+v; want %+v", err, got, want)
	}
	// Three loops over the 150 k objects: 3 looks each (2 in the walk, which
	// looks from its 64 Ki-th object on).
	if all.looks < 6 {
		t.Fatalf("the computation looked at its context %d times, want ≥ 6 (2 or more a loop)", all.looks)
	}
	t.Logf("%d looks at the context", all.looks)
	for at := 1; at <= all.looks; at++ {
		ctx, cancel := context.WithCancel(context.Background())
		c := &cancelAt{Context: ctx, cancel: cancel, at: at}
		r, err := d.ClassRetainedContext(c, "x")
		cancel()
		if !errors.Is(err, context.Canceled) || r.Classes != nil {
			t.Fatalf("cancelled at look %d of %d: %+v, %v; want context.Canceled", at, all.looks, r, err)
		}
		if c.looks != at {
			t.Errorf("cancelled at look %d: it looked %d times: not stopped at once", at, c.looks)
		}
	}
	if got := d.ClassRetained("x"); !reflect.DeepEqual(got, want) {
		t.Errorf("after the cancels: %+v, want %+v", got, want)
	}
}
