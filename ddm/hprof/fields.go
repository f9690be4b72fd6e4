package hprof

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	zlog "github.com/rs/zerolog/log"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Field names of references, read back from the dump. The model keeps an
// object's references as object indices, without the field or element
// each came from: a path or a list of referrers names the few edges it
// shows by reading each referrer's record again. Parse notes where the
// record of every markEvery-th object starts (16 bytes per markEvery
// objects); the record of any object is found by walking the records from
// the mark before it, at most markEvery−1 of them, by their headers alone.

// markEvery is how many objects one record mark covers.
const markEvery = 256

// recordMark is where an object's record starts in the dump and where the
// heap dump segment holding it ends.
type recordMark struct {
	off, end int64
}

// Names of the edges of a class object that are not static fields, as
// Eclipse MAT shows them.
const (
	edgeSuper        = "<super>"
	edgeLoader       = "<loader>"
	edgeSigners      = "<signers>"
	edgeDomain       = "<protection domain>"
	edgeConstantPool = "<constant pool>"
)

// FieldOf names how object from refers to object to, read back from src
// (which must read the bytes Parse read): an instance field's name as
// Java writes it ("elementData"; a field its class and a superclass both
// declare is qualified with the declaring class's simple name,
// "Base.value"), an object array's element ("[3]"), a static field of a
// class object ("static holder"), or a class object's other references
// ("<super>", "<loader>", "<signers>", "<protection domain>", "<constant
// pool>", HotSpot's pseudo-statics "<resolved_references>" and
// "<init_lock>"; a field the dump does not name: "<field 2 of Holder>",
// "<static 0>"). count is how many of from's fields or elements hold to;
// name is the first of them in the dump's order (an instance's own fields
// before its superclass's). "" and 0 when from does not refer to to by a
// field or element (its class, or a loader's class, see [PathStep.Via]).
func (h *Heap) FieldOf(src io.ReaderAt, from, to int32) (name string, count int, err error) {
	n := int32(h.ids.len())
	if from < 0 || from >= n || to < 0 || to >= n {
		return "", 0, fmt.Errorf("hprof: field of object %d to %d: no such object", from, to)
	}
	r := &recordReader{src: src, idSize: h.IDSize}
	return h.fieldOf(r, from, to)
}

func (h *Heap) fieldOf(r *recordReader, from, to int32) (string, int, error) {
	res, err := h.fieldsOf(r, from, []int32{to})
	if err != nil {
		return "", 0, err
	}
	return res[0].first, res[0].count, nil
}

// fieldsOf names how from refers to each of tos, reading from's record
// once.
func (h *Heap) fieldsOf(r *recordReader, from int32, tos []int32) ([]fieldResult, error) {
	if len(h.marks) == 0 || h.IDSize != 4 && h.IDSize != 8 {
		return nil, errors.New("hprof: the heap has no record marks (not made by Parse)")
	}
	off, err := h.locate(r, from)
	if err != nil {
		return nil, err
	}
	f := fieldFinder{r: r, id: r.idSize, res: make([]fieldResult, len(tos))}
	if len(tos) == 1 {
		f.one = h.ids.at(tos[0])
	} else {
		f.wants = newIDSet(len(tos))
		for k, to := range tos {
			f.wants.add(h.ids.at(to), k)
		}
	}
	switch sub, _ := r.byteAt(off); sub {
	case subInstanceDump:
		err = f.instance(h, from, off)
	case subObjArrayDump:
		err = f.array(off)
	case subClassDump:
		err = f.class(h, from, off)
	} // a primitive array refers to nothing
	if f.wants != nil {
		for k, to := range tos { // a referent asked for twice
			if j, ok := f.wants.get(h.ids.at(to)); ok && j != k {
				f.res[k] = f.res[j]
			}
		}
	}
	return f.res, err
}

// idSet maps a few ids to indices: open addressing in a table at least
// four times their number, so that a lookup of an id not in it (most of an
// array's elements) is one or two compares.
type idSet struct {
	ids   []uint64 // 0: empty (0 is null, never a referent)
	idx   []int
	shift uint
}

func newIDSet(n int) *idSet {
	bits := uint(3)
	for 1<<bits < 4*n {
		bits++
	}
	return &idSet{ids: make([]uint64, 1<<bits), idx: make([]int, 1<<bits), shift: 64 - bits}
}

func (s *idSet) slot(id uint64) uint64 { return (id * 0x9E3779B97F4A7C15) >> s.shift }

// add maps id to k unless it is in the set already (or 0).
func (s *idSet) add(id uint64, k int) {
	if id == 0 {
		return
	}
	mask := uint64(len(s.ids) - 1)
	for i := s.slot(id); ; i = (i + 1) & mask {
		switch s.ids[i] {
		case id:
			return
		case 0:
			s.ids[i], s.idx[i] = id, k
			return
		}
	}
}

func (s *idSet) get(id uint64) (int, bool) {
	if id == 0 {
		return 0, false
	}
	mask := uint64(len(s.ids) - 1)
	for i := s.slot(id); ; i = (i + 1) & mask {
		switch s.ids[i] {
		case id:
			return s.idx[i], true
		case 0:
			return 0, false
		}
	}
}

// locate is the dump offset of object i's record: from the mark before it,
// the records are walked by their headers; the record found must carry
// i's id.
func (h *Heap) locate(r *recordReader, i int32) (int64, error) {
	m := h.marks[int(i)/markEvery]
	off, end, k := m.off, m.end, i/markEvery*markEvery
	if l := r.last; l.ok && l.k <= i && l.k >= k {
		off, end, k = l.off, l.end, l.k // nearer: the record found last (a path's steps are often in dump order)
	}
	for {
		if off >= end {
			// The segment ended: the next heap dump segment, past any
			// other top-level record.
			b, err := r.bytes(off, 9)
			if err != nil {
				return 0, r.failed(i, off, err)
			}
			n := int64(be32(b[5:]))
			off += 9
			if b[0] == tagHeapDump || b[0] == tagHeapDumpSeg {
				end = off + n
			} else {
				off += n
			}
			continue
		}
		size, isObj, err := r.subRecord(off)
		if err != nil {
			return 0, r.failed(i, off, err)
		}
		if isObj {
			b, err := r.bytes(off, 1+r.idSize)
			if err != nil {
				return 0, r.failed(i, off, err)
			}
			same := idAt(b[1:], r.idSize) == h.ids.at(k)
			switch {
			case b[0] == subClassDump && !same:
				// A class dumped again: Parse kept the first, no object.
			case k == i && !same:
				return 0, fmt.Errorf("hprof: the record at byte %d is not object %#x's: the file is not the one parsed (changed since?)", off, h.ids.at(i))
			case k == i:
				r.last = lastRecord{true, k, off, end}
				return off, nil
			default:
				k++
			}
		}
		off += size
	}
}

// recordReader reads records back from a dump through a window of
// windowSize bytes.
type recordReader struct {
	src    io.ReaderAt
	idSize int
	buf    []byte
	at     int64 // the dump offset of buf[0]
	last   lastRecord
}

// lastRecord is the record located last.
type lastRecord struct {
	ok       bool
	k        int32 // its object
	off, end int64 // where it starts, where its segment ends
}

const windowSize = 32 << 10

// arrayWindow is how much of an object array's elements one read takes.
const arrayWindow = 256 << 10

var errShort = errors.New("the dump ends inside a record")

// bytes returns n bytes at off; valid until the next call.
func (r *recordReader) bytes(off int64, n int) ([]byte, error) {
	if off < 0 || n < 0 {
		return nil, errShort
	}
	if off >= r.at && off+int64(n) <= r.at+int64(len(r.buf)) {
		return r.buf[off-r.at : off-r.at+int64(n)], nil
	}
	size := max(n, windowSize)
	if cap(r.buf) < size {
		r.buf = make([]byte, size)
	}
	r.buf = r.buf[:size]
	m, err := r.src.ReadAt(r.buf, off)
	r.buf, r.at = r.buf[:m], off
	if m < n {
		if err == nil || err == io.EOF {
			err = errShort
		}
		return nil, err
	}
	return r.buf[:n], nil
}

func (r *recordReader) byteAt(off int64) (byte, error) {
	b, err := r.bytes(off, 1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (r *recordReader) failed(i int32, off int64, err error) error {
	return fmt.Errorf("hprof: reading object %d's record back, at byte %d: %w (is the file the one parsed?)", i, off, err)
}

// subRecord is the size of the heap dump sub-record at off and whether it
// is an object's (instance, array, class).
func (r *recordReader) subRecord(off int64) (size int64, isObj bool, err error) {
	id := int64(r.idSize)
	sub, err := r.byteAt(off)
	if err != nil {
		return 0, false, err
	}
	if n := rootBody(sub, r.idSize); n > 0 {
		return 1 + int64(n), false, nil
	}
	switch sub {
	case subHeapDumpInfo:
		return 1 + 4 + id, false, nil
	case subInstanceDump:
		b, err := r.bytes(off+1, int(2*id+8))
		if err != nil {
			return 0, false, err
		}
		return 1 + 2*id + 8 + int64(be32(b[2*id+4:])), true, nil
	case subObjArrayDump:
		b, err := r.bytes(off+1, int(2*id+8))
		if err != nil {
			return 0, false, err
		}
		return 1 + 2*id + 8 + int64(be32(b[id+4:]))*id, true, nil
	case subPrimArrayDump, subPrimArrayNoDat:
		b, err := r.bytes(off+1, int(id+9))
		if err != nil {
			return 0, false, err
		}
		t := Type(b[id+8])
		if !t.valid() || t == TypeObject {
			return 0, false, fmt.Errorf("primitive array of type %d", t)
		}
		size = 1 + id + 9
		if sub == subPrimArrayDump {
			size += int64(be32(b[id+4:])) * int64(typeSize[t])
		}
		return size, true, nil
	case subClassDump:
		c, err := r.classDump(off, nil)
		return c, true, err
	}
	return 0, false, fmt.Errorf("unknown heap dump sub-record 0x%02X", sub)
}

// classDump walks the CLASS_DUMP at off and returns its size, calling ref
// (when not nil) with each object reference it holds: slot is the
// reference's place ("<super>", a constant pool entry, or the index of the
// static among the record's statics of object type).
func (r *recordReader) classDump(off int64, ref func(kind string, static int, v uint64)) (int64, error) {
	id := r.idSize
	head := 1 + id + 4 + 6*id + 4 + 2
	b, err := r.bytes(off, head)
	if err != nil {
		return 0, err
	}
	if ref != nil {
		for k, name := range [...]string{edgeSuper, edgeLoader, edgeSigners, edgeDomain} {
			ref(name, -1, idAt(b[1+id+4+k*id:], id))
		}
	}
	ncp := int(be16(b[head-2:]))
	at := off + int64(head)
	for range ncp {
		e, err := r.bytes(at, 3)
		if err != nil {
			return 0, err
		}
		t := Type(e[2])
		if !t.valid() {
			return 0, fmt.Errorf("constant pool entry of type %d", t)
		}
		if t == TypeObject && ref != nil {
			v, err := r.bytes(at+3, id)
			if err != nil {
				return 0, err
			}
			ref(edgeConstantPool, -1, idAt(v, id))
		}
		at += 3 + int64(t.size(id))
	}
	c, err := r.bytes(at, 2)
	if err != nil {
		return 0, err
	}
	ns := int(be16(c))
	at += 2
	statics := 0
	for range ns {
		e, err := r.bytes(at, id+1)
		if err != nil {
			return 0, err
		}
		t := Type(e[id])
		if !t.valid() {
			return 0, fmt.Errorf("static field of type %d", t)
		}
		if t == TypeObject {
			if ref != nil {
				v, err := r.bytes(at+int64(id)+1, id)
				if err != nil {
					return 0, err
				}
				ref("", statics, idAt(v, id))
			}
			statics++
		}
		at += int64(id) + 1 + int64(t.size(id))
	}
	c, err = r.bytes(at, 2)
	if err != nil {
		return 0, err
	}
	at += 2 + int64(be16(c))*int64(id+1)
	return at - off, nil
}

// fieldFinder looks for the fields of one record that hold its referents:
// one (the common case, one compare per field) or several (a map).
type fieldFinder struct {
	r     *recordReader
	id    int
	one   uint64
	wants *idSet // referent id → its index in res; nil: one
	res   []fieldResult
}

// fieldResult is the first field that holds a referent and how many do.
type fieldResult struct {
	first string
	count int
}

// match is the index of the referent v is, if any.
func (f *fieldFinder) match(v uint64) (int, bool) {
	if f.wants == nil {
		return 0, v == f.one && v != 0
	}
	return f.wants.get(v)
}

func (f *fieldFinder) found(k int, name func() string) {
	if f.res[k].count == 0 {
		f.res[k].first = name()
	}
	f.res[k].count++
}

// instance reads the fields of the INSTANCE_DUMP at off, object from's:
// its class's own fields first, then its superclass's, as HotSpot writes
// them.
func (f *fieldFinder) instance(h *Heap, from int32, off int64) error {
	id := f.id
	b, err := f.r.bytes(off+1, 2*id+8)
	if err != nil {
		return err
	}
	n := int(be32(b[2*id+4:]))
	cl := &h.Classes[h.cls[from]]
	if !cl.layoutDone || uint32(n) != cl.dataSize {
		return nil // a class the (partial) dump does not describe
	}
	data, err := f.r.bytes(off+1+int64(2*id+8), n)
	if err != nil {
		return err
	}
	at := 0
	for k, depth := h.cls[from], 0; k >= 0 && depth <= 1000; k, depth = h.Classes[k].Super, depth+1 {
		kc := &h.Classes[k]
		for x, fd := range kc.Fields {
			sz := fd.Type.size(id)
			if at+sz > len(data) {
				return fmt.Errorf("instance of %s: fields run past its %d bytes", cl.Name, n)
			}
			if fd.Type == TypeObject {
				if j, ok := f.match(idAt(data[at:], id)); ok {
					f.found(j, func() string {
						if fd.Name == "" { // the dump does not name it
							return fmt.Sprintf("<field %d of %s>", x, javalang.SimpleName(kc.Name))
						}
						return h.fieldName(h.cls[from], k, fd.Name)
					})
				}
			}
			at += sz
		}
	}
	return nil
}

// fieldName is the name of field name declared by class decl as an
// instance of class c shows it: qualified with decl's simple name when
// another class of c's chain declares a field of that name too.
func (h *Heap) fieldName(c, decl int32, name string) string {
	for k, depth := c, 0; k >= 0 && depth <= 1000; k, depth = h.Classes[k].Super, depth+1 {
		if k == decl {
			continue
		}
		for _, fd := range h.Classes[k].Fields {
			if fd.Name == name {
				return javalang.SimpleName(h.Classes[decl].Name) + "." + name
			}
		}
	}
	return name
}

// array reads the elements of the OBJECT_ARRAY_DUMP at off.
func (f *fieldFinder) array(off int64) error {
	id := f.id
	b, err := f.r.bytes(off+1, 2*id+8)
	if err != nil {
		return err
	}
	n := int64(be32(b[id+4:]))
	at := off + 1 + int64(2*id+8)
	per := int64(arrayWindow / id)
	for i := int64(0); i < n; i += per {
		k := min(per, n-i)
		els, err := f.r.bytes(at+i*int64(id), int(k)*id)
		if err != nil {
			return err
		}
		if f.wants == nil {
			f.arrayOne(els, i)
			continue
		}
		for j := range k {
			if m, ok := f.match(idAt(els[j*int64(id):], id)); ok {
				f.found(m, func() string { return fmt.Sprintf("[%d]", i+j) })
			}
		}
	}
	return nil
}

// arrayOne finds the one referent among elements els, the first of them
// element i, by searching its bytes (an array of millions is searched at
// memory speed).
func (f *fieldFinder) arrayOne(els []byte, i int64) {
	if f.one == 0 {
		return
	}
	id := f.id
	var pat [8]byte
	binary.BigEndian.PutUint64(pat[:], f.one)
	want := pat[8-id:]
	if id == 4 && f.one>>32 != 0 {
		return // no 4-byte id is this one
	}
	for p := 0; p+id <= len(els); {
		j := bytes.Index(els[p:], want)
		if j < 0 {
			return
		}
		if j += p; j%id != 0 {
			p = j + 1 // inside two elements
			continue
		}
		f.found(0, func() string { return fmt.Sprintf("[%d]", i+int64(j/id)) })
		p = j + id
	}
}

// class reads the references of the CLASS_DUMP at off, class object
// from's: its superclass, loader, signers, protection domain, constant
// pool entries and static fields.
func (f *fieldFinder) class(h *Heap, from int32, off int64) error {
	var names []string
	h.Label(from) // maps class objects to their classes
	if c, ok := h.mirrorOf[from]; ok {
		names = h.Classes[c].staticRefs
	}
	_, err := f.r.classDump(off, func(kind string, static int, v uint64) {
		j, ok := f.match(v)
		if !ok {
			return
		}
		f.found(j, func() string {
			switch {
			case kind != "":
				return kind
			case static >= len(names) || names[static] == "": // the dump does not name it
				return fmt.Sprintf("<static %d>", static)
			case strings.HasPrefix(names[static], "<"):
				return names[static] // HotSpot's pseudo-statics
			}
			return "static " + names[static]
		})
	})
	return err
}

// fieldNamer names the fields of the steps of one answer, best effort:
// once a record cannot be read back (the file changed or cannot be read)
// the steps have no field names, and that is logged once.
type fieldNamer struct {
	h   *Heap
	r   *recordReader
	err error
}

func (h *Heap) namer(src io.ReaderAt) *fieldNamer {
	if src == nil {
		return nil
	}
	return &fieldNamer{h: h, r: &recordReader{src: src, idSize: h.IDSize}}
}

// name sets s's Field and FieldCount for the edge from → to.
func (n *fieldNamer) name(s *PathStep, from, to int32) {
	n.nameAll([]namedEdge{{s, from, to}})
}

// namedEdge is a step to name: the edge from → to that holds s's object.
type namedEdge struct {
	s        *PathStep
	from, to int32
}

// nameAll names the steps of edges, reading each referrer's record once
// for all its referents (the children of one array in a path tree).
func (n *fieldNamer) nameAll(edges []namedEdge) {
	if n == nil {
		return
	}
	slices.SortStableFunc(edges, func(a, b namedEdge) int { return cmp.Compare(a.from, b.from) })
	for len(edges) > 0 && n.err == nil {
		k := 1
		for k < len(edges) && edges[k].from == edges[0].from {
			k++
		}
		tos := make([]int32, k)
		for j := range k {
			tos[j] = edges[j].to
		}
		res, err := n.h.fieldsOf(n.r, edges[0].from, tos)
		if err != nil {
			n.err = err
			zlog.Warn().Str("component", "hprof").Err(err).Msg("references are shown without their field names")
			return
		}
		for j, e := range edges[:k] {
			e.s.Field = res[j].first
			if res[j].count > 1 {
				e.s.FieldCount = res[j].count
			}
		}
		edges = edges[k:]
	}
}
