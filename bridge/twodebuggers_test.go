package bridge

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ddmbridge/ddmbridge/bridge/demoapp"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// jdb and a second JDWP client on one VM's debugger port, each with its own
// breakpoints and steps: the client sees only its own events, jdb's session
// reads exactly as jdb's on a VM of its own, and each one's resumes leave
// the other's suspensions alone.
func TestTwoDebuggersOneVM(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	shared := startDemo(t, lo, false)
	alone := startDemo(t, 0, false)
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, shared.Addr, passDeadline)
	port := fmt.Sprintf("127.0.0.1:%d", info.DebugPort)

	// The client: a breakpoint at work-label suspending its thread; the
	// first hit is followed by a line step.
	c := debugSession(t, port)
	ctx := t.Context()
	cls := classID(t, c, "LDemoApp;")
	ms, err := c.Methods(ctx, cls)
	if err != nil {
		t.Fatal(err)
	}
	var work jdwp.MethodID
	for _, mi := range ms {
		if mi.Name == "work" {
			work = mi.ID
		}
	}
	lt, err := c.LineTable(ctx, cls, work)
	if err != nil {
		t.Fatal(err)
	}
	label := int32(demoapp.Line("work-label"))
	var at jdwp.Location
	for _, l := range lt.Lines {
		if l.Line == label {
			at = jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: cls, Method: work, Index: l.CodeIndex}
			break
		}
	}
	if at.Method == 0 {
		t.Fatalf("no code at line %d in %+v", label, lt)
	}
	sub := c.Subscribe()
	defer sub.Close()
	bp, err := c.SetRequest(ctx, jdwp.EventBreakpoint, jdwp.SuspendEventThread, jdwp.LocationOnly(at))
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	mine := map[int32]bool{bp: true}
	var hits, steps int
	var foreign []string
	stop := make(chan struct{})
	clientDone := make(chan struct{})
	go func() {
		defer close(clientDone)
		for {
			select {
			case es := <-sub.C:
				if es == nil || es.Packet == nil {
					return
				}
				for _, e := range es.Events {
					mu.Lock()
					own := mine[e.RequestID]
					mu.Unlock()
					if !own {
						mu.Lock()
						foreign = append(foreign, fmt.Sprintf("%v request %d", e.Kind, e.RequestID))
						mu.Unlock()
						continue
					}
					switch e.Kind {
					case jdwp.EventBreakpoint:
						mu.Lock()
						hits++
						first := hits == 1
						mu.Unlock()
						if first {
							id, err := c.SetRequest(ctx, jdwp.EventSingleStep, jdwp.SuspendEventThread,
								jdwp.Step{Thread: e.Thread, Size: jdwp.StepLine, Depth: jdwp.StepOver}, jdwp.Count(1))
							if err != nil {
								t.Errorf("step request: %v", err)
								return
							}
							mu.Lock()
							mine[id] = true
							mu.Unlock()
						}
					case jdwp.EventSingleStep:
						mu.Lock()
						steps++
						mu.Unlock()
					}
				}
				if es.SuspendPolicy == jdwp.SuspendEventThread && len(es.Events) > 0 {
					if err := c.ResumeThread(ctx, es.Events[0].Thread); err != nil {
						t.Errorf("client resume: %v", err)
						return
					}
				}
			case <-stop:
				return
			}
		}
	}()

	// jdb on the same port, and on a VM of its own for comparison.
	var viaShared, viaAlone []string
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); viaAlone = jdbScript(t, startJDB(t, alone.Addr)) }()
	go func() { defer wg.Done(); viaShared = jdbScript(t, startJDB(t, port)) }()
	wg.Wait()
	if !t.Failed() && strings.Join(viaShared, "\n") != strings.Join(viaAlone, "\n") {
		t.Errorf("jdb sharing the VM differs from jdb alone:\n--- shared ---\n%s\n--- alone ---\n%s",
			strings.Join(viaShared, "\n"), strings.Join(viaAlone, "\n"))
	}

	// The client's breakpoint keeps hitting after jdb left.
	mu.Lock()
	before := hits
	mu.Unlock()
	waitFor(t, passDeadline, "the client's breakpoint to hit after jdb left", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return hits > before+1 && steps == 1
	})
	close(stop)
	<-clientDone
	mu.Lock()
	t.Logf("client: %d breakpoint hits, %d steps; jdb transcript:\n%s", hits, steps, strings.Join(viaShared, "\n"))
	if len(foreign) > 0 {
		t.Errorf("the client saw events of jdb's requests: %v", foreign)
	}
	mu.Unlock()
	leave(t, c)
	waitTicking(t, shared, passDeadline)
	waitFor(t, passDeadline, "no debugger in the VM's info", func() bool { return !waitVM(t, m, shared.Addr, passDeadline).Debugger })
}
