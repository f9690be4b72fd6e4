package ddm

import (
	"context"
	"testing"
	"time"
)

// waitUntil waits for cond with a generous deadline (busy machines).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// feedVM answers like an ART VM: HELO, THEN empty, THST with one thread,
// HPIF and HPSG empty.
func feedVM() *fakeTransport {
	return &fakeTransport{answer: func(req Chunk) ([]byte, error, bool) {
		switch req.Type {
		case HELO:
			return reply(&Hello{ProtocolVersion: 1, PID: 42, VMIdent: "Dalvik v2", AppName: "app"})
		case THST:
			return reply(&ThreadStatus{Layout: LayoutART, Threads: []ThreadInfo{{ID: 1, Status: ThreadWait, TID: 7, UTime: 3}}})
		}
		return nil, nil, true
	}}
}

func (f *fakeTransport) notifies() (on, off int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.sent {
		if c.Type != THEN {
			continue
		}
		m, err := Decode(c, ToVM)
		if err != nil {
			continue
		}
		if m.(*ThreadNotify).Enable {
			on++
		} else {
			off++
		}
	}
	return on, off
}

func (f *fakeTransport) count(t Type) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.sent {
		if c.Type == t {
			n++
		}
	}
	return n
}

// TestFeedOnePoller: two watchers share one poll loop (THEN once, THST
// rounds); it stops, with THEN 0, only when the last one leaves.
func TestFeedOnePoller(t *testing.T) {
	ft := feedVM()
	c := NewClient(ft, Options{Timeout: 30 * time.Second})
	defer c.Close()
	f := NewFeed(c, FeedOptions{ID: "9", Interval: 10 * time.Millisecond})
	defer f.Close()

	f.WatchThreads(true)
	f.WatchThreads(true)
	waitUntil(t, "three THST rounds", func() bool { return ft.count(THST) >= 3 })
	if on, off := ft.notifies(); on != 1 || off != 0 {
		t.Errorf("THEN on %d, off %d: want one THEN(1) for two watchers", on, off)
	}
	th := f.Threads()
	if th.ID != "9" || len(th.Threads) != 1 || th.Threads[0].State != "wait" || th.Threads[0].TID != 7 {
		t.Errorf("threads %+v", th)
	}
	f.WatchThreads(false)
	if tw, _ := f.Watching(); !tw {
		t.Error("one watcher left, but threads are no longer watched")
	}
	f.WatchThreads(false)
	waitUntil(t, "THEN(0) after the last watcher left", func() bool { _, off := ft.notifies(); return off == 1 })
	f.WatchThreads(false) // unbalanced: ignored
	if f.threads != 0 || f.stop != nil {
		t.Errorf("an extra release left %d watchers", f.threads)
	}

	// Heap watchers: HPIF every GC and HPSG on for the first, off after the last.
	if err := f.WatchHeap(true); err != nil {
		t.Fatal(err)
	}
	f.WatchHeap(true)
	f.WatchHeap(false)
	f.WatchHeap(false)
	waitUntil(t, "HPIF and HPSG on and off", func() bool { return ft.count(HPIF) >= 2 && ft.count(HPSG) == 2 })
	if hi := f.HeapInfo(); hi.ID != "9" || hi.Heaps == nil {
		t.Errorf("heap info %+v", hi)
	}
	if err := NewFeed(nil, FeedOptions{}).WatchHeap(true); err != ErrNoDDMClient {
		t.Errorf("heap on a feed without DDM: %v", err)
	}
}

// TestSpeaks: the answer to Start's HELO decides, without polling.
func TestSpeaks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ddm := NewClient(feedVM(), Options{Timeout: 30 * time.Second})
	defer ddm.Close()
	ddm.Start()
	if !ddm.Speaks(ctx) {
		t.Error("a VM that answered HELO does not speak DDM")
	}
	plain := NewClient(&fakeTransport{answer: func(Chunk) ([]byte, error, bool) { return nil, jdwpErr(99), true }}, Options{Timeout: 30 * time.Second})
	defer plain.Close()
	plain.Start()
	if plain.Speaks(ctx) {
		t.Error("a VM that refused HELO speaks DDM")
	}
}

// TestFeedNames: a watcher of names turns THEN on without any THST poll;
// threads watchers come and go under it without THEN 0; the last of either
// kind to leave turns THEN off, once.
func TestFeedNames(t *testing.T) {
	ft := feedVM()
	c := NewClient(ft, Options{Timeout: 30 * time.Second})
	defer c.Close()
	f := NewFeed(c, FeedOptions{ID: "9", Interval: 10 * time.Millisecond})
	defer f.Close()

	f.WatchNames(true)
	f.WatchNames(true)
	waitUntil(t, "THEN(1) for a names watcher", func() bool { on, _ := ft.notifies(); return on == 1 })
	f.WatchThreads(true) // polls THST, no second THEN
	waitUntil(t, "a THST round", func() bool { return ft.count(THST) >= 1 })
	f.WatchThreads(false) // the names watchers keep THEN on
	f.wg.Wait()           // the poll loop has ended: no THST from here on
	if !f.WatchingNames() {
		t.Error("names watchers left, but WatchingNames says none")
	}
	f.WatchNames(false)
	f.WatchNames(false)
	waitUntil(t, "THEN(0) after the last names watcher left", func() bool { _, off := ft.notifies(); return off == 1 })
	if on, off := ft.notifies(); on != 1 || off != 1 {
		t.Errorf("THEN on %d, off %d: want one of each", on, off)
	}
	// With THEN off, no THST is asked for any more, and names alone never poll.
	polled := ft.count(THST)
	f.WatchNames(true)
	waitUntil(t, "THEN(1) again", func() bool { on, _ := ft.notifies(); return on == 2 })
	f.WatchNames(false)
	f.WatchNames(false) // unbalanced: ignored
	waitUntil(t, "THEN(0) again", func() bool { _, off := ft.notifies(); return off == 2 })
	if n := ft.count(THST); n != polled {
		t.Errorf("%d THST sent while only names were watched", n-polled)
	}
	if f.names != 0 || f.threads != 0 {
		t.Errorf("watchers left: %d names, %d threads", f.names, f.threads)
	}
}
