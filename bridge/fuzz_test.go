package bridge

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// FuzzDebuggerPackets sends arbitrary bytes after the handshake to a
// simulated VM's debugger port, as a debugger would, then hangs up. The
// monitor parses them (framing, the commands it handles itself, the ones
// whose effects it tracks for the cleanup) and forwards the rest; whatever
// they are, the session ends, the VM stays monitored and the next debugger
// is served. Inputs that would end the VM (VirtualMachine.Exit) are skipped:
// ending it is what Exit is for.
func FuzzDebuggerPackets(f *testing.F) {
	cmd := func(id uint32, set, c byte, data []byte) []byte {
		return (&jdwp.Packet{ID: id, CmdSet: set, Cmd: c, Data: data}).Bytes()
	}
	f.Add(cmd(1, 1, 1, nil))                                                  // Version
	f.Add(cmd(1, 15, 1, []byte{byte(jdwp.EventClassPrepare), 2, 0, 0, 0, 0})) // EventRequest.Set, suspend all
	f.Add(cmd(1, 15, 2, []byte{byte(jdwp.EventBreakpoint), 0, 0, 0, 7}))      // EventRequest.Clear
	f.Add(cmd(1, 15, 1, []byte{byte(jdwp.EventBreakpoint)}))                  // a Set cut short
	f.Add(append(cmd(1, 1, 8, nil), cmd(2, 1, 9, nil)...))                    // Suspend, Resume
	f.Add(cmd(1, 1, 6, nil))                                                  // Dispose
	f.Add(cmd(7, 0xC7, 1, []byte("HELO")))                                    // DDM belongs to the monitor
	f.Add(cmd(1, 11, 2, []byte{0, 0, 0, 0, 0, 0, 0, 1}))                      // ThreadReference.Suspend
	f.Add(cmd(3, 1, 7, nil)[:9])                                              // a packet cut short
	f.Add([]byte{0, 0, 0, 5, 0, 0, 0, 1, 0})                                  // a length under the header's
	f.Add((&jdwp.Packet{ID: 4, Flags: jdwp.FlagReply}).Bytes())               // a reply from the debugger

	lo := freePorts(f, 1)
	serveSim(f, lo, simvm.Options{AppName: "com.example.fuzz"})
	o := testOptions(f, lo, 1)
	o.Logger = o.Logger.Level(5) // errors only: the fuzzer's garbage is logged as warnings
	m := startMonitor(f, o)
	info := waitVM(f, m, fmt.Sprintf("127.0.0.1:%d", lo), 60*time.Second)
	port := fmt.Sprintf("127.0.0.1:%d", info.DebugPort)
	m.mu.Lock()
	v := m.vms[info.ID]
	m.mu.Unlock()

	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for {
			p, err := jdwp.ReadPacket(r, jdwp.DefaultMaxPacketSize)
			if err != nil {
				break
			}
			if !p.IsReply() && p.CmdSet == 1 && p.Cmd == 10 {
				return // VirtualMachine.Exit
			}
		}
		detached := func() {
			waitFor(t, 60*time.Second, "the debugger's session to end", func() bool {
				return v.mux.Sessions() == 0
			})
		}
		nc := patientDebugger(t, port)
		nc.Write(data)
		nc.Close()
		detached()
		next := patientDebugger(t, port)
		p := command(t, next, bufio.NewReader(next), 1, 1, 1, nil)
		next.Close()
		if p.Error != jdwp.ErrNone {
			t.Fatalf("Version after the input: %v", p.Error)
		}
		detached()
	})
}

// patientDebugger is rawDebugger with deadlines for a machine that the
// fuzzer's workers load.
func patientDebugger(t *testing.T, addr string) net.Conn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := io.WriteString(nc, jdwp.HandshakeString); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(jdwp.HandshakeString))
	if _, err := io.ReadFull(nc, buf); err != nil || string(buf) != jdwp.HandshakeString {
		t.Fatalf("handshake through the bridge: %q %v", buf, err)
	}
	return nc
}
