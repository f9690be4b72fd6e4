package bridge

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// startSimVM puts a simulated DDM VM in front of the JVM at jvm, listening on
// 127.0.0.1:port.
func startSimVM(t testing.TB, port int, jvm string, profile simvm.Profile) *simvm.VM {
	t.Helper()
	return serveSim(t, port, simvm.Options{Profile: profile, JVM: jvm, AppName: "com.example.demo", PID: 4242,
		Tick: 100 * time.Millisecond, GCInterval: 250 * time.Millisecond})
}

// serveSim serves a simulated VM with opts (logging to the test) on
// 127.0.0.1:port until the test ends.
func serveSim(t testing.TB, port int, opts simvm.Options) *simvm.VM {
	t.Helper()
	return bridgetest.ServeSim(t, port, opts)
}

// DDM keeps flowing before, during and after a debugger session on a
// DDM-aware VM (simvm in front of a real HotSpot), and the session ends
// with DBGD for draft-protocol VMs.
func TestDDMFlowsAroundDebuggerSession(t *testing.T) {
	t.Parallel()
	for _, profile := range []simvm.Profile{simvm.ProfileART, simvm.ProfileDraft} {
		t.Run(string(profile), func(t *testing.T) {
			t.Parallel()
			lo := freePorts(t, 1)
			jvm := startDemo(t, 0, false) // outside the scan range: simvm owns it
			startSimVM(t, lo, jvm.Addr, profile)
			m := startMonitor(t, testOptions(t, lo, 1))
			events, cancel := m.Subscribe()
			defer cancel()
			addr := fmt.Sprintf("127.0.0.1:%d", lo)
			info := waitVM(t, m, addr, 5*time.Second)
			if !info.DDM || info.Name != "com.example.demo" || info.PID != 4242 || !info.Simulated {
				t.Fatalf("info = %+v, want a simulated DDM VM named com.example.demo, pid 4242", info)
			}
			v, _ := m.VM(info.ID)
			v.SetThreadUpdates(true)
			if err := v.SetHeapUpdates(true); err != nil {
				t.Fatal(err)
			}

			type mark struct {
				kind     EventKind
				debugger bool
				at       time.Time
			}
			var mu sync.Mutex
			var marks []mark
			go func() {
				for e := range events {
					mu.Lock()
					marks = append(marks, mark{e.Kind, e.VM.Debugger, time.Now()})
					mu.Unlock()
				}
			}()
			count := func(kind EventKind, from, to time.Time) int {
				mu.Lock()
				defer mu.Unlock()
				n := 0
				for _, mk := range marks {
					if mk.kind == kind && mk.at.After(from) && mk.at.Before(to) {
						n++
					}
				}
				return n
			}
			// DDM flows before the session: an event of each kind, however
			// long a loaded machine takes to send it.
			before := time.Now()
			flowing := func(what string, from time.Time) {
				waitFor(t, time.Minute, what, func() bool {
					return count(EventThreads, from, time.Now()) > 0 && count(EventHeap, from, time.Now()) > 0
				})
			}
			flowing("thread and heap events before the session", before)
			// A debugger session: breakpoints hit and steps, then it stays
			// attached until DDM events of each kind arrived while attached.
			start := time.Now()
			lines := runJDIHolding(t, fmt.Sprintf("127.0.0.1:%d", info.DebugPort), 8, func() {
				flowing("thread and heap events while the debugger is attached", time.Now())
			})
			end := time.Now()
			if lines[len(lines)-1] != "OK" {
				t.Fatalf("JDI session: %q", lines)
			}
			flowing("thread and heap events after the session", end)
			after := time.Now()
			for _, k := range []EventKind{EventThreads, EventHeap} {
				b, d, a := count(k, before, start), count(k, start, end), count(k, end, after)
				t.Logf("%s events: %d before, %d during (%v), %d after the session", k, b, d, end.Sub(start).Round(time.Millisecond), a)
				if b == 0 || d == 0 || a == 0 {
					t.Errorf("%s: DDM stopped flowing (before %d, during %d, after %d)", k, b, d, a)
				}
			}
			if len(v.CachedThreads()) == 0 {
				t.Error("no threads from DDM")
			}
			if hm, err := v.HeapMap(t.Context(), false); err != nil || len(hm.Pieces) == 0 {
				t.Errorf("heap map: %v %v", hm, err)
			}
			waitTicking(t, jvm, 5*time.Second)
			if profile == simvm.ProfileDraft {
				waitFor(t, 3*time.Second, "DBGD acknowledged", func() bool { return v.dbgdAcks.Load() > 0 })
			} else if v.dbgdAcks.Load() != 0 {
				t.Error("DBGD sent to an ART-profile VM")
			}
		})
	}
}

// A DDM-aware VM gets nothing but DDM from the monitor until a debugger
// attaches, even with thread and heap updates on. A counting relay sits
// between the monitor and the simulated VM.
func TestDDMOnlyUntilDebugger(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	simLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sv, err := simvm.New(simvm.Options{Logger: testLogger(t), Tick: 50 * time.Millisecond, GCInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	go sv.Serve(simLn)
	t.Cleanup(func() { sv.Close() })
	relay, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", lo))
	if err != nil {
		t.Fatal(err)
	}
	defer relay.Close()
	var mu sync.Mutex
	var nonDDM []string
	go func() {
		for {
			c, err := relay.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", simLn.Addr().String())
			if err != nil {
				c.Close()
				continue
			}
			go func() { io.Copy(c, up); c.Close() }()
			go func() {
				defer up.Close()
				hs := make([]byte, 14)
				if _, err := io.ReadFull(c, hs); err != nil {
					return
				}
				up.Write(hs)
				r := bufio.NewReader(c)
				for {
					p, err := jdwp.ReadPacket(r, 0)
					if err != nil {
						return
					}
					if !p.IsReply() && p.CmdSet != 0xC7 {
						mu.Lock()
						nonDDM = append(nonDDM, jdwp.CommandName(p.CmdSet, p.Cmd))
						mu.Unlock()
					}
					jdwp.WritePacket(up, p)
				}
			}()
		}
	}()
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, relay.Addr().String(), 5*time.Second)
	v, _ := m.VM(info.ID)
	v.SetThreadUpdates(true)
	v.SetHeapUpdates(true)
	if _, err := v.Threads(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := v.HeapMap(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	// A VM on a workstation port has no origin to vouch for it: it is asked
	// its Version once, to learn it is Android's before any DDM is sent.
	mu.Lock()
	if len(nonDDM) != 1 || nonDDM[0] != "VirtualMachine.Version" {
		t.Errorf("the monitor sent non-DDM commands to a DDM VM before any debugger beyond one Version: %v", nonDDM)
	}
	mu.Unlock()
	// A debugger's commands do go through.
	nc := rawDebugger(t, fmt.Sprintf("127.0.0.1:%d", info.DebugPort))
	command(t, nc, bufio.NewReader(nc), 1, 1, 1, nil)
	nc.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(nonDDM) != 2 || nonDDM[1] != "VirtualMachine.Version" {
		t.Errorf("after a debugger's Version: %v", nonDDM)
	}
}
