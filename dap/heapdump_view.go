package dap

import (
	"context"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
)

// Current Android (API 31 and newer) answers HPGC alone among DDM's heap
// chunks: no HPIF, no HPSG, no allocation tracker (REAE/REAL). A session on
// such a VM through the monitor sends it none of them: its Heap view is
// drawn from heap dumps the monitor takes (am dumpheap), when the view
// turns on and after a GC the user asks for, and its memory view says why
// it has no allocations.

// DumpHeapViewer is implemented by backends that can tell a monitored VM
// without DDM heap reports and draw its heap from a dump (the monitor).
type DumpHeapViewer interface {
	// HeapFromDump reports whether the DDM VM target sends no heap reports
	// (HPIF, HPSG) nor allocation records, so its heap comes from dumps.
	HeapFromDump(ctx context.Context, target string) bool
	// DumpHeapView dumps the VM's heap (after a GC with gc) and returns
	// what the ddmHeapInfo and ddmHeapMap events carry, with the dump's time.
	DumpHeapView(ctx context.Context, target string, gc bool) (ddm.HeapInfoJSON, []ddm.HeapMapJSON, error)
}

// dumpHeapViewTimeout bounds one dump for the Heap view (a large heap
// takes a while to write and pull).
const dumpHeapViewTimeout = 5 * time.Minute

// noteNoAllocTracker is what the memory view says of a VM without DDM's
// allocation tracker.
const noteNoAllocTracker = "This VM has no allocation tracker: Android 12 and newer dropped DDM's (REAE/REAL). " +
	"Counts and instances come from JDWP; allocations need Android 11 or older."

// heapFromDump decides, once per session, whether the VM's heap comes from
// dumps (ddmState.fromDump).
func (s *session) heapFromDump(ctx context.Context, st *ddmState, target string) {
	if hv, ok := s.cfg.Backend.(DumpHeapViewer); ok && target != "" && hv.HeapFromDump(ctx, target) {
		st.fromDump, st.target = true, target
	}
}

// sendDumpHeap draws the heap from a new dump and sends it as the heap
// events that are on; a failure is said in the Debug Console.
func (s *session) sendDumpHeap(st *ddmState, gc bool) error {
	ctx, cancel := context.WithTimeout(s.ctx, dumpHeapViewTimeout)
	defer cancel()
	info, maps, err := s.cfg.Backend.(DumpHeapViewer).DumpHeapView(ctx, st.target, gc)
	if err != nil {
		return err
	}
	if s.isDone() {
		return nil
	}
	st.mu.Lock() // as emit: an event ddmUpdates turned off never follows its response
	defer st.mu.Unlock()
	if st.heapInfo {
		s.send(&customEvent[DDMHeapInfoBody]{Event: newEvent("ddmHeapInfo"), Body: info})
	}
	if st.heapMap {
		for _, m := range maps {
			s.send(&customEvent[DDMHeapMapBody]{Event: newEvent("ddmHeapMap"), Body: m})
		}
	}
	return nil
}
