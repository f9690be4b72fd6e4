package dap

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ddmbridge/ddmbridge/dap/ext"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	godap "github.com/google/go-dap"
)

// The memory view's requests (docs/memory.md): memoryView, instanceCounts,
// instances, trackInstances and allocations, and the memoryCounts event.
// Their messages are package ext's (ext/memory.go); the policy — when
// counts are taken, deltas, paging, tracking, the allocation tracker — is
// package debugger's Memory; this file translates.

type (
	MemoryViewArguments     = ext.MemoryViewArguments
	MemoryViewBody          = ext.MemoryViewBody
	InstanceCountsArguments = ext.InstanceCountsArguments
	InstanceCountsBody      = ext.InstanceCountsBody
	InstancesArguments      = ext.InstancesArguments
	InstancesBody           = ext.InstancesBody
	TrackInstancesArguments = ext.TrackInstancesArguments
	AllocationsArguments    = ext.AllocationsArguments
	AllocationsBody         = ext.AllocationsBody
	memoryViewRequest       = ext.MemoryViewRequest
	instanceCountsRequest   = ext.InstanceCountsRequest
	instancesRequest        = ext.InstancesRequest
	trackInstancesRequest   = ext.TrackInstancesRequest
	allocationsRequest      = ext.AllocationsRequest
	memoryViewResponse      = ext.MemoryViewResponse
	instanceCountsResponse  = ext.InstanceCountsResponse
	instancesResponse       = ext.InstancesResponse
	trackInstancesResponse  = ext.TrackInstancesResponse
	allocationsResponse     = ext.AllocationsResponse
)

// memoryState is a debuggee's memory view, made on the first memory
// request.
type memoryState struct {
	mu sync.Mutex
	m  *debugger.Memory
}

// memory returns the debuggee's memory view.
func (s *session) memory() *debugger.Memory {
	d := s.dbg
	d.mem.mu.Lock()
	defer d.mem.mu.Unlock()
	if d.mem.m != nil {
		return d.mem.m
	}
	cfg := debugger.MemoryConfig{
		Context: s.ctx,
		Go: func(f func()) {
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				f()
			}()
		},
		Log: d.log,
		OnCounts: func(cs []debugger.ClassCount, complete bool) {
			if !s.isDone() {
				s.send(&customEvent[InstanceCountsBody]{Event: newEvent("memoryCounts"), Body: InstanceCountsBody{Classes: cs, Complete: complete}})
			}
		},
	}
	if d.ddm != nil {
		cfg.Tracker = d.ddm.alloc
	}
	d.mem.m = d.t.NewMemory(cfg)
	return d.mem.m
}

// userBusy tells the memory view the user is at work at this stop (any
// request but its own): it waits for a pause to count.
func (s *session) userBusy() {
	if m := s.memoryIfAny(); m != nil {
		m.Busy()
	}
}

// memoryIfAny is the debuggee's memory view, nil before the first memory
// request (or without a debuggee).
func (s *session) memoryIfAny() *debugger.Memory {
	if s.dbg == nil {
		return nil
	}
	s.dbg.mem.mu.Lock()
	defer s.dbg.mem.mu.Unlock()
	return s.dbg.mem.m
}

// sayHeapWalk tells the user, as progress, that a step or continue waits
// for a heap walk of the memory view's: the VM answers nothing else meanwhile.
func (s *session) sayHeapWalk() {
	m := s.memoryIfAny()
	if m == nil || s.isDone() {
		return
	}
	walk := m.HeapWalk()
	if walk == nil {
		return
	}
	p := s.startProgress(0, "Waiting for the VM", "it is walking its heap for the Memory view (JDWP cannot take that back); then it steps")
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		select {
		case <-walk:
		case <-s.ctx.Done():
		}
		p.End("")
	}()
}

// memoryError answers a memory request's failure: ErrVMCannot when the VM
// lacks what it needs.
func memoryError(err error) error {
	if errors.Is(err, debugger.ErrNoInstanceInfo) || errors.Is(err, debugger.ErrNoAllocTracker) {
		return failWith(ErrVMCannot, err)
	}
	return err
}

func (s *session) memoryView(ctx context.Context, r *memoryViewRequest) (MemoryViewBody, error) {
	m := s.memory()
	m.SetVisible(r.Arguments.Visible, r.Arguments.Shown)
	st := s.dbg.ddm
	return MemoryViewBody{CanCount: m.CanCount(ctx) == nil, CanTrackAllocations: st != nil && st.client.Speaks(ctx), Simulated: st != nil && st.alloc.Simulated()}, nil
}

func (s *session) instanceCounts(ctx context.Context, r *instanceCountsRequest) (InstanceCountsBody, error) {
	cs, err := s.memory().Counts(ctx, r.Arguments.Filter)
	return InstanceCountsBody{Classes: cs, Complete: true}, memoryError(err)
}

func (s *session) trackInstances(ctx context.Context, r *trackInstancesRequest) (*struct{}, error) {
	return nil, memoryError(s.memory().Track(ctx, r.Arguments.ClassName, r.Arguments.Track))
}

func (s *session) instances(ctx context.Context, r *instancesRequest) (InstancesBody, error) {
	a := r.Arguments
	if a.Start < 0 || a.Count < 0 {
		return InstancesBody{}, fmt.Errorf("start %d and count %d must not be negative", a.Start, a.Count)
	}
	l, err := s.memory().Instances(ctx, a.ClassName, a.New)
	if err != nil {
		return InstancesBody{}, memoryError(err)
	}
	lo, hi := min(a.Start, len(l.Objects)), len(l.Objects)
	if a.Count > 0 {
		hi = min(lo+a.Count, hi)
	}
	ref := s.dbg.refs.vars.add(&objectList{objs: l.Objects[lo:hi], first: lo})
	return InstancesBody{Total: len(l.Objects), VariablesReference: ref, Truncated: l.Truncated}, nil
}

func (s *session) allocations(ctx context.Context, r *allocationsRequest) (AllocationsBody, error) {
	m := s.memory()
	if e := r.Arguments.Enable; e != nil {
		if err := m.TrackAllocations(ctx, *e); err != nil {
			return AllocationsBody{}, memoryError(err)
		}
	}
	if !s.dbg.isStopped() {
		on, err := m.AllocTracking()
		return AllocationsBody{Enabled: on, Allocations: []debugger.Allocation{}}, memoryError(err)
	}
	on, recs, err := m.Allocations(ctx)
	if recs == nil {
		recs = []debugger.Allocation{}
	}
	return AllocationsBody{Enabled: on, Allocations: recs}, memoryError(err)
}

// objectList is a list of objects (a page of a class's instances, the
// referrers of an object), each expandable to its fields and to the
// objects referring to it.
type objectList struct {
	objs  []jdwp.TaggedObjectID
	first int // the index of objs[0] in the whole list, for names
}

func (c *objectList) children(ctx context.Context, d *debuggee, filter string, start, count int) ([]godap.Variable, error) {
	if filter == "named" {
		return nil, nil
	}
	lo, hi := min(max(start, 0), len(c.objs)), len(c.objs)
	if count > 0 {
		hi = min(lo+count, hi)
	}
	page := c.objs[lo:hi]
	out := make([]godap.Variable, len(page))
	err := parallel(len(page), func(i int) error {
		o := page[i]
		v, err := d.variable(ctx, fmt.Sprintf("[%d]", c.first+lo+i), "", jdwp.Value{Tag: o.Tag, Bits: uint64(o.ID)})
		if err != nil {
			return err
		}
		inner, _ := d.refs.vars.get(v.VariablesReference)
		v.VariablesReference = d.refs.vars.add(&withReferrers{obj: o.ID, inner: inner})
		out[i] = v
		return nil
	})
	return out, err
}

// referrersName names the child of an instance that lists the objects
// referring to it.
const referrersName = "<referrers>"

// withReferrers are an object's children as any variable has them, and one
// more listing the objects that refer to it.
type withReferrers struct {
	obj   jdwp.ObjectID
	inner container // nil for a value without children (a string)
}

func (c *withReferrers) children(ctx context.Context, d *debuggee, filter string, start, count int) ([]godap.Variable, error) {
	var out []godap.Variable
	if c.inner != nil {
		var err error
		if out, err = c.inner.children(ctx, d, filter, start, count); err != nil {
			return nil, err
		}
	}
	if filter == "indexed" || start > 0 {
		return out, nil
	}
	return append(out, godap.Variable{
		Name: referrersName, Value: "objects referring to this one",
		VariablesReference: d.refs.vars.add(&referrers{obj: c.obj}),
		PresentationHint:   &godap.VariablePresentationHint{Kind: "virtual"},
	}), nil
}

// referrers are the objects that refer to one (ReferringObjects).
type referrers struct{ obj jdwp.ObjectID }

func (c *referrers) children(ctx context.Context, d *debuggee, filter string, start, count int) ([]godap.Variable, error) {
	objs, err := d.s.memory().Referrers(ctx, c.obj)
	if err != nil {
		return nil, memoryError(err)
	}
	if len(objs) == 0 && start == 0 {
		return []godap.Variable{{Name: "<none>", Value: "no object refers to this one (it is held from a stack, a JNI reference or a static field of a class, or not at all)"}}, nil
	}
	return (&objectList{objs: objs}).children(ctx, d, filter, start, count)
}

// memoryLane runs the memory requests off the request loop, in order, in a
// lane of their own: a count of a large heap takes seconds, and continue,
// stackTrace or the variables of an object must not wait for it.
func memoryLane(*session, godap.RequestMessage) jdwp.ThreadID { return memoryLaneID }

// memoryLaneID is no thread's id (HotSpot and ART number theirs from 1).
const memoryLaneID = jdwp.ThreadID(1<<63 - 1)
