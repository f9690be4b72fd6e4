package jdwp

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestEventBacklogBounded: a VM that sends events faster than the
// subscriber takes them (here: not at all) fails the connection once the
// backlog passes MaxEventBacklog, with ErrEventBacklog, instead of growing
// without bound (issue 25: an endless event stream took the monitor to
// gigabytes). Up to the bound, nothing is lost.
func TestEventBacklogBounded(t *testing.T) {
	checkLeaks(t)
	vm := startFakeVM(t, fakeConfig{})
	const bound = 500
	c := vm.dial(t, &Options{MaxEventBacklog: bound, IDSizes: &fakeSizes})
	sub := c.Subscribe()
	defer sub.Close()
	es := &EventSet{SuspendPolicy: SuspendAll, Events: []Event{{Kind: EventThreadStart, RequestID: 1, Thread: 7}}}
	for range bound {
		vm.sendEvents(es)
	}
	// All within the bound arrive.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := range bound {
		select {
		case got := <-sub.C:
			if got.Err != nil || len(got.Events) != 1 {
				t.Fatalf("event set %d: %+v", i, got)
			}
		case <-ctx.Done():
			t.Fatalf("event set %d of %d never came", i, bound)
		}
	}
	if c.Err() != nil {
		t.Fatalf("connection failed within the bound: %v", c.Err())
	}
	// Now a flood nobody takes.
	go func() {
		for range 20 * bound {
			select {
			case <-vm.quit:
				return
			default:
			}
			vm.sendEvents(es)
		}
	}()
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("the connection survived a flood of events nobody took")
	}
	if !errors.Is(c.Err(), ErrEventBacklog) {
		t.Fatalf("connection error %v; want ErrEventBacklog", c.Err())
	}
	t.Log(c.Err())
}
