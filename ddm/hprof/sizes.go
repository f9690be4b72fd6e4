package hprof

import "math/bits"

// sizeTable holds the objects' shallow sizes in about a bit an object
// where most objects are instances: an object's size is its class's
// (the size of the first object of the class) unless its bit in own is
// set, and then it is in extra, at the rank of that bit (arrays, class
// objects, an instance of a size its class's first one does not have).
type sizeTable struct {
	byClass []uint32
	own     []uint64 // a bit per object
	rank    []uint32 // per word of own: the bits set in the words before it
	extra   []uint32
}

// compactSizes builds the table of the sizes of objects of classes cls.
func compactSizes(cls []int32, size []uint32, classes int) sizeTable {
	t := sizeTable{byClass: make([]uint32, classes), own: make([]uint64, (len(cls)+63)/64)}
	seen := make([]bool, classes)
	n := 0
	for i, c := range cls {
		switch {
		case !seen[c]:
			seen[c], t.byClass[c] = true, size[i]
		case size[i] != t.byClass[c]:
			t.own[i>>6] |= 1 << (i & 63)
			n++
		}
	}
	t.rank = make([]uint32, len(t.own))
	t.extra = make([]uint32, 0, n)
	r := uint32(0)
	for k, w := range t.own {
		t.rank[k] = r
		r += uint32(bits.OnesCount64(w))
		for w != 0 {
			t.extra = append(t.extra, size[k<<6|bits.TrailingZeros64(w)])
			w &= w - 1
		}
	}
	return t
}

// at is the size of object i of class c.
func (t *sizeTable) at(i, c int32) uint32 {
	w := t.own[i>>6]
	if bit := uint64(1) << (i & 63); w&bit != 0 {
		return t.extra[t.rank[i>>6]+uint32(bits.OnesCount64(w&(bit-1)))]
	}
	return t.byClass[c]
}
