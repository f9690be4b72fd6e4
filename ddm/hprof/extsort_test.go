package hprof

import (
	"cmp"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// TestRunSorter: records added in any order come back sorted, held in
// memory or written in runs of any length and merged, read twice; the
// records a truncate drops are gone, and the runs leave no name behind.
func TestRunSorter(t *testing.T) {
	type rec struct {
		k uint64
		i int32
	}
	byKey := func(a, b rec) int {
		if a.k != b.k {
			return cmp.Compare(a.k, b.k)
		}
		return cmp.Compare(a.i, b.i)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 1000} {
		for _, budget := range []int64{1, 16, 100, 1 << 20} {
			dir := t.TempDir()
			s := newRunSorter(budget, dir, "a test", byKey)
			var want []rec
			for i := range n {
				r := rec{rng.Uint64N(50), int32(i)}
				if err := s.room(2); err != nil {
					t.Fatal(err)
				}
				s.add(r)
				if i%5 == 4 {
					// A second record, dropped again.
					s.add(rec{7, -1})
					s.truncate(s.total - 1)
				}
				want = append(want, r)
			}
			slices.SortFunc(want, byKey)
			for pass := range 2 {
				it, err := s.iter(64)
				if err != nil {
					t.Fatal(err)
				}
				var got []rec
				for r, ok := it.next(); ok; r, ok = it.next() {
					got = append(got, r)
				}
				if it.err != nil || !slices.Equal(got, want) {
					t.Fatalf("%d records in %d bytes, pass %d: %d back (%v), want %d sorted", n, budget, pass, len(got), it.err, len(want))
				}
			}
			if limit := max(1, int(budget/16)); n > 2*limit && len(s.runs) < 2 || n < limit/2 && len(s.runs) > 0 {
				t.Errorf("%d records in %d bytes: %d runs", n, budget, len(s.runs))
			}
			if names, _ := os.ReadDir(dir); len(names) > 0 {
				t.Errorf("the runs left %v", names)
			}
			s.close()
		}
	}
}
