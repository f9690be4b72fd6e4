package bridge

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// The tests here hold a debugger session through a pass-through port to
// what a direct attach does: each runs the same raw JDWP probe against a
// DemoApp's agent directly and against another DemoApp through the
// monitor's port, and compares the answers. Each probe is two debugger
// sessions one after the other; the second must find nothing the first
// left behind (HotSpot's agent resets itself when a debugger leaves).

// passDeadline bounds every wait of these tests: generous, for a busy machine.
const passDeadline = bridgetest.PassDeadline

// passPair is one DemoApp attached to directly and one behind a monitor.
type passPair struct {
	direct, bridged     string // debugger addresses
	directVM, bridgedVM *jvmtest.JVM
	m                   *Monitor
}

func startPassPair(t *testing.T, suspend bool, viaCurrent bool) *passPair {
	t.Helper()
	direct := startDemo(t, 0, suspend)
	lo := freePorts(t, 1)
	bridged := startDemo(t, lo, suspend)
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, bridged.Addr, passDeadline)
	addr := fmt.Sprintf("127.0.0.1:%d", info.DebugPort)
	if viaCurrent {
		addr = m.CurrentAddr()
	}
	return &passPair{direct: direct.Addr, bridged: addr, directVM: direct, bridgedVM: bridged, m: m}
}

// each runs probe against both sides and returns what it returned.
func (p *passPair) each(t *testing.T, probe func(t *testing.T, addr string, vm *jvmtest.JVM) string) (direct, bridged string) {
	t.Helper()
	return probe(t, p.direct, p.directVM), probe(t, p.bridged, p.bridgedVM)
}

// debugSession opens a JDWP connection as a debugger (retrying: an agent whose
// debugger just left, or a monitor reconnecting to it, takes a moment).
func debugSession(t *testing.T, addr string) *jdwp.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), passDeadline)
	defer cancel()
	nc, err := jvmtest.DialHandshake(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	c := jdwp.NewConn(nc, &jdwp.Options{RequestTimeout: passDeadline})
	t.Cleanup(func() { c.Close() })
	return c
}

// leave ends a session the way a debugger does: VirtualMachine.Dispose.
func leave(t *testing.T, c *jdwp.Conn) {
	t.Helper()
	if err := c.Dispose(t.Context()); err != nil && !errors.Is(err, jdwp.ErrClosed) {
		t.Fatalf("Dispose: %v", err)
	}
}

// code is a call's JDWP error code (NONE on success).
func code(t *testing.T, err error) jdwp.ErrorCode {
	t.Helper()
	var ce *jdwp.CommandError
	switch {
	case err == nil:
		return jdwp.ErrNone
	case errors.As(err, &ce):
		return ce.Code
	default:
		t.Fatalf("not a JDWP error: %v", err)
		return 0
	}
}

func classID(t *testing.T, c *jdwp.Conn, sig string) jdwp.ReferenceTypeID {
	t.Helper()
	cs, err := c.ClassesBySignature(t.Context(), sig)
	if err != nil || len(cs) == 0 {
		t.Fatalf("ClassesBySignature %s: %v %v", sig, cs, err)
	}
	return cs[0].ID
}

// Ids a debugger learnt are invalid for the next one: INVALID_OBJECT, as
// from the agent directly, for reference types, methods through them,
// objects and event requests naming them.
func TestPassThroughStaleIDs(t *testing.T) {
	t.Parallel()
	p := startPassPair(t, false, false)
	d, b := p.each(t, func(t *testing.T, addr string, _ *jvmtest.JVM) string {
		c := debugSession(t, addr)
		cls := classID(t, c, "LDemoApp;")
		ms, err := c.Methods(t.Context(), cls)
		if err != nil {
			t.Fatal(err)
		}
		var work jdwp.MethodID
		for _, m := range ms {
			if m.Name == "work" {
				work = m.ID
			}
		}
		str, err := c.CreateString(t.Context(), "stale")
		if err != nil {
			t.Fatal(err)
		}
		leave(t, c)

		c = debugSession(t, addr)
		_, e1 := c.Methods(t.Context(), cls)
		_, e2 := c.LineTable(t.Context(), cls, work)
		_, e3 := c.ObjectType(t.Context(), jdwp.ObjectID(str))
		_, e4 := c.SetRequest(t.Context(), jdwp.EventClassPrepare, jdwp.SuspendNone, jdwp.ClassOnly(cls))
		got := fmt.Sprintf("Methods=%v LineTable=%v ObjectReference.ReferenceType=%v EventRequest.Set=%v",
			code(t, e1), code(t, e2), code(t, e3), code(t, e4))
		leave(t, c)
		return got
	})
	want := fmt.Sprintf("Methods=%v LineTable=%v ObjectReference.ReferenceType=%v EventRequest.Set=%v",
		jdwp.ErrInvalidObject, jdwp.ErrInvalidObject, jdwp.ErrInvalidObject, jdwp.ErrInvalidObject)
	if d != want {
		t.Logf("direct answers differ from the expected HotSpot behaviour: %s", d)
	}
	if b != d {
		t.Errorf("stale ids through the monitor: %s\n                       directly: %s", b, d)
	}
}

// Collection pins (ObjectReference.DisableCollection) go with the debugger
// that set them: its objects are unreachable for the next one.
func TestPassThroughPinsReleased(t *testing.T) {
	t.Parallel()
	p := startPassPair(t, false, false)
	const pinned = 300
	d, b := p.each(t, func(t *testing.T, addr string, _ *jvmtest.JVM) string {
		c := debugSession(t, addr)
		arr := classID(t, c, "[Ljava/lang/String;")
		count := func(c *jdwp.Conn) int64 {
			n, err := c.InstanceCounts(t.Context(), []jdwp.ReferenceTypeID{arr})
			if err != nil {
				t.Fatal(err)
			}
			return n[0]
		}
		base := count(c)
		sizes, err := c.IDSizes(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for range pinned {
			w := jdwp.NewWriter(&sizes)
			w.ReferenceTypeID(arr)
			w.Int32(1)
			rep, err := c.Command(t.Context(), jdwp.SetArrayType, 1, w.Bytes())
			if err != nil {
				t.Fatalf("ArrayType.NewInstance: %v", err)
			}
			obj := jdwp.NewReader(rep, &sizes).TaggedObjectID()
			if err := c.DisableCollection(t.Context(), obj.ID); err != nil {
				t.Fatal(err)
			}
		}
		if n := count(c); n < base+pinned {
			t.Fatalf("%d reachable String[] with %d pinned, %d before", n, pinned, base)
		}
		leave(t, c)

		c = debugSession(t, addr)
		arr = classID(t, c, "[Ljava/lang/String;")
		released := false
		deadline := time.Now().Add(passDeadline)
		for !released && time.Now().Before(deadline) {
			released = count(c) < base+pinned/2
			if !released {
				time.Sleep(100 * time.Millisecond)
			}
		}
		leave(t, c)
		return fmt.Sprintf("released=%v", released)
	})
	if d != "released=true" || b != d {
		t.Errorf("pins after the debugger left: through the monitor %s, directly %s", b, d)
	}
}

// VirtualMachine.HoldEvents goes with the debugger that sent it: the next
// one gets its events.
func TestPassThroughHoldEventsReleased(t *testing.T) {
	t.Parallel()
	p := startPassPair(t, false, false)
	d, b := p.each(t, func(t *testing.T, addr string, _ *jvmtest.JVM) string {
		c := debugSession(t, addr)
		if err := c.HoldEvents(t.Context()); err != nil {
			t.Fatal(err)
		}
		leave(t, c)

		c = debugSession(t, addr)
		sub := c.Subscribe()
		defer sub.Close()
		id, err := c.SetRequest(t.Context(), jdwp.EventMethodEntry, jdwp.SuspendNone, jdwp.ClassMatch("DemoApp"), jdwp.Count(1))
		if err != nil {
			t.Fatal(err)
		}
		got := "no METHOD_ENTRY within the deadline"
		timeout := time.After(passDeadline)
	wait:
		for {
			select {
			case es := <-sub.C:
				if es.Packet == nil {
					t.Fatal("connection lost waiting for the event")
				}
				if len(es.Events) > 0 && es.Events[0].Kind == jdwp.EventMethodEntry && es.Events[0].RequestID == id {
					got = "METHOD_ENTRY"
					break wait
				}
			case <-timeout:
				break wait
			}
		}
		leave(t, c)
		return got
	})
	if d != "METHOD_ENTRY" || b != d {
		t.Errorf("events after a debugger that held them left: through the monitor %q, directly %q", b, d)
	}
}

// rawSession is a debugger on a bare socket, to see exactly which packets
// come first.
type rawSession struct {
	nc net.Conn
	r  *bufio.Reader
	id uint32
}

func rawDial(t *testing.T, addr string) *rawSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), passDeadline)
	defer cancel()
	nc, err := jvmtest.DialHandshake(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(passDeadline))
	return &rawSession{nc: nc, r: bufio.NewReader(nc)}
}

func (s *rawSession) send(t *testing.T, set, cmd byte) uint32 {
	t.Helper()
	s.id++
	if _, err := s.nc.Write((&jdwp.Packet{ID: s.id, CmdSet: set, Cmd: cmd}).AppendTo(nil)); err != nil {
		t.Fatal(err)
	}
	return s.id
}

func (s *rawSession) read(t *testing.T) *jdwp.Packet {
	t.Helper()
	p, err := jdwp.ReadPacket(s.r, jdwp.DefaultMaxPacketSize)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// describe names a packet: "reply to N" or the events of an event set.
func describe(p *jdwp.Packet) string {
	if p.IsReply() {
		return fmt.Sprintf("reply to %d", p.ID)
	}
	es, err := jdwp.DecodeEventSet(p.Data, &jdwp.DefaultIDSizes)
	if err != nil || len(es.Events) == 0 {
		return fmt.Sprintf("command %d.%d", p.CmdSet, p.Cmd)
	}
	return es.Events[0].Kind.String()
}

// A suspend=y VM whose first debugger leaves without resuming runs on, and
// a debugger attaching again gets no VM_START (its first packet is the
// reply to its first command).
func TestPassThroughSuspendedVMReattach(t *testing.T) {
	t.Parallel()
	p := startPassPair(t, true, true)
	d, b := p.each(t, func(t *testing.T, addr string, vm *jvmtest.JVM) string {
		s := rawDial(t, addr)
		first := describe(s.read(t))
		s.send(t, jdwp.SetVirtualMachine, 6) // Dispose, without resuming
		for p := s.read(t); !p.IsReply(); p = s.read(t) {
		}
		s.nc.Close()
		ctx, cancel := context.WithTimeout(t.Context(), passDeadline)
		defer cancel()
		ran := "ran on"
		if _, err := vm.WaitForLine(ctx, "TICK"); err != nil {
			ran = "stayed suspended"
		}
		s = rawDial(t, addr)
		id := s.send(t, jdwp.SetVirtualMachine, 1) // Version
		again := describe(s.read(t))
		if again == fmt.Sprintf("reply to %d", id) {
			again = "reply first"
		}
		s.send(t, jdwp.SetVirtualMachine, 6)
		return fmt.Sprintf("first session got %s; the VM %s; the second got %s", first, ran, again)
	})
	want := "first session got VM_START; the VM ran on; the second got reply first"
	if d != want {
		t.Logf("direct: %s (expected %s)", d, want)
	}
	if b != d {
		t.Errorf("suspend=y VM, debugger leaves and comes back:\nthrough the monitor: %s\n           directly: %s", b, d)
	}
}
