package dap

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	godap "github.com/google/go-dap"
)

// DDM in a session: custom events ddmThreads, ddmHeapInfo and ddmHeapMap,
// custom requests ddmUpdates (turn them on and off) and ddmGC. See doc.go for
// the message formats.

// DDMUpdatesArguments are the arguments of the ddmUpdates request. A field
// left out keeps its current setting.
type DDMUpdatesArguments struct {
	// Threads turns ddmThreads events on (THEN 1) or off (THEN 0).
	Threads *bool `json:"threads,omitempty"`
	// HeapInfo turns ddmHeapInfo events on (HPIF after every GC) or off.
	HeapInfo *bool `json:"heapInfo,omitempty"`
	// HeapMap turns ddmHeapMap events on (HPSG after every GC) or off.
	HeapMap *bool `json:"heapMap,omitempty"`
}

type ddmUpdatesRequest struct {
	godap.Request
	Arguments DDMUpdatesArguments `json:"arguments"`
}

// DDMUpdatesBody is the body of the ddmUpdates response: the settings now in
// force and the VM's identity.
type DDMUpdatesBody struct {
	Threads  bool   `json:"threads"`
	HeapInfo bool   `json:"heapInfo"`
	HeapMap  bool   `json:"heapMap"`
	VM       string `json:"vm"`
	App      string `json:"app,omitempty"`
	PID      uint32 `json:"pid,omitempty"`
}

type ddmUpdatesResponse struct {
	godap.Response
	Body DDMUpdatesBody `json:"body"`
}

type ddmGCRequest struct {
	godap.Request
	Arguments struct{} `json:"arguments,omitempty"`
}

type ddmGCResponse struct {
	godap.Response
}

// DDMThread is one thread of a ddmThreads event. What a VM reports varies:
// Suspended comes from 2007-draft VMs, TID/UTime/STime/Daemon from ART.
type DDMThread struct {
	ID        uint32 `json:"id"`
	Name      string `json:"name"`
	State     string `json:"state,omitempty"`
	Suspended *bool  `json:"suspended,omitempty"`
	TID       uint32 `json:"tid,omitempty"`
	UTime     uint32 `json:"utime,omitempty"`
	STime     uint32 `json:"stime,omitempty"`
	Daemon    *bool  `json:"daemon,omitempty"`
}

// DDMThreadsBody is the body of a ddmThreads event: every thread, by id.
type DDMThreadsBody struct {
	Threads []DDMThread `json:"threads"`
}

// DDMHeap is one heap of a ddmHeapInfo event.
type DDMHeap struct {
	ID               uint32 `json:"id"`
	MaxBytes         uint32 `json:"maxBytes"`
	SizeBytes        uint32 `json:"sizeBytes"`
	AllocatedBytes   uint32 `json:"allocatedBytes"`
	AllocatedObjects uint32 `json:"allocatedObjects"`
	Timestamp        uint64 `json:"timestamp"` // ms since the Unix epoch
}

// DDMHeapInfoBody is the body of a ddmHeapInfo event.
type DDMHeapInfoBody struct {
	Heaps []DDMHeap `json:"heaps"`
}

// DDMHeapMapBody is the body of a ddmHeapMap event: one heap's map in the
// compact encoding described in doc.go.
type DDMHeapMapBody struct {
	HeapID    uint32         `json:"heapId"`
	PerObject bool           `json:"perObject,omitempty"`
	Pieces    []DDMHeapPiece `json:"pieces"`
	// Totals per kind and solidity, in bytes, for a legend without decoding.
	FreeBytes uint64 `json:"freeBytes"`
	UsedBytes uint64 `json:"usedBytes"`
}

// DDMHeapPiece is a contiguous stretch of a heap map.
type DDMHeapPiece struct {
	Start    uint64 `json:"start"`
	UnitSize uint32 `json:"unitSize"`
	Units    uint64 `json:"units"`
	// Runs is base64 of the DDM run list: two bytes per run, state
	// (kind<<3 | solidity, 0x80 when the run continues in the next pair) and
	// units-1.
	Runs string `json:"runs"`
}

type customEvent[B any] struct {
	godap.Event
	Body B `json:"body"`
}

// registerCustom teaches the codec the custom requests.
func registerCustom(c *godap.Codec) {
	c.RegisterRequest("ddmUpdates", func() godap.Message { return &ddmUpdatesRequest{} }, func() godap.Message { return &ddmUpdatesResponse{} })
	c.RegisterRequest("ddmGC", func() godap.Message { return &ddmGCRequest{} }, func() godap.Message { return &ddmGCResponse{} })
	c.RegisterRequest("redefineClasses", func() godap.Message { return &redefineClassesRequest{} }, func() godap.Message { return &redefineClassesResponse{} })
	c.RegisterRequest("attachVM", func() godap.Message { return &attachVMRequest{} }, func() godap.Message { return &attachVMResponse{} })
}

// startDDM gives the debuggee a DDM client: the backend's, or one attached
// to the session's own connection (a VM that refuses HELO is plain JDWP).
func (s *session) startDDM(d *debuggee, target string) {
	st := &ddmState{closed: make(chan struct{})}
	if target != "" {
		st.client = s.cfg.Backend.DDM(target)
	}
	if st.client == nil {
		opts := s.cfg.DDM
		if opts.Logger.GetLevel() == 0 && s.cfg.Logger.GetLevel() != 0 {
			opts.Logger = s.cfg.Logger
		}
		st.client = ddm.Attach(d.conn, opts)
		st.own = true
	}
	d.ddm = st
	changes, cancel := st.client.Data().Subscribe()
	st.stop = cancel
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for c := range changes {
			st.emit(s, c)
		}
	}()
}

// threadPollInterval is how often thread states are asked for (THST) while
// ddmThreads events are on, as DDMS does: VMs push births, deaths and
// renames, but states only on request.
const threadPollInterval = time.Second

// pollThreads starts or stops asking for thread states.
func (st *ddmState) pollThreads(s *session, on bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.pollStop != nil {
		close(st.pollStop)
		st.pollStop = nil
	}
	if !on {
		return
	}
	stop := make(chan struct{})
	st.pollStop = stop
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(threadPollInterval)
		defer t.Stop()
		for {
			st.client.RequestThreadStatus()
			select {
			case <-t.C:
			case <-stop:
				return
			case <-s.ctx.Done():
				return
			case <-st.closed:
				return
			}
		}
	}()
}

func (st *ddmState) close() {
	st.closeOnce.Do(func() {
		close(st.closed)
		st.stop()
		if st.own {
			st.client.Close()
		}
	})
}

// speaks waits briefly for the VM's answer to HELO and reports whether it
// speaks DDM.
func (st *ddmState) speaks(ctx context.Context) bool {
	select {
	case <-st.client.Ready():
	case <-ctx.Done():
	case <-time.After(2 * time.Second):
	}
	deadline := time.Now().Add(time.Second)
	for {
		id := st.client.Data().Identity()
		if id.VMIdent != "" || id.ProtocolVersion != 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// emit turns model changes into the events the client turned on.
func (st *ddmState) emit(s *session, c ddm.Change) {
	if s.isDone() {
		return
	}
	st.mu.Lock()
	threads, heapInfo, heapMap := st.threads, st.heapInfo, st.heapMap
	st.mu.Unlock()
	data := st.client.Data()
	if threads && c&ddm.ChangeThreads != 0 {
		s.send(&customEvent[DDMThreadsBody]{Event: newEvent("ddmThreads"), Body: threadsBody(data.Threads())})
	}
	if heapInfo && c&ddm.ChangeHeapInfo != 0 {
		s.send(&customEvent[DDMHeapInfoBody]{Event: newEvent("ddmHeapInfo"), Body: heapInfoBody(data.HeapInfo())})
	}
	if heapMap && c&ddm.ChangeHeapMap != 0 {
		ids := []uint32{}
		for id := range data.HeapInfo() {
			ids = append(ids, id)
		}
		if len(ids) == 0 {
			ids = append(ids, 1) // the default heap id ART and Dalvik use
		}
		slices.Sort(ids)
		for _, id := range ids {
			if m := data.HeapMap(id, false); m != nil {
				s.send(&customEvent[DDMHeapMapBody]{Event: newEvent("ddmHeapMap"), Body: heapMapBody(m)})
			}
		}
	}
}

func threadsBody(ts []ddm.Thread) DDMThreadsBody {
	out := DDMThreadsBody{Threads: make([]DDMThread, 0, len(ts))}
	for _, t := range ts {
		dt := DDMThread{ID: t.ID, Name: t.Name}
		if t.HaveStatus {
			dt.State = t.Status.String()
			if t.TID != 0 || t.UTime != 0 || t.STime != 0 {
				dt.TID, dt.UTime, dt.STime = t.TID, t.UTime, t.STime
				daemon := t.Daemon
				dt.Daemon = &daemon
			} else {
				susp := t.Suspended
				dt.Suspended = &susp
			}
		}
		out.Threads = append(out.Threads, dt)
	}
	return out
}

func heapInfoBody(hs map[uint32]ddm.HeapStats) DDMHeapInfoBody {
	out := DDMHeapInfoBody{Heaps: []DDMHeap{}}
	for _, h := range hs {
		out.Heaps = append(out.Heaps, DDMHeap{ID: h.HeapID, MaxBytes: h.MaxBytes, SizeBytes: h.SizeBytes,
			AllocatedBytes: h.AllocatedBytes, AllocatedObjects: h.AllocatedObjects, Timestamp: h.TimestampMs})
	}
	slices.SortFunc(out.Heaps, func(a, b DDMHeap) int { return int(a.ID) - int(b.ID) })
	return out
}

func heapMapBody(m *ddm.HeapMap) DDMHeapMapBody {
	out := DDMHeapMapBody{HeapID: m.HeapID, PerObject: m.PerObject, Pieces: []DDMHeapPiece{}}
	for _, p := range m.Pieces {
		out.Pieces = append(out.Pieces, DDMHeapPiece{Start: p.Start, UnitSize: p.UnitSize, Units: p.Units,
			Runs: base64.StdEncoding.EncodeToString(ddm.AppendRuns(nil, p.Blocks))})
		for _, b := range p.Blocks {
			n := uint64(b.Units) * uint64(p.UnitSize)
			if b.Free() {
				out.FreeBytes += n
			} else {
				out.UsedBytes += n
			}
		}
	}
	return out
}

// ddmClient returns the VM's DDM client, or an error saying it has none.
func (s *session) ddmClient(ctx context.Context) (*ddmState, error) {
	st := s.dbg.ddm
	if st == nil || !st.speaks(ctx) {
		return nil, errors.New("this VM does not speak DDM (it answered HELO with a JDWP error): DDM events need an Android VM or one behind the ddmbridge monitor")
	}
	return st, nil
}

func (s *session) onDDMUpdatesRequest(r *ddmUpdatesRequest) {
	ctx, cancel := s.reqCtx()
	defer cancel()
	st, err := s.ddmClient(ctx)
	if err != nil {
		s.sendError(&r.Request, ErrNoDDM, fmt.Errorf("ddmUpdates: %w", err))
		return
	}
	a := r.Arguments
	c := st.client
	// Events turned off stop before the response; events turned on start
	// after it, with the current state.
	set := func(on *bool, flag *bool, enable bool) {
		if on != nil && *on == enable {
			st.mu.Lock()
			*flag = enable
			st.mu.Unlock()
		}
	}
	set(a.Threads, &st.threads, false)
	set(a.HeapInfo, &st.heapInfo, false)
	set(a.HeapMap, &st.heapMap, false)
	if a.Threads != nil {
		c.SetThreadUpdates(*a.Threads)
		st.pollThreads(s, *a.Threads)
	}
	if a.HeapInfo != nil {
		when := ddm.WhenNever
		if *a.HeapInfo {
			when = ddm.WhenEveryGC
		}
		c.RequestHeapInfo(when)
	}
	if a.HeapMap != nil {
		c.SetHeapSegments(*a.HeapMap, false)
	}
	on := func(p *bool, cur bool) bool { return cur || p != nil && *p }
	st.mu.Lock()
	body := DDMUpdatesBody{Threads: on(a.Threads, st.threads), HeapInfo: on(a.HeapInfo, st.heapInfo), HeapMap: on(a.HeapMap, st.heapMap)}
	st.mu.Unlock()
	id := c.Data().Identity()
	body.VM, body.App, body.PID = id.VMIdent, id.AppName, id.PID
	s.send(&ddmUpdatesResponse{Response: newResponse(&r.Request), Body: body})
	set(a.Threads, &st.threads, true)
	set(a.HeapInfo, &st.heapInfo, true)
	set(a.HeapMap, &st.heapMap, true)
	if a.Threads != nil && *a.Threads {
		s.send(&customEvent[DDMThreadsBody]{Event: newEvent("ddmThreads"), Body: threadsBody(c.Data().Threads())})
	}
}

func (s *session) onDDMGCRequest(r *ddmGCRequest) {
	ctx, cancel := s.reqCtx()
	defer cancel()
	st, err := s.ddmClient(ctx)
	if err != nil {
		s.sendError(&r.Request, ErrNoDDM, fmt.Errorf("ddmGC: %w", err))
		return
	}
	rep, err := st.client.GC().Wait(ctx)
	if err == nil {
		err = rep.Err
	}
	if err != nil && !errors.Is(err, ddm.ErrTimeout) {
		s.sendError(&r.Request, ErrNoDDM, fmt.Errorf("ddmGC: %w", err))
		return
	}
	s.send(&ddmGCResponse{Response: newResponse(&r.Request)})
}
