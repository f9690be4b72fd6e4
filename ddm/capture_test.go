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
