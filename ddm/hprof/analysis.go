package hprof

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"unicode/utf16"
)

// ClassStat is one line of a class histogram. Its JSON form is what
// `ddmbridge hprof FILE --histo --json` prints.
type ClassStat struct {
	Class     string `json:"class"`
	Instances int64  `json:"instances"`
	Bytes     int64  `json:"bytes"` // shallow bytes of all instances
}

// Histogram counts the objects of every class (classes of the same name
// from different loaders together), biggest total first. Class objects count
// as instances of java.lang.Class.
func (h *Heap) Histogram() []ClassStat {
	n := make([]int64, len(h.Classes))
	b := make([]int64, len(h.Classes))
	for i, c := range h.cls {
		n[c]++
		b[c] += int64(h.Size(int32(i)))
	}
	byName := map[string]int{}
	var out []ClassStat
	for c := range h.Classes {
		if n[c] == 0 {
			continue
		}
		name := h.Classes[c].Name
		if k, ok := byName[name]; ok {
			out[k].Instances += n[c]
			out[k].Bytes += b[c]
			continue
		}
		byName[name] = len(out)
		out = append(out, ClassStat{name, n[c], b[c]})
	}
	sortStats(out)
	return out
}

func sortStats(s []ClassStat) {
	slices.SortFunc(s, func(a, b ClassStat) int {
		if c := cmp.Compare(b.Bytes, a.Bytes); c != 0 {
			return c
		}
		return cmp.Compare(a.Class, b.Class)
	})
}

// ClassDelta is one class's change between two histograms.
type ClassDelta struct {
	Class     string `json:"class"`
	Instances int64  `json:"instances"` // new − old
	Bytes     int64  `json:"bytes"`     // new − old
	Old       ClassStat
	New       ClassStat
}

// Diff compares two histograms class by class: every class present in
// either, largest absolute byte change first; unchanged classes left out.
func Diff(old, new []ClassStat) []ClassDelta {
	m := map[string]*ClassDelta{}
	var order []string
	get := func(name string) *ClassDelta {
		d, ok := m[name]
		if !ok {
			d = &ClassDelta{Class: name}
			m[name] = d
			order = append(order, name)
		}
		return d
	}
	for _, s := range old {
		get(s.Class).Old = s
	}
	for _, s := range new {
		get(s.Class).New = s
	}
	var out []ClassDelta
	for _, name := range order {
		d := m[name]
		d.Old.Class, d.New.Class = name, name
		d.Instances = d.New.Instances - d.Old.Instances
		d.Bytes = d.New.Bytes - d.Old.Bytes
		if d.Instances != 0 || d.Bytes != 0 {
			out = append(out, *d)
		}
	}
	abs := func(v int64) int64 { return max(v, -v) }
	slices.SortFunc(out, func(a, b ClassDelta) int {
		if c := cmp.Compare(abs(b.Bytes), abs(a.Bytes)); c != 0 {
			return c
		}
		return cmp.Compare(a.Class, b.Class)
	})
	return out
}

// Object describes one object for listings.
type Object struct {
	Index    int32  `json:"-"`
	ID       uint64 `json:"id"`
	Class    string `json:"class"` // the class name; for a class object "class " and the class it is (see [Heap.Label])
	Size     uint32 `json:"size"`
	Retained uint64 `json:"retained,omitempty"`
}

func (h *Heap) describe(i int32) Object {
	return Object{Index: i, ID: h.ids.at(i), Class: h.Label(i), Size: h.Size(i)}
}

// Biggest lists the n objects with the largest shallow size, largest first.
func (h *Heap) Biggest(n int) []Object {
	top := topN(h.ids.len(), n, func(i int32) uint64 { return uint64(h.Size(i)) })
	out := make([]Object, len(top))
	for k, i := range top {
		out[k] = h.describe(i)
	}
	return out
}

// topN returns the indices of the n largest key(i) for i in [0,count),
// largest first, in O(count·log n).
func topN(count, n int, key func(int32) uint64) []int32 {
	if n <= 0 {
		return nil
	}
	heap := make([]int32, 0, n) // min-heap on key
	less := func(a, b int32) bool { return key(a) < key(b) || key(a) == key(b) && a > b }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(heap) {
				return
			}
			if r := l + 1; r < len(heap) && less(heap[r], heap[l]) {
				l = r
			}
			if !less(heap[l], heap[i]) {
				return
			}
			heap[i], heap[l] = heap[l], heap[i]
			i = l
		}
	}
	for i := range int32(count) {
		if len(heap) < n {
			heap = append(heap, i)
			for j := len(heap) - 1; j > 0; {
				p := (j - 1) / 2
				if !less(heap[j], heap[p]) {
					break
				}
				heap[j], heap[p] = heap[p], heap[j]
				j = p
			}
			continue
		}
		if less(heap[0], i) {
			heap[0] = i
			down(0)
		}
	}
	slices.SortFunc(heap, func(a, b int32) int {
		if less(a, b) {
			return 1
		}
		if less(b, a) {
			return -1
		}
		return 0
	})
	return heap
}

// PathStep is one object on a path from a GC root.
type PathStep struct {
	Object
	Root       string `json:"root,omitempty"`       // the root kind, on the first step ("sticky class", "Java frame", …)
	RootDetail string `json:"rootDetail,omitempty"` // the root's thread and frame, where the dump says
	Via        string `json:"via,omitempty"`        // how the previous step holds this one, where not a field or element: "<class>", "<loader>", "<defined class>"
	// Field names the field or element of the referrer (the previous step
	// on a path; the listed object among incoming references) that holds
	// the object, where the dump was read back for it (see [Heap.FieldOf]):
	// "elementData", "[3]", "static holder", "<loader>".
	Field string `json:"field,omitempty"`
	// FieldCount is how many of the referrer's fields or elements hold it
	// where more than one does (Field names the first).
	FieldCount int `json:"fieldCount,omitempty"`
}

// Succ appends to buf the objects i keeps alive: its references ([Heap.Refs]),
// its class object (every object holds its class, as the JVM's object
// header does) and, for a class loader, the classes it defined (the VM's
// class loader data holds them while the loader lives; [Class.Loader] is the
// reverse edge). This is the graph of the dominator tree and of paths, as in
// Eclipse MAT.
func (h *Heap) Succ(i int32, buf []int32) []int32 {
	buf = append(buf, h.Refs(i)...)
	c := h.cls[i]
	if cn := h.classNode[c]; cn >= 0 {
		buf = append(buf, cn)
	}
	if h.loaderCls[c] {
		buf = append(buf, h.loaded[i]...)
	}
	return buf
}

// PathFromRoot is a shortest path from a GC root to obj, root first; nil if
// obj is unreachable: [Heap.PathTo] with every step kept.
func (h *Heap) PathFromRoot(obj int32) []PathStep {
	p := h.PathTo(obj, 0, nil)
	if p.Length == 0 {
		return nil
	}
	return p.Steps
}

// rootDetail describes root record k beyond its kind: the thread and frame
// of a Java frame or JNI local, the thread of a thread object or block.
func (h *Heap) rootDetail(k int) string {
	if k >= len(h.rootAux) {
		return ""
	}
	serial, aux := h.rootAux[k][0], h.rootAux[k][1]
	switch h.rootKind[k] {
	case RootJavaFrame, RootJNILocal, RootNativeStack, RootThreadBlock:
	case RootThreadObject:
		if serial != 0 {
			return fmt.Sprintf("thread serial %d", serial)
		}
		return ""
	default:
		return ""
	}
	if serial == 0 {
		return ""
	}
	s := "thread " + h.threadName(serial)
	if h.rootKind[k] == RootNativeStack || h.rootKind[k] == RootThreadBlock {
		return s
	}
	if tr, ok := h.traces[serial]; ok && int(aux) < len(tr) {
		if f, ok := h.frames[tr[aux]]; ok {
			return fmt.Sprintf("%s, frame %d: %s", s, aux, f)
		}
	}
	if int32(aux) >= 0 {
		return fmt.Sprintf("%s, frame %d", s, aux)
	}
	return s
}

// threadName names the thread with this serial: its name where
// ReadThreadNames has read it, its thread object, its serial.
func (h *Heap) threadName(serial uint32) string {
	name := ""
	if n, ok := h.threadNames[serial]; ok {
		name = fmt.Sprintf("%q ", n)
	}
	for k, kind := range h.rootKind {
		if kind == RootThreadObject && h.rootAux[k][0] == serial {
			o := h.roots[k]
			return fmt.Sprintf("%s%#x (%s, serial %d)", name, h.ids.at(o), h.ClassName(o), serial)
		}
	}
	return fmt.Sprintf("%sserial %d", name, serial)
}

// DupString is a string value held by several String objects.
type DupString struct {
	Value  string `json:"value"` // at most 200 characters
	Count  int    `json:"count"`
	Wasted uint64 `json:"wasted"` // bytes of the copies beyond the first (each String, and its array unless one already counted)
}

// DuplicateStrings finds java.lang.String values held by more than one
// String object, most wasted bytes first (an array several of them share
// counted once), at most
// n. src must read the same bytes Parse read; contents are read back from it
// by offset.
func (h *Heap) DuplicateStrings(src io.ReaderAt, n int) ([]DupString, error) {
	strCls := int32(-1)
	for i := range h.Classes {
		if h.Classes[i].Name == "java.lang.String" {
			strCls = int32(i)
		}
	}
	if !h.keptStrings {
		return nil, errors.New("hprof: duplicate strings need the dump parsed with Options.Strings")
	}
	if strCls < 0 || len(h.strs) == 0 {
		return nil, nil
	}
	byObj := func(o int32) int {
		k, ok := slices.BinarySearchFunc(h.strs, o, func(s strArray, o int32) int { return cmp.Compare(s.obj, o) })
		if !ok {
			return -1
		}
		return k
	}
	var groups dupGroups
	counted := make([]bool, len(h.strs)) // arrays whose bytes are counted (or are the first copy's)
	for i, c := range h.cls {
		if c != strCls {
			continue
		}
		for _, r := range h.Refs(int32(i)) {
			k := byObj(r)
			if k < 0 {
				continue
			}
			s := h.strs[k]
			g, first := groups.of(dupKey{s.hash, s.len}, k)
			if !first {
				// A String beyond the first wastes itself, and its array
				// unless another String's array is the same one (Strings
				// deduplicated by G1 or made by new String(s) share it).
				g.wasted += uint64(h.Size(int32(i)))
				if !counted[k] {
					g.wasted += uint64(h.Size(r))
				}
			}
			counted[k] = true
			g.count++
			break
		}
	}
	return dupsOut(groups, n, src, func(k int) (int64, uint32, string) {
		a := h.strs[k]
		return a.off, a.len, h.ClassName(a.obj)
	})
}

// dupKey groups arrays of the same contents; dupGroup is one group: its
// Strings, the bytes the copies waste, its first String's array.
type (
	dupKey struct {
		hash uint64
		len  uint32
	}
	dupGroup struct {
		count  int
		wasted uint64
		arr    int
	}
	// dupGroups are the groups, in a slice (a pointer-free map's values).
	dupGroups struct {
		at  map[dupKey]int32
		all []dupGroup
	}
)

// of is the group of key, made with first array arr if there is none yet
// (first reports that).
func (d *dupGroups) of(key dupKey, arr int) (g *dupGroup, first bool) {
	if d.at == nil {
		d.at = map[dupKey]int32{}
	}
	if k, ok := d.at[key]; ok {
		return &d.all[k], false
	}
	d.at[key] = int32(len(d.all))
	d.all = append(d.all, dupGroup{arr: arr})
	return &d.all[len(d.all)-1], true
}

// dupsOut lists the groups of more than one String, most wasted bytes
// first (then by their first array's offset), at most n, each with its
// value read back from src; arr says where array k's contents are, how
// long and its class.
func dupsOut(groups dupGroups, n int, src io.ReaderAt, arr func(k int) (off int64, length uint32, class string)) ([]DupString, error) {
	var dups []*dupGroup
	for i := range groups.all {
		if g := &groups.all[i]; g.count > 1 {
			dups = append(dups, g)
		}
	}
	slices.SortFunc(dups, func(a, b *dupGroup) int {
		if c := cmp.Compare(b.wasted, a.wasted); c != 0 {
			return c
		}
		ao, _, _ := arr(a.arr)
		bo, _, _ := arr(b.arr)
		return cmp.Compare(ao, bo)
	})
	if n > 0 && len(dups) > n {
		dups = dups[:n]
	}
	out := make([]DupString, 0, len(dups))
	for _, g := range dups {
		off, length, class := arr(g.arr)
		buf := make([]byte, min(length, 400))
		if _, err := src.ReadAt(buf, off); err != nil {
			return nil, fmt.Errorf("hprof: reading a string's contents at byte %d: %w", off, err)
		}
		out = append(out, DupString{Value: decodeString(buf, class), Count: g.count, Wasted: g.wasted})
	}
	return out, nil
}

// decodeString turns a String's array back into text: char[] as UTF-16,
// byte[] as Latin-1 (compact strings) — a UTF-16 byte[] shows its bytes.
func decodeString(b []byte, arrClass string) string {
	var r []rune
	if arrClass == "char[]" {
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		}
		r = utf16.Decode(u)
	} else {
		r = make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
	}
	if len(r) > 200 {
		r = r[:200]
	}
	return string(r)
}
