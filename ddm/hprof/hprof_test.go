package hprof

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
)

// sample builds a small dump with the writer:
//
//	root(frame) → a(Holder) → arr(Object[]) → s1, s2 (String, "hello" each, own byte[])
//	root(global) → b(Holder) → s3 (String "other")
//	c(Holder) unreachable
//
// With android set it carries HEAP_DUMP_INFO records and Android roots.
func sample(t testing.TB, idSize int, android bool) []byte {
	var buf bytes.Buffer
	format := "JAVA PROFILE 1.0.2"
	if android {
		format = "JAVA PROFILE 1.0.3"
	}
	w := NewWriterFormat(&buf, format, idSize, time.UnixMilli(1700000000000))
	names := []string{"java/lang/Object", "java/lang/String", "Holder", "[Ljava/lang/Object;", "value", "next", "count", "app", "zygote", "java/lang/Class"}
	for i, s := range names {
		w.String(uint64(100+i), s)
	}
	// classes: Object 0x1000, String 0x1010, Holder 0x1020, Object[] 0x1030, Class 0x1040
	for i := range 5 {
		name := uint64(100 + i)
		if i == 4 {
			name = 109
		}
		w.LoadClass(uint64(0x1000+16*i), name)
	}
	ref := func(vals ...uint64) []byte { return idBytes(idSize, vals...) }
	if android {
		w.HeapInfo(1, 108) // zygote
	}
	w.ClassDump(0x1000, 0, 8, nil, nil)
	w.ClassDump(0x1040, 0x1000, 8, nil, nil)
	w.ClassDump(0x1010, 0x1000, 16, nil, []FieldDecl{{104, TypeObject}})
	w.ClassDump(0x1030, 0x1000, 0, nil, nil)
	if android {
		w.HeapInfo(3, 107) // app
		w.Root(RootInternedString, 0x2300)
	}
	// An instance before its class dump: the parser must keep it pending.
	w.Instance(0x2400, 0x1020, append(ref(0x2300), 0, 0, 0, 3)) // c: unreachable
	w.ClassDump(0x1020, 0x1000, 16, []StaticValue{{FieldDecl{106, TypeInt}, 7}}, []FieldDecl{{105, TypeObject}, {106, TypeInt}})
	w.Root(RootJavaFrame, 0x2000)
	w.Root(RootJNIGlobal, 0x2200)
	w.Instance(0x2000, 0x1020, append(ref(0x2100), 0, 0, 0, 1)) // a
	w.ObjectArray(0x2100, 0x1030, []uint64{0x2110, 0x2120, 0})
	w.Instance(0x2110, 0x1010, ref(0x2111))
	w.PrimitiveArray(0x2111, TypeByte, []byte("hello"))
	w.Instance(0x2120, 0x1010, ref(0x2121))
	w.PrimitiveArray(0x2121, TypeByte, []byte("hello"))
	w.Instance(0x2200, 0x1020, append(ref(0x2300), 0, 0, 0, 2)) // b
	w.Instance(0x2300, 0x1010, ref(0x2301))
	w.PrimitiveArray(0x2301, TypeByte, []byte("other"))
	w.PrimitiveArray(0x2302, TypeLong, make([]byte, 16))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// idBytes is vals as ids of idSize bytes, as field values on the wire.
func idBytes(idSize int, vals ...uint64) []byte {
	var b []byte
	for _, v := range vals {
		if idSize == 8 {
			b = binary.BigEndian.AppendUint64(b, v)
		} else {
			b = binary.BigEndian.AppendUint32(b, uint32(v))
		}
	}
	return b
}

func parseBytes(t testing.TB, b []byte) *Heap {
	t.Helper()
	h, err := Parse(bytes.NewReader(b), Options{Strings: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func statOf(hist []ClassStat, name string) ClassStat {
	for _, s := range hist {
		if s.Class == name {
			return s
		}
	}
	return ClassStat{Class: name}
}

func TestParseSample(t *testing.T) {
	for _, tc := range []struct {
		idSize  int
		android bool
	}{{8, false}, {4, false}, {8, true}} {
		h := parseBytes(t, sample(t, tc.idSize, tc.android))
		if h.NumObjects() != 16 {
			t.Errorf("id size %d android %v: %d objects, want 16 (5 classes, 11 objects)", tc.idSize, tc.android, h.NumObjects())
		}
		hist := h.Histogram()
		want := map[string]int64{"java.lang.String": 3, "Holder": 3, "byte[]": 3, "java.lang.Object[]": 1, "long[]": 1, "java.lang.Class": 5}
		for name, n := range want {
			if got := statOf(hist, name).Instances; got != n {
				t.Errorf("%d/%v: %s: %d instances, want %d", tc.idSize, tc.android, name, got, n)
			}
		}
		if h.Android != tc.android {
			t.Errorf("Android = %v, want %v", h.Android, tc.android)
		}
		if !tc.android {
			// HotSpot layout: Holder = 12 + ref 4 + int 4 = 20 → 24; byte[5] = 16+5 → 24; Object[3] = 16+12 → 32.
			hdr := uint32(12)
			if tc.idSize == 4 {
				hdr = 8
			}
			if got, want := statOf(hist, "Holder").Bytes, 3*int64(align8(uint64(hdr+8))); got != want {
				t.Errorf("Holder bytes %d, want %d", got, want)
			}
		} else {
			if got := statOf(hist, "Holder").Bytes; got != 3*16 {
				t.Errorf("Android Holder bytes %d, want 48 (the class dump's instance size)", got)
			}
			if got := h.HeapOf(h.Lookup(0x2000)); got != "app" {
				t.Errorf("heap of a = %q, want app", got)
			}
			if got := h.HeapOf(h.Lookup(0x1000)); got != "zygote" {
				t.Errorf("heap of Object class = %q, want zygote", got)
			}
		}
		a, arr, s1 := h.Lookup(0x2000), h.Lookup(0x2100), h.Lookup(0x2110)
		if got := h.Refs(arr); len(got) != 2 || got[0] != s1 {
			t.Errorf("array refs %v, want [s1 s2] (the null left out)", got)
		}
		path := h.PathFromRoot(h.Lookup(0x2111))
		var ids []uint64
		for _, p := range path {
			ids = append(ids, p.ID)
		}
		if !slices.Equal(ids, []uint64{0x2000, 0x2100, 0x2110, 0x2111}) || path[0].Root != "Java frame" {
			t.Errorf("path %+v", path)
		}
		if h.PathFromRoot(h.Lookup(0x2400)) != nil {
			t.Errorf("unreachable c has a path")
		}
		d := h.Dominators()
		if d.Idom[arr] != a || d.Idom[s1] != arr || d.Idom[h.Lookup(0x2400)] != NotReachable {
			t.Errorf("idom: arr→%d (want %d), s1→%d (want %d)", d.Idom[arr], a, d.Idom[s1], arr)
		}
		// s3 is reached from b only (c is unreachable); on Android it is an interned-string root.
		if got := d.Idom[h.Lookup(0x2300)]; !tc.android && got != h.Lookup(0x2200) || tc.android && got != Root {
			t.Errorf("idom(s3) = %d", got)
		}
		var sub uint64
		for _, id := range []uint64{0x2000, 0x2100, 0x2110, 0x2111, 0x2120, 0x2121} {
			sub += uint64(h.Size(h.Lookup(id)))
		}
		if d.Retained[a] != sub {
			t.Errorf("retained(a) = %d, want %d", d.Retained[a], sub)
		}
		dups, err := h.DuplicateStrings(bytes.NewReader(sample(t, tc.idSize, tc.android)), 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(dups) != 1 || dups[0].Value != "hello" || dups[0].Count != 2 {
			t.Errorf("duplicates %+v, want hello ×2", dups)
		}
	}
}

func TestDiff(t *testing.T) {
	old := []ClassStat{{"A", 1, 16}, {"B", 2, 32}, {"C", 1, 8}}
	new := []ClassStat{{"A", 1, 16}, {"B", 5, 80}, {"D", 1, 100}}
	got := Diff(old, new)
	want := []ClassDelta{
		{Class: "D", Instances: 1, Bytes: 100, Old: ClassStat{"D", 0, 0}, New: ClassStat{"D", 1, 100}},
		{Class: "B", Instances: 3, Bytes: 48, Old: ClassStat{"B", 2, 32}, New: ClassStat{"B", 5, 80}},
		{Class: "C", Instances: -1, Bytes: -8, Old: ClassStat{"C", 1, 8}, New: ClassStat{"C", 0, 0}},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Diff = %+v\nwant %+v", got, want)
	}
}

func TestMap(t *testing.T) {
	h := parseBytes(t, sample(t, 8, false))
	m := h.Map(MapOptions{MaxGap: 0x200})
	// Classes at 0x1000…0x1040 and objects at 0x2000…0x2400: two pieces. The
	// sample's byte[] ids sit one byte after their String's, so they overlap
	// it and are left out.
	if len(m.Pieces) != 2 {
		t.Fatalf("%d pieces, want 2: %+v", len(m.Pieces), m.Pieces)
	}
	tot := m.Totals()
	if tot.ByKind[ddm.KindClass].Blocks == 0 || tot.ByKind[ddm.KindArray4].Bytes != 32 || tot.ByKind[ddm.KindObject].Bytes == 0 {
		t.Errorf("totals by kind %+v: want class, object and one Object[3] (32 bytes)", tot.ByKind)
	}
	if m.Pieces[0].Start != 0x1000 || m.Pieces[1].Start != 0x2000 {
		t.Errorf("piece starts %#x %#x", m.Pieces[0].Start, m.Pieces[1].Start)
	}
}

func TestParseErrors(t *testing.T) {
	good := sample(t, 8, false)
	for name, in := range map[string][]byte{
		"empty":             nil,
		"not hprof":         []byte("PK\x03\x04 a zip file\x00"),
		"id size":           append([]byte("JAVA PROFILE 1.0.2\x00"), 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0),
		"cut in the header": good[:30],
	} {
		if _, err := Parse(bytes.NewReader(in), Options{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// Cut inside the heap dump: the objects before the cut, marked partial.
	h, err := Parse(bytes.NewReader(good[:len(good)-40]), Options{})
	if err != nil || !h.Partial || len(h.Warnings) == 0 || h.NumObjects() == 0 || h.NumObjects() >= 16 {
		t.Errorf("cut 40 bytes short: err %v, partial %v, %d objects, warnings %q", err, h != nil && h.Partial, h.NumObjects(), h.Warnings)
	}
	if _, err := Parse(bytes.NewReader(good), Options{MaxObjects: 3}); err == nil || !strings.Contains(err.Error(), "the streamed passes") {
		t.Errorf("MaxObjects 3: %v, want an error naming what reads a dump of any size", err)
	}
}

// TestDominatorsAgainstDefinition checks the dominator tree of random graphs
// against the definition: d dominates v iff v is unreachable from the roots
// once d is removed.
func TestDominatorsAgainstDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		n := 2 + r.IntN(40)
		h := &Heap{classObj: -1}
		adj := make([][]int32, n)
		// The implicit edges: each object holds its class's object (some
		// classes have none), objects of loader classes hold the classes
		// they defined.
		nc := 1 + r.IntN(4)
		h.Classes = make([]Class, nc)
		h.classNode = make([]int32, nc)
		h.loaderCls = make([]bool, nc)
		for c := range nc {
			h.classNode[c] = int32(r.IntN(n+n/3)) - int32(n/3)
			if h.classNode[c] < 0 {
				h.classNode[c] = -1
			}
			h.loaderCls[c] = r.IntN(3) == 0
		}
		h.loaded = map[int32][]int32{}
		for v := range n {
			h.ids.add(uint64(8 * (v + 1)))
			c := int32(r.IntN(nc))
			h.cls = append(h.cls, c)
			h.size = append(h.size, uint32(8+r.IntN(4)*8))
			h.refStart = append(h.refStart, uint32(len(h.refs)))
			for range r.IntN(4) {
				w := int32(r.IntN(n))
				adj[v] = append(adj[v], w)
				h.refs = append(h.refs, w)
			}
			if cn := h.classNode[c]; cn >= 0 {
				adj[v] = append(adj[v], cn)
			}
			if h.loaderCls[c] {
				for range r.IntN(3) {
					w := int32(r.IntN(n))
					adj[v] = append(adj[v], w)
					h.loaded[int32(v)] = append(h.loaded[int32(v)], w)
				}
			}
		}
		h.refStart = append(h.refStart, uint32(len(h.refs)))
		for range 1 + r.IntN(3) {
			h.roots = append(h.roots, int32(r.IntN(n)))
			h.rootKind = append(h.rootKind, RootUnknown)
		}
		reach := func(removed int32) []bool {
			seen := make([]bool, n)
			var stack []int32
			for _, x := range h.roots {
				if x != removed && !seen[x] {
					seen[x] = true
					stack = append(stack, x)
				}
			}
			for len(stack) > 0 {
				v := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, w := range adj[v] {
					if w != removed && !seen[w] {
						seen[w] = true
						stack = append(stack, w)
					}
				}
			}
			return seen
		}
		all := reach(-1)
		dominated := make([][]bool, n) // dominated[d][v]
		for d := range int32(n) {
			without := reach(d)
			dominated[d] = make([]bool, n)
			for v := range n {
				dominated[d][v] = all[v] && !without[v] && int32(v) != d
			}
		}
		dt := h.Dominators()
		for v := range int32(n) {
			if !all[v] {
				if dt.Idom[v] != NotReachable || dt.Retained[v] != 0 {
					t.Fatalf("round %d: unreachable %d has idom %d, retained %d", round, v, dt.Idom[v], dt.Retained[v])
				}
				continue
			}
			// The chain of immediate dominators is exactly v's dominators.
			var chain []int32
			for d := dt.Idom[v]; d >= 0; d = dt.Idom[d] {
				chain = append(chain, d)
			}
			var want []int32
			for d := range int32(n) {
				if dominated[d][v] {
					want = append(want, d)
				}
			}
			slices.Sort(chain)
			if !slices.Equal(chain, want) {
				t.Fatalf("round %d: dominators of %d: tree says %v, definition %v", round, v, chain, want)
			}
			var ret uint64
			for w := range n {
				if dominated[v][w] || int32(w) == v {
					ret += uint64(h.size[w])
				}
			}
			if dt.Retained[v] != ret {
				t.Fatalf("round %d: retained(%d) = %d, want %d", round, v, dt.Retained[v], ret)
			}
		}
	}
}

// TestIDIndexNarrowAndWide: ids kept as id/8 in 32 bits until one is not
// 8-aligned below 32 GiB, then 64-bit; the index answers the same either way.
func TestIDIndexNarrowAndWide(t *testing.T) {
	var l idList
	for i := range uint64(5000) {
		l.add(0x7000_0000 + 24*i)
	}
	check := func(stage string, want map[uint64]int32) {
		t.Helper()
		var x idIndex
		x.build(&l)
		for id, w := range want {
			if got := x.get(&l, id); got != w {
				t.Errorf("%s: get(0x%x) = %d, want %d", stage, id, got, w)
			}
		}
		for i := range int32(l.len()) {
			if got := x.get(&l, l.at(i)); got != i {
				t.Fatalf("%s: get(at(%d)) = %d", stage, i, got)
			}
		}
	}
	absent := map[uint64]int32{0x7000_0000: 0, 0x7000_0018: 1, 0x7000_0001: -1, 0x7000_0008: -1, 8 << 32: -1, 0x7000_0000 + 8<<32: -1}
	check("narrow", absent)
	if l.wide {
		t.Fatal("aligned ids below 32 GiB stored wide")
	}
	l.add(8 << 32) // 32 GiB: no longer narrow
	l.add(0x7000_0001)
	if !l.wide || l.len() != 5002 || l.at(0) != 0x7000_0000 || l.at(5000) != 8<<32 {
		t.Fatalf("widened list: wide %v, %d ids, first 0x%x", l.wide, l.len(), l.at(0))
	}
	absent[8<<32], absent[0x7000_0001] = 5000, 5001
	check("wide", absent)
}

// TestRefBufNarrowAndWide: the referenced ids, kept narrow in int32s (so
// that they resolve in place), come back whole, above 16 GiB too (a negative
// int32), after truncation and after widening.
func TestRefBufNarrowAndWide(t *testing.T) {
	var r refBuf
	ids := []uint64{8, 0x7000_0000, 16 << 30, 32<<30 - 8}
	for _, id := range ids {
		r.add(id)
	}
	if r.wide || r.len() != 4 {
		t.Fatalf("narrow ids: wide %v, len %d", r.wide, r.len())
	}
	for k, id := range ids {
		if got := r.at(k); got != id {
			t.Errorf("at(%d) = 0x%x, want 0x%x", k, got, id)
		}
	}
	r.truncate(2)
	r.add(0x7000_0004) // not 8-aligned: widens
	want := []uint64{8, 0x7000_0000, 0x7000_0004}
	if !r.wide || r.len() != len(want) {
		t.Fatalf("widened: wide %v, len %d", r.wide, r.len())
	}
	for k, id := range want {
		if got := r.at(k); got != id {
			t.Errorf("widened at(%d) = 0x%x, want 0x%x", k, got, id)
		}
	}
	r.truncate(1)
	if r.len() != 1 || r.at(0) != 8 {
		t.Fatalf("truncated wide: len %d", r.len())
	}
}

// dupIDs is a dump with two objects of one id (0x2000).
func dupIDs(t testing.TB) []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf, 8, time.UnixMilli(1700000000000))
	w.String(100, "java/lang/Object")
	w.String(101, "Holder")
	w.String(102, "next")
	w.LoadClass(0x1000, 100)
	w.LoadClass(0x1010, 101)
	w.ClassDump(0x1000, 0, 0, nil, nil)
	w.ClassDump(0x1010, 0x1000, 8, nil, []FieldDecl{{102, TypeObject}})
	w.Root(RootJNIGlobal, 0x2000)
	w.Instance(0x2000, 0x1010, binary.BigEndian.AppendUint64(nil, 0x2010))
	w.Instance(0x2010, 0x1010, binary.BigEndian.AppendUint64(nil, 0))
	w.Instance(0x2000, 0x1010, binary.BigEndian.AppendUint64(nil, 0))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDuplicateIDs: a second object with an id already seen is kept, but
// references go to the first, and a warning says so.
func TestDuplicateIDs(t *testing.T) {
	h := parseBytes(t, dupIDs(t))
	if h.NumObjects() != 5 || len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "1 objects have the id of an earlier object") {
		t.Fatalf("%d objects, warnings %q", h.NumObjects(), h.Warnings)
	}
	if first := h.Lookup(0x2000); len(h.Refs(first)) != 1 {
		t.Errorf("0x2000 resolves to an object with refs %v, want the first (→ 0x2010)", h.Refs(first))
	}
}

// TestCompactSizes: the size table gives back every object's size, whether
// its class's first object has it or not, across word boundaries.
func TestCompactSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 63, 64, 65, 1000} {
		cls := make([]int32, n)
		size := make([]uint32, n)
		for i := range n {
			cls[i] = int32(r.IntN(5))
			size[i] = 16
			if cls[i] == 0 || r.IntN(10) == 0 { // arrays: sizes of their own
				size[i] = uint32(16 + 8*r.IntN(50))
			}
		}
		tab := compactSizes(cls, size, 5)
		for i := range n {
			if got := tab.at(int32(i), cls[i]); got != size[i] {
				t.Fatalf("n=%d: object %d of class %d: size %d, want %d", n, i, cls[i], got, size[i])
			}
		}
		if n == 1000 && len(tab.extra) > n/2 {
			t.Errorf("%d of %d sizes kept apart", len(tab.extra), n)
		}
	}
}
