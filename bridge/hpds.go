package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/internal/dumpfile"
)

// A DDM VM's heap dump is one HPDS chunk holding the whole file
// (shared/reference/ddm.md §5.4), hundreds of megabytes on a real app. It
// is never held whole: from jdwp.StreamMin bytes on, the chunk goes from
// the VM's connection to the dump's writer (the file the client named, or
// the monitor's private file a stream reads) as it arrives, in pieces of
// the connection's read buffer (ddm.Client.StreamChunks). Meanwhile the
// VM's other packets wait, as they wait for any slow reader.

// errDumpOver drops the rest of an HPDS chunk whose dump has given up.
var errDumpOver = errors.New("the heap dump it belonged to is over (failed, timed out or cancelled)")

// hpdsSink is where the HPDS chunk of the dump in progress goes.
type hpdsSink struct {
	mu   sync.Mutex
	w    io.Writer // nil once the dump is over: later parts are dropped
	n    int64     // bytes written
	size int64     // the chunk's size, once it started
	done chan error
}

func (s *hpdsSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return 0, errDumpOver
	}
	n, err := s.w.Write(p)
	s.n += int64(n)
	return n, err
}

func (s *hpdsSink) End(err error) { s.done <- err }

// close ends the sink: the writer is not used after it returns.
func (s *hpdsSink) close() (written int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w = nil
	return s.n
}

// streamHPDS has the VM's large HPDS chunks go to the dump in progress.
func (v *VM) streamHPDS(dc *ddm.Client) {
	dc.StreamChunks(ddm.HPDS, func(size int64) ddm.ChunkSink {
		s := v.hpds.Swap(nil)
		if s == nil {
			return nil // nobody asked: dropped, logged
		}
		s.size = size
		v.log.Debug().Int64("bytes", size).Msg("heap dump (HPDS) arriving")
		return s
	})
	v.conn.HandleLargeCommands(ddm.CommandSet, dc.HandleLargePacket)
}

// dumpDDMTo writes a heap dump of the VM to w: HotSpot's attach mechanism
// for a VM without DDM, HPDS for a DDM VM. It returns the bytes written,
// which on failure may be part of the dump.
func (v *VM) dumpDDMTo(ctx context.Context, w io.Writer) (int64, error) {
	if v.dc == nil {
		v.mu.Lock()
		local := v.from.serial == ""
		v.mu.Unlock()
		if !local { // its pid is the device's: never a process here
			return 0, fmt.Errorf("VM %s: heap dumps of a device VM need DDM (HPDS): %w", v.id, ErrNotDDM)
		}
		return v.dumpHotSpotTo(ctx, true, w)
	}
	if f := v.dc.Data().Identity().Features; len(f) > 0 && !slices.Contains(f, featureHprofStreaming) {
		return 0, fmt.Errorf("VM %s cannot stream heap dumps (no %q feature); older VMs only write them to a device file (HPDU)", v.id, featureHprofStreaming)
	}
	v.dumpMu.Lock()
	defer v.dumpMu.Unlock()
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("VM %s: heap dump: %w", v.id, err)
	}
	ctx, cancel := context.WithTimeout(ctx, HeapDumpTimeout)
	defer cancel()
	sink := &hpdsSink{w: w, done: make(chan error, 1)}
	v.hpds.Store(sink)
	defer func() {
		v.hpds.CompareAndSwap(sink, nil)
		sink.close()
	}()
	// Subscribe before asking: the chunk may come before the (empty) reply.
	// A dump under jdwp.StreamMin comes whole, to the model.
	ch, unsub := v.dc.Data().Subscribe()
	defer unsub()
	before := v.dc.Data().Profiling().LastHprof
	start := time.Now()
	req := v.dc.Send(&ddm.Empty{Type: ddm.HPDS}, nil)
	replied := req.Done()
	for {
		if h := v.dc.Data().Profiling().LastHprof; isNewDump(before, h) {
			if sink.close() > 0 {
				return 0, fmt.Errorf("VM %s sent two heap dumps (HPDS) for one request", v.id)
			}
			n, err := io.Copy(w, bytes.NewReader(h))
			return n, err
		}
		select {
		case <-ch:
		case err := <-sink.done:
			n := sink.close()
			if err != nil {
				return n, fmt.Errorf("VM %s: heap dump (HPDS) cut off after %d of %d bytes: %w", v.id, n, sink.size, err)
			}
			v.log.Debug().Int64("bytes", n).Dur("took", time.Since(start)).Msg("heap dump (HPDS) received")
			return n, nil
		case <-replied:
			replied = nil
			rep, _ := req.Wait(context.Background()) // done: returns at once
			// ART writes the dump before it replies, so a late reply (or
			// none) is not a failure; a FAIL or a lost connection is.
			if rep.Err != nil && !errors.Is(rep.Err, ddm.ErrTimeout) {
				return sink.close(), fmt.Errorf("VM %s: heap dump (HPDS): %w", v.id, rep.Err)
			}
		case <-v.removed:
			return sink.close(), fmt.Errorf("VM %s went away during the heap dump", v.id)
		case <-ctx.Done():
			return sink.close(), fmt.Errorf("VM %s sent no heap dump (HPDS): %w", v.id, ctx.Err())
		}
	}
}

// cleanStaleDumps removes the partial heap dumps of processes that died
// while writing them (package dumpfile's journal): a monitor or CLI killed
// mid-dump.
func (m *Monitor) cleanStaleDumps() {
	removed, err := dumpfile.CleanStale()
	for _, p := range removed {
		m.log.Info().Str("path", p).Msg("removed a partial heap dump left by a process that died while writing it")
	}
	if err != nil {
		m.log.Warn().Err(err).Msg("partial heap dumps of dead processes: some could not be checked or removed")
	}
}
