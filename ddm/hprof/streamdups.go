package hprof

import (
	"cmp"
	"container/heap"
	"errors"
	"io"
)

// DefaultStringsMemory is what a streamed pass keeping the strings holds
// of them at most (StreamOptions.StringsMemory unset): past it the records
// go to a temporary file in sorted runs.
const DefaultStringsMemory = 64 << 20

// streamDups is what a streamed pass keeps for the duplicate strings: a
// record of each String's references and of each char[] and byte[] (a hash
// of its contents), in two sorters (by id) that hold at most half the
// budget each and write the rest to a temporary file in sorted runs.
// DuplicateStrings joins them by id and sorts the Strings' arrays by
// contents, through sorters again: its memory is the budget, whatever the
// dump's number of Strings.
type streamDups struct {
	budget  int64
	dir     string
	strs    int64 // Strings seen (each one's place)
	refs    *runSorter[dupRef]
	arrays  *runSorter[dupArr]
	err     error // the first failure to write a run (the pass goes on)
	strCls  int32 // set when the pass ends: java.lang.String's class (the last of that name, as Heap.DuplicateStrings takes it)
	strSize uint32
}

// dupRef is a String's reference: the String's place and class, the
// reference's place among its non-null ones, and whether it has several.
type dupRef struct {
	id    uint64
	str   int64
	cls   int32
	pos   uint16
	multi bool
}

// dupArr is a char[] or byte[]: its id, the hash of its contents, where
// they are in the dump (also the array's place: offsets grow in dump
// order), how long (bytes), its shallow size and element type.
type dupArr struct {
	id, hash uint64
	off      int64
	len      uint32
	size     uint32
	char     bool
}

// dupUse is a String's array (the first of its references that names
// one): sorted by String then reference (Strings with several), then by
// contents.
type dupUse struct {
	hash uint64
	off  int64
	str  int64
	len  uint32
	size uint32
	pos  uint16
	char bool
}

func newStreamDups(budget int64, dir string) *streamDups {
	if budget <= 0 {
		budget = DefaultStringsMemory
	}
	return &streamDups{budget: budget, dir: dir,
		refs: newRunSorter(budget/2, dir, "the duplicate strings", func(a, b dupRef) int {
			if a.id != b.id {
				return cmp.Compare(a.id, b.id)
			}
			if a.str != b.str {
				return cmp.Compare(a.str, b.str)
			}
			return cmp.Compare(a.pos, b.pos)
		}),
		arrays: newRunSorter(budget/2, dir, "the duplicate strings", func(a, b dupArr) int {
			if a.id != b.id {
				return cmp.Compare(a.id, b.id)
			}
			return cmp.Compare(a.off, b.off)
		})}
}

// mark is what a rollback returns to: Strings, references and arrays kept.
func (d *streamDups) mark() [3]int {
	return [3]int{int(d.strs), int(d.refs.total), int(d.arrays.total)}
}

// rollback drops what the record after mark m added (held still: a record
// adds one String or one array, after making room for it).
func (d *streamDups) rollback(m [3]int) {
	d.strs = int64(m[0])
	d.refs.truncate(int64(m[1]))
	d.arrays.truncate(int64(m[2]))
}

func (d *streamDups) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// addString keeps a String of class c whose field bytes are data.
func (d *streamDups) addString(c int32, data []byte, refOffs []uint32, idSize int) {
	str := d.strs
	d.strs++
	n := 0
	for _, off := range refOffs {
		if idAt(data[off:], idSize) != 0 {
			n++
		}
	}
	if n == 0 || d.err != nil {
		return
	}
	if err := d.refs.room(n); err != nil {
		d.fail(err)
		return
	}
	pos := 0
	for _, off := range refOffs {
		if v := idAt(data[off:], idSize); v != 0 {
			d.refs.add(dupRef{id: v, str: str, cls: c, pos: uint16(min(pos, 0xffff)), multi: n > 1})
			pos++
		}
	}
}

// addArray keeps a char[] (char) or byte[] whose contents hash to hash.
func (d *streamDups) addArray(id, hash uint64, off int64, length, size uint32, char bool) {
	if d.err != nil {
		return
	}
	if err := d.arrays.room(1); err != nil {
		d.fail(err)
		return
	}
	d.arrays.add(dupArr{id: id, hash: hash, off: off, len: length, size: size, char: char})
}

// finish sets the String class and size once the dump is read (nil: no
// strings kept) and ends both sorters: runs written, the memory they held
// released.
func (d *streamDups) finish(h *Heap, mode int) *streamDups {
	if d == nil {
		return nil
	}
	d.strCls = -1
	for i := range h.Classes {
		if h.Classes[i].Name == "java.lang.String" {
			d.strCls = int32(i)
		}
	}
	if d.strCls >= 0 {
		d.strSize = h.Classes[d.strCls].shallowBy[mode]
	}
	if d.err == nil {
		d.err = errors.Join(d.refs.finish(), d.arrays.finish())
	}
	return d
}

// Close lets go of what a pass that kept the strings holds for
// [Streamed.DuplicateStrings]: the temporary file of its sorted runs (a
// nameless file, gone once closed) and their memory. DuplicateStrings
// fails after it; the histogram and the rest stay.
func (s *Streamed) Close() error {
	if d := s.dups; d != nil {
		d.refs.close()
		d.arrays.close()
		if d.err == nil {
			d.err = errors.New("hprof: the streamed pass was closed: its duplicate strings are gone")
		}
	}
	return nil
}

// DuplicateStrings is [Heap.DuplicateStrings] from a streamed pass that
// kept the strings ([StreamOptions.Strings]): the same groups, counts and
// wasted bytes (references to an id that several objects of the dump
// share go to the first array of that id, not to the first object). src
// must read the same bytes the pass read. Its memory is about
// [StreamOptions.StringsMemory], with temporary files for the rest.
func (s *Streamed) DuplicateStrings(src io.ReaderAt, n int) ([]DupString, error) {
	d := s.dups
	if d == nil {
		return nil, errors.New("hprof: duplicate strings need the dump streamed with StreamOptions.Strings")
	}
	if d.err != nil {
		return nil, d.err
	}
	if d.strCls < 0 || d.arrays.total == 0 {
		return nil, nil
	}
	// The references and the arrays in id order, merged: each reference
	// to an id goes to the first array of that id (Parse's index). A
	// String with one reference has its array; those with several go
	// through multi, by String, to take their first reference that names
	// an array.
	byContents := newRunSorter(d.budget/4, d.dir, "the duplicate strings", func(a, b dupUse) int {
		switch {
		case a.hash != b.hash:
			return cmp.Compare(a.hash, b.hash)
		case a.len != b.len:
			return cmp.Compare(a.len, b.len)
		case a.off != b.off:
			return cmp.Compare(a.off, b.off)
		}
		return cmp.Compare(a.str, b.str)
	})
	defer byContents.close()
	multi := newRunSorter(d.budget/4, d.dir, "the duplicate strings", func(a, b dupUse) int {
		if a.str != b.str {
			return cmp.Compare(a.str, b.str)
		}
		return cmp.Compare(a.pos, b.pos)
	})
	defer multi.close()
	add := func(s *runSorter[dupUse], u dupUse) error {
		if err := s.room(1); err != nil {
			return err
		}
		s.add(u)
		return nil
	}
	refs, err := d.refs.iter(d.budget / 4)
	if err != nil {
		return nil, err
	}
	arrays, err := d.arrays.iter(d.budget / 4)
	if err != nil {
		return nil, err
	}
	a, more := arrays.next()
	for r, ok := refs.next(); ok; r, ok = refs.next() {
		if r.cls != d.strCls {
			continue
		}
		for more && a.id < r.id {
			// The next id's first array (the first in dump order).
			id := a.id
			for more && a.id == id {
				a, more = arrays.next()
			}
		}
		if !more || a.id != r.id {
			continue
		}
		u := dupUse{hash: a.hash, off: a.off, str: r.str, len: a.len, size: a.size, pos: r.pos, char: a.char}
		to := byContents
		if r.multi {
			to = multi
		}
		if err := add(to, u); err != nil {
			return nil, err
		}
	}
	if err := errors.Join(refs.err, arrays.err); err != nil {
		return nil, err
	}
	uses, err := multi.iter(d.budget / 4)
	if err != nil {
		return nil, err
	}
	last := int64(-1)
	for u, ok := uses.next(); ok; u, ok = uses.next() {
		if u.str == last {
			continue
		}
		last = u.str
		if err := add(byContents, u); err != nil {
			return nil, err
		}
	}
	if uses.err != nil {
		return nil, uses.err
	}
	multi.close()
	// By contents, each group's arrays in dump order: a String beyond the
	// first wastes itself, and each array but the first String's once.
	all, err := byContents.iter(d.budget / 2)
	if err != nil {
		return nil, err
	}
	top := &dupTop{n: n}
	var g dupGroup
	var first, prev dupUse
	var sizes uint64 // of the group's arrays, each once
	flush := func() {
		if g.count > 1 {
			g.wasted = uint64(g.count-1)*uint64(d.strSize) + sizes - uint64(first.size)
			top.add(g, first)
		}
	}
	for u, ok := all.next(); ok; u, ok = all.next() {
		if g.count == 0 || u.hash != prev.hash || u.len != prev.len {
			flush()
			g, first, sizes = dupGroup{}, u, 0
		}
		if g.count == 0 || u.off != prev.off {
			sizes += uint64(u.size)
		}
		if u.str < first.str {
			first = u
		}
		g.count++
		prev = u
	}
	if g.count > 0 {
		flush()
	}
	if all.err != nil {
		return nil, all.err
	}
	groups := dupGroups{all: make([]dupGroup, len(top.groups))}
	for i, e := range top.groups {
		groups.all[i] = e.g
		groups.all[i].arr = i
	}
	return dupsOut(groups, n, src, func(k int) (int64, uint32, string) {
		u := top.groups[k].first
		class := "byte[]"
		if u.char {
			class = "char[]"
		}
		return u.off, u.len, class
	})
}

// dupTop keeps the n groups that waste most (ties: the first array's
// offset first, as dupsOut orders them; n ≤ 0: all), a heap with the
// least of them on top.
type dupTop struct {
	n      int
	groups []dupEntry
}

type dupEntry struct {
	g     dupGroup
	first dupUse
}

func (t *dupTop) add(g dupGroup, first dupUse) {
	e := dupEntry{g, first}
	if t.n <= 0 {
		t.groups = append(t.groups, e)
		return
	}
	if len(t.groups) < t.n {
		heap.Push(t, e)
		return
	}
	if t.less(0, e) {
		t.groups[0] = e
		heap.Fix(t, 0)
	}
}

// less: group i wastes less than e (or as much, its array later).
func (t *dupTop) less(i int, e dupEntry) bool {
	a := t.groups[i]
	return a.g.wasted < e.g.wasted || a.g.wasted == e.g.wasted && a.first.off > e.first.off
}

func (t *dupTop) Len() int           { return len(t.groups) }
func (t *dupTop) Less(i, j int) bool { return t.less(i, t.groups[j]) }
func (t *dupTop) Swap(i, j int)      { t.groups[i], t.groups[j] = t.groups[j], t.groups[i] }
func (t *dupTop) Push(x any)         { t.groups = append(t.groups, x.(dupEntry)) }
func (t *dupTop) Pop() any {
	e := t.groups[len(t.groups)-1]
	t.groups = t.groups[:len(t.groups)-1]
	return e
}
