package bridge

import (
	"github.com/ddmbridge/ddmbridge/ddm"
)

// The heap map's JSON form (vm/heapMap, hprof/heapMap) is the one schema of
// package ddm (ddm/view.go, docs/rpc.md); these names keep the bridge's API.
type (
	// HeapMapJSON is a heap map as views draw it.
	HeapMapJSON = ddm.HeapMapJSON
	// HeapPieceJSON is one contiguous stretch of the heap.
	HeapPieceJSON = ddm.HeapPieceJSON
	// HeapTotalsJSON sums a heap map up.
	HeapTotalsJSON = ddm.HeapTotalsJSON
)

// EncodeHeapMap converts a heap map; with withPNG it also renders it.
func EncodeHeapMap(id string, hm *ddm.HeapMap, withPNG bool, width int) (HeapMapJSON, error) {
	return ddm.HeapMapOf(id, hm, withPNG, width)
}
