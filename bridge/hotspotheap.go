package bridge

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/internal/hotspot"
)

// A plain HotSpot VM on this host has no DDM heap reports, but its heap can
// be dumped (attach) and HotSpot's HPROF ids are addresses: vm/heapInfo and
// vm/heapMap are answered from a dump, drawn like the DDM map. So is a
// current Android VM's, which has no heap chunks either (deviceheap.go): its
// dump comes from am dumpheap, and ART's HPROF ids are addresses too.

// hotspotHeapReuse is how long one dump answers both halves of a heap query
// (`ddmbridge heap` asks for info, then the map).
const hotspotHeapReuse = 3 * time.Second

type hotspotHeapCache struct {
	mu   sync.Mutex
	at   time.Time
	live bool
	info ddm.HeapStats
	hm   *ddm.HeapMap

	dumped time.Time // the dump's own time (its HPROF header)
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
	v.mu.Lock()
	device := v.from.serial != ""
	v.mu.Unlock()
	if device && (v.dc == nil || v.heapChunks(ctx)) {
		return ddm.HeapStats{}, nil, fmt.Errorf("VM %s: heap dumps of a device VM need DDM (HPDS): %w", v.id, ErrNotDDM)
	}
	oops := hprof.OopsAuto // an Android dump says its own sizes
	if !device {
		oops = v.hotspotOops(ctx)
	}
	f, n, err := v.DumpPrivate(ctx, live) // a file: the dump is not held in memory beside its model
	if err != nil {
		return ddm.HeapStats{}, nil, err
	}
	defer f.Close()
	h, err := hprof.Parse(io.NewSectionReader(f, 0, n), hprof.Options{SizeHint: n, Oops: oops})
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
	c.at, c.live, c.info, c.hm, c.dumped = time.Now(), live, info, hm, h.Timestamp
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
