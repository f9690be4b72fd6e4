package hprof

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
)

// The compact strategy ([DomOptions.Compact]) holds the model's arrays that
// the dominator tree does not read, or reads only in sequence, packed in
// memory while it runs, instead of in a file: the ids as varint deltas,
// the classes in 16 bits (where there are at most 65,536), the references
// (once the depth-first search is done) as varints relative to their
// object. HotSpot and ART ids are addresses, dumped mostly in address
// order, and references mostly point near their object: most take a byte
// or two instead of four.

// packBlock is how many objects a block of the packed arrays holds: each
// block is packed and unpacked on its own (its own byte offset, its ids'
// deltas starting from 0), so that a worker per core takes them.
const packBlock = 1 << 16

// packBlocks is how many blocks n objects take.
func packBlocks(n int) int { return (n + packBlock - 1) / packBlock }

// packWorkers is how many goroutines pack and unpack (0: GOMAXPROCS).
var packWorkers = 0

// inBlocks runs f for each of the nb blocks, on a worker per core, and
// returns when all are done.
func inBlocks(nb int, f func(b int)) {
	w := packWorkers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	w = min(w, nb)
	if w <= 1 {
		for b := range nb {
			f(b)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(w)
	for range w {
		go func() {
			defer wg.Done()
			for {
				b := int(next.Add(1) - 1)
				if b >= nb {
					return
				}
				f(b)
			}
		}()
	}
	wg.Wait()
}

// blockRange is the objects of block b of n.
func blockRange(b, n int) (int, int) {
	return b * packBlock, min((b+1)*packBlock, n)
}

// packedIDs are ids as zigzag varint deltas from the previous one (in the
// ids' own units: id/8 when narrow), from 0 at each block's start; off[b]
// is where block b starts in b.
type packedIDs struct {
	b    []byte
	off  []int
	n    int
	wide bool
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// uvarintAt is the uvarint at b[pos:] (well formed: packed here) and the
// position after it.
func uvarintAt(b []byte, pos int) (uint64, int) {
	if v := b[pos]; v < 0x80 {
		return uint64(v), pos + 1
	}
	var u uint64
	for s := uint(0); ; s += 7 {
		v := b[pos]
		pos++
		u |= uint64(v&0x7f) << s
		if v < 0x80 {
			return u, pos
		}
	}
}

// putUvarint writes v as a uvarint at b[pos:] (room made) and returns the
// position after it.
func putUvarint(b []byte, pos int, v uint64) int {
	for v >= 0x80 {
		b[pos] = byte(v) | 0x80
		v >>= 7
		pos++
	}
	b[pos] = byte(v)
	return pos + 1
}

// uvarintSlow is the uvarint at b[*pos:] of more than a byte, *pos moved
// past it (false: broken); callers inline the one-byte case.
func uvarintSlow(b []byte, pos *int) (uint64, bool) {
	if *pos >= len(b) {
		return 0, false
	}
	u, k := binary.Uvarint(b[*pos:])
	if k <= 0 {
		return 0, false
	}
	*pos += k
	return u, true
}

// uvarint is binary.Uvarint at b[pos:] with the one-byte case inline: the
// value and the position after it (k ≤ 0: broken).
func uvarint(b []byte, pos int) (uint64, int, int) {
	if pos < len(b) && b[pos] < 0x80 {
		return uint64(b[pos]), pos + 1, 1
	}
	u, k := binary.Uvarint(b[pos:])
	return u, pos + k, k
}

// packIDs packs l (each block's size counted first: the array is made
// once), a worker per core; the caller drops l.
func packIDs(l *idList) *packedIDs {
	if l.wide {
		return packIDsOf(l.all, true)
	}
	return packIDsOf(l.narrow, false)
}

// packIDsOf is packIDs of the ids a (wide: the ids themselves, not id/8).
func packIDsOf[T uint32 | uint64](a []T, wide bool) *packedIDs {
	n := len(a)
	nb := packBlocks(n)
	p := &packedIDs{n: n, wide: wide, off: make([]int, nb+1)}
	inBlocks(nb, func(b int) {
		s, e := blockRange(b, n)
		size, prev := 0, int64(0)
		for _, v := range a[s:e] {
			size += uvarintLen(zigzag(int64(v) - prev))
			prev = int64(v)
		}
		p.off[b+1] = size
	})
	for b := range nb {
		p.off[b+1] += p.off[b]
	}
	p.b = make([]byte, p.off[nb])
	inBlocks(nb, func(b int) {
		s, e := blockRange(b, n)
		pos, prev := p.off[b], int64(0)
		for _, v := range a[s:e] {
			if z := zigzag(int64(v) - prev); z < 0x80 {
				p.b[pos] = byte(z)
				pos++
			} else {
				pos = putUvarint(p.b, pos, z)
			}
			prev = int64(v)
		}
	})
	return p
}

// unpack is the list p packed, a worker per core.
func (p *packedIDs) unpack() (idList, error) {
	var l idList
	l.wide = p.wide
	var bad int
	if p.wide {
		l.all = make([]uint64, p.n)
		bad = unpackIDsOf(p, l.all)
	} else {
		l.narrow = make([]uint32, p.n)
		bad = unpackIDsOf(p, l.narrow)
	}
	if bad >= 0 {
		return idList{}, fmt.Errorf("hprof: packed ids broken at object %d", bad)
	}
	return l, nil
}

// unpackIDsOf unpacks p into a: the first object of a broken block, or -1.
func unpackIDsOf[T uint32 | uint64](p *packedIDs, a []T) int {
	var bad atomic.Int64
	bad.Store(-1)
	inBlocks(len(p.off)-1, func(b int) {
		s, e := blockRange(b, p.n)
		bb := p.b[:p.off[b+1]]
		prev, pos := int64(0), p.off[b]
		for i := range a[s:e] {
			if pos >= len(bb) {
				bad.Store(int64(s))
				return
			}
			var u uint64
			if c := bb[pos]; c < 0x80 {
				u = uint64(c)
				pos++
			} else {
				var k int
				if u, k = binary.Uvarint(bb[pos:]); k <= 0 {
					bad.Store(int64(s))
					return
				}
				pos += k
			}
			prev += unzigzag(u)
			a[s+i] = T(prev)
		}
		if pos != len(bb) {
			bad.Store(int64(s))
		}
	})
	return int(bad.Load())
}

// packedRefs are the references: per object a uvarint count, then each
// reference as a zigzag varint of (referent − object). Nothing is carried
// from one object to the next, so that the blocks are packed and unpacked
// on their own and read in sequence as one: off[b] is where block b
// starts in b, refAt[b] its first reference's index.
type packedRefs struct {
	b     []byte
	off   []int
	refAt []uint32
	n     int // objects
	total int // references
}

// packRefs packs the references of the n objects, a worker per core; the
// caller drops them. The bytes are counted first, so that the packed
// array is made once, at its size.
func packRefs(refStart []uint32, refs []int32) *packedRefs {
	n := len(refStart) - 1
	nb := packBlocks(n)
	p := &packedRefs{n: n, total: len(refs), off: make([]int, nb+1), refAt: make([]uint32, nb+1)}
	inBlocks(nb, func(b int) {
		s, e := blockRange(b, n)
		size := 0
		for o := s; o < e; o++ {
			rs, re := refStart[o], refStart[o+1]
			size += uvarintLen(uint64(re - rs))
			for _, r := range refs[rs:re] {
				size += uvarintLen(zigzag(int64(r) - int64(o)))
			}
		}
		p.off[b+1] = size
		p.refAt[b] = refStart[s]
	})
	p.refAt[nb] = refStart[n]
	for b := range nb {
		p.off[b+1] += p.off[b]
	}
	p.b = make([]byte, p.off[nb])
	inBlocks(nb, func(b int) {
		s, e := blockRange(b, n)
		pos := p.off[b]
		for o := s; o < e; o++ {
			rs, re := refStart[o], refStart[o+1]
			if c := re - rs; c < 0x80 {
				p.b[pos] = byte(c)
				pos++
			} else {
				pos = putUvarint(p.b, pos, uint64(c))
			}
			for _, r := range refs[rs:re] {
				if z := zigzag(int64(r) - int64(o)); z < 0x80 {
					p.b[pos] = byte(z)
					pos++
				} else {
					pos = putUvarint(p.b, pos, z)
				}
			}
		}
	})
	return p
}

// uvarintLen is the length of v as a uvarint.
func uvarintLen(v uint64) int {
	return (bits.Len64(v|1) + 6) / 7
}

// unpack is the references p packed, a worker per core.
func (p *packedRefs) unpack() (refStart []uint32, refs []int32, err error) {
	nb := len(p.off) - 1
	if int(p.refAt[nb]) != p.total {
		return nil, nil, fmt.Errorf("hprof: packed references broken")
	}
	refStart = make([]uint32, p.n+1)
	refs = make([]int32, p.total)
	var bad atomic.Bool
	inBlocks(nb, func(b int) {
		s, e := blockRange(b, p.n)
		bb := p.b[:p.off[b+1]]
		pos, k, end := p.off[b], p.refAt[b], p.refAt[b+1]
		ok := true
		for o := s; o < e; o++ {
			refStart[o] = k
			var c uint64
			if pos < len(bb) && bb[pos] < 0x80 {
				c = uint64(bb[pos])
				pos++
			} else if c, ok = uvarintSlow(bb, &pos); !ok {
				bad.Store(true)
				return
			}
			if uint64(end-k) < c {
				bad.Store(true)
				return
			}
			for range c {
				var u uint64
				if pos < len(bb) && bb[pos] < 0x80 {
					u = uint64(bb[pos])
					pos++
				} else if u, ok = uvarintSlow(bb, &pos); !ok {
					bad.Store(true)
					return
				}
				refs[k] = int32(int64(o) + unzigzag(u))
				k++
			}
		}
		if pos != len(bb) || k != end {
			bad.Store(true)
		}
	})
	if bad.Load() {
		return nil, nil, fmt.Errorf("hprof: packed references broken")
	}
	refStart[p.n] = uint32(p.total)
	return refStart, refs, nil
}

// refsReader reads packed references object after object (the blocks in
// sequence, as one).
type refsReader struct {
	p       *packedRefs
	pos     int
	o       int32
	scratch []int32
	bad     bool
}

// next is the references of the next object.
func (r *refsReader) next() []int32 {
	b := r.p.b
	c, pos, k := uvarint(b, r.pos)
	if k <= 0 {
		r.bad = true
		r.o++
		return nil
	}
	r.scratch = r.scratch[:0]
	for range c {
		u, next, k := uvarint(b, pos)
		if k <= 0 {
			r.bad = true
			break
		}
		pos = next
		r.scratch = append(r.scratch, int32(int64(r.o)+unzigzag(u)))
	}
	r.pos = pos
	r.o++
	return r.scratch
}
