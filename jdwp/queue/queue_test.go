package queue

import (
	"sync"
	"testing"
	"time"
)

// deadline bounds every wait in these tests; nothing here is timed.
const deadline = 60 * time.Second

func recv[T any](t *testing.T, c <-chan T) (T, bool) {
	t.Helper()
	select {
	case v, ok := <-c:
		return v, ok
	case <-time.After(deadline):
		t.Fatal("nothing delivered before the deadline")
		var zero T
		return zero, false
	}
}

func TestQueueDeliversInOrderWithoutBlockingTheProducer(t *testing.T) {
	q := New[int]()
	defer q.Close()
	const n = 10000
	for i := 0; i < n; i++ { // nobody reads yet: Push must not block
		q.Push(i)
	}
	for i := 0; i < n; i++ {
		v, ok := recv(t, q.C)
		if !ok || v != i {
			t.Fatalf("value %d: got %d (open %v)", i, v, ok)
		}
	}
}

func TestQueueFinishDeliversWhatIsQueuedThenCloses(t *testing.T) {
	q := New[string]()
	q.Push("a")
	q.Finish("b", "c")
	q.Push("ignored")
	q.Finish("ignored too")
	var got []string
	for {
		v, ok := recv(t, q.C)
		if !ok {
			break
		}
		got = append(got, v)
	}
	if len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "c" {
		t.Fatalf("got %q, want [a b c]", got)
	}
	q.Close() // after Finish: harmless
}

func TestQueueCloseDropsAndCloses(t *testing.T) {
	q := New[int]()
	for i := 0; i < 100; i++ {
		q.Push(i)
	}
	q.Close()
	q.Close()
	q.Push(1)
	// The pump may have been offering one value when Close came; after at
	// most that one, C is closed.
	n := 0
	for {
		_, ok := recv(t, q.C)
		if !ok {
			break
		}
		n++
	}
	if n > 1 {
		t.Fatalf("%d values delivered after Close, want at most 1", n)
	}
}

func TestLanesKeepOrderPerKeyAndRunKeysConcurrently(t *testing.T) {
	var mu sync.Mutex
	got := map[string][]int{}
	release := make(chan struct{})
	blockedStarted := make(chan struct{})
	freeDone := make(chan struct{})
	var wg sync.WaitGroup
	l := NewLanes(func(k string, v int) {
		if k == "blocked" && v == 0 {
			close(blockedStarted)
			<-release // holds its lane; the other lane must go on
		}
		mu.Lock()
		got[k] = append(got[k], v)
		mu.Unlock()
		if k == "free" && v == 999 {
			close(freeDone)
		}
	}, func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	})
	l.Push("blocked", 0)
	if _, ok := recv(t, blockedStarted); ok {
		t.Fatal("blockedStarted delivered a value")
	}
	for i := 1; i < 5; i++ {
		l.Push("blocked", i)
	}
	for i := 0; i < 1000; i++ {
		l.Push("free", i)
	}
	// The free lane drains while the blocked one waits.
	recv(t, freeDone)
	if !l.Busy("blocked") {
		t.Fatal("the blocked lane is idle before its first value returned")
	}
	close(release)
	wg.Wait()
	if l.Busy("blocked") || l.Busy("free") {
		t.Fatal("a lane is busy after every goroutine ended")
	}
	for k, n := range map[string]int{"blocked": 5, "free": 1000} {
		if len(got[k]) != n {
			t.Fatalf("lane %s ran %d values, want %d", k, len(got[k]), n)
		}
		for i, v := range got[k] {
			if v != i {
				t.Fatalf("lane %s: value %d is %d: out of order", k, i, v)
			}
		}
	}
}

// TestQueuePushCostCountsWhatWaits: PushCost reports how many values and
// how much cost wait unread, and what the consumer takes no longer counts.
func TestQueuePushCostCountsWhatWaits(t *testing.T) {
	q := New[int]()
	defer q.Close()
	for i := 1; i <= 3; i++ {
		if n, total := q.PushCost(i, 10*i); n < i-1 || total < 10*i {
			t.Fatalf("push %d: %d waiting, cost %d", i, n, total)
		}
	}
	for i := 1; i <= 3; i++ {
		if v, ok := recv(t, q.C); !ok || v != i {
			t.Fatalf("got %d, %v; want %d", v, ok, i)
		}
	}
	// All taken: a new value waits alone (or is already in the pump's hand).
	if n, total := q.PushCost(4, 7); n > 1 || total > 7 {
		t.Fatalf("after all were read: %d waiting, cost %d; want at most the new one", n, total)
	}
}
