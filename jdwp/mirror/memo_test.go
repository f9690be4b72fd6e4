package mirror

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// Callers asking for a key being fetched wait for that answer: a hundred
// at once fetch once. When the fetch fails, each asks on its own; errors
// are not cached.
func TestMemoFetchesOnceForCallersAtOnce(t *testing.T) {
	var m Memo[int, string]
	var fetches atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := m.Get(1, func() (string, error) {
				fetches.Add(1)
				<-release
				return "one", nil
			})
			if v != "one" || err != nil {
				t.Errorf("Get = %q, %v", v, err)
			}
		}()
	}
	// Let the first fetch start, then the others pile up behind it.
	for fetches.Load() == 0 {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d fetches for callers at once, want 1", n)
	}

	var failing atomic.Int32
	fail := errors.New("no")
	for range 3 {
		if _, err := m.Get(2, func() (string, error) { failing.Add(1); return "", fail }); !errors.Is(err, fail) {
			t.Errorf("err %v, want the fetch's", err)
		}
	}
	if failing.Load() != 3 {
		t.Errorf("%d fetches of a failing key, want 3 (errors are not cached)", failing.Load())
	}
}
