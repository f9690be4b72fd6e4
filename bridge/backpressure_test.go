package bridge

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/rs/zerolog"
)

// TestProxyBackpressure: a debugger that sends many AllClasses commands
// and reads nothing holds a bounded amount of the monitor's memory: the
// monitor stops reading its commands once replies pile up (issue 12: 10k
// unread replies took serve to 1.14 GB and other calls to 10.9 s). Meanwhile
// the monitor's own calls to the VM are answered, and when the debugger
// reads at last, every command is answered in order.
func TestProxyBackpressure(t *testing.T) {
	// Not parallel: the test reads the process's heap size.
	lo := freePorts(t, 1)
	vm := startDemo(t, lo, false)
	opts := testOptions(t, lo, 1)
	// The debugger reads nothing for as long as the replies take to pile
	// up, which on a busy machine can outlast the default write timeout.
	opts.DebuggerWriteTimeout = 5 * time.Minute
	m := startMonitor(t, opts)
	info := waitVM(t, m, vm.Addr, 60*time.Second)
	nc := rawDebugger(t, fmt.Sprintf("127.0.0.1:%d", info.DebugPort))
	defer nc.Close()
	nc.SetDeadline(time.Time{})

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

	m.mu.Lock()
	v := m.vms[info.ID]
	m.mu.Unlock()
	var s *session
	waitFor(t, 60*time.Second, "the debugger's session", func() bool {
		v.mu.Lock()
		defer v.mu.Unlock()
		if len(v.dbgs) > 0 {
			s = v.dbgs[0]
		}
		return s != nil
	})
	waitFor(t, 4*time.Minute, "the monitor to stop reading the debugger (replies pile up)", func() bool {
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
	if _, err := v.conn.Command(ctx, 1, 4, nil); err != nil { // AllThreads
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

// TestDebuggerResetIsALeave: a debugger whose connection is reset (closed
// with unread data, or SO_LINGER 0) left; it is not logged as a malformed
// packet (issue 12).
func TestDebuggerResetIsALeave(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	vm := startDemo(t, lo, false)
	o := testOptions(t, lo, 1)
	var logs lockedbuf.Buffer
	o.Logger = zerolog.New(zerolog.MultiLevelWriter(&logs, zerolog.NewTestWriter(t))).Level(zerolog.InfoLevel)
	m := startMonitor(t, o)
	info := waitVM(t, m, vm.Addr, 60*time.Second)
	nc := rawDebugger(t, fmt.Sprintf("127.0.0.1:%d", info.DebugPort))
	r := bufio.NewReader(nc)
	if p := command(t, nc, r, 1, 1, 1, nil); p.Error != 0 { // Version
		t.Fatalf("Version through the bridge: %v", p.Error)
	}
	nc.(*net.TCPConn).SetLinger(0)
	nc.Close() // a reset
	waitFor(t, 60*time.Second, "the debugger detached", func() bool { return strings.Contains(logs.String(), "debugger detached") })
	if l := logs.String(); strings.Contains(l, "malformed") || !strings.Contains(l, errDebuggerLeft.Error()) {
		t.Errorf("a reset logged as:\n%s\nwant %q, not a malformed packet", l, errDebuggerLeft)
	}
}
