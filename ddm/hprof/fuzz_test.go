package hprof

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the parser and, when they parse, runs
// every analysis over the result. Seed corpus: testdata/fuzz/FuzzParse;
// regenerate it with HPROF_WRITE_CORPUS=1 go test -run TestWriteFuzzCorpus.
func FuzzParse(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		h, err := Parse(bytes.NewReader(in), Options{MaxObjects: 1 << 16, Strings: true})
		if err != nil {
			return
		}
		h.Histogram()
		h.Biggest(3)
		d := h.Dominators()
		d.Biggest(3)
		d.Children(Root, 3)
		if h.NumObjects() > 0 {
			h.PathFromRoot(int32(h.NumObjects() - 1))
			h.PathTo(int32(h.NumObjects()-1), 4, bytes.NewReader(in))
			h.Incoming("/d", int32(h.NumObjects()-1), 0, 5, d, bytes.NewReader(in))
		}
		d.ClassRetained("/d")
		h.Map(MapOptions{})
		if _, err := h.DuplicateStrings(bytes.NewReader(in), 3); err != nil {
			t.Fatalf("contents of a parsed dump unreadable: %v", err)
		}
	})
}

func seeds(t testing.TB) [][]byte {
	s := sample(t, 8, false)
	return [][]byte{s, sample(t, 4, false), sample(t, 8, true), s[:len(s)-40], dupIDs(t), weakDump(t, 20)}
}

func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("HPROF_WRITE_CORPUS") == "" {
		t.Skip("set HPROF_WRITE_CORPUS=1 to rewrite testdata/fuzz/FuzzParse and FuzzFieldOf")
	}
	for target, corpus := range map[string][][]byte{"FuzzParse": seeds(t), "FuzzFieldOf": fieldSeeds(t)} {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, s := range corpus {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%d", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
