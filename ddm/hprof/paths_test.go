package hprof

import (
	"bytes"
	"encoding/binary"
	"io"
	"runtime"
	"slices"
	"testing"
	"time"
)

// weakDump: a JNI global holds a WeakReference to T; another holds the
// chain A → B → T of Nodes. With chain > 0, a third root holds a list of
// chain more Nodes ending in the Node L (id 0x5000000).
func weakDump(t testing.TB, chain int) []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf, 8, time.UnixMilli(1700000000000))
	for i, s := range []string{"java/lang/Object", "java/lang/Class", "java/lang/ref/Reference", "java/lang/ref/WeakReference", "Node", "referent", "next"} {
		w.String(uint64(100+i), s)
	}
	for i := range 5 {
		w.LoadClass(uint64(0x1000+16*i), uint64(100+i))
	}
	ref := func(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }
	w.ClassDump(0x1000, 0, 0, nil, nil)
	w.ClassDump(0x1010, 0x1000, 0, nil, nil)
	w.ClassDump(0x1020, 0x1000, 0, nil, []FieldDecl{{105, TypeObject}})
	w.ClassDump(0x1030, 0x1020, 0, nil, nil)
	w.ClassDump(0x1040, 0x1000, 0, nil, []FieldDecl{{106, TypeObject}})
	w.Root(RootJNIGlobal, 0x2000)
	w.Root(RootJNIGlobal, 0x2100)
	w.Instance(0x2000, 0x1030, ref(0x3000)) // W: WeakReference → T
	w.Instance(0x2100, 0x1040, ref(0x2200)) // A → B
	w.Instance(0x2200, 0x1040, ref(0x3000)) // B → T
	w.Instance(0x3000, 0x1040, ref(0))      // T
	if chain > 0 {
		w.Root(RootJNIGlobal, 0x4000000)
		for k := range chain {
			next := uint64(0x4000000 + 8*(k+1))
			if k == chain-1 {
				next = 0x5000000
			}
			w.Instance(uint64(0x4000000+8*k), 0x1040, ref(next))
		}
		w.Instance(0x5000000, 0x1040, ref(0))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func stepIDs(s []PathStep) []uint64 {
	var ids []uint64
	for _, x := range s {
		ids = append(ids, x.ID)
	}
	return ids
}

// TestPathsExcludeWeakReferences: the path to T goes A → B → T, not
// through the WeakReference's referent, one step shorter; the referent edge
// still counts as an incoming reference.
func TestPathsExcludeWeakReferences(t *testing.T) {
	h := parseBytes(t, weakDump(t, 0))
	T := h.Lookup(0x3000)
	p := h.PathTo(T, 0, nil)
	if got := stepIDs(p.Steps); !slices.Equal(got, []uint64{0x2100, 0x2200, 0x3000}) || p.Steps[0].Root != "JNI global" {
		t.Errorf("path to T: %v (%+v), want A → B → T from a JNI global", got, p)
	}
	in := h.Incoming("x", T, 0, 0, nil, nil)
	if got := stepIDs(in.Referrers); in.Total != 2 || !slices.Equal(got, []uint64{0x2000, 0x2200}) || in.Referrers[0].Root != "JNI global" {
		t.Errorf("incoming of T: %+v, want W (a root) and B", in)
	}
	m, ok := h.PathsToClass("x", "Node", PathOptions{})
	if !ok || m.Objects != 3 || m.Reached != 3 || len(m.Roots) != 1 {
		t.Fatalf("merged paths to Node: %+v", m)
	}
	a := m.Roots[0]
	if a.ID != 0x2100 || a.Targets != 3 || !a.Target || len(a.Children) != 1 || a.Children[0].Targets != 2 ||
		len(a.Children[0].Children) != 1 || a.Children[0].Children[0].ID != 0x3000 || a.Children[0].Children[0].Targets != 1 {
		t.Errorf("merged paths to Node: %+v, want A(3) → B(2) → T(1)", a)
	}
	if _, ok := h.PathsToClass("x", "NoSuch", PathOptions{}); ok {
		t.Error("paths to a class the dump does not have")
	}
	inst, _ := h.Instances("x", "Node", 1, 1, nil)
	if inst.Total != 3 || len(inst.Objects) != 1 || inst.Objects[0].ID != 0x2200 {
		t.Errorf("instances of Node, page 2 of 1: %+v", inst)
	}
}

// TestPathTreeElidesChains: a long chain in a merged tree keeps its ends
// and counts the middle; the nodes and the gap add up to the path.
func TestPathTreeElidesChains(t *testing.T) {
	const chain = 1000
	h := parseBytes(t, weakDump(t, chain))
	L := h.Lookup(0x5000000)
	m := h.PathsToObject("x", L, PathOptions{Chain: 10})
	if m.Objects != 1 || m.Reached != 1 || len(m.Roots) != 1 {
		t.Fatalf("paths to L: %+v", m)
	}
	n, gaps := 0, 0
	var last PathNodeJSON
	for nd := &m.Roots[0]; ; nd = &nd.Children[0] {
		n++
		if nd.Elided != nil {
			gaps += nd.Elided.Count
			if len(nd.Elided.Classes) != 1 || nd.Elided.Classes[0] != (ClassCount{"Node", nd.Elided.Count}) {
				t.Errorf("gap: %+v", nd.Elided)
			}
		}
		if len(nd.Children) == 0 {
			last = *nd
			break
		}
		if len(nd.Children) != 1 {
			t.Fatalf("a chain node with %d children", len(nd.Children))
		}
	}
	if n+gaps != chain+1 || n > 10+3 || !last.Target || last.ID != 0x5000000 {
		t.Errorf("%d nodes shown + %d elided, last %+v: want %d in all, at most 13 shown, ending in L", n, gaps, last, chain+1)
	}
	p := h.PathTo(L, 10, nil)
	if p.Length != chain+1 || len(p.Steps) != 10 || p.Elided == nil || p.Elided.After != 5 || p.Elided.Count != chain+1-10 ||
		p.Steps[9].ID != 0x5000000 || p.Steps[0].Root != "JNI global" {
		t.Errorf("PathTo(L, 10): %+v", p)
	}
	if full := h.PathTo(L, 0, nil); full.Length != chain+1 || len(full.Steps) != chain+1 || full.Elided != nil {
		t.Errorf("PathTo(L, 0): %d steps, length %d", len(full.Steps), full.Length)
	}
}

// TestPathToMemoryBounded: the path to the end of a 1,000,000-node list
// allocates the search's two int32 per object and what it prints, not a
// step per object (188–325 MB when every step was built before eliding).
// With the dump to read the kept steps' fields back from, the same bound
// holds: a record is read for each step kept, none for the elided.
func TestPathToMemoryBounded(t *testing.T) {
	const chain = 1_000_000
	dump := weakDump(t, chain)
	h := parseBytes(t, dump)
	L := h.Lookup(0x5000000)
	for _, src := range []io.ReaderAt{nil, bytes.NewReader(dump)} {
		h.PathTo(L, 20, src) // warm: nothing lazy left
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		p := h.PathTo(L, 20, src)
		runtime.ReadMemStats(&m1)
		alloc := m1.TotalAlloc - m0.TotalAlloc
		n := uint64(h.NumObjects())
		// parent and order: 4 bytes per object each; 1 MiB for the rest.
		bound := 8*n + 1<<20
		t.Logf("PathTo on a %d-step path over %d objects, fields read back %v: %d bytes allocated (%.1f per object), %d steps kept", p.Length, n, src != nil, alloc, float64(alloc)/float64(n), len(p.Steps))
		if p.Length != chain+1 || len(p.Steps) != 20 {
			t.Fatalf("path: length %d, %d steps", p.Length, len(p.Steps))
		}
		if src != nil && (p.Steps[1].Field == "" || p.Steps[19].Field == "") {
			t.Errorf("steps without their fields: %+v", p.Steps)
		}
		if alloc > bound {
			t.Errorf("PathTo allocated %d bytes for %d objects: more than the search's %d", alloc, n, bound)
		}
	}
}

// TestClassRetainedIsTheSetsRetainedSize checks ClassRetained against the
// definition: the bytes of the objects some instance of the class dominates
// (itself included), each once.
func TestClassRetainedIsTheSetsRetainedSize(t *testing.T) {
	for _, in := range [][]byte{weakDump(t, 50), sample(t, 8, false), sample(t, 8, true)} {
		h := parseBytes(t, in)
		checkClassRetained(t, h, h.Dominators())
	}
}

func checkClassRetained(t *testing.T, h *Heap, d *Dominators) {
	t.Helper()
	got := map[string]uint64{}
	for _, c := range d.ClassRetained("x").Classes {
		got[c.Class] = c.Retained
	}
	want := map[string]uint64{}
	for o := range int32(h.NumObjects()) {
		if d.Idom[o] == NotReachable {
			continue
		}
		seen := map[string]bool{}
		for a := o; a >= 0; a = d.Idom[a] {
			if n := h.ClassName(a); !seen[n] {
				seen[n] = true
				want[n] += uint64(h.Size(o))
			}
		}
	}
	for n, w := range want {
		if w > 0 && got[n] != w {
			t.Errorf("%s retains %d bytes as a set, the definition says %d", n, got[n], w)
		}
	}
	if len(got) != len(want) {
		for n := range want {
			if want[n] == 0 {
				delete(want, n)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%d classes retain something, the definition says %d", len(got), len(want))
		}
	}
}
