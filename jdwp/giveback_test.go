package jdwp_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/linkproxy"
)

// TestLateObjectRepliesGiveTheirIDsBack: HotSpot's agent holds every object
// id it sends until the debugger disposes it, and walks every held id at
// each VM-wide suspend and resume. An Instances reply whose caller gave up
// (a stop's work cancelled by the next step) was dropped, its ids held for
// the rest of the session: after tracking then untracking classes in the
// memory view, every step stayed slower (issue 42.6). Now the late reply's
// ids are given back when it comes. A link with a delay makes the reply
// late for certain; the VM's own answers prove it forgot them: the agent
// numbers ids in the order it makes them (its sequence), so ids of the
// same objects made after a later command (a string created after the
// dropped reply) are new ones — those it still held would come back.
func TestLateObjectRepliesGiveTheirIDsBack(t *testing.T) {
	vm := startTargetVM(t)
	const delay = 150 * time.Millisecond
	p, err := linkproxy.Start(vm.Addr, delay)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c, err := jdwp.Dial(t.Context(), p.Addr(), connOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	d := attachTarget(t, vm, c)
	ctx := d.ctx
	box := d.class(t, "LTarget$Box;")
	p.Mark()

	short, cancel := context.WithTimeout(ctx, delay/10) // ends long before the reply can come
	_, err = c.Instances(short, box, 0)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Instances with a context that ends first: %v, want the deadline", err)
	}
	mark := must(c.CreateString(ctx, "made after the dropped reply"))(t) // the agent answers in order

	deadline := time.Now().Add(eventTimeout)
	for !slices.ContainsFunc(p.Trace(), func(s linkproxy.Sent) bool { return s.Cmd == jdwp.CmdVMDisposeObjects }) {
		if time.Now().After(deadline) {
			t.Fatalf("no DisposeObjects sent for the late reply in %v; commands: %v", eventTimeout, p.Trace())
		}
		time.Sleep(delay / 5)
	}
	check(t, p.WaitIdle(ctx, 4*delay)) // its reply came: the agent forgot them
	boxes := must(c.Instances(ctx, box, 0))(t)
	if len(boxes) == 0 {
		t.Fatal("no Box instances")
	}
	for _, b := range boxes {
		if b.ID < mark {
			t.Errorf("Box %d is older than id %d made after the dropped reply: the agent still held the late reply's ids (%v)", b.ID, mark, boxes)
		}
	}
}
