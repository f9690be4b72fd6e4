package hprof

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// The compact strategy ([DomOptions.Compact]) holds the model's arrays that
// the dominator tree does not read, or reads only in sequence, packed in
// memory while it runs, instead of in a file: the ids as varint deltas,
// the classes in 16 bits (where there are at most 65,536), the references
// (once the depth-first search is done) as varints relative to their
// object. HotSpot and ART ids are addresses, dumped mostly in address
// order, and references mostly point near their object: most take a byte
// or two instead of four.

// packedIDs are ids as zigzag varint deltas from the previous one (in the
// ids' own units: id/8 when narrow).
type packedIDs struct {
	b    []byte
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

// uvarint is binary.Uvarint at b[pos:] with the one-byte case inline: the
// value and the position after it (k ≤ 0: broken).
func uvarint(b []byte, pos int) (uint64, int, int) {
	if pos < len(b) && b[pos] < 0x80 {
		return uint64(b[pos]), pos + 1, 1
	}
	u, k := binary.Uvarint(b[pos:])
	return u, pos + k, k
}

// packIDs packs l (its size counted first: the array is made once); the
// caller drops l.
func packIDs(l *idList) *packedIDs {
	n := l.len()
	at := func(i int) int64 {
		if l.wide {
			return int64(l.all[i])
		}
		return int64(l.narrow[i])
	}
	size, prev := 0, int64(0)
	for i := range n {
		v := at(i)
		size += uvarintLen(zigzag(v - prev))
		prev = v
	}
	p := &packedIDs{n: n, wide: l.wide, b: make([]byte, size)}
	pos := 0
	prev = 0
	for i := range n {
		v := at(i)
		pos = putUvarint(p.b, pos, zigzag(v-prev))
		prev = v
	}
	return p
}

// unpack is the list p packed.
func (p *packedIDs) unpack() (idList, error) {
	var l idList
	l.wide = p.wide
	if p.wide {
		l.all = make([]uint64, p.n)
	} else {
		l.narrow = make([]uint32, p.n)
	}
	prev, pos := int64(0), 0
	for i := range p.n {
		u, next, k := uvarint(p.b, pos)
		if k <= 0 {
			return idList{}, fmt.Errorf("hprof: packed ids broken at object %d", i)
		}
		pos = next
		prev += unzigzag(u)
		if p.wide {
			l.all[i] = uint64(prev)
		} else {
			l.narrow[i] = uint32(prev)
		}
	}
	return l, nil
}

// packedRefs are the references: per object a uvarint count, then each
// reference as a zigzag varint of (referent − object).
type packedRefs struct {
	b     []byte
	n     int // objects
	total int // references
}

// packRefs packs the references of the n objects; the caller drops them.
// The bytes are counted first, so that the packed array is made once, at
// its size.
func packRefs(refStart []uint32, refs []int32) *packedRefs {
	n := len(refStart) - 1
	size := 0
	for o := range n {
		s, e := refStart[o], refStart[o+1]
		size += uvarintLen(uint64(e - s))
		for _, r := range refs[s:e] {
			size += uvarintLen(zigzag(int64(r) - int64(o)))
		}
	}
	p := &packedRefs{n: n, total: len(refs), b: make([]byte, size)}
	pos := 0
	for o := range n {
		s, e := refStart[o], refStart[o+1]
		pos = putUvarint(p.b, pos, uint64(e-s))
		for _, r := range refs[s:e] {
			pos = putUvarint(p.b, pos, zigzag(int64(r)-int64(o)))
		}
	}
	return p
}

// uvarintLen is the length of v as a uvarint.
func uvarintLen(v uint64) int {
	return (bits.Len64(v|1) + 6) / 7
}

// unpack is the references p packed.
func (p *packedRefs) unpack() (refStart []uint32, refs []int32, err error) {
	refStart = make([]uint32, p.n+1)
	refs = make([]int32, p.total)
	r := refsReader{p: p}
	k := uint32(0)
	for o := range p.n {
		refStart[o] = k
		k += uint32(copy(refs[k:], r.next()))
	}
	refStart[p.n] = k
	if r.bad || int(k) != p.total {
		return nil, nil, fmt.Errorf("hprof: packed references broken")
	}
	return refStart, refs, nil
}

// refsReader reads packed references object after object.
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
