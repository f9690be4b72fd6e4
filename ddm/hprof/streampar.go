package hprof

import (
	"fmt"
	"runtime"
	"sync"
)

// A streamed pass counts on more than one core: the parser walks the
// records in order (what needs the order: the strings, the classes, the
// roots, the layout vote over the first objects) and, once the layout is
// decided, leaves the object records (instances, arrays) in the buffer it
// read them into; when it reads on into the next buffer, it hands the full
// one with the places of its object records to a counting goroutine. A
// counter counts instances by class id, arrays by class id or element type,
// with their sizes in both layouts; their classes' sizes are applied when
// the dump ends (an instance's size is its class's), so a counter needs
// nothing the parser learns later. The parser counts the objects it leaves
// (so the marks for a dump cut short stay right) and handles itself the
// records bigger than a quarter of its buffer.

// parCount is the parser's side of the counting goroutines.
type parCount struct {
	work    chan parWork
	free    chan []byte
	wg      sync.WaitGroup
	ranges  []parRange // object records in the current buffer
	counted []*counter // one per goroutine, merged at the end
	lay     [2]vmLayout
	idSize  int
	closed  bool
}

// parRange is a run of object records in a buffer, [a, b).
type parRange struct {
	a, b    int
	android bool // Android's array headers (HEAP_DUMP_INFO seen)
}

type parWork struct {
	buf    []byte
	ranges []parRange
}

// parWorkers is how many goroutines count (0: GOMAXPROCS).
var parWorkers = 0

func newParCount(idSize int, lay [2]vmLayout, bufs int) *parCount {
	n := parWorkers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	pc := &parCount{work: make(chan parWork, n), free: make(chan []byte, 2*n+2+bufs), lay: lay, idSize: idSize}
	for range 2*n + 2 {
		pc.free <- make([]byte, bufSize)
	}
	for range n {
		c := &counter{idSize: idSize, lay: lay, slot: map[uint64]int32{}}
		pc.counted = append(pc.counted, c)
		pc.wg.Add(1)
		go func() {
			defer pc.wg.Done()
			for w := range pc.work {
				for _, r := range w.ranges {
					c.count(w.buf[r.a:r.b], r.android)
				}
				pc.free <- w.buf[:cap(w.buf)]
			}
		}()
	}
	return pc
}

// add marks buf[a:b] as object records to count.
func (pc *parCount) add(a, b int, android bool) {
	if k := len(pc.ranges) - 1; k >= 0 && pc.ranges[k].b == a && pc.ranges[k].android == android {
		pc.ranges[k].b = b
		return
	}
	pc.ranges = append(pc.ranges, parRange{a, b, android})
}

// swap is the reader's: the buffer left goes to a counter with its
// ranges, or back to the free ones.
func (pc *parCount) swap(old []byte) []byte {
	nb := <-pc.free
	pc.send(old)
	return nb
}

func (pc *parCount) send(buf []byte) {
	if len(pc.ranges) == 0 {
		pc.free <- buf
		return
	}
	pc.work <- parWork{buf, pc.ranges}
	pc.ranges = nil
}

// finish hands on the last buffer (nil: drops what it held) and waits
// for the counters.
func (pc *parCount) finish(last []byte) {
	if pc.closed {
		return
	}
	pc.closed = true
	if last == nil {
		pc.ranges = nil
	}
	pc.send(last)
	close(pc.work)
	pc.wg.Wait()
}

// counter counts object records by class id.
type counter struct {
	idSize int
	lay    [2]vmLayout
	slot   map[uint64]int32 // class id → index in classes
	cache  [512]struct {
		id uint64
		s  int32
	} // s: index + 1
	classes []classCount
	prim    [12]primCount
}

type classCount struct {
	id uint64
	// Instances: how many, the field bytes of the first and the first
	// other number seen (a dump whose instances disagree with their class
	// is refused when the classes are known).
	inst           int64
	fields, badLen uint32
	bad            bool
	// Object arrays of this class: how many, bytes in both layouts.
	arrs     int64
	arrBytes [2]int64
}

type primCount struct{ n, bytes int64 }

func (c *counter) class(id uint64) int32 {
	e := &c.cache[(id>>3^id>>12)&511]
	if e.s != 0 && e.id == id {
		return e.s - 1
	}
	s, ok := c.slot[id]
	if !ok {
		s = int32(len(c.classes))
		c.slot[id] = s
		c.classes = append(c.classes, classCount{id: id})
	}
	e.id, e.s = id, s+1
	return s
}

// count counts the object records in b (whole records, as the parser
// found them).
func (c *counter) count(b []byte, android bool) {
	id := c.idSize
	last, lastID := int32(-1), uint64(0)
	for pos := 0; pos < len(b); {
		switch tag := b[pos]; tag {
		case subInstanceDump:
			r := b[pos+1:]
			cid, n := idAt(r[id+4:], id), be32(r[2*id+4:])
			if last < 0 || lastID != cid {
				last, lastID = c.class(cid), cid
			}
			cc := &c.classes[last]
			if cc.inst == 0 {
				cc.fields = n
			} else if n != cc.fields && !cc.bad {
				cc.bad, cc.badLen = true, n
			}
			cc.inst++
			pos += 1 + 2*id + 8 + int(n)
		case subObjArrayDump:
			r := b[pos+1:]
			n, cid := uint64(be32(r[id+4:])), idAt(r[id+8:], id)
			cc := &c.classes[c.class(cid)]
			cc.arrs++
			for m, lay := range c.lay {
				hdr := uint64(lay.aHdr)
				if android {
					hdr = 12
				}
				cc.arrBytes[m] += int64(align8(hdr + n*uint64(lay.ref)))
			}
			pos += 1 + 2*id + 8 + int(n)*id
		default: // subPrimArrayDump, subPrimArrayNoDat
			r := b[pos+1:]
			n, t := uint64(be32(r[id+4:])), Type(r[id+8])
			es := uint64(typeSize[t])
			hdr := uint64(c.lay[0].aHdr)
			if android && es < 8 {
				hdr = 12
			}
			pc := &c.prim[t]
			pc.n++
			pc.bytes += int64(align8(hdr + n*es))
			pos += 1 + id + 9
			if tag == subPrimArrayDump {
				pos += int(n * es)
			}
		}
	}
}

// objectLen is the length of the object record (instance, array) at the
// reader's position, its header made available; 0 where the parser must
// read it itself (a malformed header, a record larger than a quarter of a
// buffer).
func (p *parser) objectLen(sub byte) int {
	rd, id := p.rd, p.idSize
	var head int
	switch sub {
	case subInstanceDump:
		head = 1 + 2*id + 8
	case subObjArrayDump:
		head = 1 + 2*id + 8
	default:
		head = 1 + id + 9
	}
	if rd.need(head) != nil {
		return 0
	}
	b := rd.buf[rd.pos+1:]
	n := uint64(be32(b[id+4:]))
	var body uint64
	switch sub {
	case subInstanceDump:
		body = uint64(be32(b[2*id+4:]))
	case subObjArrayDump:
		body = n * uint64(id)
	case subPrimArrayDump:
		t := Type(b[id+8])
		if t == TypeObject || !t.valid() {
			return 0
		}
		body = n * uint64(typeSize[t])
	case subPrimArrayNoDat:
		if t := Type(b[id+8]); t == TypeObject || !t.valid() {
			return 0
		}
	}
	if l := uint64(head) + body; l <= bufSize/4 {
		return int(l)
	}
	return 0
}

// leave hands the object record at the reader's position (of l bytes,
// within the segment) to the counters.
func (p *parser) leave(l int) error {
	rd := p.rd
	if err := rd.need(l); err != nil {
		return err
	}
	p.par.add(rd.pos, rd.pos+l, p.h.Android)
	rd.pos += l
	p.stream.objects++
	p.stream.last.cls = -1 // a rollback drops no class's count
	return nil
}

// mergeCounts adds what the counters counted to the classes; it returns
// how many instances are of classes the (partial) dump does not describe.
func (p *parser) mergeCounts() (unknown int, err error) {
	h, s := p.h, p.stream
	for _, c := range p.par.counted {
		for i := range c.classes {
			cc := &c.classes[i]
			if cc.arrs > 0 {
				k := p.class(cc.id)
				if cl := &h.Classes[k]; cl.Elem == 0 {
					cl.Elem = TypeObject
				}
				s.addN(k, cc.arrs, cc.arrBytes[0], cc.arrBytes[1])
			}
			if cc.inst == 0 {
				continue
			}
			k, ok := p.classByID[cc.id]
			if (!ok || !p.layout(k)) && p.partial {
				s.addN(p.class(cc.id), cc.inst, 0, 0)
				unknown += int(cc.inst)
				continue
			}
			if !ok || !p.layout(k) {
				return 0, fmt.Errorf("%w: an instance of class 0x%x, which the dump does not describe", ErrFormat, cc.id)
			}
			cl := &h.Classes[k]
			for _, n := range []uint32{cc.fields, cc.badLen} {
				if n != cl.dataSize && (n == cc.fields || cc.bad) {
					return 0, fmt.Errorf("%w: an instance of %s has %d bytes of fields, its class says %d", ErrFormat, cl.Name, n, cl.dataSize)
				}
			}
			s.addN(k, cc.inst, cc.inst*int64(cl.shallowBy[0]), cc.inst*int64(cl.shallowBy[1]))
		}
		for t, pc := range c.prim {
			if pc.n > 0 {
				s.addN(p.primArrayClass(Type(t)), pc.n, pc.bytes, pc.bytes)
			}
		}
	}
	return unknown, nil
}

// addN adds n objects counted already (objects) to class cls.
func (s *streamCounts) addN(cls int32, n, c, w int64) {
	if int(cls) >= len(s.n) {
		s.grow(int(cls) + 1)
	}
	s.n[cls] += n
	s.bytes[cls][0] += c
	s.bytes[cls][1] += w
}

// scan hands the object records at the reader's position that lie whole
// in its buffer and before end (the segment's end) to the counters,
// and returns how many it handed: the parser's part of a record is its
// header's few bytes.
func (p *parser) scan(end int64) int {
	rd, id := p.rd, p.idSize
	b := rd.buf[:rd.end]
	if lim := end - rd.off; lim < int64(len(b)) {
		b = b[:lim]
	}
	start, pos, n := rd.pos, rd.pos, 0
	head := 1 + 2*id + 8 // instances and object arrays
loop:
	for pos < len(b) {
		var l uint64
		switch tag := b[pos]; tag {
		case subInstanceDump:
			if pos+head > len(b) {
				break loop
			}
			l = uint64(head) + uint64(be32(b[pos+1+2*id+4:]))
		case subObjArrayDump:
			if pos+head > len(b) {
				break loop
			}
			l = uint64(head) + uint64(be32(b[pos+1+id+4:]))*uint64(id)
		case subPrimArrayDump, subPrimArrayNoDat:
			if pos+id+10 > len(b) {
				break loop
			}
			t := Type(b[pos+1+id+8])
			if t == TypeObject || !t.valid() {
				break loop
			}
			l = uint64(id) + 10
			if tag == subPrimArrayDump {
				l += uint64(be32(b[pos+1+id+4:])) * uint64(typeSize[t])
			}
		default:
			break loop
		}
		if l > uint64(len(b)-pos) {
			break
		}
		pos += int(l)
		n++
	}
	if n > 0 {
		p.par.add(start, pos, p.h.Android)
		rd.pos = pos
		p.stream.objects += int64(n)
		p.stream.last.cls = -1
	}
	return n
}
