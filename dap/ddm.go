package dap

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/dap/ext"
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/ddmalloc"
	godap "github.com/google/go-dap"
)

// DDM in a session: custom events ddmThreads, ddmHeapInfo and ddmHeapMap,
// custom requests ddmUpdates (turn them on and off) and ddmGC. docs/dap.md
// documents the messages.

// The custom messages are package ext's; these names keep them where
// dap's handlers and clients look for them.
type (
	customEvent[B any]       = ext.Event[B]
	ddmUpdatesRequest        = ext.DDMUpdatesRequest
	ddmGCRequest             = ext.DDMGCRequest
	redefineClassesRequest   = ext.RedefineClassesRequest
	redefineClassesResponse  = ext.RedefineClassesResponse
	attachVMRequest          = ext.AttachVMRequest
	attachVMResponse         = ext.AttachVMResponse
	ddmUpdatesResponse       = ext.DDMUpdatesResponse
	ddmVMRequest             = ext.DDMVMRequest
	ddmVMResponse            = ext.DDMVMResponse
	DDMVMBody                = ext.DDMVMBody
	dumpHeapRequest          = ext.DumpHeapRequest
	dumpHeapResponse         = ext.DumpHeapResponse
	DumpHeapArguments        = ext.DumpHeapArguments
	DumpHeapBody             = ext.DumpHeapBody
	DDMUpdatesArguments      = ext.DDMUpdatesArguments
	DDMUpdatesBody           = ext.DDMUpdatesBody
	DDMThreadsBody           = ext.DDMThreadsBody
	DDMHeapInfoBody          = ext.DDMHeapInfoBody
	DDMHeapMapBody           = ext.DDMHeapMapBody
	RedefineClassesArguments = ext.RedefineClassesArguments
	HotCodeReplaceBody       = ext.HotCodeReplaceBody
	SkippedClass             = ext.SkippedClass
	AttachVMArguments        = ext.AttachVMArguments
)

// registerCustom teaches the codec the custom requests.
func registerCustom(c *godap.Codec) {
	ext.Register(c)
}

// ddmState is the DDM side of a session: the VM's feed (the monitor's, or
// one of its own over the session's connection) and which events are on.
type ddmState struct {
	feed   *ddm.Feed
	client *ddm.Client
	alloc  *ddmalloc.Tracker
	own    bool   // the session attached client and feed, and closes them
	stop   func() // ends the model subscription

	closeOnce sync.Once

	mu                         sync.Mutex
	threads, heapInfo, heapMap bool // events on
	wThreads, wHeap            bool // this session watches through the feed
}

// threadPollInterval is how often a session's own feed asks for thread
// states while ddmThreads events are on, as DDMS does.
const threadPollInterval = time.Second

// startDDM gives the debuggee DDM: the monitor's feed of the VM, or a client
// and feed attached to the session's own connection. The session's own
// connection gets DDM only if the VM says it is Android's
// (VirtualMachine.Version, jdwp.VersionInfo.Android): HotSpot's agent
// crashes on DDM's command set 0xC7 (JDK-8382537), so a plain VM is never
// sent one and the session has no DDM (an Android VM that then refuses
// HELO is plain JDWP too).
func (s *session) startDDM(ctx context.Context, d *debuggee, target string) {
	st := &ddmState{}
	if target != "" {
		st.feed = s.cfg.Backend.DDMFeed(target)
	}
	ver, err := d.vm.Version(ctx) // says, too, whether the VM is a simulated one
	if st.feed == nil {
		if err != nil || !ver.Android() {
			s.cfg.Logger.Debug().Err(err).Str("vm", ver.VMName).Msg("not an Android VM: no DDM on this connection")
			return
		}
		d.t.AllowVendorCommands()
		opts := s.cfg.DDM
		if opts.Logger.GetLevel() == 0 && s.cfg.Logger.GetLevel() != 0 {
			opts.Logger = s.cfg.Logger
		}
		st.feed = ddm.NewFeed(ddm.Attach(d.t.Wire(), opts), ddm.FeedOptions{ID: target, Interval: threadPollInterval, Timeout: opts.Timeout})
		st.own = true
	}
	st.client = st.feed.Client()
	st.alloc = ddmalloc.New(st.feed, ver.Description)
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

// watch makes the session watch threads and heaps through the feed, or stop.
func (st *ddmState) watch(threads, heap bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if threads != st.wThreads {
		st.wThreads = threads
		st.feed.WatchThreads(threads)
	}
	if heap != st.wHeap {
		st.wHeap = heap
		st.feed.WatchHeap(heap) // the client speaks DDM: no error
	}
}

func (st *ddmState) close() {
	st.closeOnce.Do(func() {
		st.alloc.Close()
		st.stop()
		st.watch(false, false)
		if st.own {
			st.feed.Close()
			st.client.Close()
		}
	})
}

// emit turns model changes into the events the client turned on.
func (st *ddmState) emit(s *session, c ddm.Change) {
	if s.isDone() {
		return
	}
	st.mu.Lock() // held while sending: an event ddmUpdates turned off never follows its response
	defer st.mu.Unlock()
	threads, heapInfo, heapMap := st.threads, st.heapInfo, st.heapMap
	if threads && c&ddm.ChangeThreads != 0 {
		s.send(&customEvent[DDMThreadsBody]{Event: newEvent("ddmThreads"), Body: st.feed.Threads()})
	}
	if heapInfo && c&ddm.ChangeHeapInfo != 0 {
		s.send(&customEvent[DDMHeapInfoBody]{Event: newEvent("ddmHeapInfo"), Body: st.feed.HeapInfo()})
	}
	if heapMap && c&ddm.ChangeHeapMap != 0 {
		for _, m := range st.feed.HeapMaps() {
			s.send(&customEvent[DDMHeapMapBody]{Event: newEvent("ddmHeapMap"), Body: m})
		}
	}
}

// ddmClient returns the VM's DDM state, or an error saying it has none.
func (s *session) ddmClient(ctx context.Context) (*ddmState, error) {
	st := s.dbg.ddm
	if st == nil || !st.client.Speaks(ctx) {
		return nil, errors.New("this VM does not speak DDM (it is not Android's, or it answered HELO with a JDWP error): DDM events need an Android VM or one behind the ddmbridge monitor")
	}
	return st, nil
}

func (s *session) ddmUpdates(ctx context.Context, r *ddmUpdatesRequest) (DDMUpdatesBody, func(), error) {
	st, err := s.ddmClient(ctx)
	if err != nil {
		return DDMUpdatesBody{}, nil, err
	}
	a := r.Arguments
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
	on := func(p *bool, cur bool) bool { return cur || p != nil && *p }
	st.mu.Lock()
	body := DDMUpdatesBody{Threads: on(a.Threads, st.threads), HeapInfo: on(a.HeapInfo, st.heapInfo), HeapMap: on(a.HeapMap, st.heapMap)}
	st.mu.Unlock()
	st.watch(body.Threads, body.HeapInfo || body.HeapMap)
	id := st.client.Data().Identity()
	body.VM, body.App, body.PID = id.VMIdent, id.AppName, id.PID
	return body, func() {
		set(a.Threads, &st.threads, true)
		set(a.HeapInfo, &st.heapInfo, true)
		set(a.HeapMap, &st.heapMap, true)
		if a.Threads != nil && *a.Threads {
			s.send(&customEvent[DDMThreadsBody]{Event: newEvent("ddmThreads"), Body: st.feed.Threads()})
		}
	}, nil
}

func (s *session) ddmGC(ctx context.Context, r *ddmGCRequest) (*struct{}, error) {
	st, err := s.ddmClient(ctx)
	if err != nil {
		return nil, err
	}
	rep, err := st.client.GC().Wait(ctx)
	if err == nil {
		err = rep.Err
	}
	if err != nil && !errors.Is(err, ddm.ErrTimeout) {
		return nil, err
	}
	return nil, nil
}
