package ddm

import (
	"bytes"
	"testing"
)

func TestSyntheticCapture(t *testing.T) {
	var buf bytes.Buffer
	const size = 8 << 20
	if err := WriteSyntheticCapture(&buf, size, 7); err != nil {
		t.Fatal(err)
	}
	chunks, err := ReadCapture(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if chunks[0].Type != HPST || chunks[len(chunks)-1].Type != HPEN || len(chunks) < 4 {
		t.Fatalf("%d chunks from %s to %s: want HPST, HPSG…, HPEN", len(chunks), chunks[0].Type, chunks[len(chunks)-1].Type)
	}
	st, err := DecodeCapture(chunks)
	if err != nil {
		t.Fatal(err)
	}
	if st.Units != size/8 || st.Totals.Bytes != size || len(st.Maps) != 1 || len(st.Maps[0].Pieces) != 1 {
		t.Errorf("units %d (want %d), bytes %d, %d maps: want one contiguous %d-byte map", st.Units, size/8, st.Totals.Bytes, len(st.Maps), size)
	}
	var kinds uint64
	for _, c := range st.Totals.ByKind {
		kinds += c.Bytes
	}
	if kinds+st.Totals.Free.Bytes != size || st.Totals.ByKind[KindObject].Bytes == 0 || st.Totals.ByKind[KindClass].Bytes == 0 || st.Totals.Free.Bytes == 0 {
		t.Errorf("totals %+v", st.Totals)
	}
	// The same seed gives the same file.
	var again bytes.Buffer
	WriteSyntheticCapture(&again, size, 7)
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("the generator is not deterministic")
	}
	for _, bad := range [][]byte{{0, 0, 0}, {'H', 'P', 'S', 'G', 0, 0, 0, 9, 1}} {
		if _, err := ReadCapture(bad); err == nil {
			t.Errorf("ReadCapture(%q): no error", bad)
		}
	}
}

// TestDecodeCaptureFastPath: the in-place decoder (header read from the
// chunk, totals counted while decoding, the block array reused) agrees with
// decoding every chunk with Decode, assembling with HeapAssembler.Add and
// totalling with HeapMap.Totals.
func TestDecodeCaptureFastPath(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSyntheticCapture(&buf, 16<<20, 3); err != nil {
		t.Fatal(err)
	}
	// A second, native heap in two touching pieces and one apart, with
	// partial runs, free space and a segment of 4-byte units.
	extra := []Message{
		&HeapDumpStart{HeapID: 2, Native: true},
		&HeapSegment{Type: NHSG, HeapID: 2, UnitSize: 4, Start: 0x1000, UnitCount: 300, Runs: AppendRuns(nil, []Block{{KindNative, SolidHard, 290}, {KindObject, SolidFree, 10}})},
		&HeapSegment{Type: NHSG, HeapID: 2, UnitSize: 4, Start: 0x1000, Offset: 1200, UnitCount: 5, Runs: AppendRuns(nil, []Block{{KindNative, SolidWeak, 5}})},
		&HeapSegment{Type: NHSG, HeapID: 2, UnitSize: 8, Start: 0x9000, UnitCount: 1, Runs: AppendRuns(nil, []Block{{KindClass, SolidHard, 1}})},
		&HeapDumpEnd{HeapID: 2, Native: true},
	}
	for _, m := range extra {
		c := Encode(m)
		buf.Write([]byte{byte(c.Type >> 24), byte(c.Type >> 16), byte(c.Type >> 8), byte(c.Type), 0, 0, byte(len(c.Data) >> 8), byte(len(c.Data))})
		buf.Write(c.Data)
	}
	chunks, err := ReadCapture(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// The reference: message by message.
	var a HeapAssembler
	var want CaptureStats
	for _, c := range chunks {
		m, err := Decode(c, FromVM)
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := m.(*HeapSegment); ok {
			want.Units += uint64(s.UnitCount)
			want.RunBytes += uint64(len(s.Runs))
		}
		hm, err := a.Add(m)
		if err != nil {
			t.Fatal(err)
		}
		if hm != nil {
			want.Maps = append(want.Maps, hm)
			tot := hm.Totals()
			want.Totals.Bytes += tot.Bytes
			want.Totals.Free.Blocks += tot.Free.Blocks
			want.Totals.Free.Bytes += tot.Free.Bytes
			for k := range tot.ByKind {
				want.Totals.ByKind[k].Blocks += tot.ByKind[k].Blocks
				want.Totals.ByKind[k].Bytes += tot.ByKind[k].Bytes
				want.Totals.BySolidity[k].Blocks += tot.BySolidity[k].Blocks
				want.Totals.BySolidity[k].Bytes += tot.BySolidity[k].Bytes
			}
		}
	}
	var d CaptureDecoder
	for run := range 3 { // the second and third reuse the block array
		got, err := d.Decode(chunks)
		if err != nil {
			t.Fatal(err)
		}
		if got.Units != want.Units || got.RunBytes != want.RunBytes || got.Totals != want.Totals || len(got.Maps) != len(want.Maps) {
			t.Fatalf("run %d: units %d bytes %d totals %+v, %d maps; want %d %d %+v, %d maps", run, got.Units, got.RunBytes, got.Totals, len(got.Maps), want.Units, want.RunBytes, want.Totals, len(want.Maps))
		}
		for i, m := range got.Maps {
			w := want.Maps[i]
			if m.HeapID != w.HeapID || m.Native != w.Native || m.PerObject != w.PerObject || len(m.Pieces) != len(w.Pieces) || m.Totals() != w.Totals() {
				t.Fatalf("run %d map %d: %+v, want %+v", run, i, m, w)
			}
			for k, p := range m.Pieces {
				q := w.Pieces[k]
				if p.Start != q.Start || p.UnitSize != q.UnitSize || p.Units != q.Units {
					t.Fatalf("run %d map %d piece %d: %+v, want %+v", run, i, k, p, q)
				}
				wantEqual(t, p.Blocks, q.Blocks)
			}
		}
	}
	if len(want.Maps) != 2 || len(want.Maps[1].Pieces) != 2 {
		t.Errorf("%d maps: want the synthetic heap and the native one in two pieces", len(want.Maps))
	}
}

// BenchmarkDecodeCapture: a 256 MiB synthetic heap's capture, decoded
// into heap maps with totals; allocations are per capture, not per run.
func BenchmarkDecodeCapture(b *testing.B) {
	var buf bytes.Buffer
	if err := WriteSyntheticCapture(&buf, 256<<20, 1); err != nil {
		b.Fatal(err)
	}
	chunks, err := ReadCapture(buf.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	var d CaptureDecoder
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		st, err := d.Decode(chunks)
		if err != nil || st.Units == 0 {
			b.Fatal(err)
		}
	}
}

func FuzzDecodeCapture(f *testing.F) {
	var buf bytes.Buffer
	WriteSyntheticCapture(&buf, 64<<10, 1)
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		chunks, err := ReadCapture(in)
		if err != nil {
			return
		}
		DecodeCapture(chunks)
	})
}
