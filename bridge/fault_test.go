package bridge

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/bridge/demoapp"
	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// rawDebugger connects to addr and does the JDWP handshake.
func rawDebugger(t testing.TB, addr string) net.Conn {
	t.Helper()
	return bridgetest.RawDebugger(t, addr)
}

// command sends one command and reads packets until its reply.
func command(t testing.TB, nc net.Conn, r *bufio.Reader, id uint32, set, cmd byte, data []byte) *jdwp.Packet {
	t.Helper()
	return bridgetest.Command(t, nc, r, id, set, cmd, data)
}

func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

// A debugger killed at a breakpoint (jdb killed) leaves the VM running —
// requests cleared, threads resumed — and monitored; a new debugger can attach.
func TestVanishedDebugger(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	vm := startDemo(t, lo, false)
	m := startMonitor(t, testOptions(t, lo, 1))
	waitVM(t, m, vm.Addr, 5*time.Second)
	j := startJDB(t, m.CurrentAddr())
	j.expect(`Initializing jdb \.\.\.\s*`+jdbPrompt, 20*time.Second)
	line := demoapp.Line("work-first")
	j.send(fmt.Sprintf("stop at DemoApp:%d", line))
	j.expect(`Set breakpoint`, 10*time.Second)
	// The VM runs: it hits the breakpoint by itself, at a moment that depends
	// on the machine's load (jdb may even print the hit before "Set
	// breakpoint", its event and command threads writing at once). So no
	// "cont" and no words of the hit are waited for, only jdb's state: a
	// thread prompt (jdb has a current thread only once an event stopped
	// one), then where that thread is, which jdb answers deterministically.
	j.expect(`\w+\[\d+\] $`, time.Minute)
	j.send("where")
	j.expect(fmt.Sprintf(`\[1\] DemoApp\.work \(DemoApp\.java:%d\)`, line), time.Minute)
	j.expect(jdbPrompt, time.Minute)
	j.send("suspend")
	j.expect(`All threads suspended`, 10*time.Second)
	stopped := lastTick(vm)
	time.Sleep(300 * time.Millisecond)
	if lastTick(vm) != stopped {
		t.Fatal("VM ran on while stopped at a breakpoint")
	}
	j.kill()
	waitTicking(t, vm, 5*time.Second)
	info := waitVM(t, m, vm.Addr, time.Second)
	waitFor(t, 5*time.Second, "debugger detached", func() bool { return !waitVM(t, m, vm.Addr, time.Second).Debugger })
	// The breakpoint is gone: a new debugger sees the VM running and can use it.
	if l := runJDI(t, fmt.Sprintf("127.0.0.1:%d", info.DebugPort), 1); l[len(l)-1] != "OK" {
		t.Errorf("JDI after a vanished debugger: %q", l)
	}
	waitTicking(t, vm, 5*time.Second)
}

// The VM dies while a debugger is attached: the debugger's connection is
// closed, the VM is removed, the monitor carries on.
func TestVMKilledWhileDebugging(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	vm := startDemo(t, lo, false)
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, vm.Addr, 5*time.Second)
	nc := rawDebugger(t, fmt.Sprintf("127.0.0.1:%d", info.DebugPort))
	defer nc.Close()
	r := bufio.NewReader(nc)
	if p := command(t, nc, r, 1, 1, 1, nil); p.Error != 0 { // Version
		t.Fatalf("Version through the bridge: %v", p.Error)
	}
	vm.Kill()
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, err := jdwp.ReadPacket(r, 0); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("debugger connection not closed after the VM died")
			}
			break
		}
	}
	waitGone(t, m, vm.Addr, 3*time.Second)
	again := startDemo(t, lo, false)
	waitVM(t, m, again.Addr, 5*time.Second)
}

// A debugger that dies in the middle of a command (a large reply in flight)
// and one that sends garbage are dropped; the VM stays monitored and usable.
func TestDebuggerKilledMidCommandAndMalformed(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	vm := startDemo(t, lo, false)
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, vm.Addr, 5*time.Second)
	port := fmt.Sprintf("127.0.0.1:%d", info.DebugPort)

	for i := 0; i < 5; i++ {
		nc := rawDebugger(t, port)
		// AllClasses has a big reply; suspend the VM too, then vanish.
		jdwp.WritePacket(nc, &jdwp.Packet{ID: 1, CmdSet: 1, Cmd: 8})
		jdwp.WritePacket(nc, &jdwp.Packet{ID: 2, CmdSet: 1, Cmd: 3})
		if tcp, ok := nc.(*net.TCPConn); ok {
			tcp.SetLinger(0) // a reset, like a killed process
		}
		nc.Close()
	}
	waitTicking(t, vm, 5*time.Second)

	for _, garbage := range [][]byte{
		{0, 0, 0, 3, 0, 0, 0, 1, 0, 1, 1},             // length below the header
		{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0, 1, 1}, // absurd length
		[]byte("GET / HTTP/1.0\r\n\r\n"),              // not JDWP at all
	} {
		nc := rawDebugger(t, port)
		nc.Write(garbage)
		nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadAll(nc); err != nil {
			t.Errorf("garbage %q: debugger not closed: %v", garbage, err)
		}
		nc.Close()
	}
	// Bad handshake.
	nc, _ := net.Dial("tcp", port)
	io.WriteString(nc, "JDWP-Handshak!")
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if b, _ := io.ReadAll(nc); len(b) != 0 {
		t.Errorf("bad handshake answered %q", b)
	}
	nc.Close()

	// Still monitored and usable.
	nc = rawDebugger(t, port)
	r := bufio.NewReader(nc)
	if p := command(t, nc, r, 7, 1, 1, nil); p.Error != 0 || !strings.Contains(string(p.Data), "Java") {
		t.Errorf("Version after faults: err %v data %q", p.Error, p.Data)
	}
	// A second debugger on the occupied VM joins the first.
	second := rawDebugger(t, port)
	if p := command(t, second, bufio.NewReader(second), 1, 1, 1, nil); p.Error != 0 || !strings.Contains(string(p.Data), "Java") {
		t.Errorf("Version from a second debugger: err %v data %q", p.Error, p.Data)
	}
	second.Close()
	// DDM packets from a debugger are not forwarded; Dispose is answered by the bridge.
	if p := command(t, nc, r, 8, 0xC7, 1, []byte("HELO\x00\x00\x00\x04\x00\x00\x00\x01")); p.Error != jdwp.ErrNotImplemented {
		t.Errorf("DDM from the debugger: error %v, want NOT_IMPLEMENTED", p.Error)
	}
	if p := command(t, nc, r, 9, 1, 6, nil); p.Error != 0 {
		t.Errorf("Dispose: error %v", p.Error)
	}
	nc.Close()
	waitTicking(t, vm, 5*time.Second)
	if vs := m.VMs(); len(vs) != 1 || vs[0].Address != vm.Addr {
		t.Errorf("VMs after faults: %+v", vs)
	}
}

// 1000 rapid debugger connect/disconnect cycles leak no goroutines and no
// sockets.
func TestRapidDebuggerCycles(t *testing.T) {
	lo := freePorts(t, 1)
	vm := startDemo(t, lo, false)
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, vm.Addr, 5*time.Second)
	port := fmt.Sprintf("127.0.0.1:%d", info.DebugPort)
	cycle := func(i int) {
		nc := rawDebugger(t, port)
		if i%2 == 0 {
			r := bufio.NewReader(nc)
			data := binary.BigEndian.AppendUint32(nil, 0)
			_ = data
			command(t, nc, r, uint32(i+1), 1, 7, nil) // IDSizes
		}
		nc.Close()
		// The next debugger waits for this one's cleanup; no sleep needed.
	}
	for i := 0; i < 20; i++ { // warm up pools and lazily started goroutines
		cycle(i)
	}
	time.Sleep(200 * time.Millisecond)
	g0, f0 := runtime.NumGoroutine(), openFDs()
	for i := 0; i < 1000; i++ {
		cycle(i)
	}
	var g1, f1 int
	waitFor(t, 5*time.Second, "goroutines and fds back to the baseline", func() bool {
		g1, f1 = runtime.NumGoroutine(), openFDs()
		return g1 <= g0+2 && f1 <= f0+2
	})
	t.Logf("goroutines %d → %d, open fds %d → %d after 1000 cycles", g0, g1, f0, f1)
	waitTicking(t, vm, 5*time.Second)
	if vs := m.VMs(); len(vs) != 1 || vs[0].Debugger {
		t.Errorf("VMs after cycles: %+v", vs)
	}
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
	if l := logs.String(); strings.Contains(l, "malformed") || !strings.Contains(l, "the debugger closed the connection") {
		t.Errorf("a reset logged as:\n%s\nwant %q, not a malformed packet", l, "the debugger closed the connection")
	}
}
