package ddm

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
)

// A capture file is a recording of DDM traffic: chunks back to back, each
// u4 type, u4 length, data (no JDWP framing). `ddmbridge bench heap` decodes
// captures of heap maps (HPST, HPSG…, HPEN).

// ReadCapture splits a capture into its chunks; the chunks' data alias b.
func ReadCapture(b []byte) ([]Chunk, error) {
	var out []Chunk
	for off := 0; off < len(b); {
		if len(b)-off < 8 {
			return nil, fmt.Errorf("ddm: capture: %d stray bytes at offset %d", len(b)-off, off)
		}
		t, n := Type(binary.BigEndian.Uint32(b[off:])), int(binary.BigEndian.Uint32(b[off+4:]))
		off += 8
		if n > len(b)-off {
			return nil, fmt.Errorf("ddm: capture: chunk %s at offset %d claims %d bytes, %d left", t, off-8, n, len(b)-off)
		}
		out = append(out, Chunk{Type: t, Data: b[off : off+n : off+n]})
		off += n
	}
	return out, nil
}

// CaptureStats is what DecodeCapture found.
type CaptureStats struct {
	Maps     []*HeapMap
	Units    uint64 // allocation units the segments cover
	RunBytes uint64 // bytes of run lists decoded
	Totals   Totals // over all maps
}

// DecodeCapture decodes a capture's heap chunks into heap maps with a
// [HeapAssembler] and totals them; other chunks are ignored.
func DecodeCapture(chunks []Chunk) (CaptureStats, error) {
	var d CaptureDecoder
	return d.Decode(chunks)
}

// CaptureDecoder is [DecodeCapture] keeping its block array from one Decode
// to the next: the maps a Decode returns share it and are valid until the
// next Decode.
type CaptureDecoder struct {
	arena []Block
}

// segmentHeaderLen is the fixed part of HPSG/HPSO/NHSG: heap id, unit size,
// start, offset, unit count.
const segmentHeaderLen = 4 + 1 + 4 + 4 + 4

// Decode decodes chunks as DecodeCapture does. Heap segments are read in
// place: the header straight from the chunk, the run list decoded from the
// chunk's bytes (not copied) into one block array for the whole capture,
// counting the totals as it goes.
func (d *CaptureDecoder) Decode(chunks []Chunk) (CaptureStats, error) {
	var st CaptureStats
	var a HeapAssembler
	// Every piece's run list is known up front: one array for all blocks.
	runs := 0
	for _, c := range chunks {
		if c.Type == HPSG || c.Type == HPSO || c.Type == NHSG {
			runs += max(len(c.Data)-segmentHeaderLen, 0) / 2
		}
	}
	a.Reserve(runs)
	a.reuse, d.arena = d.arena, nil
	var seg HeapSegment
	for _, c := range chunks {
		switch c.Type {
		case HPSG, HPSO, NHSG:
			if b := c.Data; len(b) >= segmentHeaderLen {
				seg = HeapSegment{
					Type:      c.Type,
					HeapID:    binary.BigEndian.Uint32(b),
					UnitSize:  b[4],
					Start:     binary.BigEndian.Uint32(b[5:]),
					Offset:    binary.BigEndian.Uint32(b[9:]),
					UnitCount: binary.BigEndian.Uint32(b[13:]),
					Runs:      b[segmentHeaderLen:],
				}
				st.Units += uint64(seg.UnitCount)
				st.RunBytes += uint64(len(seg.Runs))
				if err := a.addSegment(&seg); err != nil {
					return st, err
				}
				continue
			}
		case HPST, HPEN, NHST, NHEN:
		default:
			continue
		}
		m, err := Decode(c, FromVM)
		if err != nil {
			return st, err
		}
		if s, ok := m.(*HeapSegment); ok {
			st.Units += uint64(s.UnitCount)
			st.RunBytes += uint64(len(s.Runs))
		}
		hm, err := a.Add(m)
		if err != nil {
			return st, err
		}
		if hm != nil {
			st.Maps = append(st.Maps, hm)
		}
	}
	for _, m := range st.Maps {
		if cap(m.arena) > cap(d.arena) {
			d.arena = m.arena
		}
		t := m.addedTotals()
		st.Totals.Bytes += t.Bytes
		st.Totals.Free.Blocks += t.Free.Blocks
		st.Totals.Free.Bytes += t.Free.Bytes
		for k := range t.ByKind {
			st.Totals.ByKind[k].Blocks += t.ByKind[k].Blocks
			st.Totals.ByKind[k].Bytes += t.ByKind[k].Bytes
			st.Totals.BySolidity[k].Blocks += t.BySolidity[k].Blocks
			st.Totals.BySolidity[k].Bytes += t.BySolidity[k].Bytes
		}
	}
	return st, nil
}

// WriteSyntheticCapture writes a capture of an ART-like heap of heapBytes
// (8-byte units from 0x12C00000): HPST, HPSG pieces whose run lists are
// about 16 KiB, HPEN. Objects are mostly small instances, then arrays of
// every element size, some class objects, large arrays split into partial
// runs and free gaps, in proportions like a running app's; adjacent objects
// of one kind share a run, as ART merges them. The same seed gives the same
// file.
func WriteSyntheticCapture(w io.Writer, heapBytes uint64, seed uint64) error {
	const unit, base, pieceRuns = 8, 0x12C00000, 16 << 10
	if heapBytes > 1<<32-base {
		return fmt.Errorf("ddm: a synthetic heap of %d bytes does not fit HPSG's 32-bit addresses", heapBytes)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	r := rand.New(rand.NewPCG(seed, 0x48505347))
	write := func(m Message) {
		c := Encode(m)
		var h [8]byte
		binary.BigEndian.PutUint32(h[:], uint32(c.Type))
		binary.BigEndian.PutUint32(h[4:], uint32(len(c.Data)))
		bw.Write(h[:])
		bw.Write(c.Data)
	}
	write(&HeapDumpStart{HeapID: 1})
	total := heapBytes / unit
	var runs []byte
	var blocks []Block
	start, units := uint64(0), uint64(0)
	flush := func() {
		if units == 0 {
			return
		}
		runs = AppendRuns(runs[:0], blocks)
		write(&HeapSegment{Type: HPSG, HeapID: 1, UnitSize: unit, Start: base, Offset: uint32(start * unit), UnitCount: uint32(units), Runs: runs})
		start += units
		units, blocks = 0, blocks[:0]
	}
	runBytes := 0
	for start+units < total {
		var b Block
		switch p := r.IntN(100); {
		case p < 55:
			b = Block{Kind: KindObject, Solidity: SolidHard, Units: uint32(2 + r.IntN(6))}
		case p < 65:
			b = Block{Kind: KindArray1, Solidity: SolidHard, Units: uint32(2 + r.IntN(12))}
		case p < 73:
			b = Block{Kind: KindArray2, Solidity: SolidHard, Units: uint32(2 + r.IntN(10))}
		case p < 85:
			b = Block{Kind: KindArray4, Solidity: SolidHard, Units: uint32(2 + r.IntN(16))}
		case p < 88:
			b = Block{Kind: KindArray8, Solidity: SolidHard, Units: uint32(2 + r.IntN(16))}
		case p < 90:
			b = Block{Kind: KindClass, Solidity: SolidHard, Units: uint32(8 + r.IntN(64))}
		case p < 91:
			b = Block{Kind: KindArray1, Solidity: SolidHard, Units: uint32(512 + r.IntN(4096))} // a bitmap or buffer
		case p < 93:
			b = Block{Kind: KindObject, Solidity: SolidSoft + Solidity(r.IntN(3)), Units: uint32(2 + r.IntN(6))}
		default:
			b = Block{Kind: KindObject, Solidity: SolidFree, Units: uint32(1 + r.IntN(32))}
		}
		b.Units = uint32(min(uint64(b.Units), total-start-units))
		if n := len(blocks); n > 0 && blocks[n-1].Kind == b.Kind && blocks[n-1].Solidity == b.Solidity {
			blocks[n-1].Units += b.Units
		} else {
			blocks = append(blocks, b)
			runBytes += 2 * int((b.Units+255)/256)
		}
		units += uint64(b.Units)
		if runBytes >= pieceRuns {
			flush()
			runBytes = 0
		}
	}
	flush()
	write(&HeapDumpEnd{HeapID: 1})
	return bw.Flush()
}
