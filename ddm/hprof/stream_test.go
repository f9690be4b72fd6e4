package hprof

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// streamMatches checks that StreamHistogram gives what Parse and
// Histogram give for dump: the same histogram, object count, layout and
// partial mark, or an error both ways.
func streamMatches(t *testing.T, name string, dump []byte, oops Oops) {
	t.Helper()
	h, perr := Parse(bytes.NewReader(dump), Options{Oops: oops})
	for _, seq := range []bool{false, true} {
		streamMatchesParse(t, fmt.Sprintf("%s (sequential %v)", name, seq), dump, oops, seq, h, perr)
	}
	dupsMatch(t, name, dump, oops)
}

// dupsMatch checks that a streamed pass keeping the strings finds the
// duplicate strings Parse's model finds (an error both ways, or the same
// list), but where the dump repeats object ids (a reference to such an id
// goes to the first object in the model, to the first array streamed).
func dupsMatch(t *testing.T, name string, dump []byte, oops Oops) {
	t.Helper()
	h, perr := Parse(bytes.NewReader(dump), Options{Oops: oops, Strings: true})
	s, serr := StreamHistogram(context.Background(), bytes.NewReader(dump), StreamOptions{Oops: oops, Strings: true})
	if (perr == nil) != (serr == nil) {
		t.Fatalf("%s: Parse with strings: %v; streamed with strings: %v", name, perr, serr)
	}
	if perr != nil {
		return
	}
	if !reflect.DeepEqual(s.Histogram, h.Histogram()) {
		t.Errorf("%s: the histogram streamed with strings differs", name)
	}
	for _, w := range h.Warnings {
		if strings.Contains(w, "have the id of an earlier object") {
			return
		}
	}
	want, werr := h.DuplicateStrings(bytes.NewReader(dump), 0)
	got, gerr := s.DuplicateStrings(bytes.NewReader(dump), 0)
	if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
		t.Errorf("%s: streamed duplicate strings %v (%v), the model's %v (%v)", name, got, gerr, want, werr)
	}
	// In runs of a record or a few (written to a temporary file and
	// merged), and a few groups asked: the same list.
	for _, budget := range []int64{1, 200} {
		dir := t.TempDir()
		s, serr := StreamHistogram(context.Background(), bytes.NewReader(dump), StreamOptions{Oops: oops, Strings: true, StringsMemory: budget, SpillDir: dir})
		if serr != nil {
			t.Fatalf("%s: streamed with strings in %d bytes: %v", name, budget, serr)
		}
		for _, n := range []int{0, 2} {
			want, werr := h.DuplicateStrings(bytes.NewReader(dump), n)
			got, gerr := s.DuplicateStrings(bytes.NewReader(dump), n)
			if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: streamed duplicate strings in %d bytes, %d asked: %v (%v), the model's %v (%v)", name, budget, n, got, gerr, want, werr)
			}
		}
		if d := s.dups; len(want) > 0 && (len(d.arrays.runs) < 2 || budget == 1 && len(d.refs.runs) < 2) {
			t.Errorf("%s: in %d bytes, the strings were not written in runs (%d runs of arrays)", name, budget, len(d.arrays.runs))
		}
		if names, err := os.ReadDir(dir); err != nil || len(names) > 0 && runtime.GOOS == "linux" {
			t.Errorf("%s: the runs' directory holds %v (%v), want nothing (O_TMPFILE)", name, names, err)
		}
		if d := s.dups; len(want) > 0 && (d.arrays.f == nil || budget == 1 && d.refs.f == nil) {
			t.Errorf("%s: in %d bytes, no runs' file open before Close", name, budget)
		}
		s.Close()
		if d := s.dups; d.arrays.f != nil || d.refs.f != nil {
			t.Errorf("%s: a runs' file still open after Close", name)
		}
		if _, err := s.DuplicateStrings(bytes.NewReader(dump), 0); err == nil && len(want) > 0 {
			t.Errorf("%s: duplicate strings after Close: no error", name)
		}
	}
}

// streamMatchesParse checks one streamed pass, on one goroutine or more,
// against Parse's h (or its error perr).
func streamMatchesParse(t *testing.T, name string, dump []byte, oops Oops, seq bool, h *Heap, perr error) {
	t.Helper()
	var last int64
	s, serr := StreamHistogram(context.Background(), bytes.NewReader(dump), StreamOptions{Oops: oops, sequential: seq, Progress: func(n int64) {
		if n < last || n > int64(len(dump)) {
			t.Errorf("%s: progress %d after %d, of %d bytes", name, n, last, len(dump))
		}
		last = n
	}})
	if (perr == nil) != (serr == nil) {
		t.Fatalf("%s: Parse: %v; StreamHistogram: %v", name, perr, serr)
	}
	if perr != nil {
		return
	}
	if last != int64(len(dump)) {
		t.Errorf("%s: progress ended at %d of %d bytes", name, last, len(dump))
	}
	want := h.Histogram()
	if !reflect.DeepEqual(s.Histogram, want) {
		t.Errorf("%s: streamed histogram differs:\n got %v\nwant %v", name, s.Histogram, want)
	}
	if s.Objects != int64(h.NumObjects()) || s.Oops != h.Oops || s.OopsInferred != h.OopsInferred || s.OopsVotes != h.OopsVotes ||
		s.Partial != h.Partial || s.Format != h.Format || s.IDSize != h.IDSize || !s.Timestamp.Equal(h.Timestamp) ||
		s.Android != h.Android || !reflect.DeepEqual(s.HeapNames, h.HeapNames) {
		t.Errorf("%s: streamed %d objects, oops %v %v %v, partial %v, %s %d %v %v %v; parsed %d, %v %v %v, %v, %s %d %v %v %v", name,
			s.Objects, s.Oops, s.OopsInferred, s.OopsVotes, s.Partial, s.Format, s.IDSize, s.Timestamp, s.Android, s.HeapNames,
			h.NumObjects(), h.Oops, h.OopsInferred, h.OopsVotes, h.Partial, h.Format, h.IDSize, h.Timestamp, h.Android, h.HeapNames)
	}
	// The parsed model's warnings about duplicate ids need its index; the
	// others are the same.
	var pw []string
	for _, w := range h.Warnings {
		if !strings.Contains(w, "have the id of an earlier object") {
			pw = append(pw, w)
		}
	}
	if !reflect.DeepEqual(s.Warnings, pw) {
		t.Errorf("%s: streamed warnings %q, parsed %q", name, s.Warnings, pw)
	}
}

// TestStreamHistogramMatchesParse: on the synthetic dumps (8- and 4-byte
// ids, Android's, one cut short, duplicate ids, weak references) and on
// real HotSpot dumps with compressed and wide references, whole and cut at
// several offsets, the streamed histogram is Parse's, class by class.
func TestStreamHistogramMatchesParse(t *testing.T) {
	for i, s := range seeds(t) {
		// Asked for a layout the pass counts in parallel from the first
		// object; inferring it, after the vote.
		for _, oops := range []Oops{OopsAuto, OopsCompressed} {
			streamMatches(t, fmt.Sprintf("seed%d %v", i, oops), s, oops)
		}
	}
	for _, tc := range []struct {
		name string
		run  *leakRun
		args []string
	}{
		{"compressed", &leakCompressed, nil},
		{"wide", &leakWide, []string{"-XX:-UseCompressedOops"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dump, _ := leakDump(t, tc.run, tc.args, nil)
			streamMatches(t, "whole", dump, OopsAuto)
			streamMatches(t, "whole, wide asked", dump, OopsWide)
			for _, frac := range []float64{0.3, 0.77, 0.999} {
				streamMatches(t, "cut", dump[:int(float64(len(dump))*frac)], OopsAuto)
			}
		})
	}
}

// TestStreamHistogramPast2e31: the streamed counts are 64-bit: counting
// on from 2^31 − 5 objects (as after 30 GB of small records), a whole dump
// and one cut short (its last record dropped) still give Parse's histogram
// and object count.
func TestStreamHistogramPast2e31(t *testing.T) {
	dump := sample(t, 8, false)
	for _, in := range [][]byte{dump, dump[:len(dump)-40]} {
		h, err := Parse(bytes.NewReader(in), Options{})
		if err != nil {
			t.Fatal(err)
		}
		const before = 1<<31 - 5
		s, err := streamHistogram(t.Context(), bytes.NewReader(in), StreamOptions{}, before)
		if err != nil {
			t.Fatal(err)
		}
		if s.Objects != int64(h.NumObjects()) || !reflect.DeepEqual(s.Histogram, h.Histogram()) || s.Partial != h.Partial {
			t.Errorf("counting on from %d: %d objects (partial %v), histogram %v; Parse: %d (partial %v), %v", before, s.Objects, s.Partial, s.Histogram,
				h.NumObjects(), h.Partial, h.Histogram())
		}
	}
}

// TestStreamHistogramStops streams an endless dump and cancels it: the
// pass returns with ctx's error.
func TestStreamHistogramStops(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	src := &endless{head: sample(t, 8, false), limit: 64 << 20, cancel: cancel}
	s, err := StreamHistogram(ctx, src, StreamOptions{})
	if s != nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "parsing stopped at byte ") {
		t.Fatalf("StreamHistogram after cancel: %v, %v", s, err)
	}
	if src.n < src.limit || src.n > src.limit+4*bufSize {
		t.Errorf("read %d bytes: want to stop within a few buffers of %d", src.n, src.limit)
	}
}

// FuzzStreamHistogram: whatever the bytes, the streamed pass agrees with
// Parse (an error both ways, or the same histogram). Seeds: FuzzParse's.
func FuzzStreamHistogram(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		streamMatches(t, "fuzz", in, OopsAuto)
		streamMatches(t, "fuzz, compressed asked (counted in parallel)", in, OopsCompressed)
	})
}

// TestSyntheticDump: the generated dump is well formed (Parse reads it,
// duplicate ids and all), the streamed pass counts it as Parse does, on
// one goroutine and in parallel, and its histogram is what SyntheticDump
// says; counted on from 2^31 − 5 objects, the parallel pass passes 2^31.
func TestSyntheticDump(t *testing.T) {
	const n = 3<<16 + 5
	dump, err := io.ReadAll(SyntheticDump(n))
	if err != nil {
		t.Fatal(err)
	}
	streamMatches(t, "synthetic", dump, OopsAuto)
	s, err := StreamHistogram(t.Context(), SyntheticDump(n), StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []ClassStat{{"int[]", n / 2, n / 2 * 16}, {"Tiny", (n + 1) / 2, (n + 1) / 2 * 8}, {"java.lang.Class", 2, 16}}
	if s.Objects != n+2 || !reflect.DeepEqual(s.Histogram, want) {
		t.Errorf("SyntheticDump(%d): %d objects, %v; want %d, %v", n, s.Objects, s.Histogram, n+2, want)
	}
	const before = 1<<31 - 5
	s, err = streamHistogram(t.Context(), SyntheticDump(n), StreamOptions{}, before)
	if err != nil || s.Objects != n+2 || !reflect.DeepEqual(s.Histogram, want) {
		t.Errorf("counting on from %d: %v, %v; want %d objects, %v", before, s, err, n+2, want)
	}
}
