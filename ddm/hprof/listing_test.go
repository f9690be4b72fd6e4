package hprof

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// endless serves a dump's bytes and then empty records (tag 0, length 0,
// skipped like any unknown record) for ever, cancelling after limit bytes.
type endless struct {
	head   []byte
	n      int64
	limit  int64
	cancel context.CancelFunc
}

func (e *endless) Read(b []byte) (int, error) {
	if e.n >= e.limit {
		e.cancel()
	}
	var k int
	if e.n < int64(len(e.head)) {
		k = copy(b, e.head[e.n:])
	} else {
		clear(b)
		k = len(b)
	}
	e.n += int64(k)
	return k, nil
}

// TestParseContextStops parses an endless stream and cancels it: the parse
// returns (it could not otherwise), with ctx's error and the offset.
func TestParseContextStops(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	src := &endless{head: sample(t, 8, false), limit: 64 << 20, cancel: cancel}
	h, err := ParseContext(ctx, src, Options{})
	if h != nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "parsing stopped at byte ") {
		t.Fatalf("Parse after cancel: %v, %v", h, err)
	}
	if src.n < src.limit || src.n > src.limit+4*bufSize {
		t.Errorf("read %d bytes: want to stop within a few buffers of %d", src.n, src.limit)
	}
	// A context that is done before the start reads nothing past a buffer.
	src = &endless{head: sample(t, 8, false), limit: 1 << 62, cancel: func() {}}
	if _, err := ParseContext(ctx, src, Options{}); !errors.Is(err, context.Canceled) || src.n > bufSize {
		t.Errorf("Parse with a done context: %v after %d bytes", err, src.n)
	}
	// Without cancellation the same stream (cut) parses.
	head := sample(t, 8, false)
	cut := int64(len(head)) + 9*(1<<20) // a million empty records
	if _, err := ParseContext(t.Context(), io.LimitReader(&endless{head: head, limit: 1 << 62}, cut), Options{}); err != nil {
		t.Errorf("the stream cut after a million empty records: %v", err)
	}
}

// TestLabelNamesClassObjects: a class object is listed as the class it is.
func TestLabelNamesClassObjects(t *testing.T) {
	h := parseBytes(t, sample(t, 8, false))
	named := 0
	for c := range h.Classes {
		cl := &h.Classes[c]
		if cl.Object < 0 {
			continue
		}
		if got, want := h.Label(cl.Object), "class "+cl.Name; got != want {
			t.Errorf("class object %#x: %q, want %q", cl.ID, got, want)
		}
		named++
	}
	if named != 5 {
		t.Errorf("%d class objects: want 5", named)
	}
	var holder bool
	for _, o := range h.Dominators().Children(Root, 0) {
		holder = holder || o.Class == "class Holder"
		if o.Class == "java.lang.Class" {
			t.Errorf("dominator %#x is a bare java.lang.Class", o.ID)
		}
	}
	if !holder {
		t.Error("the dominator tree's top level has no \"class Holder\"")
	}
	if got := h.Label(h.Lookup(0x2000)); got != "Holder" {
		t.Errorf("an instance: %q, want its class name", got)
	}
}

func TestElidePath(t *testing.T) {
	var p []PathStep
	for k := range 1000 {
		cls := "Node"
		if k%100 == 7 {
			cls = fmt.Sprint("Other", k%3)
		}
		p = append(p, PathStep{Object: Object{ID: uint64(k), Class: cls}})
	}
	if got := ElidePath(1, p, 0); len(got.Steps) != 1000 || got.Elided != nil || got.Length != 1000 {
		t.Errorf("max 0 keeps every step: %d steps, %+v", len(got.Steps), got.Elided)
	}
	if got := ElidePath(1, p[:10], 10); len(got.Steps) != 10 || got.Elided != nil {
		t.Errorf("a path of max steps is not elided: %+v", got.Elided)
	}
	got := ElidePath(999, p, 11)
	if got.Length != 1000 || len(got.Steps) != 11 || got.Steps[4].ID != 4 || got.Steps[5].ID != 994 || got.Steps[10].ID != 999 {
		t.Fatalf("elided to 11: length %d, steps %+v", got.Length, got.Steps)
	}
	g := got.Elided
	if g == nil || g.After != 5 || g.Count != 989 {
		t.Fatalf("gap %+v", g)
	}
	want := []ClassCount{{"Node", 979}, {"Other1", 4}, {"Other0", 3}, {"Other2", 3}}
	if fmt.Sprint(g.Classes) != fmt.Sprint(want) {
		t.Errorf("gap classes %v, want %v", g.Classes, want)
	}
	if got := ElidePath(5, nil, 10); got.Length != 0 || got.Steps == nil {
		t.Errorf("unreachable: %+v", got)
	}
}
