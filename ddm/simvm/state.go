package simvm

import (
	"math/rand/v2"
	"sort"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
)

// thread is one simulated thread.
type thread struct {
	id           uint32
	name         string
	status       ddm.ThreadState
	tid          uint32
	utime, stime uint32
	daemon       bool
	suspended    bool
	jdwpID       uint64 // JDWP threadID object id
}

// object is one simulated heap object.
type object struct {
	addr  uint32 // in units from heapBase
	units uint32
	kind  ddm.Kind
}

const (
	heapBase     = 0x12C00000
	unitSize     = 8
	maxHeapBytes = 256 << 20
	pieceUnits   = 2048 // units per HPSG/HPSO piece, to make the server merge pieces
)

// heap is the simulated Java heap: objects sorted by address, first-fit allocation.
type heap struct {
	objs       []object
	end        uint32 // units in use up to the highest object
	allocBytes uint64
}

func (h *heap) alloc(r *rand.Rand) object {
	kind := ddm.Kind(r.IntN(6)) // object, class, arrays of 1..8 bytes
	units := uint32(1 + r.IntN(8))
	if r.IntN(20) == 0 {
		units = uint32(200 + r.IntN(400)) // a big array, split into partial runs
	}
	// First fit in a gap.
	prev := uint32(0)
	for i, o := range h.objs {
		if o.addr-prev >= units {
			ob := object{addr: prev, units: units, kind: kind}
			h.objs = append(h.objs[:i], append([]object{ob}, h.objs[i:]...)...)
			return ob
		}
		prev = o.addr + o.units
	}
	ob := object{addr: prev, units: units, kind: kind}
	h.objs = append(h.objs, ob)
	h.end = prev + units
	return ob
}

// gc frees about 40% of the objects and returns how many.
func (h *heap) gc(r *rand.Rand) int {
	kept := h.objs[:0]
	freed := 0
	for _, o := range h.objs {
		if r.IntN(10) < 4 {
			freed++
			continue
		}
		kept = append(kept, o)
	}
	h.objs = kept
	h.end = 0
	if n := len(kept); n > 0 {
		h.end = kept[n-1].addr + kept[n-1].units
	}
	return freed
}

func (h *heap) stats(reason uint8) ddm.HeapStats {
	var used uint32
	for _, o := range h.objs {
		used += o.units
	}
	return ddm.HeapStats{
		HeapID: 1, TimestampMs: uint64(time.Now().UnixMilli()), Reason: reason,
		MaxBytes: maxHeapBytes, SizeBytes: max(h.end*unitSize, 512<<10), AllocatedBytes: used * unitSize,
		AllocatedObjects: uint32(len(h.objs)),
	}
}

// segments encodes the heap as HPSG (merged runs) or HPSO (per object) pieces
// of at most pieceUnits units, free gaps as (0, n-1) runs like ART.
func (h *heap) segments(perObject bool) []*ddm.HeapSegment {
	var blocks []ddm.Block
	at := uint32(0)
	for _, o := range h.objs {
		if o.addr > at {
			blocks = append(blocks, ddm.Block{Kind: ddm.KindObject, Solidity: ddm.SolidFree, Units: o.addr - at})
		}
		b := ddm.Block{Kind: o.kind, Solidity: ddm.SolidHard, Units: o.units}
		if n := len(blocks); !perObject && n > 0 && blocks[n-1].Kind == b.Kind && blocks[n-1].Solidity == b.Solidity {
			blocks[n-1].Units += b.Units
		} else {
			blocks = append(blocks, b)
		}
		at = o.addr + o.units
	}
	typ := ddm.HPSG
	if perObject {
		typ = ddm.HPSO
	}
	var out []*ddm.HeapSegment
	start, units := uint32(0), uint32(0)
	var cur []ddm.Block
	flush := func() {
		if units == 0 {
			return
		}
		out = append(out, &ddm.HeapSegment{Type: typ, HeapID: 1, UnitSize: unitSize, Start: heapBase + start*unitSize, UnitCount: units, Runs: ddm.AppendRuns(nil, cur)})
		start += units
		units, cur = 0, nil
	}
	for _, b := range blocks {
		if units > 0 && units+b.Units > pieceUnits {
			flush()
		}
		cur = append(cur, b)
		units += b.Units
	}
	flush()
	return out
}

// threadNames are used for synthetic threads.
var threadNames = []string{"main", "Signal Catcher", "HeapTaskDaemon", "ReferenceQueueDaemon", "FinalizerDaemon", "FinalizerWatchdogDaemon", "Binder:%d_1", "Binder:%d_2", "RenderThread", "worker"}

func sortedThreads(m map[uint32]*thread) []*thread {
	out := make([]*thread, 0, len(m))
	for _, t := range m {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}
