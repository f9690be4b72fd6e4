package simvm

import (
	"context"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
)

// TestAllocTracker: the tracker records only while on, as ART's: REAL is
// the empty 15-byte blob while off; turned on, it starts with no records and
// gathers them, newest first, each with its stack and on one of its threads;
// turned off, its records are dropped.
func TestAllocTracker(t *testing.T) {
	vm, _, c := start(t, Options{Profile: ProfileART, Tick: 10 * time.Millisecond, GCInterval: time.Hour}, ddm.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	real := func() []ddm.AllocRecord {
		t.Helper()
		m, err := c.Request(ctx, &ddm.Empty{Type: ddm.REAL})
		if err != nil {
			t.Fatalf("REAL: %v", err)
		}
		return m.(*ddm.AllocRecords).Records
	}
	query := func() bool {
		t.Helper()
		m, err := c.Request(ctx, &ddm.Empty{Type: ddm.REAQ})
		if err != nil {
			t.Fatalf("REAQ: %v", err)
		}
		return m.(*ddm.AllocTrackingStatus).Enabled
	}
	steps := func() int { vm.mu.Lock(); defer vm.mu.Unlock(); return vm.steps }
	// Off: allocations happen, nothing is recorded. The raw reply is the
	// empty blob of test vector 12.
	from := steps()
	eventually(t, "a few simulation ticks", func() bool { return steps() > from+3 })
	if recs := real(); len(recs) != 0 || query() {
		t.Fatalf("tracker off: %d records, REAQ %v", len(recs), query())
	}
	if got := ddm.Encode(&ddm.AllocRecords{}).Data; string(got) != "\x0f\x09\x08\x00\x00\x00\x00\x00\x0f\x00\x00\x00\x00\x00\x00" {
		t.Fatalf("empty REAL blob % x, want test vector 12", got)
	}
	c.Send(&ddm.AllocTrackingEnable{Enable: true}, nil) // ART sends no reply: posted, in order with what follows
	if !query() {
		t.Fatal("REAQ after REAE on: off")
	}
	eventually(t, "records", func() bool { return len(real()) >= 3 })
	recs := real()
	for _, r := range recs {
		if r.Size == 0 || r.Class == "" || len(r.Frames) != 2 || r.Frames[0].Method != "work" || r.Frames[0].File != "Worker.java" || r.Frames[0].Line < 10 {
			t.Fatalf("record %+v", r)
		}
	}
	// Each record is on one of the VM's threads (by the id THCR and THST
	// give it), the running ones, not all on main.
	threads := map[uint16]bool{}
	eventually(t, "records on two threads", func() bool {
		vm.mu.Lock()
		last := vm.nextTID
		vm.mu.Unlock()
		for _, r := range real() {
			if r.ThreadID == 0 || uint32(r.ThreadID) > last {
				t.Fatalf("record on thread %d, which the VM never had (ids 1…%d)", r.ThreadID, last)
			}
			threads[r.ThreadID] = true
		}
		return len(threads) >= 2
	})
	// Off: the records are dropped.
	c.Send(&ddm.AllocTrackingEnable{Enable: false}, nil)
	if recs := real(); len(recs) != 0 || query() {
		t.Fatalf("tracker turned off: %d records, REAQ %v", len(recs), query())
	}
}
