package hprof

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzDecodeResults feeds arbitrary JSON to the schema's strict decoders:
// they answer or refuse, never panic, and what one accepts encodes and
// decodes again to the same. Seeds: the extension's fixture members and
// testdata/fuzz/FuzzDecodeResults.
func FuzzDecodeResults(f *testing.F) {
	r := fixture(f)
	for _, b := range []json.RawMessage{r.Summary, r.Dominators, r.Drill, r.Diff, r.Path, r.Elided, r.Paths, r.ChainPaths, r.Incoming, r.Instances, r.Retained, r.Dump} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		roundTrip(t, in, DecodeSummaryJSON)
		roundTrip(t, in, DecodeDominatorsJSON)
		roundTrip(t, in, DecodeDiffJSON)
		roundTrip(t, in, DecodePathJSON)
		roundTrip(t, in, DecodePathsJSON)
		roundTrip(t, in, DecodeIncomingJSON)
		roundTrip(t, in, DecodeInstancesJSON)
		roundTrip(t, in, DecodeRetainedJSON)
		roundTrip(t, in, DecodeDumpJSON)
	})
}

func roundTrip[T any](t *testing.T, in []byte, dec func([]byte) (T, error)) {
	v, err := dec(in)
	if err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%T accepted but does not encode: %v", v, err)
	}
	w, err := dec(b)
	if err != nil {
		t.Fatalf("%T accepted, encoded as %s, refused: %v", v, b, err)
	}
	if b2, _ := json.Marshal(w); !bytes.Equal(b, b2) {
		t.Fatalf("%T: %s decodes and encodes to %s", v, b, b2)
	}
}

// FuzzViews parses arbitrary dumps and, when they parse, checks that every
// result the schema gives for them is accepted by its strict decoder.
// Seeds: FuzzParse's.
func FuzzViews(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		h, err := Parse(bytes.NewReader(in), Options{MaxObjects: 1 << 16})
		if err != nil {
			return
		}
		hist := h.Histogram()
		tree := h.Dominators().Tree()
		h.ReadThreadNames(bytes.NewReader(in)) // answers or fails, never panics
		check := func(what string, v any, dec func([]byte) error) {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if err := dec(b); err != nil {
				t.Fatalf("%s: the schema refuses its own result %s: %v", what, b, err)
			}
		}
		check("summary", SummaryOf("/d", h, hist), decSummary)
		check("dominators", tree.Level("/d", Root, 5), decDominators)
		check("diff", DiffOf("/d", "/e", nil, hist, 5), decDiff)
		check("retained", tree.ClassRetained("/d"), decRetained)
		check("dump", DumpOf("/d", int64(len(in)), h, hist, 3), decDump)
		if len(hist) > 0 {
			p, _ := h.PathsToClass("/d", hist[0].Class, PathOptions{Nodes: 20, Chain: 4})
			check("paths to a class", p, decPaths)
			inst, _ := h.Instances("/d", hist[0].Class, 1, 3, tree.Dominators)
			check("instances", inst, decInstances)
		}
		for i := range min(int32(h.NumObjects()), 8) {
			check("dominators of an object", tree.Level("/d", i, 5), decDominators)
			p := h.PathFromRoot(i)
			check("path", ElidePath(h.ID(i), p, 0), decPath)
			check("elided path", ElidePath(h.ID(i), p, 2), decPath)
			check("path, elided while walking", h.PathTo(i, 2, nil), decPath)
			check("paths to an object", h.PathsToObject("/d", i, PathOptions{Nodes: 5, Chain: 2}), decPaths)
			check("incoming", h.Incoming("/d", i, 1, 2, nil, nil), decIncoming)
			h.Label(i)
		}
	})
}
