package bridge

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
)

// Current Android (API 31 and newer) answers HPGC alone among the DDM heap
// chunks: the framework's heap handler registers nothing else since ART
// dropped the native hooks of HPIF, HPSG, NHSG, HPDU/HPDS and REAE/REAQ/REAL
// (docs/android-today.md). A VM without them has its heap views drawn from
// a heap dump instead (`am dumpheap` through adb, streamed to a private
// file and analysed by ddm/hprof, as for a local HotSpot VM), refreshed when
// the user asks or after a GC the user asks for.

// firstAPIWithoutHeapChunks is Android 12's API level.
const firstAPIWithoutHeapChunks = 31

// Heap chunk support as learnt (VM.heapChunkState).
const (
	heapChunksUnknown int32 = iota
	heapChunksServed
	heapChunksGone
	heapChunksProbe // no way to tell beforehand: asked once (HPIF now), gone if unanswered
)

// noteNoHeapChunks is what a heap view says of a VM without heap chunks.
const noteNoHeapChunks = "this VM sends no heap reports (current Android answers only HPGC among the DDM heap chunks): " +
	"its heap is read from a heap dump (am dumpheap), taken when you ask or after a GC you ask for"

// HeapFromDump reports whether the VM's heap views come from heap dumps:
// a local HotSpot VM, or a VM that does not serve the DDM heap chunks.
func (v *VM) HeapFromDump(ctx context.Context) bool {
	return v.dc == nil || !v.heapChunks(ctx)
}

// heapChunks reports whether the VM serves the DDM heap chunks, learning it
// once: from the device's API level for a device VM (a getprop through
// adb, no JDWP), else by asking once (heapChunksProbe).
func (v *VM) heapChunks(ctx context.Context) bool {
	if v.dc == nil {
		return false
	}
	switch v.heapChunkState.Load() {
	case heapChunksServed, heapChunksProbe:
		return true
	case heapChunksGone:
		return false
	}
	state, why := v.learnHeapChunks(ctx)
	if v.heapChunkState.CompareAndSwap(heapChunksUnknown, state) {
		v.log.Info().Bool("heapChunks", state != heapChunksGone).Str("from", why).Msg("heap chunk support")
	}
	return v.heapChunkState.Load() != heapChunksGone
}

func (v *VM) learnHeapChunks(ctx context.Context) (int32, string) {
	if v.draft {
		return heapChunksServed, "the 2007 draft"
	}
	v.mu.Lock()
	serial := v.from.serial
	v.mu.Unlock()
	if serial == "" || v.m.adb == nil {
		return heapChunksProbe, "not a device VM: asked once"
	}
	sdk, err := v.deviceAPI(ctx, serial)
	if err != nil {
		return heapChunksProbe, "the device's API level: " + err.Error()
	}
	if sdk >= firstAPIWithoutHeapChunks {
		return heapChunksGone, fmt.Sprintf("API level %d", sdk)
	}
	return heapChunksServed, fmt.Sprintf("API level %d", sdk)
}

// deviceAPI reads the device's API level (ro.build.version.sdk).
func (v *VM) deviceAPI(ctx context.Context, serial string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := v.m.adb.c.ShellArgs(ctx, serial, "getprop", "ro.build.version.sdk")
	if err != nil {
		return 0, err
	}
	sdk, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return 0, fmt.Errorf("ro.build.version.sdk is %q", strings.TrimSpace(out))
	}
	return sdk, nil
}

// heapChunksUnanswered records that a VM asked once (heapChunksProbe) left
// its heap request unanswered.
func (v *VM) heapChunksUnanswered() {
	if v.heapChunkState.CompareAndSwap(heapChunksProbe, heapChunksGone) {
		v.log.Info().Msg(noteNoHeapChunks)
	}
}

// HeapNote says where the VM's heap views come from, "" for DDM reports.
func (v *VM) HeapNote(ctx context.Context) string {
	if v.dc != nil && v.heapChunkState.Load() == heapChunksGone {
		return noteNoHeapChunks
	}
	return ""
}

// HeapDumpedAt is the time of the dump the VM's heap views were last drawn
// from (zero if none).
func (v *VM) HeapDumpedAt() time.Time {
	c := &v.hsHeap
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dumped
}

// gcWithoutReply asks a VM without heap chunks for a GC (HPGC, which current
// frameworks still register and do not answer) and, when the control API
// watches its heap, refreshes the views from a new dump.
func (v *VM) gcWithoutReply(ctx context.Context) error {
	v.dc.Send(&ddm.Empty{Type: ddm.HPGC}, nil)
	v.mu.Lock()
	watched := v.heapUpdates
	v.mu.Unlock()
	if watched {
		return v.refreshDumpHeap(ctx, true)
	}
	return nil
}

// refreshDumpHeap draws the heap views from a new dump and publishes them
// (EventHeap, EventHeapMap) to the control API's watchers.
func (v *VM) refreshDumpHeap(ctx context.Context, live bool) error {
	v.hsHeap.mu.Lock()
	v.hsHeap.at = time.Time{} // a new dump, whatever the last one's age
	v.hsHeap.mu.Unlock()
	if _, _, err := v.hotspotHeap(ctx, live); err != nil {
		return err
	}
	v.m.notify(EventHeap, v)
	v.m.notify(EventHeapMap, v)
	return nil
}

// dumpHeapViews are the last dump's heap info and map for a VM whose heap
// views come from dumps (nil before the first).
func (v *VM) dumpHeapViews() (map[uint32]ddm.HeapStats, *ddm.HeapMap) {
	c := &v.hsHeap
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hm == nil {
		return nil, nil
	}
	return map[uint32]ddm.HeapStats{1: c.info}, c.hm
}

// noteHotSpotHeap is what a heap view says of a local HotSpot VM.
const noteHotSpotHeap = "a HotSpot VM sends no heap reports: its heap is read from a heap dump (attach), taken when you ask"

// DumpSource says, for the views, that the heap data came from a dump and
// when (empty for a VM's own DDM reports).
func (v *VM) DumpSource() ddm.DumpSource {
	note := noteHotSpotHeap
	if v.dc != nil {
		if v.heapChunkState.Load() != heapChunksGone {
			return ddm.DumpSource{}
		}
		note = noteNoHeapChunks
	}
	out := ddm.DumpSource{Source: "dump", Note: note}
	if at := v.HeapDumpedAt(); !at.IsZero() {
		out.DumpedAt = at.UTC().Format(time.RFC3339)
	}
	return out
}

// DumpHeapJSON is the control API's heap info and maps of a VM whose heap
// comes from dumps: the last dump's, nothing before the first.
func (v *VM) DumpHeapJSON() (ddm.HeapInfoJSON, []ddm.HeapMapJSON) {
	info, hm := v.dumpHeapViews()
	out := ddm.HeapInfoJSON{ID: v.id, Heaps: ddm.HeapStatsOf(info), DumpSource: v.DumpSource()}
	if hm == nil {
		return out, nil
	}
	m, err := EncodeHeapMap(v.id, hm, false, 0)
	if err != nil {
		v.log.Warn().Err(err).Msg("heap map from a dump not encoded")
		return out, nil
	}
	m.DumpSource = out.DumpSource
	return out, []ddm.HeapMapJSON{m}
}

// firstDumpHeap gives new watchers of a VM without heap reports its heap
// from a dump (one taken moments ago will do).
func (v *VM) firstDumpHeap() {
	ctx, cancel := context.WithTimeout(context.Background(), HeapDumpTimeout)
	defer cancel()
	go func() {
		select {
		case <-v.removed:
			cancel()
		case <-ctx.Done():
		}
	}()
	if _, _, err := v.hotspotHeap(ctx, false); err != nil {
		v.log.Info().Err(err).Msg("heap from a dump")
		return
	}
	v.m.notify(EventHeap, v)
	v.m.notify(EventHeapMap, v)
}

// HeapFromDump reports whether the DDM VM target sends no heap reports, so
// that a DAP session draws its heap from dumps (package dap's
// DumpHeapViewer).
func (m *Monitor) HeapFromDump(ctx context.Context, target string) bool {
	v, err := m.VM(target)
	return err == nil && v.dc != nil && !v.heapChunks(ctx)
}

// DumpHeapView dumps the VM's heap (after a GC with gc: HPGC, then am
// dumpheap -g) and returns it as the heap events carry it.
func (m *Monitor) DumpHeapView(ctx context.Context, target string, gc bool) (ddm.HeapInfoJSON, []ddm.HeapMapJSON, error) {
	v, err := m.VM(target)
	if err != nil {
		return ddm.HeapInfoJSON{}, nil, err
	}
	if gc && v.dc != nil {
		v.dc.Send(&ddm.Empty{Type: ddm.HPGC}, nil)
	}
	if err := v.refreshDumpHeap(ctx, gc); err != nil {
		return ddm.HeapInfoJSON{}, nil, err
	}
	info, maps := v.DumpHeapJSON()
	return info, maps, nil
}
