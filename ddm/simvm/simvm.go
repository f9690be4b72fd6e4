package simvm

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/ddm"
)

// Profile selects which generation of VM to imitate.
type Profile string

const (
	ProfileART   Profile = "art"
	ProfileDraft Profile = "draft"
	// ProfileCurrent is ART as of API 34–35: ProfileART's chunks, FEAT with
	// the framework's view-hierarchy and support_boot_stages, no THST/STKL
	// handlers (the framework dropped them), and a JDWP agent loaded only on
	// the first non-DDM packet (adbconnection answers DDM by itself).
	ProfileCurrent Profile = "current"
)

// ParseProfile checks a profile name.
func ParseProfile(s string) (Profile, error) {
	switch p := Profile(strings.ToLower(s)); p {
	case ProfileART, ProfileDraft, ProfileCurrent:
		return p, nil
	}
	return "", fmt.Errorf("unknown profile %q (art, current or draft)", s)
}

// art reports whether the profile is an ART one (shipped or current).
func (p Profile) art() bool { return p == ProfileART || p == ProfileCurrent }

// Options configures a simulated VM. Zero values pick the defaults noted.
type Options struct {
	Profile            Profile       // ProfileART by default
	AppName            string        // "com.example.simvm"
	PID                uint32        // 4242; with JVM, the JVM's, for its threads' tids and CPU times in /proc
	WaitingForDebugger bool          // send WAIT before the HELO reply
	Threads            int           // synthetic threads at start when standalone, at least 1 (main); default 6
	Tick               time.Duration // how often threads change state (with JVM: are read) and objects are allocated; 200 ms
	GCInterval         time.Duration // time between simulated GCs; 2 s
	Seed               uint64        // random seed; 0 means 1
	// JVM, if set, is the HOST:PORT of a real JVM's JDWP agent to sit in front of.
	JVM string
	// NoHprofStreaming leaves hprof-heap-dump-streaming out of FEAT and
	// fails HPDS, as a VM that can only write its dumps to a file does
	// (the simulated device's `am dumpheap` still works).
	NoHprofStreaming bool
	// HprofSize, if larger than the simulated heap's dump, grows every heap
	// dump to this many bytes with byte[] arrays of zeroes (at most 2 GiB,
	// one JDWP packet): HPDS then streams a dump of a real size, written as
	// it goes, never held whole.
	HprofSize int64
	// HprofGate, if set, holds such a grown dump after its first half
	// until the channel is closed: a test's dump in progress.
	HprofGate <-chan struct{}

	// OnAgentLoaded, if set, is called once when the first non-DDM packet
	// arrives (on ProfileCurrent it loads the JDWP agent): a simulated adbd
	// then tells track-app the app no longer waits.
	OnAgentLoaded func()

	Logger      zerolog.Logger
	TraceChunks bool // log chunks at trace level, kind "ddm.chunk"
	TraceData   bool // hex-dump chunks at trace level, kind "ddm.data"
}

// VM is a simulated VM. Each accepted connection is one DDM/JDWP session;
// sessions share the VM's threads and heap.
type VM struct {
	opt Options
	log zerolog.Logger

	mu       sync.Mutex
	rng      *rand.Rand
	threads  map[uint32]*thread
	nextTID  uint32
	jvmPID   uint32 // Options.PID as given, for /proc; 0 if not
	heap     heap
	sessions map[*session]struct{}
	allocOn  bool              // the allocation tracker (REAE), one per VM as ART's
	allocs   []ddm.AllocRecord // recorded while allocOn, oldest first, at most maxAllocRecords
	gcs      int
	steps    int // simulation ticks, for tests

	nonDDM atomic.Int64 // non-DDM packets received, over all sessions

	chunkMu  sync.Mutex
	chunksIn map[ddm.Type]int // request chunks received by type, over all sessions

	lnMu      sync.Mutex
	listeners []net.Listener
	closed    chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// New returns a VM; its threads and heap start changing at once.
func New(opt Options) (*VM, error) {
	if opt.Profile == "" {
		opt.Profile = ProfileART
	}
	if _, err := ParseProfile(string(opt.Profile)); err != nil {
		return nil, err
	}
	if opt.AppName == "" {
		opt.AppName = "com.example.simvm"
	}
	jvmPID := opt.PID
	if opt.PID == 0 {
		opt.PID = 4242
	}
	if opt.Threads <= 0 {
		opt.Threads = 6
	}
	if opt.Tick <= 0 {
		opt.Tick = 200 * time.Millisecond
	}
	if opt.GCInterval <= 0 {
		opt.GCInterval = 2 * time.Second
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	vm := &VM{
		opt:      opt,
		log:      opt.Logger.With().Str("component", "ddm").Str("simvm", string(opt.Profile)).Logger(),
		rng:      rand.New(rand.NewPCG(opt.Seed, 0x5151)),
		threads:  map[uint32]*thread{},
		sessions: map[*session]struct{}{},
		closed:   make(chan struct{}),
	}
	if opt.JVM == "" {
		for range opt.Threads {
			vm.spawnLocked()
		}
	} else {
		vm.jvmPID = jvmPID // the threads are the JVM's, from the first session on
	}
	for range 200 {
		vm.allocLocked()
	}
	vm.wg.Add(1)
	go vm.run()
	return vm, nil
}

// Profile returns the profile the VM imitates.
func (vm *VM) Profile() Profile { return vm.opt.Profile }

// NonDDMPackets counts the packets the VM received that were not DDM
// commands (set 0xC7): JDWP commands and replies. On current ART the first
// one loads the JDWP agent; a monitor that only watches sends none.
func (vm *VM) NonDDMPackets() int64 { return vm.nonDDM.Load() }

// ChunksReceived counts the request chunks of type t the VM received, over
// all sessions: tests prove a monitor sends no chunk the VM does not serve.
func (vm *VM) ChunksReceived(t ddm.Type) int {
	vm.chunkMu.Lock()
	defer vm.chunkMu.Unlock()
	return vm.chunksIn[t]
}

func (vm *VM) countChunk(t ddm.Type) {
	vm.chunkMu.Lock()
	defer vm.chunkMu.Unlock()
	if vm.chunksIn == nil {
		vm.chunksIn = map[ddm.Type]int{}
	}
	vm.chunksIn[t]++
}

// AgentLoaded reports whether a non-DDM packet has loaded the JDWP agent
// (ProfileCurrent; the other profiles have their agent from the start).
func (vm *VM) AgentLoaded() bool {
	return vm.opt.Profile != ProfileCurrent || vm.nonDDM.Load() > 0
}

// ListenAndServe listens on addr (e.g. "127.0.0.1:0") and serves until Close.
func (vm *VM) ListenAndServe(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("simvm: listen %s: %w", addr, err)
	}
	return vm.Serve(ln)
}

// Serve accepts connections on ln until Close, running one session per
// connection. It returns nil after Close.
func (vm *VM) Serve(ln net.Listener) error {
	vm.lnMu.Lock()
	select {
	case <-vm.closed:
		vm.lnMu.Unlock()
		ln.Close()
		return nil
	default:
	}
	vm.listeners = append(vm.listeners, ln)
	vm.lnMu.Unlock()
	for {
		nc, err := ln.Accept()
		if err != nil {
			select {
			case <-vm.closed:
				return nil
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("simvm: accept: %w", err)
		}
		vm.wg.Add(1)
		go func() {
			defer vm.wg.Done()
			vm.serveConn(nc)
		}()
	}
}

// Close stops the listeners, ends all sessions and the simulation.
func (vm *VM) Close() error {
	vm.closeOnce.Do(func() {
		vm.lnMu.Lock()
		close(vm.closed)
		for _, ln := range vm.listeners {
			ln.Close()
		}
		vm.lnMu.Unlock()
		vm.mu.Lock()
		for s := range vm.sessions {
			s.nc.Close()
		}
		vm.mu.Unlock()
	})
	vm.wg.Wait()
	return nil
}

// ThreadIDs returns the ids of the live simulated threads (for tests).
func (vm *VM) ThreadIDs() []uint32 {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	var ids []uint32
	for _, t := range sortedThreads(vm.threads) {
		ids = append(ids, t.id)
	}
	return ids
}

// GC runs a simulated collection now, as HPGC does.
func (vm *VM) GC() {
	vm.mu.Lock()
	vm.gcLocked()
	vm.mu.Unlock()
}

func (vm *VM) run() {
	defer vm.wg.Done()
	tick := time.NewTicker(vm.opt.Tick)
	defer tick.Stop()
	gc := time.NewTicker(vm.opt.GCInterval)
	defer gc.Stop()
	for {
		select {
		case <-vm.closed:
			return
		case <-tick.C:
			vm.mu.Lock()
			vm.steps++
			vm.stepLocked()
			vm.mu.Unlock()
		case <-gc.C:
			vm.mu.Lock()
			if !vm.jvmSuspendedLocked() { // a suspended VM collects nothing
				vm.gcLocked()
			}
			vm.mu.Unlock()
		}
	}
}

// maxState is the highest thread state the profile reports: ART only 0–4.
func (vm *VM) maxState() int {
	if vm.opt.Profile.art() {
		return int(ddm.ThreadWait)
	}
	return int(ddm.ThreadVMWait)
}

func (vm *VM) spawnLocked() *thread {
	vm.nextTID++
	id := vm.nextTID
	name := threadNames[min(int(id)-1, len(threadNames)-1)]
	if strings.Contains(name, "%d") {
		name = fmt.Sprintf(name, vm.opt.PID)
	}
	if int(id) > len(threadNames) {
		name = fmt.Sprintf("worker-%d", id)
	}
	t := &thread{id: id, name: name, status: ddm.ThreadRunning, tid: vm.opt.PID + id - 1, daemon: id > 1 && id < 7, jdwpID: 0x1000 + uint64(id)}
	vm.threads[id] = t
	return t
}

func (vm *VM) allocLocked() {
	o := vm.heap.alloc(vm.rng)
	vm.heap.allocBytes += uint64(o.units) * unitSize
	if !vm.allocOn {
		return // ART records only while the tracker is on
	}
	rec := ddm.AllocRecord{Size: o.units * unitSize, ThreadID: vm.allocatingThreadLocked(), Class: []string{"Ljava/lang/Object;", "Ljava/lang/Class;", "[B", "[C", "[I", "[J"}[o.kind],
		Frames: []ddm.AllocFrame{ // vscode-extension/test/fixtures/java/com/example/simvm/Worker.java is their source
			{Class: "Lcom/example/simvm/Worker;", Method: "work", File: "Worker.java", Line: int16(10 + o.kind)},
			{Class: "Lcom/example/simvm/Worker;", Method: "run", File: "Worker.java", Line: 5},
		}}
	if len(vm.allocs) == maxAllocRecords {
		vm.allocs = slices.Delete(vm.allocs, 0, 1)
	}
	vm.allocs = append(vm.allocs, rec)
}

// allocatingThreadLocked picks the thread an allocation is recorded on,
// by its DDM id (THCR's, THST's): one of the live threads that can run
// code (runnable and not suspended; in front of a JVM, the JVM's threads as
// the last poll saw them), else any live one, else 1 (ART's main thread).
func (vm *VM) allocatingThreadLocked() uint16 {
	var running, live []uint32
	for _, t := range sortedThreads(vm.threads) {
		if t.id > 0xffff { // REAL's thread ids are 16-bit (ART's thin-lock ids)
			continue
		}
		live = append(live, t.id)
		if t.status == ddm.ThreadRunning && !t.suspended {
			running = append(running, t.id)
		}
	}
	switch {
	case len(running) > 0:
		return uint16(running[vm.rng.IntN(len(running))])
	case len(live) > 0:
		return uint16(live[vm.rng.IntN(len(live))])
	}
	return 1
}

// maxAllocRecords is how many allocation records the tracker keeps, the
// newest: ART's cap on REAL's entry count (ddm.md §5.5).
const maxAllocRecords = 65535

// setAllocTracking turns the allocation tracker on or off as ART's REAE
// handler does: turned on, it starts with no records (on already, it goes
// on as it was); turned off, its records are dropped.
func (vm *VM) setAllocTracking(on bool) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if on == vm.allocOn {
		return
	}
	vm.allocOn, vm.allocs = on, nil
}

// AllocTracking reports whether the allocation tracker is on (REAQ's
// answer; for tests).
func (vm *VM) AllocTracking() bool {
	on, _ := vm.allocRecords()
	return on
}

// allocRecords returns the tracker's state and its records, most recent
// first (REAQ, REAL).
func (vm *VM) allocRecords() (bool, []ddm.AllocRecord) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	out := slices.Clone(vm.allocs)
	slices.Reverse(out)
	return vm.allocOn, out
}

// stepLocked changes thread states, sometimes starts, renames or ends a
// thread, allocates a few objects, and tells the sessions. In front of a JVM
// only the heap is simulated: the session that owns the JVM connection keeps
// the threads current (followJVMThreads).
func (vm *VM) stepLocked() {
	if vm.jvmSuspendedLocked() {
		return // the JVM's threads are all suspended: nothing allocates
	}
	if vm.opt.JVM != "" {
		for range 1 + vm.rng.IntN(5) {
			vm.allocLocked()
		}
		return
	}
	for _, t := range vm.threads {
		if vm.rng.IntN(3) == 0 {
			lo := 1
			t.status = ddm.ThreadState(lo + vm.rng.IntN(vm.maxState()-lo+1))
			t.utime += uint32(vm.rng.IntN(3))
			t.stime += uint32(vm.rng.IntN(2))
		}
	}
	var born, died, renamed *thread
	switch vm.rng.IntN(12) {
	case 0:
		if len(vm.threads) < 16 {
			born = vm.spawnLocked()
		}
	case 1:
		// Only threads beyond the initial set die, so "main" and friends stay.
		for _, t := range sortedThreads(vm.threads) {
			if int(t.id) > vm.opt.Threads {
				died = t
				delete(vm.threads, t.id)
				break
			}
		}
	case 2:
		if t := vm.threads[uint32(vm.opt.Threads)]; t != nil && vm.opt.Threads > 1 {
			t.name = fmt.Sprintf("worker-renamed-%d", vm.rng.IntN(100))
			renamed = t
		}
	}
	for range 1 + vm.rng.IntN(5) {
		vm.allocLocked()
	}
	for s := range vm.sessions {
		s.threadEvents(born, died, renamed)
	}
}

// jvmSuspendedLocked reports whether the simulator fronts a JVM whose
// threads are all suspended (by a debugger), as its last poll saw them.
func (vm *VM) jvmSuspendedLocked() bool {
	if vm.opt.JVM == "" || len(vm.threads) == 0 {
		return false
	}
	for _, t := range vm.threads {
		if !t.suspended {
			return false
		}
	}
	return true
}

func (vm *VM) gcLocked() {
	vm.gcs++
	freed := vm.heap.gc(vm.rng)
	vm.log.Debug().Int("freed", freed).Int("live", len(vm.heap.objs)).Msg("simulated GC")
	for s := range vm.sessions {
		s.afterGC(&vm.heap)
	}
}
