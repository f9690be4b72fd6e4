package bridge

import (
	"bytes"
	"encoding/base64"
	"image/png"

	"github.com/ddmbridge/ddmbridge/ddm"
)

// HeapMapJSON is the compact JSON form of a DDM heap map (vm/heapMap).
// Each piece's runs are the DDM run-length encoding (shared/reference/ddm.md
// §6), base64: a byte pair per run, state then length−1 in allocation
// units; state = kind<<3 | solidity, bit 7 set when the run continues in the
// next pair (runs longer than 256 units). Kinds: 0 object, 1 class, 2–5
// 1/2/4/8-byte arrays, 6 unknown, 7 native. Solidity 0 is free space, 1 hard,
// 2 soft, 3 weak, 4 phantom, 5 finalizable, 6 sweep.
type HeapMapJSON struct {
	ID        string          `json:"id"`
	HeapID    uint32          `json:"heapId"`
	PerObject bool            `json:"perObject"`
	Pieces    []HeapPieceJSON `json:"pieces"`
	Totals    HeapTotalsJSON  `json:"totals"`
	PNG       string          `json:"png,omitempty"` // base64 PNG in DDMS colours, when asked for
}

// HeapPieceJSON is one contiguous stretch of the heap.
type HeapPieceJSON struct {
	Start    uint64 `json:"start"`    // address
	UnitSize uint32 `json:"unitSize"` // bytes per allocation unit
	Units    uint64 `json:"units"`
	Runs     string `json:"runs"` // base64 DDM run list, see HeapMapJSON
}

// HeapTotalsJSON sums a heap map up.
type HeapTotalsJSON struct {
	Bytes     uint64            `json:"bytes"`     // covered by the map
	FreeBytes uint64            `json:"freeBytes"` // free
	ByKind    map[string]uint64 `json:"byKind"`    // allocated bytes by kind name
}

// EncodeHeapMap converts a heap map; with withPNG it also renders it.
func EncodeHeapMap(id string, hm *ddm.HeapMap, withPNG bool, width int) (HeapMapJSON, error) {
	out := HeapMapJSON{ID: id, HeapID: hm.HeapID, PerObject: hm.PerObject, Pieces: []HeapPieceJSON{}}
	for _, p := range hm.Pieces {
		out.Pieces = append(out.Pieces, HeapPieceJSON{Start: p.Start, UnitSize: p.UnitSize, Units: p.Units,
			Runs: base64.StdEncoding.EncodeToString(ddm.AppendRuns(nil, p.Blocks))})
	}
	t := hm.Totals()
	out.Totals = HeapTotalsJSON{Bytes: t.Bytes, FreeBytes: t.Free.Bytes, ByKind: map[string]uint64{}}
	for k, c := range t.ByKind {
		if c.Bytes > 0 {
			out.Totals.ByKind[ddm.Kind(k).String()] = c.Bytes
		}
	}
	if withPNG {
		var b bytes.Buffer
		if err := png.Encode(&b, hm.Image(ddm.RenderOptions{Width: width})); err != nil {
			return out, err
		}
		out.PNG = base64.StdEncoding.EncodeToString(b.Bytes())
	}
	return out, nil
}

// Blocks decodes the piece's runs back into blocks.
func (p HeapPieceJSON) Blocks() ([]ddm.Block, error) {
	b, err := base64.StdEncoding.DecodeString(p.Runs)
	if err != nil {
		return nil, err
	}
	blocks, _, err := ddm.DecodeRuns(b)
	return blocks, err
}
