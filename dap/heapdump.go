package dap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/internal/dumpfile"
	"github.com/ddmbridge/ddmbridge/internal/hotspot"
	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
)

// Heap dumps over DAP: the custom request dumpHeap writes an HPROF dump of
// the debuggee's heap to a file and answers with its path, its size and the
// top of its class histogram, so an editor can open the dump (VS Code's
// .hprof editor) without a second connection to the monitor. The dump comes
// from the backend when it can make one (the monitor: HotSpot's attach
// mechanism for a local JVM, HPDS for a DDM VM), else, for a stand-alone
// session, from HotSpot's attach mechanism on the local JVM behind the
// session (the one it launched, or the one listening at the attached port).

// HeapDumper is a Backend that dumps the heap of a VM it opens connections
// to. The monitor's backend is one.
type HeapDumper interface {
	// DumpHeap returns an HPROF dump of target's heap; live asks for
	// reachable objects only where the VM can tell (HotSpot).
	DumpHeap(ctx context.Context, target string, live bool) ([]byte, error)
}

// HeapWriter is a HeapDumper that writes the dump to w instead of returning
// it, so no one holds a whole dump in memory; preferred when a Backend is one.
type HeapWriter interface {
	DumpHeapTo(ctx context.Context, target string, live bool, w io.Writer) (int64, error)
}

// heapDumpTimeout bounds a dump: writing a big heap takes a while.
const heapDumpTimeout = 5 * time.Minute

func (s *session) dumpHeap(_ context.Context, r *dumpHeapRequest) (DumpHeapBody, error) {
	a := r.Arguments
	var f *dumpfile.File
	var err error
	if a.Path == "" {
		f, err = dumpfile.CreateTemp(".hprof")
	} else {
		f, err = dumpfile.Create(a.Path, dumpfile.Options{Force: a.Force})
		if errors.Is(err, dumpfile.ErrExists) {
			return DumpHeapBody{}, fmt.Errorf("%w; pass \"force\": true to replace it", err)
		}
	}
	if err != nil {
		return DumpHeapBody{}, fmt.Errorf("the dump's file: %w", err)
	}
	path := f.Path()
	defer f.Abort() // a failed dump leaves nothing behind (with force: the old file)

	ctx, cancel := context.WithTimeout(s.ctx, heapDumpTimeout)
	defer cancel()
	p := s.startProgress(0, "Dumping the heap", s.dbg.target)
	defer p.End("")
	n, err := s.dumpTo(ctx, a.Live, f.File)
	if err != nil {
		return DumpHeapBody{}, err
	}
	if err = f.Commit(); err != nil {
		return DumpHeapBody{}, fmt.Errorf("writing %s: %w", path, err)
	}
	p.Update(fmt.Sprintf("reading the class histogram of %d MB", n>>20), -1)
	h, err := parseDump(path, n)
	if err != nil {
		return DumpHeapBody{}, fmt.Errorf("the dump written to %s does not parse: %w", path, err)
	}
	top := a.Top
	if top <= 0 {
		top = 10
	}
	return hprof.DumpOf(path, n, h, h.Histogram(), top), nil
}

func parseDump(path string, size int64) (*hprof.Heap, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return hprof.Parse(f, hprof.Options{SizeHint: size})
}

// dumpTo writes the dump to w: from the backend when it can make one, else
// through HotSpot's attach mechanism on the local JVM behind a stand-alone
// session.
func (s *session) dumpTo(ctx context.Context, live bool, w io.Writer) (int64, error) {
	d := s.dbg
	if hw, ok := s.cfg.Backend.(HeapWriter); ok {
		return hw.DumpHeapTo(ctx, d.target, live, w)
	}
	if hd, ok := s.cfg.Backend.(HeapDumper); ok {
		b, err := hd.DumpHeap(ctx, d.target, live)
		if err != nil {
			return 0, err
		}
		n, err := w.Write(b)
		return int64(n), err
	}
	if d.ddm != nil && d.ddm.client != nil && d.ddm.client.Speaks(ctx) {
		return 0, errors.New("heap dumps of a DDM VM go through the monitor: attach through `ddmbridge serve` (VS Code's extension does)")
	}
	pid, err := s.localPID()
	if err != nil {
		return 0, err
	}
	return hotspot.DumpHeapTo(ctx, pid, live, w)
}

// localPID is the process id of the JVM behind a stand-alone session: the
// one it launched, or the local JVM whose agent listens at the attached
// address.
func (s *session) localPID() (int, error) {
	if d := s.dbg; d.proc != nil && d.proc.Pid() > 0 {
		return d.proc.Pid(), nil
	}
	p, err := localjvm.AgentAt(s.dbg.target)
	if err != nil {
		return 0, fmt.Errorf("a heap dump needs the VM's process on this machine (HotSpot's attach mechanism): %w", err)
	}
	return p.PID, nil
}
