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

// Collection pins are per debugger while two share a VM: one leaving
// releases its pins (its objects become unreachable) while the other's
// pins, on some of the same objects, hold, even after the leaving one sent
// an EnableCollection it had no pin for. Ids have one lifetime for the
// debuggers attached at once: the one staying uses the ids the other
// learnt; once the last one leaves, they are INVALID_OBJECT, as directly.
func TestTwoDebuggersPinsAndIDs(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	vm := startDemo(t, lo, false)
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, vm.Addr, passDeadline)
	port := fmt.Sprintf("127.0.0.1:%d", info.DebugPort)
	ctx := t.Context()

	b := debugSession(t, port) // stays
	a := debugSession(t, port) // leaves
	strs, ints := classID(t, a, "[Ljava/lang/String;"), classID(t, a, "[Ljava/lang/Integer;")
	// count is how many arrays of each kind are reachable (HotSpot counts
	// instances by walking from the roots, pins included).
	count := func(c *jdwp.Conn) (int64, int64) {
		t.Helper()
		n, err := c.InstanceCounts(ctx, []jdwp.ReferenceTypeID{strs, ints})
		if err != nil {
			t.Fatal(err)
		}
		return n[0], n[1]
	}
	baseS, baseI := count(b)
	sizes, err := a.IDSizes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	newPinned := func(c *jdwp.Conn, arr jdwp.ReferenceTypeID) jdwp.ObjectID {
		t.Helper()
		w := jdwp.NewWriter(&sizes)
		w.ReferenceTypeID(arr)
		w.Int32(1)
		rep, err := c.Command(ctx, jdwp.SetArrayType, 1, w.Bytes())
		if err != nil {
			t.Fatalf("ArrayType.NewInstance: %v", err)
		}
		o := jdwp.NewReader(rep, &sizes).TaggedObjectID().ID
		if err := c.DisableCollection(ctx, o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	// a pins 200 String[] alone and 100 Integer[] that b pins too.
	const alone, both = 200, 100
	for range alone {
		newPinned(a, strs)
	}
	var shared []jdwp.ObjectID
	for range both {
		o := newPinned(a, ints)
		if err := b.DisableCollection(ctx, o); err != nil { // an id a learnt
			t.Fatalf("b pinning an object a created: %v", err)
		}
		shared = append(shared, o)
	}
	// a unpins one of them, then sends one EnableCollection too many.
	for range 2 {
		if err := a.EnableCollection(ctx, shared[0]); err != nil {
			t.Fatal(err)
		}
	}
	if s, i := count(b); s < baseS+alone || i < baseI+both {
		t.Fatalf("%d String[] and %d Integer[] reachable with %d and %d pinned (before: %d, %d)", s, i, alone, both, baseS, baseI)
	}
	leave(t, a)

	waitFor(t, passDeadline, "a's pins to be released while b stays", func() bool {
		s, _ := count(b)
		return s < baseS+alone/2
	})
	if _, i := count(b); i < baseI+both {
		t.Errorf("%d Integer[] reachable after a left, want b's %d pins held (%d before)", i, both, baseI)
	}
	for _, o := range shared[:3] {
		if _, err := b.ObjectType(ctx, o); err != nil {
			t.Errorf("b using an id a learnt, after a left: %v", err)
		}
	}
	leave(t, b)

	c := debugSession(t, port)
	if _, err := c.ObjectType(ctx, shared[1]); code(t, err) != jdwp.ErrInvalidObject {
		t.Errorf("an id of an earlier session, once the last debugger left: %v, want INVALID_OBJECT", err)
	}
	strs, ints = classID(t, c, "[Ljava/lang/String;"), classID(t, c, "[Ljava/lang/Integer;")
	waitFor(t, passDeadline, "b's pins to be released after the last debugger left", func() bool {
		_, i := count(c)
		return i < baseI+both/2
	})
	leave(t, c)
}
