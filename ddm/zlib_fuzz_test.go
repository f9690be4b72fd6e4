package ddm

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// zlibBound is the inflate bound the ZLIB fuzz target and tests parse with.
const zlibBound = 1 << 20

// zlibBomb is one DDM payload of count ZLIB chunks, each of which inflates
// to size zero bytes (a few hundred bytes compressed each).
func zlibBomb(count, size int) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(make([]byte, size))
	zw.Close()
	data := binary.BigEndian.AppendUint32(nil, uint32(HPDS))
	data = binary.BigEndian.AppendUint32(data, uint32(size))
	data = append(data, z.Bytes()...)
	cs := make([]Chunk, count)
	for i := range cs {
		cs[i] = Chunk{Type: ZLIB, Data: data}
	}
	return EncodeChunks(cs...)
}

// zlibSeeds are the ZLIB fuzz target's seeds: bombs of many chunks each
// under the bound, one at the bound, and ordinary compressed chunks.
func zlibSeeds() [][]byte {
	return [][]byte{
		zlibBomb(3, zlibBound/2),
		zlibBomb(64, zlibBound/8),
		zlibBomb(1, zlibBound),
		EncodeChunks(Compress(Encode(&ThreadName{ID: 1, Name: "main"})), Encode(&Wait{})),
		EncodeChunks(Compress(Encode(&ThreadStatus{Layout: LayoutDraft, Threads: []ThreadInfo{{ID: 1, Status: 1}}}))),
	}
}

// FuzzParseChunksZLIB: whatever a payload holds, the chunks ParseChunks
// returns (all of them, also with an error) take at most the inflate bound
// beyond the payload itself: the decompressed-size oracle of issue 25, where
// three packets of many small ZLIB chunks each inflated to gigabytes.
func FuzzParseChunksZLIB(f *testing.F) {
	for _, s := range zlibSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		cs, _ := ParseChunks(payload, ParseOptions{MaxInflated: zlibBound})
		total := 0
		for _, c := range cs {
			total += len(c.Data)
		}
		if total > zlibBound+len(payload) {
			t.Fatalf("%d chunks of %d bytes in all from a %d-byte payload; the bound is %d inflated", len(cs), total, len(payload), zlibBound)
		}
	})
}

// TestZLIBBombBounded: one packet of many ZLIB chunks, each under the
// bound, is refused once their sum passes it, with an error that says so;
// chunks within the bound in all still parse.
func TestZLIBBombBounded(t *testing.T) {
	cs, err := ParseChunks(zlibBomb(3, zlibBound/2), ParseOptions{MaxInflated: zlibBound})
	if !errors.Is(err, ErrTooLarge) || len(cs) != 2 {
		t.Fatalf("3 chunks of half the bound: %d chunks, %v; want 2 and ErrTooLarge", len(cs), err)
	}
	t.Log(err)
	cs, err = ParseChunks(zlibBomb(2, zlibBound/2), ParseOptions{MaxInflated: zlibBound})
	if err != nil || len(cs) != 2 || len(cs[1].Data) != zlibBound/2 {
		t.Fatalf("2 chunks of half the bound: %d chunks, %v; want both", len(cs), err)
	}
	// The default bound holds for the sum as well.
	if _, err := ParseChunks(zlibBomb(2, DefaultMaxInflated/2+1), ParseOptions{}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("2 chunks of half the default bound and a byte: %v; want ErrTooLarge", err)
	}
}

// TestWriteZLIBFuzzCorpus writes FuzzParseChunksZLIB's seeds to
// testdata/fuzz (DDM_WRITE_CORPUS=1).
func TestWriteZLIBFuzzCorpus(t *testing.T) {
	if os.Getenv("DDM_WRITE_CORPUS") == "" {
		t.Skip("set DDM_WRITE_CORPUS=1 to regenerate testdata/fuzz")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzParseChunksZLIB")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, in := range zlibSeeds() {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", in)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%03d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
