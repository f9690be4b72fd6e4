package ddm

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// TestDecodeBounds: a string longer than MaxStringUnits or a list longer
// than MaxListLen is refused before it is allocated (issue 25: huge names
// from a fake VM took the monitor to half a gigabyte); one at the bound
// decodes.
func TestDecodeBounds(t *testing.T) {
	name := strings.Repeat("n", MaxStringUnits)
	ok := Encode(&ThreadName{ID: 1, Name: name})
	if m, err := Decode(ok, FromVM); err != nil || m.(*ThreadName).Name != name {
		t.Fatalf("THCR with a name of %d units: %v", MaxStringUnits, err)
	}
	long := Encode(&ThreadName{ID: 1, Name: name + "n"})
	if _, err := Decode(long, FromVM); !errors.Is(err, ErrTooLong) {
		t.Fatalf("THCR with a name of %d units: %v; want ErrTooLong", MaxStringUnits+1, err)
	}

	feat := binary.BigEndian.AppendUint32(nil, MaxListLen+1)
	feat = append(feat, make([]byte, 4*(MaxListLen+1))...) // that many empty strings
	if _, err := Decode(Chunk{Type: FEAT, Data: feat}, FromVM); !errors.Is(err, ErrTooLong) {
		t.Fatalf("FEAT with %d strings: %v; want ErrTooLong", MaxListLen+1, err)
	}
	binary.BigEndian.PutUint32(feat, MaxListLen)
	if m, err := Decode(Chunk{Type: FEAT, Data: feat[:len(feat)-4]}, FromVM); err != nil || len(m.(*Features).Names) != MaxListLen {
		t.Fatalf("FEAT with %d strings: %v", MaxListLen, err)
	}
}

// TestModelThreadsBounded: a VM announcing ever new threads cannot make the
// model keep more than MaxThreads of them.
func TestModelThreadsBounded(t *testing.T) {
	d := NewClientData()
	for id := range uint32(MaxThreads + 100) {
		if _, err := d.Apply(&ThreadName{ID: id, Name: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(d.Threads()); n != MaxThreads {
		t.Fatalf("the model keeps %d threads; want the bound %d", n, MaxThreads)
	}
}

// TestHeapAssemblerBounded: heap segments a VM sends cannot make the
// assembler hold more than MaxHeapMapBlocks blocks of one map, nor more
// than a few maps at once, nor an error per rejected piece.
func TestHeapAssemblerBounded(t *testing.T) {
	var a HeapAssembler
	for id := range uint32(maxOpenHeapMaps) {
		if _, err := a.Add(&HeapDumpStart{HeapID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Add(&HeapDumpStart{HeapID: 999}); !errors.Is(err, ErrTooLong) {
		t.Fatalf("map %d at once: %v; want ErrTooLong", maxOpenHeapMaps+1, err)
	}
	if _, err := a.Add(&HeapSegment{Type: HPSG, HeapID: 998, UnitSize: 8}); !errors.Is(err, ErrTooLong) {
		t.Fatalf("a segment opening map %d: %v; want ErrTooLong", maxOpenHeapMaps+1, err)
	}

	// Half the bound and a bit, twice: the second piece is refused.
	n := MaxHeapMapBlocks/2 + 1
	runs := make([]byte, 2*n)
	for i := 0; i < len(runs); i += 2 {
		runs[i] = byte(1 + i/2%2) // alternating states: a block per run
	}
	seg := func(start uint32) *HeapSegment {
		return &HeapSegment{Type: HPSG, HeapID: 0, UnitSize: 8, Start: start, UnitCount: uint32(n), Runs: runs}
	}
	if _, err := a.Add(seg(0)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Add(seg(uint32(8 * n))); !errors.Is(err, ErrTooLong) {
		t.Fatalf("a map of %d blocks: %v; want ErrTooLong", 2*n, err)
	}
	for range 2 * maxRejected {
		a.Add(&HeapSegment{Type: HPSG, HeapID: 0, UnitSize: 8, Runs: []byte{1}}) // odd: invalid
	}
	hm, _ := a.Add(&HeapDumpEnd{HeapID: 0})
	if hm == nil || len(hm.Rejected) != maxRejected {
		t.Fatalf("map %v keeps %d errors; want the first %d", hm != nil, len(hm.Rejected), maxRejected)
	}
}
