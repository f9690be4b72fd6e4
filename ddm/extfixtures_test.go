package ddm

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The VS Code extension's test fixtures are this package's JSON: its strict
// decoders and webview tests read nothing else. The recording
// (vscode-extension/scripts/record-ddm.mjs, through a real backend) is
// checked against the schema here; the synthetic all-kinds heap map is
// generated here. Regenerate it with
//
//	DDMBRIDGE_UPDATE_FIXTURES=1 go test ./ddm -run TestExtensionFixtures

var extFixtures = filepath.Join("..", "vscode-extension", "test", "fixtures")

// allKindsMap is a large heap of every kind, hard and weak, with free space
// between and a second piece of native memory past a gap.
func allKindsMap() *HeapMap {
	var blocks []Block
	var units uint64
	for i := 0; i < 64; i++ {
		for k := KindObject; k <= KindNative; k++ {
			for _, b := range []Block{{k, SolidHard, 600 + 37*uint32(k)}, {k, SolidWeak, 300}, {KindObject, SolidFree, 100}} {
				blocks = append(blocks, b)
				units += uint64(b.Units)
			}
		}
	}
	return &HeapMap{HeapID: 1, Complete: true, Pieces: []Piece{
		{Start: 0x12c00000, UnitSize: 8, Units: units, Blocks: blocks},
		{Start: 0x13c00000, UnitSize: 8, Units: 2, Blocks: []Block{{KindNative, SolidHard, 2}}},
	}}
}

func TestExtensionFixtures(t *testing.T) {
	j, err := HeapMapOf("synthetic", allKindsMap(), false, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	file := filepath.Join(extFixtures, "heapmap-allkinds.json")
	if os.Getenv("DDMBRIDGE_UPDATE_FIXTURES") == "1" {
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what HeapMapOf gives; regenerate it (DDMBRIDGE_UPDATE_FIXTURES=1)", file)
	}
	if _, err := DecodeHeapMapJSON(got); err != nil {
		t.Errorf("%s: %v", file, err)
	}

	rec, err := os.ReadFile(filepath.Join(extFixtures, "ddm-recording.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Threads  []json.RawMessage
		HeapInfo json.RawMessage
		HeapMap  json.RawMessage
	}
	if err := json.Unmarshal(rec, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Threads) == 0 {
		t.Error("ddm-recording.json: no thread lists")
	}
	for i, th := range r.Threads {
		if _, err := DecodeThreadsJSON(th); err != nil {
			t.Errorf("ddm-recording.json threads[%d]: %v", i, err)
		}
	}
	if _, err := DecodeHeapInfoJSON(r.HeapInfo); err != nil {
		t.Errorf("ddm-recording.json heapInfo: %v", err)
	}
	if _, err := DecodeHeapMapJSON(r.HeapMap); err != nil {
		t.Errorf("ddm-recording.json heapMap: %v", err)
	}
}

// TestExtensionNames: the extension's strict decoders know the schema's
// names — thread states, kinds, solidities — exactly as this package spells them.
func TestExtensionNames(t *testing.T) {
	src := filepath.Join("..", "vscode-extension", "src")
	for _, c := range []struct {
		file, name string
		want       []string
	}{
		{"threads/threads.ts", "threadStateNames", ThreadStateNames()},
		{"heap/heapmap.ts", "kindNames", kindNames[:]},
		{"heap/heapmap.ts", "solidityNames", solidityNames[:]},
	} {
		b, err := os.ReadFile(filepath.Join(src, c.file))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?s)export const ` + c.name + `: readonly string\[\] = \[(.*?)\];`).FindSubmatch(b)
		if m == nil {
			t.Errorf("%s: no %s", c.file, c.name)
			continue
		}
		var got []string
		if err := json.Unmarshal([]byte("["+strings.TrimSuffix(strings.TrimSpace(strings.ReplaceAll(string(m[1]), "'", `"`)), ",")+"]"), &got); err != nil {
			t.Errorf("%s: %s: %v", c.file, c.name, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %s = %q, ddm has %q", c.file, c.name, got, c.want)
		}
	}
}
