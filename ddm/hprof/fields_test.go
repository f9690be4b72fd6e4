package hprof

import (
	"bytes"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"
)

// fieldsDump is a dump whose references come from every kind of place:
// Sub extends Base, both declaring "value"; Base's "other", Sub's "next";
// an Object[] holding one object twice; Holder's static "holder" and an
// int static before it. Fillers (more than several record marks' worth)
// and top-level records between heap dump segments lie before the
// objects looked at, so a record is found past marks and segments.
func fieldsDump(t testing.TB, idSize int) []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf, idSize, time.UnixMilli(1700000000000))
	names := []string{"java/lang/Object", "Base", "app/Sub", "[Ljava/lang/Object;", "java/lang/Class", "Holder", "value", "other", "next", "holder", "count", "Filler"}
	for i, s := range names {
		w.String(uint64(100+i), s)
	}
	ids := func(vals ...uint64) []byte { return idBytes(idSize, vals...) }
	for i := range 6 {
		w.LoadClass(uint64(0x1000+16*i), uint64(100+i))
	}
	w.LoadClass(0x1060, 111)
	w.ClassDump(0x1000, 0, 8, nil, nil)
	w.ClassDump(0x1040, 0x1000, 8, nil, nil)
	w.ClassDump(0x1010, 0x1000, 16, nil, []FieldDecl{{106, TypeObject}, {107, TypeObject}})
	w.ClassDump(0x1020, 0x1010, 24, nil, []FieldDecl{{108, TypeObject}, {106, TypeObject}})
	w.ClassDump(0x1030, 0x1000, 0, nil, nil)
	w.ClassDump(0x1060, 0x1000, 16, nil, []FieldDecl{{110, TypeInt}, {108, TypeObject}})
	// Fillers: a chain, with a root, a string record (a segment break) and
	// a primitive array among them.
	const fillers = 3*markEvery + 17
	w.Root(RootJNIGlobal, 0x100000)
	for k := range uint64(fillers) {
		next := uint64(0)
		if k+1 < fillers {
			next = 0x100000 + 16*(k+1)
		}
		w.Instance(0x100000+16*k, 0x1060, append([]byte{0, 0, 0, byte(k)}, ids(next)...))
		if k == fillers/2 {
			w.String(200, "a UTF8 record between two segments")
			w.Root(RootStickyClass, 0x1000)
			w.PrimitiveArray(0x90000000, TypeLong, make([]byte, 4096))
		}
	}
	// Sub 0x3000: next → 0x3100, Sub.value → 0x3200, Base.value → 0x3300, other → 0x3100.
	w.Instance(0x3000, 0x1020, ids(0x3100, 0x3200, 0x3300, 0x3100))
	w.Instance(0x3100, 0x1000, nil)
	w.Instance(0x3200, 0x1000, nil)
	w.Instance(0x3300, 0x1000, nil)
	w.ObjectArray(0x3400, 0x1030, []uint64{0, 0x3100, 0x3000, 0x3100})
	w.ClassDump(0x1050, 0x1000, 8, []StaticValue{{FieldDecl{110, TypeInt}, 7}, {FieldDecl{109, TypeObject}, 0x3400}}, nil)
	w.Root(RootJNIGlobal, 0x3000)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestFieldOf: each kind of reference is named, past record marks and
// segment breaks, with 4- and 8-byte ids.
func TestFieldOf(t *testing.T) {
	for _, idSize := range []int{4, 8} {
		dump := fieldsDump(t, idSize)
		h := parseBytes(t, dump)
		src := bytes.NewReader(dump)
		obj := func(id uint64) int32 {
			o := h.Lookup(id)
			if o < 0 {
				t.Fatalf("no object %#x", id)
			}
			return o
		}
		holder, _ := classObject(t, h, "Holder")
		base, _ := classObject(t, h, "Base")
		sub, _ := classObject(t, h, "app.Sub")
		for _, c := range []struct {
			from, to int32
			name     string
			count    int
		}{
			{obj(0x3000), obj(0x3200), "Sub.value", 1},
			{obj(0x3000), obj(0x3300), "Base.value", 1},
			{obj(0x3000), obj(0x3100), "next", 2}, // Sub.next, then Base.other
			{obj(0x3400), obj(0x3100), "[1]", 2},
			{obj(0x3400), obj(0x3000), "[2]", 1},
			{holder, obj(0x3400), "static holder", 1},
			{sub, base, "<super>", 1},
			{obj(0x100000), obj(0x100010), "next", 1},
			{obj(0x100000 + 16*(3*markEvery+15)), obj(0x100000 + 16*(3*markEvery+16)), "next", 1},
			{obj(0x3000), obj(0x3400), "", 0}, // no such reference
			{obj(0x90000000), obj(0x3000), "", 0},
		} {
			name, n, err := h.FieldOf(src, c.from, c.to)
			if err != nil || name != c.name || n != c.count {
				t.Errorf("ids of %d bytes: FieldOf(%#x, %#x) = %q, %d, %v; want %q, %d", idSize, h.ID(c.from), h.ID(c.to), name, n, err, c.name, c.count)
			}
		}
		everyEdgeNamed(t, h, src)
		// A dump cut short: the objects of its complete records are named
		// from the bytes it has.
		cut := dump[:len(dump)*2/3]
		ph, err := Parse(bytes.NewReader(cut), Options{})
		if err != nil || !ph.Partial {
			t.Fatalf("the cut dump: partial %v, %v", ph != nil && ph.Partial, err)
		}
		everyEdgeNamed(t, ph, bytes.NewReader(cut))

		// A path and incoming references name their fields.
		p := h.PathTo(obj(0x3300), 0, src)
		if len(p.Steps) != 2 || p.Steps[1].Field != "Base.value" || p.Steps[0].Field != "" {
			t.Errorf("path to 0x3300: %+v", p.Steps)
		}
		in := h.Incoming("/d", obj(0x3100), 0, 0, nil, src)
		var got []string
		for _, r := range in.Referrers {
			got = append(got, r.Field+"×"+string(rune('0'+max(r.FieldCount, 1))))
		}
		if strings.Join(got, " ") != "next×2 [1]×2" {
			t.Errorf("incoming references of 0x3100: %q, want next×2 (Sub.next, Base.other) and [1]×2", got)
		}
		m := h.PathsToObject("/d", obj(0x3100), PathOptions{Source: src})
		if len(m.Roots) != 1 || len(m.Roots[0].Children) != 1 || m.Roots[0].Children[0].Field != "next" || m.Roots[0].Children[0].FieldCount != 2 {
			t.Errorf("paths to 0x3100: %+v", m.Roots)
		}
		// A referrer's children named from one read of its record: the
		// Objects below the Sub root.
		objs, _ := h.PathsToClass("/d", "java.lang.Object", PathOptions{Source: src})
		kids := map[uint64]string{}
		for _, r := range objs.Roots {
			if r.ID == 0x3000 {
				for _, c := range r.Children {
					kids[c.ID] = fmt.Sprintf("%s×%d", c.Field, max(c.FieldCount, 1))
				}
			}
		}
		if want := map[uint64]string{0x3100: "next×2", 0x3200: "Sub.value×1", 0x3300: "Base.value×1"}; !maps.Equal(kids, want) {
			t.Errorf("paths to the Objects: below the Sub %v, want %v", kids, want)
		}
		// Without a source, no names; a source of other bytes: an error.
		if p := h.PathTo(obj(0x3300), 0, nil); p.Steps[1].Field != "" {
			t.Errorf("a path without a source names %q", p.Steps[1].Field)
		}
		other := fieldsDump(t, 12-idSize)
		if _, _, err := h.FieldOf(bytes.NewReader(other), obj(0x3000), obj(0x3200)); err == nil {
			t.Error("FieldOf read another dump's bytes without an error")
		}
		if _, _, err := h.FieldOf(bytes.NewReader(dump[:len(dump)/2]), obj(0x3000), obj(0x3200)); err == nil {
			t.Error("FieldOf read past a cut source without an error")
		}
	}
}

// everyEdgeNamed checks that each reference of each object has a name.
func everyEdgeNamed(t *testing.T, h *Heap, src *bytes.Reader) {
	t.Helper()
	for v := range int32(h.NumObjects()) {
		for _, w := range h.Refs(v) {
			name, n, err := h.FieldOf(src, v, w)
			if err != nil || name == "" || n < 1 {
				t.Fatalf("%s %#x → %s %#x: %q, %d, %v", h.Label(v), h.ID(v), h.Label(w), h.ID(w), name, n, err)
			}
		}
	}
}

// FuzzFieldOf reads records back from arbitrary bytes: for a dump that
// parses, every reference of its first and last objects is named from the same
// bytes (where Parse warned of nothing), and other bytes (the dump cut
// short) give an error or a name, never a panic. Seed corpus: testdata/fuzz/FuzzFieldOf (written
// with FuzzParse's by TestWriteFuzzCorpus).
func FuzzFieldOf(f *testing.F) {
	for _, s := range fieldSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		h, err := Parse(bytes.NewReader(in), Options{MaxObjects: 1 << 14})
		if err != nil {
			return
		}
		// One reader per source, as an answer's steps share one.
		src := &recordReader{src: bytes.NewReader(in), idSize: h.IDSize}
		other := &recordReader{src: bytes.NewReader(in[:len(in)*7/8]), idSize: h.IDSize}
		budget := 300 // FieldOf calls: an array's elements each scan the whole array
		for k := range min(int32(h.NumObjects()), 200) {
			v := k // the first 100 objects and the last 100
			if k >= 100 {
				v = int32(h.NumObjects()) - 200 + k
			}
			for _, w := range h.Refs(v) {
				if budget--; budget < 0 {
					return
				}
				name, n, err := h.fieldOf(src, v, w)
				if len(h.Warnings) == 0 && (err != nil || name == "" || n < 1) {
					t.Fatalf("%s %#x → %#x: %q, %d, %v", h.Label(v), h.ID(v), h.ID(w), name, n, err)
				}
				h.fieldOf(other, v, w)
			}
			if n := int32(h.NumObjects()); n > 0 {
				h.fieldOf(src, v, (v*7+3)%n) // mostly no reference: "" or an error
			}
		}
	})
}

func fieldSeeds(t testing.TB) [][]byte {
	return [][]byte{fieldsDump(t, 4), fieldsDump(t, 8), sample(t, 8, false), sample(t, 4, true), dupIDs(t)}
}
