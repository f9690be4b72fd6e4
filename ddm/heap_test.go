package ddm

import (
	"bytes"
	"errors"
	"image/png"
	"math/rand/v2"
	"testing"
)

func TestRunsRoundTripWithPartials(t *testing.T) {
	blocks := []Block{{KindArray1, SolidHard, 1000}, {KindObject, SolidFree, 256}, {KindClass, SolidWeak, 257}, {KindObject, SolidHard, 1}}
	runs := AppendRuns(nil, blocks)
	// 1000 = 256+256+256+232 → 4 pairs; 256 → 1; 257 → 2; 1 → 1.
	if len(runs) != 2*8 {
		t.Fatalf("%d run bytes: % X", len(runs), runs)
	}
	if runs[0] != 0x91 || runs[1] != 0xFF || runs[6] != 0x11 || runs[7] != 231 {
		t.Errorf("partial encoding: % X", runs[:8])
	}
	got, total, err := DecodeRuns(runs)
	if err != nil || total != 1514 {
		t.Fatalf("total %d err %v", total, err)
	}
	wantEqual(t, got, blocks)
}

func TestRunsRejected(t *testing.T) {
	for name, runs := range map[string][]byte{
		"odd length":            {0x01},
		"dangling partial":      {0x81, 0xFF},
		"partial state changes": {0x89, 0xFF, 0x01, 0x00},
		"unused bit":            {0x41, 0x00},
	} {
		if _, _, err := DecodeRuns(runs); !errors.Is(err, ErrBadSegment) {
			t.Errorf("%s: %v, want ErrBadSegment", name, err)
		}
	}
	seg := &HeapSegment{Type: HPSG, HeapID: 1, UnitSize: 8, UnitCount: 7, Runs: []byte{1, 3, 0, 1}}
	if _, err := seg.Blocks(); !errors.Is(err, ErrBadSegment) {
		t.Errorf("unit count mismatch: %v", err)
	}
}

func TestHeapAssembly(t *testing.T) {
	var a HeapAssembler
	feed := func(m Message) (*HeapMap, error) {
		t.Helper()
		// Go through the wire to exercise the decoders too.
		d, err := Decode(Encode(m), FromVM)
		if err != nil {
			t.Fatal(err)
		}
		return a.Add(d)
	}
	seg := func(start uint32, blocks ...Block) *HeapSegment {
		var n uint32
		for _, b := range blocks {
			n += b.Units
		}
		return &HeapSegment{Type: HPSO, HeapID: 1, UnitSize: 8, Start: start, UnitCount: n, Runs: AppendRuns(nil, blocks)}
	}
	hard := func(k Kind, n uint32) Block { return Block{k, SolidHard, n} }
	free := Block{KindObject, SolidFree, 4}

	feed(&HeapDumpStart{HeapID: 1})
	feed(&HeapDumpStart{Native: true, HeapID: 1}) // interleaved native dump
	// Out of order, touching pieces at 0x1000 (+0x40) and 0x1040, and a far one.
	feed(seg(0x1040, hard(KindArray4, 300), free))
	feed(seg(0x1000, hard(KindObject, 4), hard(KindClass, 4)))
	feed(seg(0x9000, hard(KindArray8, 2)))
	bad := seg(0xA000, hard(KindObject, 4))
	bad.UnitCount = 5
	if _, err := feed(bad); !errors.Is(err, ErrBadSegment) {
		t.Errorf("bad piece: %v", err)
	}
	feed(&HeapSegment{Type: NHSG, HeapID: 1, UnitSize: 8, Start: 0x7000, UnitCount: 3, Runs: AppendRuns(nil, []Block{{KindNative, SolidHard, 2}, {KindObject, SolidFree, 1}})})
	m, err := feed(&HeapDumpEnd{HeapID: 1})
	if err != nil || m == nil {
		t.Fatalf("HPEN: %v %v", m, err)
	}
	if !m.Complete || m.Native || !m.PerObject || len(m.Rejected) != 1 || len(m.Pieces) != 2 {
		t.Fatalf("map: %+v", m)
	}
	p := m.Pieces[0]
	if p.Start != 0x1000 || p.Units != 312 || len(p.Blocks) != 4 || p.End() != 0x1000+312*8 {
		t.Errorf("merged piece: %+v", p)
	}
	tot := m.Totals()
	if tot.Bytes != 314*8 || tot.Free != (Count{1, 32}) || tot.ByKind[KindArray4] != (Count{1, 2400}) ||
		tot.ByKind[KindClass] != (Count{1, 32}) || tot.BySolidity[SolidHard] != (Count{4, 310 * 8}) {
		t.Errorf("totals: %+v", tot)
	}

	nm, err := feed(&HeapDumpEnd{Native: true, HeapID: 1})
	if err != nil || !nm.Native || len(nm.Pieces) != 1 || nm.Totals().ByKind[KindNative] != (Count{1, 16}) {
		t.Errorf("native map: %+v %v", nm, err)
	}

	// Rendering: 256 px wide, one unit per pixel: 312 units → 2 rows, a grey separator, 1 row.
	img := m.Image(RenderOptions{})
	if b := img.Bounds(); b.Dx() != 256 || b.Dy() != 4 {
		t.Fatalf("image bounds %v", b)
	}
	checks := []struct {
		x, y int
		want Block
	}{
		{0, 0, hard(KindObject, 1)}, {4, 0, hard(KindClass, 1)}, {8, 0, hard(KindArray4, 1)},
		{308 - 256, 1, free}, {0, 3, hard(KindArray8, 1)},
	}
	for _, c := range checks {
		if got := img.RGBAAt(c.x, c.y); got != BlockColor(c.want) {
			t.Errorf("pixel (%d,%d) = %v, want %v (%v)", c.x, c.y, got, BlockColor(c.want), c.want)
		}
	}
	if got := img.RGBAAt(0, 2); got != colorGap {
		t.Errorf("separator row: %v", got)
	}
	if got := img.RGBAAt(100, 3); got != colorGap {
		t.Errorf("after last piece: %v", got)
	}
	var buf bytes.Buffer
	if err := m.WritePNG(&buf, RenderOptions{Width: 64, UnitsPerPixel: 2}); err != nil {
		t.Fatal(err)
	}
	dec, err := png.Decode(&buf)
	if err != nil || dec.Bounds().Dx() != 64 || dec.Bounds().Dy() != 3+1+1 {
		t.Errorf("PNG: %v %v", dec.Bounds(), err)
	}
	// Many pieces cannot be scaled below one row each; rendering must still end.
	many := &HeapMap{}
	for i := range 50 {
		many.Pieces = append(many.Pieces, Piece{Start: uint64(i) * 0x10000, UnitSize: 8, Units: 1, Blocks: []Block{{KindObject, SolidHard, 1}}})
	}
	if img := many.Image(RenderOptions{Width: 4, MaxRows: 10}); img.Bounds().Dy() != 99 {
		t.Errorf("50 one-unit pieces: %v", img.Bounds())
	}
	// Auto scale keeps the image under MaxRows.
	if img := m.Image(RenderOptions{Width: 8, MaxRows: 10}); img.Bounds().Dy() > 10 {
		t.Errorf("auto scale: %v", img.Bounds())
	}
}

func TestBlockColors(t *testing.T) {
	if BlockColor(Block{KindArray1, SolidHard, 1}) != kindColor[KindArray1] {
		t.Error("hard blocks use the DDMS colour")
	}
	weak := BlockColor(Block{KindObject, SolidWeak, 1})
	if weak == kindColor[KindObject] || weak.B != 255 || weak.R == 0 {
		t.Errorf("weak object colour %v should be a paler blue", weak)
	}
	if BlockColor(Block{KindClass, SolidFree, 1}) != colorFree {
		t.Error("free is black")
	}
	if l := Legend(); len(l) != 10 || l[2].Label != "object" {
		t.Errorf("legend %v", l)
	}
}

// TestRunCountsAcrossWindows: the packed per-state counters give the same
// blocks and totals however often they are flushed, partial runs crossing
// a flush included.
func TestRunCountsAcrossWindows(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var blocks []Block
	for range 3000 {
		b := Block{Kind: Kind(r.IntN(8)), Solidity: Solidity(r.IntN(8)), Units: uint32(1 + r.IntN(40))}
		if r.IntN(20) == 0 {
			b.Units = uint32(257 + r.IntN(3000)) // partial runs
		}
		if n := len(blocks); n > 0 && blocks[n-1].Kind == b.Kind && blocks[n-1].Solidity == b.Solidity {
			continue
		}
		blocks = append(blocks, b)
	}
	runs := AppendRuns(nil, blocks)
	var want stateCounts
	var units uint64
	for _, b := range blocks {
		st := int(b.Kind)<<3 | int(b.Solidity)
		want.blocks[st]++
		want.units[st] += uint64(b.Units)
		units += uint64(b.Units)
	}
	defer func(w int) { countWindow = w }(countWindow)
	for _, w := range []int{2, 6, 64, 1000, 1 << 24} {
		countWindow = w
		var c stateCounts
		got, total, err := c.decode(nil, runs)
		if err != nil {
			t.Fatal(err)
		}
		if total != units || c != want {
			t.Fatalf("window %d: total %d (want %d), counts differ", w, total, units)
		}
		wantEqual(t, got, blocks)
	}
}
