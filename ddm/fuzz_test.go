package ddm

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Fuzz targets for every decoder. Seed corpora live in testdata/fuzz/<target>;
// regenerate them with DDM_WRITE_CORPUS=1 go test -run TestWriteFuzzCorpus.

// decodeInput packs a chunk type, a direction and data into one fuzz input.
func decodeInput(t Type, dir Direction, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(t))
	return append(append(b, byte(dir)), data...)
}

func FuzzDecode(f *testing.F) {
	for _, s := range samples() {
		ch := Encode(s.m)
		f.Add(decodeInput(ch.Type, s.dir, ch.Data))
	}
	keys := make([]regKey, 0, len(registry))
	for k := range registry {
		keys = append(keys, k)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 5 {
			return
		}
		ty, dir, data := Type(binary.BigEndian.Uint32(in)), Direction(in[4]&1), in[5:]
		if !Known(ty, dir) {
			// Spread unknown types over the registry so every decoder sees every input.
			k := keys[int(uint32(ty)%uint32(len(keys)))]
			ty, dir = k.t, k.dir
		}
		m, err := Decode(Chunk{ty, data}, dir)
		if err != nil {
			return
		}
		// Whatever decodes must re-encode to something that decodes the same.
		again, err := Decode(Encode(m), dir)
		if err != nil {
			t.Fatalf("%s re-encoded does not decode: %v (%#v)", ty, err, m)
		}
		if !reflect.DeepEqual(m, again) {
			t.Fatalf("%s unstable:\n%#v\n%#v", ty, m, again)
		}
		if seg, ok := m.(*HeapSegment); ok {
			seg.Blocks()
		}
	})
}

func FuzzParseChunks(f *testing.F) {
	f.Add(EncodeChunks(Encode(&Wait{}), Encode(&ThreadDied{ID: 2})))
	f.Add(EncodeChunks(Compress(Encode(&ThreadName{ID: 1, Name: "main"}))))
	f.Add([]byte{})
	f.Add([]byte("ZLIB\x00\x00\x00\x09THST\x00\x00\x00\x04\x78"))
	f.Fuzz(func(t *testing.T, payload []byte) {
		cs, err := ParseChunks(payload, ParseOptions{MaxInflated: 1 << 20})
		if err != nil {
			return
		}
		for _, c := range cs {
			if len(c.Data) > max(1<<20, len(payload)) {
				t.Fatalf("chunk %s of %d bytes exceeds the inflate bound", c.Type, len(c.Data))
			}
		}
	})
}

func FuzzDecodeRuns(f *testing.F) {
	f.Add([]byte{0x99, 0xFF, 0x19, 0x2B, 0x09, 0x08})
	f.Add([]byte{0x01, 0x03, 0x00, 0x01})
	f.Add(AppendRuns(nil, []Block{{KindArray8, SolidWeak, 600}}))
	f.Fuzz(func(t *testing.T, runs []byte) {
		blocks, total, err := DecodeRuns(runs)
		if err != nil {
			return
		}
		var sum uint64
		for _, b := range blocks {
			sum += uint64(b.Units)
		}
		if sum != total {
			t.Fatalf("blocks sum %d, total %d", sum, total)
		}
		// Re-encoding the blocks decodes to the same blocks.
		again, total2, err := DecodeRuns(AppendRuns(nil, blocks))
		if err != nil || total2 != total || !reflect.DeepEqual(again, blocks) {
			t.Fatalf("re-encode: %v %d %v", err, total2, again)
		}
	})
}

func FuzzReadStr16(f *testing.F) {
	f.Add(AppendStr16(nil, "héllo😀"))
	f.Add([]byte{0, 0, 0, 1, 0xD8, 0x00})
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0xFF})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, n, err := ReadStr16(b)
		if err != nil {
			return
		}
		if n > len(b) || n < 4 {
			t.Fatalf("consumed %d of %d", n, len(b))
		}
		if s2, _, err := ReadStr16(AppendStr16(nil, s)); err != nil || s2 != s {
			t.Fatalf("re-encode %q → %q %v", s, s2, err)
		}
	})
}

// FuzzHeapMap feeds a packet payload's chunks, as VM events, to a model and
// renders whatever heap maps result.
func FuzzHeapMap(f *testing.F) {
	seg := &HeapSegment{Type: HPSG, HeapID: 1, UnitSize: 8, Start: 0x1000, UnitCount: 300, Runs: AppendRuns(nil, []Block{{KindArray2, SolidHard, 300}})}
	f.Add(EncodeChunks(Encode(&HeapDumpStart{HeapID: 1}), Encode(seg), Encode(&HeapDumpEnd{HeapID: 1})))
	f.Add(EncodeChunks(Encode(&HeapSegment{Type: NHSG, HeapID: 2, UnitSize: 0, UnitCount: 1, Runs: []byte{0x39, 0}}), Encode(&HeapDumpEnd{Native: true, HeapID: 2})))
	f.Fuzz(func(t *testing.T, payload []byte) {
		cs, _ := ParseChunks(payload, ParseOptions{MaxInflated: 1 << 16})
		d := NewClientData()
		for _, c := range cs {
			if m, err := Decode(c, FromVM); err == nil {
				d.Apply(m)
			}
		}
		for _, native := range []bool{false, true} {
			for id := range uint32(4) {
				if hm := d.HeapMap(id, native); hm != nil {
					hm.Totals()
					hm.Image(RenderOptions{Width: 16, MaxRows: 64})
				}
			}
		}
	})
}

func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("DDM_WRITE_CORPUS") == "" {
		t.Skip("set DDM_WRITE_CORPUS=1 to regenerate testdata/fuzz")
	}
	write := func(target string, inputs ...[]byte) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, in := range inputs {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", in)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%03d", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var dec [][]byte
	for _, s := range samples() {
		ch := Encode(s.m)
		dec = append(dec, decodeInput(ch.Type, s.dir, ch.Data))
	}
	write("FuzzDecode", dec...)
	write("FuzzParseChunks", EncodeChunks(Encode(&Wait{}), Encode(&ThreadDied{ID: 2})), EncodeChunks(Compress(Encode(&ThreadStatus{Layout: LayoutDraft, Threads: []ThreadInfo{{ID: 1, Status: 1}}}))))
	write("FuzzDecodeRuns", []byte{0x99, 0xFF, 0x19, 0x2B, 0x09, 0x08}, []byte{0x01, 0x03, 0x00, 0x01})
	write("FuzzReadStr16", AppendStr16(nil, "main"), AppendStr16(nil, "😀"))
	seg := &HeapSegment{Type: HPSO, HeapID: 1, UnitSize: 8, Start: 0x12C00000, UnitCount: 309, Runs: []byte{0x99, 0xFF, 0x19, 0x2B, 0x09, 0x08}}
	write("FuzzHeapMap", EncodeChunks(Encode(&HeapDumpStart{HeapID: 1}), Encode(seg), Encode(&HeapDumpEnd{HeapID: 1})))
}
