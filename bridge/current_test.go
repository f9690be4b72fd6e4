package bridge

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// A debugger on the current-VM port while no VM is current makes the
// monitor scan at once: it attaches long before the next scan tick.
func TestCurrentPortScansAtOnce(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	o := testOptions(t, lo, 1)
	o.ScanInterval = time.Hour
	o.HoldTimeout = passDeadline
	m := startMonitor(t, o)
	vm := startDemo(t, lo, false) // READY: its agent listens; the monitor's first scan was before
	s := rawDial(t, m.CurrentAddr())
	id := s.send(t, jdwp.SetVirtualMachine, 1)
	if p := s.read(t); !p.IsReply() || p.ID != id || p.Error != jdwp.ErrNone {
		t.Fatalf("first packet through the current-VM port: %s", describe(p))
	}
	waitVM(t, m, vm.Addr, passDeadline)
}

// A VM's debugger port stays open while the VM restarts: a debugger
// connecting in between is held and reaches the restarted VM.
func TestDebugPortHoldsDuringRestart(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	o := testOptions(t, lo, 1)
	o.RestartHold = passDeadline
	m := startMonitor(t, o)
	vm := startDemo(t, lo, false)
	info := waitVM(t, m, vm.Addr, passDeadline)
	vm.Close()
	waitGone(t, m, vm.Addr, passDeadline)

	port := fmt.Sprintf("127.0.0.1:%d", info.DebugPort)
	nc, err := net.Dial("tcp", port)
	if err != nil {
		t.Fatalf("debugger port of a restarting VM: %v, want it held", err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(passDeadline))
	if _, err := io.WriteString(nc, jdwp.HandshakeString); err != nil {
		t.Fatal(err)
	}
	startDemo(t, lo, false)
	r := bufio.NewReader(nc)
	buf := make([]byte, len(jdwp.HandshakeString))
	if _, err := io.ReadFull(r, buf); err != nil || string(buf) != jdwp.HandshakeString {
		t.Fatalf("handshake after the restart: %q %v", buf, err)
	}
	if _, err := nc.Write((&jdwp.Packet{ID: 1, CmdSet: jdwp.SetVirtualMachine, Cmd: 1}).AppendTo(nil)); err != nil {
		t.Fatal(err)
	}
	// The restarted VM is a fresh attach for this debugger: HotSpot may send
	// it VM_START first, as it would directly. Skip events to the reply.
	p, err := jdwp.ReadPacket(r, jdwp.DefaultMaxPacketSize)
	for err == nil && !p.IsReply() && p.CmdSet == jdwp.CmdEventComposite.Set {
		p, err = jdwp.ReadPacket(r, jdwp.DefaultMaxPacketSize)
	}
	if err != nil || !p.IsReply() || p.ID != 1 || p.Error != jdwp.ErrNone {
		t.Fatalf("Version through the held port: %v %v", p, err)
	}
	if again := waitVM(t, m, vm.Addr, passDeadline); again.DebugPort != info.DebugPort {
		t.Errorf("restarted VM's debugger port %d, want %d", again.DebugPort, info.DebugPort)
	}
}
