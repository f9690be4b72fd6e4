package ddmalloc

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// ErrEnded is returned once the tracker was closed with its session.
var ErrEnded = errors.New("the debug session ended: its allocation tracker is off (start a new session to track allocations)")

// Tracker is a VM's DDM allocation tracker. Safe for concurrent use.
type Tracker struct {
	feed      *ddm.Feed
	simulated bool

	mu     sync.Mutex
	on     bool // REAE(1) sent and not undone; the feed's names watched
	closed bool
}

// New returns the tracker of the VM whose feed is feed and whose
// VirtualMachine.Version description is description.
func New(feed *ddm.Feed, description string) *Tracker {
	return &Tracker{feed: feed, simulated: ddm.Simulated(description)}
}

// Simulated reports whether the VM is ddmbridge's simulated one (ddmbridge
// simvm, or a process of a simulated device), whose allocation records are
// made up: a front end says so where it shows them.
func (t *Tracker) Simulated() bool { return t.simulated }

// client returns the feed's DDM client if the VM speaks DDM.
func (t *Tracker) client(ctx context.Context) (*ddm.Client, error) {
	c := t.feed.Client()
	if c == nil || !c.Speaks(ctx) {
		return nil, debugger.ErrNoAllocTracker
	}
	return c, nil
}

// Enable turns the VM's tracker on (an empty buffer) or off (its records
// dropped), and with it the names watch: one per tracker on.
func (t *Tracker) Enable(ctx context.Context, on bool) error {
	c, err := t.client(ctx)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrEnded
	}
	c.Send(&ddm.AllocTrackingEnable{Enable: on}, nil) // ART answers REAE with no reply: posted, in order with what follows
	if on != t.on {
		t.on = on
		t.feed.WatchNames(on)
	}
	return nil
}

// Restart empties the VM's record buffer (REAE off, then on); the names
// watch stays. A tracker turned off meanwhile stays off.
func (t *Tracker) Restart(ctx context.Context) error {
	c, err := t.client(ctx)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrEnded
	}
	if t.on {
		c.Send(&ddm.AllocTrackingEnable{Enable: false}, nil)
		c.Send(&ddm.AllocTrackingEnable{Enable: true}, nil)
	}
	return nil
}

// Records reads the VM's records (REAL), most recent first, each with its
// thread's name where the client's model knows it.
func (t *Tracker) Records(ctx context.Context) ([]debugger.Allocation, error) {
	c, err := t.client(ctx)
	if err != nil {
		return nil, err
	}
	m, err := c.Request(ctx, &ddm.Empty{Type: ddm.REAL})
	if err != nil {
		return nil, err
	}
	recs, ok := m.(*ddm.AllocRecords)
	if !ok {
		return nil, fmt.Errorf("REAL answered with %T, not allocation records", m)
	}
	return Allocations(recs.Records, c.Data().Threads()), nil
}

// Close ends the tracker with its session: the VM's tracker off (recording
// costs the app) and the names watch released. Later calls fail with
// ErrEnded.
func (t *Tracker) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.closed = true
	if !t.on {
		return
	}
	t.on = false
	if c := t.feed.Client(); c != nil {
		c.Send(&ddm.AllocTrackingEnable{Enable: false}, nil) // fails quietly on a connection already closed
	}
	t.feed.WatchNames(false)
}

// Allocations converts REAL's records for the memory view: names as Java
// writes them, and each record's thread named from threads (the model's;
// ThreadName stays "" for a thread it has no name of).
func Allocations(recs []ddm.AllocRecord, threads []ddm.Thread) []debugger.Allocation {
	names := make(map[uint32]string, len(threads))
	for _, th := range threads {
		if th.Name != "" {
			names[th.ID] = th.Name
		}
	}
	out := make([]debugger.Allocation, len(recs))
	for i, r := range recs {
		a := debugger.Allocation{
			Class: javalang.ClassName(r.Class), Size: r.Size,
			Thread: uint32(r.ThreadID), ThreadName: names[uint32(r.ThreadID)],
			Frames: make([]debugger.AllocSite, len(r.Frames)),
		}
		for j, f := range r.Frames {
			a.Frames[j] = debugger.AllocSite{Class: javalang.ClassName(f.Class), Method: f.Method, File: f.File, Line: int(f.Line)}
		}
		out[i] = a
	}
	return out
}
