package simvm

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/hprof"
)

// The simulator's HPDS answer is a real HPROF file of its simulated heap:
// every object at its address with the size its heap map shows.
func TestHprofDumpOfSimulatedHeap(t *testing.T) {
	var h heap
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		h.alloc(r)
	}
	h.gc(r)
	b := h.hprofDump(time.Now())
	d, err := hprof.Parse(bytes.NewReader(b), hprof.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Android || len(d.HeapNames) != 1 || d.HeapNames[0] != "app" {
		t.Errorf("Android %v, heaps %v: want an Android dump with one app heap", d.Android, d.HeapNames)
	}
	checked := 0
	for _, o := range h.objs {
		i := d.Lookup(addr(o))
		if i < 0 {
			t.Fatalf("object at %#x missing from the dump", addr(o))
		}
		if o.kind != ddm.KindClass && o.units >= 2 {
			checked++
			if got := d.Size(i); got != o.units*unitSize {
				t.Errorf("%s at %#x: %d bytes in the dump, %d in the heap map", d.ClassName(i), addr(o), got, o.units*unitSize)
			}
		}
	}
	roots, _ := d.Roots()
	if len(roots) != len(h.objs) || checked < 1000 {
		t.Errorf("%d roots for %d objects; %d sizes checked", len(roots), len(h.objs), checked)
	}
}
