package bridge

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/ddmbridge/ddmbridge/internal/dumpfile"
	"github.com/ddmbridge/ddmbridge/internal/hotspot"
)

// DumpTo writes an HPROF dump of the VM's heap to w and returns its size
// (live: reachable objects only, where the VM can tell). A local HotSpot VM's
// dump is copied from the file the VM wrote (a kernel copy when w is a
// file); a DDM VM's is written as its HPDS chunk arrives.
func (v *VM) DumpTo(ctx context.Context, live bool, w io.Writer) (int64, error) {
	v.mu.Lock()
	hotSpot := v.dc == nil && v.from.serial == ""
	v.mu.Unlock()
	if hotSpot {
		return v.dumpHotSpotTo(ctx, live, w)
	}
	if v.from.serial != "" && v.m.adb != nil && !v.heapChunks(ctx) {
		return v.amDumpheapTo(ctx, w, live) // no HPDS on current Android: the device writes it
	}
	// A DDM dump (HPDS) streams into w. A device VM's fallback (am
	// dumpheap, pulled) streams into w likewise, if HPDS wrote nothing.
	n, err := v.dumpDDMTo(ctx, w)
	if err != nil && n == 0 && v.from.serial != "" && v.m.adb != nil {
		n, aerr := v.dumpWithAmTo(ctx, w)
		if aerr != nil {
			return n, fmt.Errorf("%w; then am dumpheap: %w", err, aerr)
		}
		v.log.Info().AnErr("hpds", err).Int64("bytes", n).Msg("heap dumped with am dumpheap")
		return n, nil
	}
	return n, err
}

// dumpHotSpotTo dumps a local HotSpot VM's heap through its attach socket.
func (v *VM) dumpHotSpotTo(ctx context.Context, live bool, w io.Writer) (int64, error) {
	v.mu.Lock()
	pid := v.pid
	v.mu.Unlock()
	if pid <= 0 {
		return 0, fmt.Errorf("VM %s: no local process found behind %s, so HotSpot's attach mechanism cannot reach it (heap dumps need the VM on this host, or a DDM-aware VM)", v.id, v.addr)
	}
	v.dumpMu.Lock()
	defer v.dumpMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, HeapDumpTimeout)
	defer cancel()
	n, err := hotspot.DumpHeapTo(ctx, pid, live, w)
	if err != nil {
		return n, fmt.Errorf("VM %s (pid %d): %w", v.id, pid, err)
	}
	return n, nil
}

// DumpPrivate dumps the VM's heap into a file of the monitor's that has no
// name (O_TMPFILE): nothing is left behind whatever happens, even SIGKILL,
// and only this descriptor reads it. The caller closes the file.
func (v *VM) DumpPrivate(ctx context.Context, live bool) (*os.File, int64, error) {
	f, err := dumpfile.Private("")
	if err != nil {
		return nil, 0, fmt.Errorf("a private file for the dump: %w (set TMPDIR to a writable directory)", err)
	}
	n, err := v.DumpTo(ctx, live, f)
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, n, nil
}
