package ddm

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrNoDDMClient is returned for heap updates on a feed without a DDM client.
var ErrNoDDMClient = errors.New("the VM does not speak DDM: heap updates need a DDM-aware VM")

// FeedOptions configure a [Feed].
type FeedOptions struct {
	// ID names the VM in the schema objects (ThreadsJSON.ID …): the
	// monitor's VM id, or a stand-alone session's VM address.
	ID string
	// Interval is how often thread states are asked for while someone
	// watches threads (VMs push births, deaths and renames, but states only
	// on request, so DDMS polls too); 0 means one second.
	Interval time.Duration
	// Timeout bounds one poll round; 0 means 5 s.
	Timeout time.Duration
	// PollThreads replaces the default poll round (THEN once, then THST),
	// e.g. for a VM the owner reads threads from over JDWP.
	PollThreads func(ctx context.Context)
	// ThreadsOff replaces what happens when the last watcher of threads or
	// names leaves (default: THEN 0, which also clears the model's threads).
	ThreadsOff func()
	// NamesOn replaces what happens when the first watcher of names comes
	// while no one watches threads (default: THEN 1, once until THEN 0).
	NamesOn func()
	// Threads replaces the default thread list (the client's model).
	Threads func() ThreadsJSON
}

// Feed is the one poller of a VM's thread and heap data, and the source of
// its schema objects (view.go). Watchers are counted: the first to watch
// threads starts the poll loop (THEN and a THST every Interval), the last to
// leave stops it; heap watchers turn HPIF after every GC and HPSG heap maps
// on and off likewise. The monitor keeps one per VM and DAP sessions through
// it share that one; a stand-alone DAP session keeps its own over its
// connection. Changes are read from the client's model (Client().Data()).
//
// A watcher of names (WatchNames) needs only the threads' names, which the
// VM pushes once THEN is on (THCR for every live thread, then THCR, THNM and
// THDE as they come): THEN stays on while anyone watches threads or names,
// and THST is asked for only while someone watches threads.
type Feed struct {
	c   *Client // nil: a VM without DDM (threads through PollThreads only)
	opt FeedOptions

	mu       sync.Mutex
	threads  int
	names    int
	heap     int
	thenSent bool
	stop     chan struct{} // closes the running poll loop
	closed   chan struct{}
	once     sync.Once
	wg       sync.WaitGroup
}

// NewFeed returns a feed over c (nil for a VM without DDM).
func NewFeed(c *Client, opt FeedOptions) *Feed {
	if opt.Interval <= 0 {
		opt.Interval = time.Second
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 5 * time.Second
	}
	return &Feed{c: c, opt: opt, closed: make(chan struct{})}
}

// Client returns the feed's DDM client, nil for a VM without DDM.
func (f *Feed) Client() *Client { return f.c }

// ID returns the VM's name in the schema objects.
func (f *Feed) ID() string { return f.opt.ID }

// Watching reports whether anyone watches threads and heaps.
func (f *Feed) Watching() (threads, heap bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.threads > 0, f.heap > 0
}

// WatchingNames reports whether anyone watches the threads' names alone
// (WatchNames).
func (f *Feed) WatchingNames() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.names > 0
}

// WatchThreads adds (on) or removes a thread watcher. Calls must balance.
func (f *Feed) WatchThreads(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case on:
		f.threads++
		if f.threads == 1 {
			f.stop = make(chan struct{})
			f.wg.Add(1)
			go f.poll(f.stop)
		}
	case f.threads > 0:
		f.threads--
		if f.threads == 0 {
			close(f.stop)
			f.stop = nil
			if f.names == 0 {
				f.threadsOffLocked()
			}
		}
	}
}

// WatchNames adds (on) or removes a watcher of the threads' names alone:
// THEN on, without THST polling (the allocation tracker names the threads
// of its records this way). Calls must balance.
func (f *Feed) WatchNames(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case on:
		f.names++
		if f.names == 1 && f.threads == 0 {
			f.namesOnLocked()
		}
	case f.names > 0:
		f.names--
		if f.names == 0 && f.threads == 0 {
			f.threadsOffLocked()
		}
	}
}

func (f *Feed) namesOnLocked() {
	if f.opt.NamesOn != nil {
		f.opt.NamesOn()
		return
	}
	if f.c != nil && !f.thenSent {
		f.thenSent = true
		f.c.Send(&ThreadNotify{Enable: true}, nil)
	}
}

func (f *Feed) threadsOffLocked() {
	if f.opt.ThreadsOff != nil {
		f.opt.ThreadsOff()
		return
	}
	if f.c != nil {
		f.thenSent = false
		f.c.SetThreadUpdates(false)
	}
}

// WatchHeap adds (on) or removes a heap watcher. Calls must balance.
func (f *Feed) WatchHeap(on bool) error {
	if f.c == nil {
		return ErrNoDDMClient
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case on:
		f.heap++
		if f.heap == 1 {
			f.setHeap(true)
		}
	case f.heap > 0:
		f.heap--
		if f.heap == 0 {
			f.setHeap(false)
		}
	}
	return nil
}

func (f *Feed) setHeap(on bool) {
	when := WhenNever
	if on {
		when = WhenEveryGC
	}
	f.c.RequestHeapInfo(when)
	f.c.SetHeapSegments(on, false)
}

// poll runs one round every Interval until stop or Close.
func (f *Feed) poll(stop chan struct{}) {
	defer f.wg.Done()
	t := time.NewTicker(f.opt.Interval)
	defer t.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), f.opt.Timeout)
		f.round(ctx)
		cancel()
		select {
		case <-t.C:
		case <-stop:
			return
		case <-f.closed:
			return
		}
	}
}

func (f *Feed) round(ctx context.Context) {
	if f.opt.PollThreads != nil {
		f.opt.PollThreads(ctx)
		return
	}
	if f.c == nil {
		return
	}
	f.mu.Lock()
	then := !f.thenSent
	f.thenSent = true
	f.mu.Unlock()
	if then {
		f.c.Send(&ThreadNotify{Enable: true}, nil)
	}
	f.c.RequestThreadStatus().Wait(ctx)
}

// Threads returns the VM's threads in the schema.
func (f *Feed) Threads() ThreadsJSON {
	if f.opt.Threads != nil {
		return f.opt.Threads()
	}
	out := ThreadsJSON{ID: f.opt.ID, Threads: []ThreadJSON{}}
	if f.c != nil {
		out.Threads = ThreadsOf(f.c.Data().Threads())
	}
	return out
}

// HeapInfo returns the last heap statistics in the schema.
func (f *Feed) HeapInfo() HeapInfoJSON {
	out := HeapInfoJSON{ID: f.opt.ID, Heaps: []HeapStatsJSON{}}
	if f.c != nil {
		out.Heaps = HeapStatsOf(f.c.Data().HeapInfo())
	}
	return out
}

// HeapMaps returns the last complete map of every heap the VM reported
// (heap 1, ART's and Dalvik's default, when it reported none), by heap id.
func (f *Feed) HeapMaps() []HeapMapJSON {
	if f.c == nil {
		return nil
	}
	data := f.c.Data()
	ids := []uint32{}
	for _, h := range HeapStatsOf(data.HeapInfo()) {
		ids = append(ids, h.HeapID)
	}
	if len(ids) == 0 {
		ids = append(ids, 1)
	}
	var out []HeapMapJSON
	for _, id := range ids {
		if m := data.HeapMap(id, false); m != nil {
			j, _ := HeapMapOf(f.opt.ID, m, false, 0) // no PNG: nothing to fail
			out = append(out, j)
		}
	}
	return out
}

// Close stops polling; it leaves the client open (its owner closes it).
func (f *Feed) Close() {
	f.once.Do(func() { close(f.closed) })
	f.wg.Wait()
}
