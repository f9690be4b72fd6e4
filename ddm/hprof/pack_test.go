package hprof

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPackRoundTrips packs ids and references over several blocks (some
// ids far apart and falling, some objects with hundreds of references far
// away) on one worker and on several: the same bytes, and unpacked (block
// by block) or read in sequence, the same arrays.
func TestPackRoundTrips(t *testing.T) {
	n := 3*packBlock + 123
	rng := rand.New(rand.NewPCG(1, 2))
	narrow := make([]uint32, n)
	wide := make([]uint64, n)
	id := uint64(0x7000_0000)
	for i := range n {
		switch rng.IntN(50) {
		case 0:
			id = rng.Uint64N(1 << 32) // a jump, maybe down
		default:
			id += 1 + rng.Uint64N(8)
		}
		narrow[i] = uint32(id)
		wide[i] = id<<3 | 1<<63
	}
	refStart := make([]uint32, n+1)
	var refs []int32
	for o := range n {
		refStart[o] = uint32(len(refs))
		c := rng.IntN(4)
		if rng.IntN(1000) == 0 {
			c = 200 + rng.IntN(300) // more than a byte's count
		}
		for range c {
			r := int32(o) + int32(rng.IntN(64)) - 32
			if rng.IntN(10) == 0 {
				r = int32(rng.IntN(n)) // far away
			}
			refs = append(refs, min(max(r, 0), int32(n-1)))
		}
	}
	refStart[n] = uint32(len(refs))

	defer func(w int) { packWorkers = w }(packWorkers)
	for _, l := range []idList{{idSeq[uint32]{narrow: narrow}}, {idSeq[uint32]{all: wide, wide: true}}} {
		packWorkers = 1
		one := packIDs(&l)
		packWorkers = 4
		p := packIDs(&l)
		if !bytes.Equal(one.b, p.b) || !slices.Equal(one.off, p.off) {
			t.Fatalf("wide=%v: ids packed on 4 workers differ from 1", l.wide)
		}
		back, err := p.unpack()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(back.narrow, l.narrow) || !slices.Equal(back.all, l.all) || back.wide != l.wide {
			t.Fatalf("wide=%v: ids unpacked differ", l.wide)
		}
		p.b[len(p.b)-1] |= 0x80 // the last varint cut short
		if _, err := p.unpack(); err == nil {
			t.Errorf("wide=%v: broken ids unpacked with no error", l.wide)
		}
	}

	packWorkers = 1
	one := packRefs(refStart, refs)
	packWorkers = 4
	p := packRefs(refStart, refs)
	if !bytes.Equal(one.b, p.b) || !slices.Equal(one.off, p.off) || !slices.Equal(one.refAt, p.refAt) || len(p.off) != 5 {
		t.Fatal("references packed on 4 workers differ from 1")
	}
	gotStart, gotRefs, err := p.unpack()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gotStart, refStart) || !slices.Equal(gotRefs, refs) {
		t.Fatal("references unpacked differ")
	}
	r := refsReader{p: p}
	for o := range n {
		if got := r.next(); !slices.Equal(got, refs[refStart[o]:refStart[o+1]]) {
			t.Fatalf("object %d: read in sequence %v, want %v", o, got, refs[refStart[o]:refStart[o+1]])
		}
	}
	if r.bad || r.pos != len(p.b) {
		t.Fatalf("read in sequence: bad=%v, at %d of %d bytes", r.bad, r.pos, len(p.b))
	}
	p.b[p.off[1]] = 0x7f // block 1's first count too big
	if _, _, err := p.unpack(); err == nil {
		t.Error("broken references unpacked with no error")
	}
}
