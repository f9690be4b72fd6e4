package dap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/internal/hotspot"
	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
	godap "github.com/google/go-dap"
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

// DumpHeapArguments are the arguments of dumpHeap.
type DumpHeapArguments struct {
	// Path is where to write the dump; empty means a new file in the
	// temporary directory. An existing file is not overwritten.
	Path string `json:"path,omitempty"`
	// Live dumps only reachable objects (HotSpot runs a full GC first).
	Live bool `json:"live,omitempty"`
	// Top is how many histogram rows the answer carries; 0 means 10.
	Top int `json:"top,omitempty"`
}

// DumpHeapBody is the body of the dumpHeap response.
type DumpHeapBody struct {
	Path    string            `json:"path"`
	Bytes   int64             `json:"bytes"`
	Format  string            `json:"format"` // the HPROF header: "JAVA PROFILE 1.0.2"…
	Objects int               `json:"objects"`
	Top     []hprof.ClassStat `json:"top"` // biggest classes first
}

type dumpHeapRequest struct {
	godap.Request
	Arguments DumpHeapArguments `json:"arguments"`
}

type dumpHeapResponse struct {
	godap.Response
	Body DumpHeapBody `json:"body"`
}

// heapDumpTimeout bounds a dump: writing a big heap takes a while.
const heapDumpTimeout = 5 * time.Minute

func (s *session) dumpHeap(_ context.Context, r *dumpHeapRequest) (DumpHeapBody, error) {
	a := r.Arguments
	path := a.Path
	var f *os.File
	var err error
	if path == "" {
		f, err = os.CreateTemp("", "ddmbridge-heap-*.hprof")
	} else {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	}
	if err != nil {
		return DumpHeapBody{}, fmt.Errorf("the dump's file: %w", err)
	}
	path = f.Name()
	ok := false
	defer func() {
		f.Close()
		if !ok {
			os.Remove(path)
		}
	}()

	ctx, cancel := context.WithTimeout(s.ctx, heapDumpTimeout)
	defer cancel()
	p := s.startProgress(0, "Dumping the heap", s.dbg.target)
	defer p.end("")
	b, err := s.dumpBytes(ctx, a.Live)
	if err != nil {
		return DumpHeapBody{}, err
	}
	p.update(fmt.Sprintf("writing %d MB to %s", len(b)>>20, filepath.Base(path)), -1)
	if _, err := f.Write(b); err != nil {
		return DumpHeapBody{}, fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return DumpHeapBody{}, fmt.Errorf("writing %s: %w", path, err)
	}
	p.update("reading the class histogram", -1)
	h, err := hprof.Parse(bytes.NewReader(b), hprof.Options{SizeHint: int64(len(b))})
	if err != nil {
		return DumpHeapBody{}, fmt.Errorf("the dump written to %s does not parse: %w", path, err)
	}
	top := a.Top
	if top <= 0 {
		top = 10
	}
	hist := h.Histogram()
	ok = true
	return DumpHeapBody{Path: path, Bytes: int64(len(b)), Format: h.Format, Objects: h.NumObjects(), Top: hist[:min(top, len(hist))]}, nil
}

// dumpBytes asks the backend for the dump, or HotSpot's attach mechanism
// on the local JVM behind a stand-alone session.
func (s *session) dumpBytes(ctx context.Context, live bool) ([]byte, error) {
	d := s.dbg
	if hd, ok := s.cfg.Backend.(HeapDumper); ok {
		return hd.DumpHeap(ctx, d.target, live)
	}
	if d.ddm != nil && d.ddm.client != nil && d.ddm.client.Speaks(ctx) {
		return nil, errors.New("heap dumps of a DDM VM go through the monitor: attach through `ddmbridge serve` (VS Code's extension does)")
	}
	pid, err := s.localPID()
	if err != nil {
		return nil, err
	}
	return hotspot.DumpHeap(ctx, pid, live)
}

// localPID is the process id of the JVM behind a stand-alone session: the
// one it launched, or the local JVM whose agent listens at the attached
// address.
func (s *session) localPID() (int, error) {
	d := s.dbg
	if d.proc != nil && d.proc.pid > 0 {
		return d.proc.pid, nil
	}
	host, port, err := net.SplitHostPort(d.target)
	if err != nil {
		return 0, fmt.Errorf("no local process behind %q", d.target)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return 0, fmt.Errorf("%s is not on this machine: heap dumps need the VM's process here (HotSpot's attach mechanism)", d.target)
	}
	procs, err := localjvm.List()
	if err != nil {
		return 0, err
	}
	for _, p := range procs {
		if _, pp, err := net.SplitHostPort(p.Address); err == nil && pp == port {
			return p.PID, nil
		}
	}
	if n, _ := strconv.Atoi(port); n > 0 {
		return 0, fmt.Errorf("no local JVM of this user has its JDWP agent at port %d", n)
	}
	return 0, fmt.Errorf("no local JVM behind %s", d.target)
}
