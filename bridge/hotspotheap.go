package bridge

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/hotspot"
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/hprof"
)

// A plain HotSpot VM on this host has no DDM heap reports, but its heap can
// be dumped (attach) and HotSpot's HPROF ids are addresses: vm/heapInfo and
// vm/heapMap are answered from a dump, drawn like the DDM map.

// hotspotHeapReuse is how long one dump answers both halves of a heap query
// (`ddmbridge heap` asks for info, then the map).
const hotspotHeapReuse = 3 * time.Second

type hotspotHeapCache struct {
	mu   sync.Mutex
	at   time.Time
	live bool
	info ddm.HeapStats
	hm   *ddm.HeapMap
}

// hotspotHeap dumps the VM's heap (live objects after a full GC when live)
// and summarises it, reusing a dump taken moments ago.
func (v *VM) hotspotHeap(ctx context.Context, live bool) (ddm.HeapStats, *ddm.HeapMap, error) {
	c := &v.hsHeap
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hm != nil && time.Since(c.at) < hotspotHeapReuse && (c.live || !live) {
		return c.info, c.hm, nil
	}
	b, err := v.dumpHotSpot(ctx, live)
	if err != nil {
		return ddm.HeapStats{}, nil, err
	}
	h, err := hprof.Parse(bytes.NewReader(b), hprof.Options{Oops: v.hotspotOops(ctx)})
	if err != nil {
		return ddm.HeapStats{}, nil, fmt.Errorf("VM %s: its heap dump: %w", v.id, err)
	}
	hm := h.Map(hprof.MapOptions{})
	hm.HeapID = 1
	var used uint64
	for _, s := range h.Histogram() {
		used += uint64(s.Bytes)
	}
	reason := ddm.WhenNow
	info := ddm.HeapStats{HeapID: 1, TimestampMs: uint64(h.Timestamp.UnixMilli()), Reason: reason,
		SizeBytes: uint32(min(hm.Totals().Bytes, 1<<32-1)), AllocatedBytes: uint32(min(used, 1<<32-1)),
		AllocatedObjects: uint32(h.NumObjects())}
	c.at, c.live, c.info, c.hm = time.Now(), live, info, hm
	return info, hm, nil
}

// hotspotOops asks the local HotSpot VM whether it compresses references
// (jcmd VM.flags), which decides its dump's shallow sizes; if it cannot say,
// the parser infers it from the dump.
func (v *VM) hotspotOops(ctx context.Context) hprof.Oops {
	v.mu.Lock()
	pid := v.pid
	v.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	compressed, err := hotspot.CompressedOops(ctx, pid)
	switch {
	case err != nil:
		return hprof.OopsAuto
	case compressed:
		return hprof.OopsCompressed
	}
	return hprof.OopsWide
}
