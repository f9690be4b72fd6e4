package ddm

import (
	"cmp"
	"slices"
	"sync"
)

// Change is a bit set saying which parts of a [ClientData] changed.
type Change uint32

const (
	ChangeIdentity    Change = 1 << iota // HELO, APNM, STAG
	ChangeFeatures                       // FEAT
	ChangeDebugger                       // WAIT, debugger attach/detach
	ChangeThreads                        // THCR, THNM, THDE, THST
	ChangeStack                          // STKL
	ChangeHeapInfo                       // HPIF
	ChangeHeapMap                        // HPEN
	ChangeNativeHeap                     // NHEN, NHGT
	ChangeAllocations                    // REAQ, REAL
	ChangeProfiling                      // MPRQ, MPSE, HPDS, HPDU, MPRE
)

// DebuggerStatus is what the model knows about a debugger for this VM.
type DebuggerStatus uint8

const (
	DebuggerDefault  DebuggerStatus = iota // nothing known
	DebuggerWaiting                        // the VM sent WAIT
	DebuggerAttached                       // the bridge has a debugger attached
)

func (s DebuggerStatus) String() string {
	return [...]string{"default", "waiting", "attached"}[s%3]
}

// Identity is what HELO, APNM, STAG and FEAT told about the VM.
type Identity struct {
	ProtocolVersion  uint32
	PID              uint32
	VMIdent          string
	AppName          string
	UserID           uint32
	ABI              string
	JVMFlags         string
	NativeDebuggable bool
	PackageName      string
	BootStage        Type
	Features         []string
	HelloTails       int // optional HELO fields the VM sent
}

// HasFeature reports whether the VM advertised name in FEAT.
func (id Identity) HasFeature(name string) bool { return slices.Contains(id.Features, name) }

// Thread is the model's view of one VM thread.
type Thread struct {
	ID           uint32
	Name         string
	Status       ThreadState
	TID          uint32
	UTime, STime uint32
	Daemon       bool
	Suspended    bool
	HaveStatus   bool    // a THST entry has been seen
	Stack        []Frame // from the last STKL for this thread
}

// Profiling is the tracing/profiling state.
type Profiling struct {
	Mode        uint8  // MPRQ: ProfilingOff, ProfilingTracing, ProfilingSampling
	LastTrace   []byte // the last streamed trace (MPSE data)
	LastHprof   []byte // the last streamed hprof (HPDS data)
	HprofResult *uint8 // the last HPDU result, if any
	TraceResult *uint8 // the last MPRE result, if any
}

// ClientData is the per-VM model (the seed's ClientData): identity, debugger
// status, threads, heap info, heap maps, allocations and profiling state,
// updated from chunks with [ClientData.Apply]. Reads return copies and are
// safe from any goroutine; subscribers learn what changed.
type ClientData struct {
	mu           sync.RWMutex
	id           Identity
	debugger     DebuggerStatus
	threads      map[uint32]*Thread
	heapInfo     map[uint32]HeapStats
	heapMaps     map[heapKey]*HeapMap
	asm          HeapAssembler
	nativeHeap   *NativeHeap
	allocEnabled bool
	allocs       []AllocRecord
	prof         Profiling

	subMu sync.Mutex
	subs  map[*subscriber]struct{}
}

type subscriber struct{ ch chan Change }

// NewClientData returns an empty model.
func NewClientData() *ClientData {
	return &ClientData{
		threads:  map[uint32]*Thread{},
		heapInfo: map[uint32]HeapStats{},
		heapMaps: map[heapKey]*HeapMap{},
		subs:     map[*subscriber]struct{}{},
	}
}

// Subscribe returns a channel that receives the changes since the last
// receive, coalesced: a slow reader never blocks the model and never misses a
// bit, but may see several changes at once. cancel closes the channel.
func (d *ClientData) Subscribe() (changes <-chan Change, cancel func()) {
	s := &subscriber{ch: make(chan Change, 1)}
	d.subMu.Lock()
	d.subs[s] = struct{}{}
	d.subMu.Unlock()
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			d.subMu.Lock()
			delete(d.subs, s)
			close(s.ch)
			d.subMu.Unlock()
		})
	}
}

func (d *ClientData) notify(c Change) {
	if c == 0 {
		return
	}
	d.subMu.Lock()
	defer d.subMu.Unlock()
	for s := range d.subs {
		// Senders are serialised by subMu, so after draining the pending value
		// the send cannot block.
		select {
		case s.ch <- c:
		default:
			select {
			case old := <-s.ch:
				s.ch <- old | c
			default:
				s.ch <- c
			}
		}
	}
}

// Apply updates the model from one decoded VM→server message and reports what
// changed (subscribers are notified too). Heap segments that fail validation
// are recorded in the map's Rejected list and returned as the error.
func (d *ClientData) Apply(m Message) (Change, error) {
	d.mu.Lock()
	c, err := d.apply(m)
	d.mu.Unlock()
	d.notify(c)
	return c, err
}

func (d *ClientData) apply(m Message) (Change, error) {
	switch m := m.(type) {
	case *Hello:
		d.id.ProtocolVersion, d.id.PID, d.id.VMIdent, d.id.HelloTails = m.ProtocolVersion, m.PID, m.VMIdent, m.Tails
		d.setName(m.AppName)
		if m.Tails >= 1 {
			d.id.UserID = m.UserID
		}
		if m.Tails >= 4 {
			d.id.ABI, d.id.JVMFlags, d.id.NativeDebuggable = m.ABI, m.JVMFlags, m.NativeDebuggable
		}
		if m.Tails >= 5 {
			d.id.PackageName = m.PackageName
		}
		if m.Tails >= 6 {
			d.id.BootStage = m.BootStage
		}
		return ChangeIdentity, nil
	case *AppName:
		d.setName(m.Name)
		if m.Tails >= 1 {
			d.id.UserID = m.UserID
		}
		if m.Tails >= 2 {
			d.id.PackageName = m.PackageName
		}
		return ChangeIdentity, nil
	case *BootStage:
		d.id.BootStage = m.Stage
		return ChangeIdentity, nil
	case *Features:
		d.id.Features = slices.Clone(m.Names)
		return ChangeFeatures, nil
	case *Wait:
		d.debugger = DebuggerWaiting
		return ChangeDebugger, nil
	case *ThreadName:
		t := d.thread(m.ID)
		t.Name = m.Name
		return ChangeThreads, nil
	case *ThreadDied:
		delete(d.threads, m.ID)
		return ChangeThreads, nil
	case *ThreadStatus:
		for _, e := range m.Threads {
			t := d.thread(e.ID)
			t.Status, t.Suspended, t.HaveStatus = e.Status, e.Suspended, true
			if m.Layout == LayoutART {
				t.TID, t.UTime, t.STime, t.Daemon = e.TID, e.UTime, e.STime, e.Daemon
			}
		}
		return ChangeThreads, nil
	case *Stack:
		if t, ok := d.threads[m.ThreadID]; ok {
			t.Stack = slices.Clone(m.Frames)
		}
		return ChangeStack, nil
	case *HeapInfo:
		for _, h := range m.Heaps {
			d.heapInfo[h.HeapID] = h
		}
		return ChangeHeapInfo, nil
	case *HeapDumpStart, *HeapSegment:
		_, err := d.asm.Add(m)
		return 0, err
	case *HeapDumpEnd:
		hm, err := d.asm.Add(m)
		if hm == nil {
			return 0, err
		}
		d.heapMaps[heapKey{hm.HeapID, hm.Native}] = hm
		return pickChange(hm.Native, ChangeNativeHeap, ChangeHeapMap), err
	case *NativeHeap:
		d.nativeHeap = m
		return ChangeNativeHeap, nil
	case *AllocTrackingStatus:
		d.allocEnabled = m.Enabled
		return ChangeAllocations, nil
	case *AllocRecords:
		d.allocs = slices.Clone(m.Records)
		return ChangeAllocations, nil
	case *ProfilingStatus:
		d.prof.Mode = m.Mode
		return ChangeProfiling, nil
	case *Result:
		code := m.Code
		if m.Type == HPDU {
			d.prof.HprofResult = &code
		} else {
			d.prof.TraceResult = &code
		}
		return ChangeProfiling, nil
	case *Raw:
		switch m.Type {
		case MPSE:
			d.prof.LastTrace = m.Data
			return ChangeProfiling, nil
		case HPDS:
			d.prof.LastHprof = m.Data
			return ChangeProfiling, nil
		}
	}
	return 0, nil
}

func pickChange(native bool, n, j Change) Change {
	if native {
		return n
	}
	return j
}

// setName keeps the first real name and later renames, but never replaces a
// name with an empty or placeholder one.
func (d *ClientData) setName(name string) {
	if name != "" && name != "<pre-initialized>" || d.id.AppName == "" {
		d.id.AppName = name
	}
}

// MaxThreads bounds the threads the model keeps of one VM (ART's thread
// ids are 16-bit): a VM that reports more, one packet after the other,
// cannot make the monitor hold them all. Threads beyond it are not kept.
const MaxThreads = 1 << 16

func (d *ClientData) thread(id uint32) *Thread {
	t, ok := d.threads[id]
	if !ok {
		t = &Thread{ID: id}
		if len(d.threads) < MaxThreads {
			d.threads[id] = t
		}
	}
	return t
}

// SetDebugger records the debugger status (the bridge calls it on attach and
// detach).
func (d *ClientData) SetDebugger(s DebuggerStatus) {
	d.mu.Lock()
	changed := d.debugger != s
	d.debugger = s
	d.mu.Unlock()
	if changed {
		d.notify(ChangeDebugger)
	}
}

// ClearThreads forgets all threads (after THEN(0), as ddmlib does).
func (d *ClientData) ClearThreads() {
	d.mu.Lock()
	d.threads = map[uint32]*Thread{}
	d.mu.Unlock()
	d.notify(ChangeThreads)
}

// Identity returns a copy of the VM identity.
func (d *ClientData) Identity() Identity {
	d.mu.RLock()
	defer d.mu.RUnlock()
	id := d.id
	id.Features = slices.Clone(id.Features)
	return id
}

// Debugger returns the debugger status.
func (d *ClientData) Debugger() DebuggerStatus {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.debugger
}

// Threads returns copies of the known threads ordered by id.
func (d *ClientData) Threads() []Thread {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]Thread, 0, len(d.threads))
	for _, t := range d.threads {
		c := *t
		c.Stack = slices.Clone(t.Stack)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Thread) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// HeapInfo returns the last HPIF entry per heap id.
func (d *ClientData) HeapInfo() map[uint32]HeapStats {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make(map[uint32]HeapStats, len(d.heapInfo))
	for k, v := range d.heapInfo {
		out[k] = v
	}
	return out
}

// HeapMap returns a copy of the last complete map for the heap, or nil.
func (d *ClientData) HeapMap(heapID uint32, native bool) *HeapMap {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.heapMaps[heapKey{heapID, native}].Clone()
}

// NativeHeap returns the last NHGT reply, or nil. Treat it as read-only.
func (d *ClientData) NativeHeap() *NativeHeap {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.nativeHeap
}

// Allocations returns whether tracking is on and the last REAL records.
func (d *ClientData) Allocations() (enabled bool, records []AllocRecord) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.allocEnabled, slices.Clone(d.allocs)
}

// Profiling returns the profiling state. The byte slices are shared; treat
// them as read-only.
func (d *ClientData) Profiling() Profiling {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.prof
}
