package ddm

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// viewMap is a heap map with every feature the schema carries: two pieces, a
// run longer than 256 units (a partial run in the DDM encoding), free space
// and weakly reachable blocks.
func viewMap() *HeapMap {
	return &HeapMap{HeapID: 1, Pieces: []Piece{
		{Start: 0x1000, UnitSize: 8, Units: 4 + 600 + 2, Blocks: []Block{
			{KindObject, SolidHard, 4}, {KindArray8, SolidWeak, 600}, {KindObject, SolidFree, 2}}},
		{Start: 0x9000, UnitSize: 8, Units: 3, Blocks: []Block{{KindClass, SolidHard, 1}, {KindObject, SolidHard, 2}}},
	}}
}

func TestHeapMapJSONRoundTrip(t *testing.T) {
	hm := viewMap()
	j, err := HeapMapOf("7", hm, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeHeapMapJSON(b)
	if err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	if !reflect.DeepEqual(back, j) {
		t.Fatalf("round trip:\n%+v\n%+v", back, j)
	}
	// What a view draws: each block's colour is its style's, the one
	// BlockColor gives; one style per state used.
	if len(back.Styles) != 4 {
		t.Errorf("styles %+v: want one per state used (object hard, 8-byte weak, free, class hard)", back.Styles)
	}
	for i, p := range back.Pieces {
		k := 0
		for j := 0; j < len(p.Blocks); j += 2 {
			want := hm.Pieces[i].Blocks[k]
			s := back.Styles[p.Blocks[j]]
			if s.Kind != want.Kind.String() || s.Solidity != want.Solidity.String() || s.Color != hexColor(BlockColor(want)) || p.Blocks[j+1] != want.Units {
				t.Errorf("piece %d block %d: style %+v units %d, want %+v", i, k, s, p.Blocks[j+1], want)
			}
			k++
		}
		if k != len(hm.Pieces[i].Blocks) {
			t.Errorf("piece %d: %d blocks, want %d", i, k, len(hm.Pieces[i].Blocks))
		}
	}
	if back.Totals.Bytes != (606+3)*8 || back.Totals.FreeBytes != 16 || back.Totals.ByKind["8-byte array"] != 4800 {
		t.Errorf("totals %+v", back.Totals)
	}
	if back.Legend[0].Key != "free" || back.Legend[len(back.Legend)-1].Key != "gap" || len(back.Legend) != 10 {
		t.Errorf("legend %+v", back.Legend)
	}
}

func TestThreadsJSONRoundTrip(t *testing.T) {
	ts := ThreadsOf([]Thread{
		{ID: 1, Name: "main", Status: ThreadRunning, HaveStatus: true, TID: 42, UTime: 7, STime: 1},
		{ID: 2, Name: "new"}, // no THST yet
		{ID: 3, Name: "odd", Status: ThreadState(99), HaveStatus: true}, // a state outside DDM's range
	})
	want := []string{"running", "unknown", "unknown"}
	for i, th := range ts {
		if th.State != want[i] {
			t.Errorf("thread %d: state %q, want %q", th.ID, th.State, want[i])
		}
	}
	b, _ := json.Marshal(ThreadsJSON{ID: "1", Threads: ts})
	back, err := DecodeThreadsJSON(b)
	if err != nil || !reflect.DeepEqual(back.Threads, ts) {
		t.Fatalf("round trip %s: %+v %v", b, back, err)
	}
}

// TestSchemaStrict: the decoders take the schema and nothing that merely
// looks like it — no aliases, no state numbers, no inconsistent maps.
func TestSchemaStrict(t *testing.T) {
	j, _ := HeapMapOf("1", viewMap(), false, 0)
	good, _ := json.Marshal(j)
	mutate := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	piece := func(m map[string]any) map[string]any { return m["pieces"].([]any)[0].(map[string]any) }
	bad := map[string][]byte{
		"alias address":      mutate(func(m map[string]any) { p := piece(m); p["address"] = p["start"]; delete(p, "start") }),
		"unknown field":      mutate(func(m map[string]any) { m["segments"] = []any{} }),
		"no pieces":          mutate(func(m map[string]any) { delete(m, "pieces") }),
		"no styles":          mutate(func(m map[string]any) { delete(m, "styles") }),
		"odd blocks":         mutate(func(m map[string]any) { p := piece(m); p["blocks"] = p["blocks"].([]any)[1:] }),
		"style out of range": mutate(func(m map[string]any) { piece(m)["blocks"].([]any)[0] = 99 }),
		"zero units":         mutate(func(m map[string]any) { piece(m)["units"] = 0 }),
		"wrong colour":       mutate(func(m map[string]any) { m["styles"].([]any)[0].(map[string]any)["color"] = "#123456" }),
		"kind number":        mutate(func(m map[string]any) { m["styles"].([]any)[0].(map[string]any)["kind"] = 0 }),
		"runs disagree":      mutate(func(m map[string]any) { piece(m)["runs"] = "AQMAAQ==" }),
		"legend changed":     mutate(func(m map[string]any) { m["legend"] = []any{} }),
		"totals off":         mutate(func(m map[string]any) { m["totals"].(map[string]any)["freeBytes"] = 1 }),
		"kind totals off":    mutate(func(m map[string]any) { m["totals"].(map[string]any)["byKind"] = map[string]any{"object": 1} }),
		"no totals":          mutate(func(m map[string]any) { delete(m, "totals") }),
		"trailing data":      append(append([]byte{}, good...), []byte(" {}")...),
	}
	for name, b := range bad {
		if _, err := DecodeHeapMapJSON(b); !errors.Is(err, ErrSchema) {
			t.Errorf("%s: decoded (%v): %s", name, err, b)
		}
	}
	for name, s := range map[string]string{
		"state number": `{"id":"1","threads":[{"id":1,"name":"main","state":1,"suspended":false}]}`,
		"state alias":  `{"id":"1","threads":[{"id":1,"name":"main","status":"running","state":"running","suspended":false}]}`,
		"odd state":    `{"id":"1","threads":[{"id":1,"name":"main","state":"sleeping","suspended":false}]}`,
		"threadId":     `{"id":"1","threads":[{"threadId":1,"name":"main","state":"running","suspended":false}]}`,
		"no list":      `{"id":"1"}`,
	} {
		if _, err := DecodeThreadsJSON([]byte(s)); !errors.Is(err, ErrSchema) {
			t.Errorf("threads %s: decoded (%v)", name, err)
		}
	}
	for name, s := range map[string]string{
		"map by id": `{"id":"1","heaps":{"1":{"heapId":1}}}`,
		"alias":     `{"id":"1","heaps":[{"id":1,"maxBytes":1,"sizeBytes":1,"allocatedBytes":1,"allocatedObjects":1,"timestampMs":1,"reason":1}]}`,
		"no heaps":  `{"id":"1"}`,
	} {
		if _, err := DecodeHeapInfoJSON([]byte(s)); !errors.Is(err, ErrSchema) {
			t.Errorf("heap info %s: decoded (%v)", name, err)
		}
	}
	if _, err := DecodeHeapInfoJSON([]byte(`{"id":"1","heaps":[{"heapId":1,"timestampMs":5,"reason":1,"maxBytes":9,"sizeBytes":8,"allocatedBytes":7,"allocatedObjects":6}]}`)); err != nil {
		t.Errorf("heap info: %v", err)
	}
	if err := (ThreadsJSON{ID: "1", Threads: []ThreadJSON{{State: "state(12)"}}}).Validate(); err == nil || !strings.Contains(err.Error(), "state(12)") {
		t.Errorf("Validate of a numbered state: %v", err)
	}
}

func FuzzDecodeHeapMapJSON(f *testing.F) {
	j, _ := HeapMapOf("1", viewMap(), false, 0)
	b, _ := json.Marshal(j)
	f.Add(b)
	e, _ := HeapMapOf("2", &HeapMap{HeapID: 1}, false, 0)
	b, _ = json.Marshal(e)
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeHeapMapJSON(data)
		if err != nil {
			return
		}
		// Whatever decodes re-encodes to something that decodes the same.
		again, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		w, err := DecodeHeapMapJSON(again)
		if err != nil || !reflect.DeepEqual(v, w) {
			t.Fatalf("unstable: %v\n%+v\n%+v", err, v, w)
		}
	})
}

func FuzzDecodeThreadsJSON(f *testing.F) {
	b, _ := json.Marshal(ThreadsJSON{ID: "1", Threads: ThreadsOf([]Thread{{ID: 1, Name: "main", HaveStatus: true, Status: ThreadWait}})})
	f.Add(b)
	f.Add([]byte(`{"id":"1","threads":[],"note":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeThreadsJSON(data)
		if err != nil {
			return
		}
		again, _ := json.Marshal(v)
		if w, err := DecodeThreadsJSON(again); err != nil || !reflect.DeepEqual(v, w) {
			t.Fatalf("unstable: %v\n%+v\n%+v", err, v, w)
		}
	})
}
