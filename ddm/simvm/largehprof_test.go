package simvm

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/hprof"
)

// A dump grown to Options.HprofSize is exactly that large and still a
// well-formed HPROF file: the simulated objects, then the padding arrays.
func TestPaddedHprofDump(t *testing.T) {
	var h heap
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		h.alloc(r)
	}
	base := h.hprofDump(time.Now())
	for _, size := range []int64{int64(len(base)) + 100, 3*padSegment + 12345} {
		var buf bytes.Buffer
		d := padDump(base, size)
		n, err := d.WriteTo(&buf)
		if err != nil || n != size || d.size != size || int64(buf.Len()) != size {
			t.Fatalf("padded to %d: wrote %d (%v), announced %d, buffer %d", size, n, err, d.size, buf.Len())
		}
		heap, err := hprof.Parse(bytes.NewReader(buf.Bytes()), hprof.Options{})
		if err != nil {
			t.Fatalf("padded to %d: %v", size, err)
		}
		for i, seg := range d.segs {
			o := heap.Lookup(uint64(0xF0000000 + i))
			if o < 0 || int64(heap.Size(o)) < seg {
				t.Fatalf("padded to %d: padding array %d (%d bytes) missing or short", size, i, seg)
			}
		}
		if heap.Lookup(addr(h.objs[0])) < 0 {
			t.Fatalf("padded to %d: the simulated objects are gone", size)
		}
	}
}
