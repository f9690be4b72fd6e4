package mux

import (
	"bufio"
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// TestProxyBackpressure: a debugger that sends many AllClasses commands
// and reads nothing holds a bounded amount of the multiplexer's memory: it
// stops reading the debugger's commands once replies pile up (issue 12: 10k
// unread replies took serve to 1.14 GB and other calls to 10.9 s). Meanwhile
// the monitor's own calls to the VM are answered, and when the debugger
// reads at last, every command is answered in order.
func TestProxyBackpressure(t *testing.T) {
	// Not parallel: the test reads the process's heap size.
	opts := testOptions(t)
	// The debugger reads nothing for as long as the replies take to pile
	// up, which on a busy machine can outlast the default write timeout.
	opts.DebuggerWriteTimeout = 5 * time.Minute
	m, conn, _ := startMux(t, opts)
	nc, s := debugger(t, m)

	// Enough replies to outgrow the bound plus the kernel's socket buffers.
	const commands = 6000
	written := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(nc)
		for id := uint32(1); id <= commands; id++ {
			if err := jdwp.WritePacket(w, &jdwp.Packet{ID: id, CmdSet: 1, Cmd: 3}); err != nil { // AllClasses
				written <- err
				return
			}
		}
		written <- w.Flush()
	}()

	bridgetest.WaitFor(t, 4*time.Minute, "the monitor to stop reading the debugger (replies pile up)", func() bool {
		return s.pending.Load() == 0 && s.out.Buffered() >= maxUnreadOutput
	})
	// What waits for the debugger is the bound plus the replies to the
	// commands in flight when it was reached, not all replies (each is
	// tens of kB: all of them would be over a hundred MB).
	if n := s.out.Buffered(); n > 4*maxUnreadOutput {
		t.Errorf("%d bytes queued for a debugger that reads nothing, want about %d at most", n, maxUnreadOutput)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("heap while the debugger reads nothing: %d MB; %d bytes queued for it", ms.HeapAlloc>>20, s.out.Buffered())
	start := time.Now()
	if ms.HeapAlloc > 512<<20 {
		t.Errorf("heap %d MB with a stalled debugger, want it bounded", ms.HeapAlloc>>20)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := conn.Command(ctx, 1, 4, nil); err != nil { // AllThreads
		t.Fatalf("the monitor's own call to the VM while a debugger floods it: %v", err)
	}

	nc.SetReadDeadline(time.Now().Add(5 * time.Minute))
	r := bufio.NewReaderSize(nc, 1<<20)
	for id := uint32(1); id <= commands; {
		p, err := jdwp.ReadPacket(r, jdwp.DefaultMaxPacketSize)
		if err != nil {
			t.Fatalf("reading reply %d of %d: %v", id, commands, err)
		}
		if !p.IsReply() {
			continue
		}
		if p.ID != id || p.Error != jdwp.ErrNone {
			t.Fatalf("reply %d (%v), want reply %d", p.ID, p.Error, id)
		}
		id++
	}
	if err := <-written; err != nil {
		t.Fatalf("writing the commands: %v", err)
	}
	t.Logf("%d replies read in %v once the debugger read", commands, time.Since(start))
}
