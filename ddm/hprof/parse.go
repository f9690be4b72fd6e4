package hprof

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Top-level record tags.
const (
	tagUTF8           = 0x01
	tagLoadClass      = 0x02
	tagStackFrame     = 0x04
	tagStackTrace     = 0x05
	tagHeapDump       = 0x0C
	tagHeapDumpSeg    = 0x1C
	tagHeapDumpEnd    = 0x2C
	subClassDump      = 0x20
	subInstanceDump   = 0x21
	subObjArrayDump   = 0x22
	subPrimArrayDump  = 0x23
	subPrimArrayNoDat = 0xC3 // Android: primitive array without its data
	subHeapDumpInfo   = 0xFE // Android: the following objects are in this heap
)

// Options tune [Parse].
type Options struct {
	// MaxObjects bounds the object count; 0 means 1<<31 - 2.
	MaxObjects int
	// Strings keeps a hash and the file offset of every char[] and byte[]
	// for [Heap.DuplicateStrings] (24 bytes per array).
	Strings bool
	// SizeHint is the dump's size in bytes, to size the arrays up front; 0
	// takes it from r when r has a Stat or Len method.
	SizeHint int64
	// Oops is the reference width of a 64-bit HotSpot dump's VM; OopsAuto
	// (the default) infers it from the dump ([Heap.Oops] says which).
	Oops Oops
	// Spill keeps the objects' classes and sizes in a temporary file (as
	// [DomOptions.Spill], in SpillDir) while the references are resolved
	// at the end, the parse's peak: 8 bytes per object less. Where the file
	// cannot be written the parse goes on in memory.
	Spill    bool
	SpillDir string
}

// Parse reads a whole dump from r and builds its model.
//
// Shallow sizes follow the VM's layout, not the file's: for HotSpot dumps
// with 8-byte ids, compressed class pointers (12-byte object headers, 16-byte
// array headers, 8-byte alignment) and references of 4 bytes (compressed
// oops, the default below 32 GiB of heap) or 8 (-XX:-UseCompressedOops; see
// [Options.Oops]); with 4-byte ids a 32-bit VM's 8/12/4. Instance fields are
// placed as HotSpot's field layout places them (holes filled, @Contended
// paddings, the fields HotSpot injects into JDK classes without dumping them);
// a class object's size is java.lang.Class's plus its static fields. These
// are the sizes `jcmd PID GC.class_histogram` reports. For Android dumps an
// instance's size is the one its class dump records.
func Parse(r io.Reader, opt Options) (*Heap, error) {
	return ParseContext(context.Background(), r, opt)
}

// ParseContext is [Parse] that stops when ctx is done: the reader checks ctx
// before each read of the input (every megabyte, a few thousand records), and
// the error then wraps ctx.Err() with the offset reached.
func ParseContext(ctx context.Context, r io.Reader, opt Options) (heap *Heap, err error) {
	p := &parser{rd: newReader(r), h: &Heap{classObj: -1}, classByID: map[uint64]int32{}, names: map[uint64]string{}, lastCls: -1}
	p.rd.ctx = ctx
	defer func() {
		if p.rd.stopped != nil { // whatever a record's parser made of the refused read
			heap, err = nil, fmt.Errorf("hprof: parsing stopped at byte %d: %w", p.rd.offset(), p.rd.stopped)
		}
	}()
	if opt.MaxObjects <= 0 || opt.MaxObjects > math.MaxInt32-1 {
		opt.MaxObjects = math.MaxInt32 - 1
	}
	p.maxObjects = opt.MaxObjects
	p.seed = maphash.MakeSeed()
	p.strings = opt.Strings
	p.h.keptStrings = opt.Strings
	p.presize(r, opt.SizeHint)
	p.oops = opt.Oops
	p.spill, p.spillDir = opt.Spill, opt.SpillDir
	if err := p.header(); err != nil {
		return nil, err
	}
	if err := p.records(); err != nil {
		if !p.rd.short || p.mark.objs == 0 {
			return nil, err
		}
		// The dump ends inside a record (a VM killed or a disk full while
		// it wrote): keep what the complete records hold.
		p.rollback()
		p.partial = true
		p.h.Partial = true
		p.h.Warnings = append(p.h.Warnings, fmt.Sprintf("the dump is cut short (%v): the result covers its first %d bytes, %d objects, and is partial", err, p.mark.at, p.mark.objs))
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p.h, nil
}

type pendingInstance struct {
	obj     int32
	classID uint64
	data    []byte
}

type parser struct {
	rd         *reader
	strings    bool
	seed       maphash.Seed
	h          *Heap
	idSize     int
	maxObjects int

	names     map[uint64]string // UTF8 records
	classByID map[uint64]int32
	primClass [12]int32 // class index + 1 by element type
	lastCID   uint64
	lastCls   int32
	clsCache  [256]struct {
		id uint64
		c  int32 // class index + 1; 0 = empty
	} // recent classes of instances by id, before classByID
	rawRefs       refBuf
	rootIDs       []uint64
	rootAux       [][2]uint32
	classBySerial map[uint32]int32
	pending       []pendingInstance
	pendingRef    map[int32][2]uint32 // refs of pending instances: start, count
	curHeap       uint8
	heapByType    map[uint32]uint8
	lay           [2]vmLayout // the layouts voted on: compressed, wide
	mode          int         // index into lay of the layout in use
	oops          Oops        // as asked
	voting        bool        // the layout is still being inferred
	votes         [2]int
	early         [][2]uint32 // sizes of the objects so far in both layouts, while voting
	prevID        uint64
	prevSize      [2]uint32
	scratch       []byte
	mark          mark // the state before the record being read
	partial       bool
	weak          []rawWeak // weak, soft and phantom references and their referents' ids
	threadStr     []rawWeak // threads and their names' ids
	segEnd        int64     // the stream offset where the heap dump segment being read ends
	// stream, when set, makes the parser count objects by class instead
	// of keeping them (StreamHistogram): no per-object arrays, no
	// references.
	stream *streamCounts
	// par, when set, counts the object records of a streamed pass on
	// other goroutines once the layout vote is over (streampar.go).
	par *parCount

	spill    bool // Options.Spill
	spillDir string
}

type rawWeak struct {
	obj int32
	id  uint64
}

// mark is the parser's state before a record, to drop a record the input
// cuts short.
type mark struct {
	at      int64 // stream offset
	objs    int
	refs    int
	pending int
	strs    [3]int // a streamed pass keeping strings: its Strings, their references, its arrays
}

func (p *parser) setMark(at int64) {
	if s := p.stream; s != nil {
		p.mark = mark{at: at, objs: int(s.objects), pending: len(p.pending)}
		if d := s.dups; d != nil {
			p.mark.strs = d.mark()
		}
		return
	}
	p.mark = mark{at: at, objs: p.h.ids.len(), refs: p.rawRefs.len(), pending: len(p.pending)}
}

// rollback drops what the record after the mark added.
func (p *parser) rollback() {
	h, m := p.h, p.mark
	if s := p.stream; s != nil {
		s.rollback(m.objs)
		if d := s.dups; d != nil {
			d.rollback(m.strs)
		}
		p.pending = p.pending[:m.pending]
		if len(p.early) > m.objs {
			p.early = p.early[:m.objs]
		}
		return
	}
	h.ids.truncate(m.objs)
	h.cls, h.size, h.refStart = h.cls[:m.objs], h.size[:m.objs], h.refStart[:m.objs]
	if h.heap != nil {
		h.heap = h.heap[:m.objs]
	}
	p.rawRefs.truncate(m.refs)
	p.pending = p.pending[:m.pending]
	if len(p.early) > m.objs {
		p.early = p.early[:m.objs]
	}
	for len(h.strs) > 0 && int(h.strs[len(h.strs)-1].obj) >= m.objs {
		h.strs = h.strs[:len(h.strs)-1]
	}
	for len(p.weak) > 0 && int(p.weak[len(p.weak)-1].obj) >= m.objs {
		p.weak = p.weak[:len(p.weak)-1]
	}
	for len(p.threadStr) > 0 && int(p.threadStr[len(p.threadStr)-1].obj) >= m.objs {
		p.threadStr = p.threadStr[:len(p.threadStr)-1]
	}
	h.marks = h.marks[:(m.objs+markEvery-1)/markEvery]
}

// presize reserves the object and reference arrays from the dump's size:
// untouched capacity costs address space, not memory, and saves the copies
// of growing.
func (p *parser) presize(r io.Reader, hint int64) {
	if hint <= 0 {
		switch r := r.(type) {
		case interface{ Stat() (os.FileInfo, error) }:
			if fi, err := r.Stat(); err == nil && fi.Mode().IsRegular() {
				hint = fi.Size()
			}
		case interface{ Len() int }:
			hint = int64(r.Len())
		}
	}
	if hint <= 0 {
		return
	}
	// An object takes at least 9+2·4+4 bytes on the wire, typically 40;
	// a reference at least 4, typically one per 35 bytes. Reserving for
	// more costs time where the memory is reused (it is cleared) and
	// reserving for fewer a copy of the arrays when they grow: size for
	// one object and one reference per 32 bytes.
	objs := min(hint/32, int64(p.maxObjects)) + 1024
	h := p.h
	h.ids.narrow = make([]uint32, 0, objs)
	h.cls = make([]int32, 0, objs)
	h.size = make([]uint32, 0, objs)
	h.refStart = make([]uint32, 0, objs+1)
	p.rawRefs.narrow = make([]int32, 0, hint/32+1024)
}

func (p *parser) header() error {
	rd := p.rd
	// The format name is NUL-terminated; read byte by byte, it is short.
	var name []byte
	for {
		if err := rd.need(1); err != nil {
			return fmt.Errorf("%w: no HPROF header: %v", ErrFormat, err)
		}
		c := rd.buf[rd.pos]
		rd.pos++
		if c == 0 {
			break
		}
		name = append(name, c)
		if len(name) > 64 {
			return fmt.Errorf("%w: no HPROF header (no format name in the first 64 bytes)", ErrFormat)
		}
	}
	if !bytes.HasPrefix(name, []byte("JAVA PROFILE ")) {
		return fmt.Errorf("%w: not an HPROF file (starts with %q)", ErrFormat, name)
	}
	if err := rd.need(12); err != nil {
		return fmt.Errorf("%w: truncated header", ErrFormat)
	}
	b := rd.buf[rd.pos:]
	p.idSize = int(be32(b))
	if p.idSize != 4 && p.idSize != 8 {
		return fmt.Errorf("%w: identifier size %d (want 4 or 8)", ErrFormat, p.idSize)
	}
	ms := uint64(be32(b[4:]))<<32 | uint64(be32(b[8:]))
	rd.pos += 12
	p.h.Format, p.h.IDSize = string(name), p.idSize
	p.h.Timestamp = time.UnixMilli(int64(ms))
	p.h.HeapNames = []string{"default"}
	if p.idSize == 8 {
		p.lay = [2]vmLayout{layoutCompressed, layoutWide}
		switch p.oops {
		case OopsWide:
			p.mode = 1
		case OopsAuto:
			p.voting = true
		}
	} else {
		p.lay = [2]vmLayout{layout32, layout32}
	}
	return nil
}

func (p *parser) records() error {
	rd := p.rd
	for {
		eof, err := rd.atEOF()
		if err != nil {
			return err
		}
		if eof {
			return nil
		}
		p.setMark(rd.offset())
		if err := rd.need(9); err != nil {
			return formatErr(rd.offset(), "truncated record header")
		}
		b := rd.buf[rd.pos:]
		tag, n := b[0], int64(be32(b[5:]))
		rd.pos += 9
		start := rd.offset()
		switch tag {
		case tagUTF8:
			if n < int64(p.idSize) || n > 1<<20 {
				return formatErr(start, "UTF8 record of %d bytes", n)
			}
			if err := rd.need(int(n)); err != nil {
				return formatErr(start, "truncated UTF8 record")
			}
			b := rd.buf[rd.pos:]
			p.names[idAt(b, p.idSize)] = string(b[p.idSize:n])
			rd.pos += int(n)
		case tagLoadClass:
			if n != int64(8+2*p.idSize) {
				return formatErr(start, "LOAD_CLASS record of %d bytes", n)
			}
			if err := rd.need(int(n)); err != nil {
				return formatErr(start, "truncated LOAD_CLASS record")
			}
			b := rd.buf[rd.pos:]
			cid, nameID := idAt(b[4:], p.idSize), idAt(b[8+p.idSize:], p.idSize)
			c := p.class(cid)
			if s, ok := p.names[nameID]; ok {
				p.h.Classes[c].Name = hiddenName(javalang.ClassName(s))
			}
			if p.classBySerial == nil {
				p.classBySerial = map[uint32]int32{}
			}
			p.classBySerial[be32(b)] = c
			rd.pos += int(n)
		case tagStackFrame:
			if n != int64(4*p.idSize+8) {
				return formatErr(start, "STACK FRAME record of %d bytes", n)
			}
			if err := rd.need(int(n)); err != nil {
				return formatErr(start, "truncated STACK FRAME record")
			}
			b := rd.buf[rd.pos:]
			id := p.idSize
			f := StackFrame{Method: p.names[idAt(b[id:], id)], Source: p.names[idAt(b[3*id:], id)], Line: int32(be32(b[4*id+4:]))}
			if c, ok := p.classBySerial[be32(b[4*id:])]; ok {
				f.Class = p.h.Classes[c].Name
			}
			if p.h.frames == nil {
				p.h.frames = map[uint64]StackFrame{}
			}
			p.h.frames[idAt(b, id)] = f
			rd.pos += int(n)
		case tagStackTrace:
			if n < 12 || (n-12)%int64(p.idSize) != 0 || n > 1<<20 {
				return formatErr(start, "STACK TRACE record of %d bytes", n)
			}
			if err := rd.need(int(n)); err != nil {
				return formatErr(start, "truncated STACK TRACE record")
			}
			b := rd.buf[rd.pos:]
			thread := be32(b[4:])
			var ids []uint64
			for k := 12; k < int(n); k += p.idSize {
				ids = append(ids, idAt(b[k:], p.idSize))
			}
			if p.h.traces == nil {
				p.h.traces = map[uint32][]uint64{}
			}
			if thread != 0 {
				p.h.traces[thread] = ids
			}
			rd.pos += int(n)
		case tagHeapDump, tagHeapDumpSeg:
			if err := p.heapDump(n); err != nil {
				return err
			}
		default: // HEAP_DUMP_END, stack traces, frames, CPU samples…: not needed
			if err := rd.skip(n); err != nil {
				return formatErr(start, "truncated record 0x%02X", tag)
			}
		}
	}
}

// class returns the index of the class with id, creating it.
func (p *parser) class(id uint64) int32 {
	if c, ok := p.classByID[id]; ok {
		return c
	}
	c := int32(len(p.h.Classes))
	p.h.Classes = append(p.h.Classes, Class{Name: fmt.Sprintf("class@0x%x", id), ID: id, Object: -1, Super: -1})
	p.classByID[id] = c
	return c
}

// primArrayClass is the pseudo-class of arrays of t.
func (p *parser) primArrayClass(t Type) int32 {
	if c := p.primClass[t]; c > 0 {
		return c - 1
	}
	c := int32(len(p.h.Classes))
	p.h.Classes = append(p.h.Classes, Class{Name: t.String() + "[]", Object: -1, Super: -1, Elem: t, layoutDone: true})
	p.primClass[t] = c + 1
	return c
}

// object appends an object of size c with compressed references and w with
// wide ones (0 = known later); refs appended to rawRefs since the previous
// call belong to the previous object (refStart is closed lazily).
func (p *parser) object(id uint64, cls int32, c, w uint32) (int32, error) {
	if s := p.stream; s != nil {
		s.add(cls, c, w)
		if p.voting {
			p.vote(id, c, w)
		}
		return 0, nil
	}
	size := c
	if p.mode == 1 {
		size = w
	}
	h := p.h
	i := h.ids.len()
	if i >= p.maxObjects {
		return 0, fmt.Errorf("hprof: more than %d objects, as many as the object graph (dominators, paths, instances) holds (Options.MaxObjects, at most 2^31-2); the streamed passes (summary, histogram, duplicate strings, diff) read a dump of any size", p.maxObjects)
	}
	if p.rawRefs.len() > math.MaxUint32 {
		return 0, fmt.Errorf("hprof: more than %d references, as many as the object graph holds; the streamed passes (summary, histogram, duplicate strings, diff) read a dump of any size", uint64(math.MaxUint32))
	}
	if i%markEvery == 0 {
		h.marks = append(h.marks, recordMark{p.mark.at, p.segEnd})
	}
	h.ids.add(id)
	h.cls = append(h.cls, cls)
	h.size = append(h.size, size)
	h.refStart = append(h.refStart, uint32(p.rawRefs.len()))
	if h.heap != nil {
		h.heap = append(h.heap, p.curHeap)
	}
	if p.voting {
		p.vote(id, c, w)
	}
	return int32(i), nil
}

// vote records an object's sizes in both layouts and whether the distance
// from the previous object's address to this one's is the previous object's
// size in one of them. With enough votes (or enough objects) it decides.
func (p *parser) vote(id uint64, c, w uint32) {
	if prev := p.prevSize; prev[0] != prev[1] && prev[0] != 0 && id > p.prevID {
		switch id - p.prevID {
		case uint64(prev[0]):
			p.votes[0]++
		case uint64(prev[1]):
			p.votes[1]++
		}
	}
	p.prevID, p.prevSize = id, [2]uint32{c, w}
	p.early = append(p.early, [2]uint32{c, w})
	if p.votes[0]+p.votes[1] >= 20000 || len(p.early) >= 1<<18 {
		p.decide()
	}
}

// decide ends the vote: the wide layout if more distances matched it, and
// the objects so far get their sizes in the layout chosen.
func (p *parser) decide() {
	p.voting = false
	h := p.h
	h.OopsVotes = p.votes
	if p.votes[1] > p.votes[0] {
		p.mode = 1
		for i, s := range p.early {
			if p.stream != nil {
				break // the counts have both sizes
			}
			if s[1] != 0 {
				h.size[i] = s[1]
			}
		}
		for i := range h.Classes {
			if cl := &h.Classes[i]; cl.layoutDone && cl.Elem == 0 {
				cl.shallow = cl.shallowBy[1]
			}
		}
	}
	p.early = nil
}

func align8(n uint64) uint32 {
	n = (n + 7) &^ 7
	if n > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(n)
}

func (p *parser) heapDump(n int64) error {
	rd := p.rd
	end := rd.offset() + n
	p.segEnd = end
	id := p.idSize
	for rd.offset() < end {
		at := rd.offset()
		p.setMark(at)
		if err := rd.need(1); err != nil {
			return formatErr(at, "truncated heap dump")
		}
		sub := rd.buf[rd.pos]
		if fixed := rootBody(sub, id); fixed > 0 {
			if err := rd.need(1 + fixed); err != nil {
				return formatErr(at, "truncated root record")
			}
			if RootKind(sub) != RootUnreachable {
				b := rd.buf[rd.pos+1:]
				p.rootIDs = append(p.rootIDs, idAt(b, id))
				p.h.rootKind = append(p.h.rootKind, RootKind(sub))
				var aux [2]uint32 // thread serial, frame number or stack trace serial
				if fixed >= id+4 && RootKind(sub) != RootJNIGlobal {
					aux[0] = be32(b[id:])
				}
				if fixed == id+8 {
					aux[1] = be32(b[id+4:])
				}
				p.rootAux = append(p.rootAux, aux)
			}
			rd.pos += 1 + fixed
			continue
		}
		var err error
		if p.par != nil && !p.voting && (sub == subInstanceDump || sub == subObjArrayDump || sub == subPrimArrayDump || sub == subPrimArrayNoDat) {
			if p.scan(end) > 0 {
				continue
			}
			if l := p.objectLen(sub); l > 0 && at+int64(l) <= end {
				if err := p.leave(l); err != nil {
					return formatErr(at, "truncated %s", [...]string{"INSTANCE_DUMP", "OBJECT_ARRAY_DUMP", "PRIMITIVE_ARRAY_DUMP"}[min(sub-subInstanceDump, 2)])
				}
				continue
			}
		}
		switch sub {
		case subInstanceDump:
			err = p.instance()
		case subObjArrayDump:
			err = p.objArray()
		case subPrimArrayDump, subPrimArrayNoDat:
			err = p.primArray(sub == subPrimArrayDump)
		case subClassDump:
			err = p.classDump()
		case subHeapDumpInfo:
			err = p.heapInfo()
		default:
			return formatErr(at, "unknown heap dump sub-record 0x%02X", sub)
		}
		if err != nil {
			return err
		}
	}
	if rd.offset() != end {
		return formatErr(rd.offset(), "heap dump sub-record runs past its segment by %d bytes", rd.offset()-end)
	}
	return nil
}

func (p *parser) heapInfo() error {
	rd, id := p.rd, p.idSize
	at := rd.offset()
	if err := rd.need(5 + id); err != nil {
		return formatErr(at, "truncated HEAP_DUMP_INFO")
	}
	b := rd.buf[rd.pos+1:]
	typ, name := be32(b), p.names[idAt(b[4:], id)]
	rd.pos += 5 + id
	h := p.h
	h.Android = true
	if p.heapByType == nil {
		p.heapByType = map[uint32]uint8{}
	}
	hi, ok := p.heapByType[typ]
	if !ok {
		if name == "" {
			name = fmt.Sprintf("heap-%d", typ)
		}
		if len(p.heapByType) == 0 { // the first heap named: "default" goes
			h.HeapNames = nil
		}
		if len(h.HeapNames) >= 255 {
			return formatErr(at, "more than 255 heaps")
		}
		hi = uint8(len(h.HeapNames))
		h.HeapNames = append(h.HeapNames, name)
		p.heapByType[typ] = hi
	}
	if h.heap == nil && p.stream == nil {
		h.heap = make([]uint8, h.ids.len(), h.ids.cap())
		for i := range h.heap {
			h.heap[i] = hi // objects before the first info record
		}
	}
	p.curHeap = hi
	p.voting = false // Android: sizes from the class dumps
	return nil
}

func (p *parser) classDump() error {
	rd, id := p.rd, p.idSize
	at := rd.offset()
	// tag, class id, stack serial, super, loader, signers, domain, 2 reserved, instance size, cp count
	head := 1 + id + 4 + 6*id + 4 + 2
	if err := rd.need(head); err != nil {
		return formatErr(at, "truncated CLASS_DUMP")
	}
	b := rd.buf[rd.pos+1:]
	cid := idAt(b, id)
	super := idAt(b[id+4:], id)
	loader := idAt(b[2*id+4:], id)
	signers := idAt(b[3*id+4:], id)
	domain := idAt(b[4*id+4:], id)
	instSize := be32(b[7*id+4:])
	ncp := int(be16(b[7*id+8:]))
	rd.pos += head
	c := p.class(cid)
	var sc int32 = -1
	if super != 0 {
		sc = p.class(super)
	}
	// The class object's references: superclass, loader, signers,
	// protection domain, resolved constant pool entries, static fields
	// (HotSpot adds the constant pool's resolved references and the init
	// lock as the pseudo-statics <resolved_references> and <init_lock>).
	start := p.rawRefs.len()
	for _, r := range [...]uint64{super, loader, signers, domain} {
		if r != 0 {
			p.rawRefs.add(r)
		}
	}
	// constant pool: u2 index, u1 type, value
	for range ncp {
		if err := rd.need(3); err != nil {
			return formatErr(at, "truncated constant pool")
		}
		t := Type(rd.buf[rd.pos+2])
		if !t.valid() {
			return formatErr(rd.offset(), "constant pool entry of type %d", t)
		}
		if err := rd.need(3 + t.size(id)); err != nil {
			return formatErr(at, "truncated constant pool")
		}
		if t == TypeObject {
			if v := idAt(rd.buf[rd.pos+3:], id); v != 0 {
				p.rawRefs.add(v)
			}
		}
		rd.pos += 3 + t.size(id)
	}
	if err := rd.need(2); err != nil {
		return formatErr(at, "truncated CLASS_DUMP statics")
	}
	ns := int(be16(rd.buf[rd.pos:]))
	rd.pos += 2
	var statics []Type
	var refNames []string
	for range ns {
		if err := rd.need(id + 1); err != nil {
			return formatErr(at, "truncated static field")
		}
		t := Type(rd.buf[rd.pos+id])
		if !t.valid() {
			return formatErr(rd.offset(), "static field of type %d", t)
		}
		sz := t.size(id)
		if err := rd.need(id + 1 + sz); err != nil {
			return formatErr(at, "truncated static field")
		}
		name := p.names[idAt(rd.buf[rd.pos:], id)]
		if t == TypeObject {
			if v := idAt(rd.buf[rd.pos+id+1:], id); v != 0 {
				p.rawRefs.add(v)
			}
			refNames = append(refNames, name)
		}
		if !strings.HasPrefix(name, "<") {
			statics = append(statics, t) // not a pseudo-static: in the mirror
		}
		rd.pos += id + 1 + sz
	}
	if err := rd.need(2); err != nil {
		return formatErr(at, "truncated CLASS_DUMP fields")
	}
	nf := int(be16(rd.buf[rd.pos:]))
	rd.pos += 2
	fields := make([]Field, nf)
	for i := range nf {
		if err := rd.need(id + 1); err != nil {
			return formatErr(at, "truncated field list")
		}
		t := Type(rd.buf[rd.pos+id])
		if !t.valid() {
			return formatErr(rd.offset(), "instance field of type %d", t)
		}
		fields[i] = Field{Name: p.names[idAt(rd.buf[rd.pos:], id)], Type: t}
		rd.pos += id + 1
	}
	cl := &p.h.Classes[c]
	if cl.Object >= 0 {
		p.rawRefs.truncate(start)
		p.h.Warnings = append(p.h.Warnings, fmt.Sprintf("class 0x%x (%s) dumped twice at byte %d: the first kept", cid, cl.Name, at))
		return nil
	}
	cl.Super, cl.InstanceSize, cl.Fields, cl.statics, cl.loaderID = sc, instSize, fields, statics, loader
	cl.staticRefs = refNames
	// The class object's refs were appended before its slot: move the slot's
	// start back by hand.
	var refs []uint64
	for k := start; k < p.rawRefs.len(); k++ {
		refs = append(refs, p.rawRefs.at(k))
	}
	p.rawRefs.truncate(start)
	o, err := p.object(cid, -1, 0, 0) // class and size fixed in finish
	if err != nil {
		return err
	}
	for _, r := range refs {
		p.rawRefs.add(r)
	}
	cl.Object = o
	return nil
}

// layout computes c's instance layout in both candidate layouts once its
// superclass chain is known.
func (p *parser) layout(c int32) bool {
	cl := &p.h.Classes[c]
	if cl.layoutDone {
		return true
	}
	var chain []int32
	var wire uint32
	for k, depth := c, 0; k >= 0; depth++ {
		kc := &p.h.Classes[k]
		if kc.Object < 0 || depth > 1000 {
			return false // not dumped yet (or a cycle)
		}
		chain = append(chain, k)
		for _, f := range kc.Fields {
			wire += uint32(f.Type.size(p.idSize))
		}
		k = kc.Super
	}
	// Reference offsets on the wire: the class's own fields first, then its
	// superclass's, as HotSpot writes them.
	var offs []uint32
	var at, referent uint32
	weak := false
	for _, k := range chain {
		kc := &p.h.Classes[k]
		switch kc.Name {
		case "java.lang.ref.WeakReference", "java.lang.ref.SoftReference", "java.lang.ref.PhantomReference":
			weak = true
		}
		for _, f := range kc.Fields {
			if f.Type == TypeObject {
				offs = append(offs, at)
				if f.Name == "referent" && kc.Name == "java.lang.ref.Reference" {
					referent = at + 1
				}
				if f.Name == "name" && kc.Name == "java.lang.Thread" {
					cl.nameOff = at + 1
				}
			}
			at += uint32(f.Type.size(p.idSize))
		}
	}
	if weak {
		cl.weakOff = referent
	}
	for m, lay := range p.lay {
		l := fieldLayout{tail: lay.hdr}
		for k := len(chain) - 1; k >= 0; k-- {
			kc := &p.h.Classes[chain[k]]
			fs := make([]vmField, 0, len(kc.Fields))
			cont := hotspotContended[kc.Name]
			for _, f := range kc.Fields {
				g := cont[f.Name]
				if g == "" && cont["*"] != "" {
					g = "*"
				}
				fs = append(fs, vmField{typ: f.Type, group: g})
			}
			if !p.h.Android {
				for _, t := range hotspotInjected[kc.Name] {
					fs = append(fs, vmField{typ: t})
				}
			}
			l.add(fs, lay.ref)
		}
		cl.shallowBy[m] = alignUp(l.tail, 8)
	}
	cl.refOffs, cl.dataSize, cl.layoutDone = offs, wire, true
	if p.h.Android && cl.InstanceSize > 0 {
		cl.shallowBy = [2]uint32{cl.InstanceSize, cl.InstanceSize}
	}
	cl.shallow = cl.shallowBy[p.mode]
	return true
}

func (p *parser) instance() error {
	rd, id := p.rd, p.idSize
	at := rd.offset()
	head := 1 + 2*id + 8
	if err := rd.need(head); err != nil {
		return formatErr(at, "truncated INSTANCE_DUMP")
	}
	b := rd.buf[rd.pos+1:]
	oid, cid, n := idAt(b, id), idAt(b[id+4:], id), int(be32(b[2*id+4:]))
	rd.pos += head
	c, known := p.lastCls, p.lastCls >= 0 && p.lastCID == cid
	if !known {
		// Instances of a few classes alternate (a node, its string, the
		// string's array): a small direct-mapped cache answers before the map.
		e := &p.clsCache[(cid>>3^cid>>11)&255]
		if e.c != 0 && e.id == cid {
			c, known = e.c-1, true
		} else if c, known = p.classByID[cid]; known {
			e.id, e.c = cid, c+1
		}
	}
	if known && p.layout(c) && n <= len(rd.buf) {
		p.lastCID, p.lastCls = cid, c
		cl := &p.h.Classes[c]
		if uint32(n) != cl.dataSize {
			return formatErr(at, "instance of %s has %d bytes of fields, its class says %d", cl.Name, n, cl.dataSize)
		}
		if _, err := p.object(oid, c, cl.shallowBy[0], cl.shallowBy[1]); err != nil {
			return err
		}
		if err := rd.need(n); err != nil {
			return formatErr(at, "truncated INSTANCE_DUMP")
		}
		if p.stream != nil {
			if d := p.stream.dups; d != nil && cl.Name == "java.lang.String" {
				d.addString(c, rd.buf[rd.pos:rd.pos+n], cl.refOffs, id)
			}
			rd.pos += n
			return nil
		}
		data := rd.buf[rd.pos : rd.pos+n]
		for _, off := range cl.refOffs {
			if v := idAt(data[off:], id); v != 0 {
				p.rawRefs.add(v)
			}
		}
		if cl.weakOff|cl.nameOff != 0 {
			p.special(int32(p.h.ids.len()-1), data, cl)
		}
		rd.pos += n
		return nil
	}
	// Class not dumped yet: keep the field bytes until the end.
	data := make([]byte, 0, min(n, 1<<16))
	for left := int64(n); left > 0; {
		chunk, err := rd.chunk(left)
		if err != nil {
			return formatErr(at, "truncated INSTANCE_DUMP")
		}
		data = append(data, chunk...)
		left -= int64(len(chunk))
	}
	o, err := p.object(oid, -1, 0, 0)
	if err != nil {
		return err
	}
	p.pending = append(p.pending, pendingInstance{obj: o, classID: cid, data: data})
	return nil
}

func (p *parser) objArray() error {
	rd, id := p.rd, p.idSize
	at := rd.offset()
	head := 1 + id + 8 + id
	if err := rd.need(head); err != nil {
		return formatErr(at, "truncated OBJECT_ARRAY_DUMP")
	}
	b := rd.buf[rd.pos+1:]
	oid, n, cid := idAt(b, id), uint64(be32(b[id+4:])), idAt(b[id+8:], id)
	rd.pos += head
	c := p.class(cid)
	if cl := &p.h.Classes[c]; cl.Elem == 0 {
		cl.Elem = TypeObject
	}
	var sz [2]uint32
	for m, lay := range p.lay {
		hdr := uint64(lay.aHdr)
		if p.h.Android {
			hdr = 12
		}
		sz[m] = align8(hdr + n*uint64(lay.ref))
	}
	if _, err := p.object(oid, c, sz[0], sz[1]); err != nil {
		return err
	}
	left := int64(n) * int64(id)
	if p.stream != nil {
		if err := rd.skip(left); err != nil {
			return formatErr(at, "truncated OBJECT_ARRAY_DUMP")
		}
		return nil
	}
	for left > 0 {
		if err := rd.need(id); err != nil {
			return formatErr(at, "truncated OBJECT_ARRAY_DUMP")
		}
		chunk, _ := rd.chunk(left - left%int64(id))
		for i := 0; i+id <= len(chunk); i += id {
			if v := idAt(chunk[i:], id); v != 0 {
				p.rawRefs.add(v)
			}
		}
		left -= int64(len(chunk))
		if r := len(chunk) % id; r != 0 {
			rd.pos -= r // a partial id: read it again with the next window
			left += int64(r)
		}
	}
	return nil
}

func (p *parser) primArray(withData bool) error {
	rd, id := p.rd, p.idSize
	at := rd.offset()
	head := 1 + id + 9
	if err := rd.need(head); err != nil {
		return formatErr(at, "truncated PRIMITIVE_ARRAY_DUMP")
	}
	b := rd.buf[rd.pos+1:]
	oid, n, t := idAt(b, id), uint64(be32(b[id+4:])), Type(b[id+8])
	rd.pos += head
	if t == TypeObject || !t.valid() {
		return formatErr(at, "primitive array of type %d", t)
	}
	es := uint64(typeSize[t])
	hdr := uint64(p.lay[0].aHdr) // the same in both layouts
	if p.h.Android && es < 8 {
		hdr = 12
	}
	sz := align8(hdr + n*es)
	o, err := p.object(oid, p.primArrayClass(t), sz, sz)
	if err != nil {
		return err
	}
	if !withData {
		return nil
	}
	left := int64(n * es)
	if !p.strings || t != TypeChar && t != TypeByte {
		if err := rd.skip(left); err != nil {
			return formatErr(at, "truncated PRIMITIVE_ARRAY_DUMP")
		}
		return nil
	}
	// char[] and byte[] may back Strings: keep a hash of the contents.
	s := strArray{obj: o, len: uint32(min(left, math.MaxUint32)), off: rd.offset()}
	var hs maphash.Hash
	hs.SetSeed(p.seed)
	for left > 0 {
		chunk, err := rd.chunk(left)
		if err != nil {
			return formatErr(at, "truncated PRIMITIVE_ARRAY_DUMP")
		}
		hs.Write(chunk)
		left -= int64(len(chunk))
	}
	s.hash = hs.Sum64()
	if st := p.stream; st != nil {
		st.dups.addArray(oid, s.hash, s.off, s.len, sz, t == TypeChar)
		return nil
	}
	p.h.strs = append(p.h.strs, s)
	return nil
}

// finish resolves pending instances, class objects' sizes, roots and
// references.
func (p *parser) finish() error {
	h := p.h
	if p.voting {
		p.decide()
	}
	n := h.ids.len()
	h.refStart = append(h.refStart, uint32(p.rawRefs.len()))
	unknown := 0
	for _, pi := range p.pending {
		c, ok := p.classByID[pi.classID]
		if (!ok || !p.layout(c)) && p.partial {
			// The class dump is past the cut: a placeholder class, no size.
			h.cls[pi.obj], h.size[pi.obj] = p.class(pi.classID), 0
			unknown++
			continue
		}
		if !ok || !p.layout(c) {
			return fmt.Errorf("%w: instance 0x%x of class 0x%x, which the dump does not describe", ErrFormat, h.ids.at(pi.obj), pi.classID)
		}
		cl := &h.Classes[c]
		if uint32(len(pi.data)) != cl.dataSize {
			return fmt.Errorf("%w: instance 0x%x of %s has %d bytes of fields, its class says %d", ErrFormat, h.ids.at(pi.obj), cl.Name, len(pi.data), cl.dataSize)
		}
		h.cls[pi.obj], h.size[pi.obj] = c, cl.shallowBy[p.mode]
		if p.pendingRef == nil {
			p.pendingRef = map[int32][2]uint32{}
		}
		start := uint32(p.rawRefs.len())
		for _, off := range cl.refOffs {
			if v := idAt(pi.data[off:], p.idSize); v != 0 {
				p.rawRefs.add(v)
			}
		}
		p.pendingRef[pi.obj] = [2]uint32{start, uint32(p.rawRefs.len()) - start}
		if cl.weakOff|cl.nameOff != 0 {
			p.special(pi.obj, pi.data, cl)
		}
	}
	p.pending = nil
	if unknown > 0 {
		h.Warnings = append(h.Warnings, fmt.Sprintf("%d objects are of classes the partial dump does not describe: their sizes and references are unknown", unknown))
	}
	// java.lang.Class: class objects are its instances.
	for i := range h.Classes {
		if h.Classes[i].Name == "java.lang.Class" {
			h.classObj = int32(i)
			break
		}
	}
	if h.classObj < 0 {
		h.classObj = int32(len(h.Classes))
		h.Classes = append(h.Classes, Class{Name: "java.lang.Class", Object: -1, Super: -1, layoutDone: true})
	}
	var mirror uint32
	if p.layout(h.classObj) {
		mirror = h.Classes[h.classObj].shallowBy[p.mode]
	}
	if mirror == 0 { // java.lang.Class not dumped: at least an object header
		mirror = align8(uint64(p.lay[p.mode].hdr))
	}
	byName := map[string]int32{}
	for i := range h.Classes {
		cl := &h.Classes[i]
		if cl.Object >= 0 {
			h.cls[cl.Object] = h.classObj
			h.size[cl.Object] = mirror + staticSize(cl.statics, p.lay[p.mode].ref)
			byName[cl.Name] = cl.Object
		}
	}
	// Primitive arrays' pseudo-classes take the class object of the array
	// class the dump describes ("[B"), so that arrays reach it too.
	for i := range h.Classes {
		if cl := &h.Classes[i]; cl.Object < 0 && cl.ID == 0 {
			if o, ok := byName[cl.Name]; ok {
				cl.Object = o
				cl.pseudo = true
			}
		}
	}
	h.Oops = OopsAuto
	if p.idSize == 8 && !h.Android {
		h.Oops = [2]Oops{OopsCompressed, OopsWide}[p.mode]
		h.OopsInferred = p.oops == OopsAuto
	}
	// The sizes are final: most are their class's.
	h.sizes = compactSizes(h.cls, h.size, len(h.Classes))
	h.size = nil
	// The sizes' array back to the system: the index that comes next is
	// bigger, it would not take its place.
	debug.FreeOSMemory()
	// Ids to indices. The classes are not needed meanwhile.
	var sp *spillFile
	if p.spill {
		if sp, _ = newSpillFile(p.spillDir); sp != nil && sp.out(h, spillCls) != nil {
			sp.remove()
			sp = nil
		}
	}
	if dup := h.index.build(&h.ids); dup > 0 {
		h.Warnings = append(h.Warnings, fmt.Sprintf("%d objects have the id of an earlier object: references to such an id go to the first", dup))
	}
	// Resolve in place when the ids were stored narrow and in object order
	// (no pending instances): the write position never passes the read
	// position.
	var refs []int32
	if p.rawRefs.wide || len(p.pendingRef) > 0 {
		refs = make([]int32, 0, p.rawRefs.len())
	} else {
		refs = p.rawRefs.narrow[:0]
	}
	for i := range n {
		s, e := h.refStart[i], h.refStart[i+1]
		if pr, ok := p.pendingRef[int32(i)]; ok {
			s, e = pr[0], pr[0]+pr[1]
		}
		h.refStart[i] = uint32(len(refs))
		for k := s; k < e; k++ {
			if j := h.index.get(&h.ids, p.rawRefs.at(int(k))); j >= 0 {
				refs = append(refs, j)
			} else {
				h.Unresolved++
			}
		}
	}
	h.refStart[n] = uint32(len(refs))
	h.refs = refs
	p.rawRefs = refBuf{}
	h.roots = make([]int32, 0, len(p.rootIDs))
	kinds := h.rootKind[:0]
	aux := p.rootAux[:0]
	for k, id := range p.rootIDs {
		if j := h.index.get(&h.ids, id); j >= 0 {
			h.roots = append(h.roots, j)
			kinds = append(kinds, h.rootKind[k])
			aux = append(aux, p.rootAux[k])
		}
	}
	h.rootKind = kinds
	p.rootAux = aux
	loaders := p.classEdges()
	p.weakRefs()
	h.index = idIndex{} // rebuilt by Lookup when needed
	// The index (4 bytes a slot, 1.5–3 slots an object) is garbage now:
	// collected at once, its pages are what the next arrays (the
	// dominator tree's) are made of, instead of coming on top of them.
	runtime.GC()
	if sp != nil {
		debug.FreeOSMemory() // the index, before the classes come back
		err := sp.in(h)
		sp.remove()
		if err != nil {
			return err
		}
	}
	for _, l := range loaders {
		h.loaderCls[h.cls[l]] = true
	}
	return nil
}

// special records a weak, soft or phantom reference's referent and a
// thread's name.
func (p *parser) special(obj int32, data []byte, cl *Class) {
	if off := cl.weakOff; off != 0 {
		if v := idAt(data[off-1:], p.idSize); v != 0 {
			p.weak = append(p.weak, rawWeak{obj, v})
		}
	}
	if off := cl.nameOff; off != 0 {
		if v := idAt(data[off-1:], p.idSize); v != 0 {
			p.threadStr = append(p.threadStr, rawWeak{obj, v})
		}
	}
}

// weakRefs resolves the weak references' referents.
func (p *parser) weakRefs() {
	h := p.h
	slices.SortFunc(p.weak, func(a, b rawWeak) int { return cmp.Compare(a.obj, b.obj) })
	for _, w := range p.weak {
		if r := h.index.get(&h.ids, w.id); r >= 0 {
			h.weak = append(h.weak, weakRef{w.obj, r})
		}
	}
	p.weak = nil
	for _, t := range p.threadStr {
		if s := h.index.get(&h.ids, t.id); s >= 0 {
			if h.threadStr == nil {
				h.threadStr = map[int32]int32{}
			}
			h.threadStr[t.obj] = s
		}
	}
	p.threadStr = nil
	h.weakCls = make([]bool, len(h.Classes))
	for i := range h.Classes {
		h.weakCls[i] = h.Classes[i].weakOff != 0
	}
}

// classEdges resolves class loaders and the loader → class edges, and
// makes the boot loader's classes roots. It returns the loaders (for the
// caller to mark their classes in loaderCls once h.cls is at hand).
func (p *parser) classEdges() (loaders []int32) {
	h := p.h
	h.loaderCls = make([]bool, len(h.Classes))
	h.dumpRoots = len(h.roots)
	root := map[int32]bool{}
	for k, r := range h.roots {
		if h.rootKind[k] == RootStickyClass {
			root[r] = true
		}
	}
	for i := range h.Classes {
		cl := &h.Classes[i]
		cl.Loader = -1
		if cl.Object < 0 || cl.pseudo {
			continue
		}
		if cl.loaderID == 0 {
			// The boot loader's classes are never unloaded: roots, as
			// Eclipse MAT's system classes. HotSpot's dump lists the
			// instance classes among them as sticky; its array classes
			// ("[B") and a dump that lists none get the same root here.
			if !root[cl.Object] {
				root[cl.Object] = true
				h.roots = append(h.roots, cl.Object)
				h.rootKind = append(h.rootKind, RootStickyClass)
				p.rootAux = append(p.rootAux, [2]uint32{})
			}
			continue
		}
		if l := h.index.get(&h.ids, cl.loaderID); l >= 0 {
			cl.Loader = l
			if h.loaded == nil {
				h.loaded = map[int32][]int32{}
			}
			h.loaded[l] = append(h.loaded[l], cl.Object)
			loaders = append(loaders, l)
		}
	}
	h.rootAux = p.rootAux
	h.classNode = make([]int32, len(h.Classes))
	for i := range h.Classes {
		h.classNode[i] = h.Classes[i].Object
	}
	return loaders
}
