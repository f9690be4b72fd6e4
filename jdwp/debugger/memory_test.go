package debugger

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/rs/zerolog"
)

func TestMatcher(t *testing.T) {
	for _, c := range []struct {
		filter, name string
		want         bool
	}{
		{"", "anything", true},
		{"order", "Alloc$Order", true},
		{"Order", "Alloc$Order", true},
		{"ORDER", "Alloc$Order", false}, // an upper-case letter: case matters
		{"com.acme.*", "com.acme.Order", true},
		{"com.acme.*", "xcom.acme.Order", false}, // a glob is of the whole name
		{"*$Order", "Alloc$Order", true},
		{"int[]", "int[]", true}, // no glob: [ is a character
		{"i?t", "int", true},
		{"int[]*", "int[][]", true},
		{"*.String", "java.lang.StringBuilder", false},
	} {
		m, err := Matcher(c.filter)
		if err != nil {
			t.Fatalf("Matcher(%q): %v", c.filter, err)
		}
		if got := m(c.name); got != c.want {
			t.Errorf("Matcher(%q)(%q) = %v, want %v", c.filter, c.name, got, c.want)
		}
	}
}

// TestDeltas: a delta is the change since the previous stop the class was
// counted at; a class loaded since the first count counts from 0; classes
// not counted at this stop, and those with no instances then or now, are
// left out.
func TestDeltas(t *testing.T) {
	m := &Memory{classes: map[string]*classEntry{}}
	list := func(epoch uint64) map[string]ClassCount {
		out := map[string]ClassCount{}
		for _, c := range m.listLocked(epoch, nil) {
			out[c.Name] = c
		}
		return out
	}
	m.recordLocked(1, map[string]int64{"A": 10, "B": 5, "Z": 0})
	m.base = 1
	if got := list(1); len(got) != 2 || got["A"] != (ClassCount{"A", 10, 0}) || got["B"] != (ClassCount{"B", 5, 0}) {
		t.Errorf("first count: %+v", got)
	}
	m.recordLocked(2, map[string]int64{"A": 12, "C": 3, "Z": 0})
	if got := list(2); len(got) != 2 || got["A"] != (ClassCount{"A", 12, 2}) || got["C"] != (ClassCount{"C", 3, 3}) {
		t.Errorf("second count: %+v", got)
	}
	m.recordLocked(3, map[string]int64{"A": 12, "B": 1}) // B last counted at stop 1
	if got := list(3); got["B"] != (ClassCount{"B", 1, -4}) || got["A"] != (ClassCount{"A", 12, 0}) {
		t.Errorf("third count: %+v", got)
	}
	if cs := m.listLocked(3, nil); cs[0].Name != "A" {
		t.Errorf("not sorted by instances: %+v", cs)
	}
}

// idleVM starts a JVM that does nothing and connects to it.
func idleVM(t *testing.T) *jdwp.Conn {
	t.Helper()
	jvmtest.RequireJava(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir, err := jvmtest.CompileFiles(ctx, map[string][]byte{"Idle.java": []byte(`public class Idle {
    public static void main(String[] args) throws Exception {
        System.out.println("READY");
        Thread.sleep(600_000);
    }
}
`)})
	if err != nil {
		t.Fatal(err)
	}
	vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{dir}, MainClass: "Idle", ReadyLine: "READY"})
	conn, err := jdwp.Dial(ctx, vm.Addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestMemoryStopsWithTheStop: on a real HotSpot VM, work asked at a stop
// that ends before it runs is never done and says the VM resumed; a stop
// let go before the settle time has no count taken; the next stop's count
// is taken once and delivered once.
func TestMemoryStopsWithTheStop(t *testing.T) {
	conn := idleVM(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	gate := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	var mu sync.Mutex
	var events []bool
	done := make(chan struct{}, 8)
	stops := NewStops()
	m := NewMemory(conn, stops, MemoryConfig{
		Context: ctx,
		Go: func(f func()) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate // nothing runs before the test lets it
				f()
			}()
		},
		Settle: 50 * time.Millisecond,
		OnCounts: func(_ []ClassCount, complete bool) {
			mu.Lock()
			events = append(events, complete)
			mu.Unlock()
			if complete {
				done <- struct{}{}
			}
		},
	})
	if err := conn.Suspend(ctx); err != nil {
		t.Fatal(err)
	}
	stops.Stop(1, "breakpoint")
	got := make(chan error, 1)
	go func() {
		_, err := m.Counts(ctx, "")
		got <- err
	}()
	m.SetVisible(true, nil) // visible at a stop: a count in the background too
	// Let the Counts request's job exist before the resume.
	for {
		m.mu.Lock()
		started := m.jobs["counts"] != nil
		m.mu.Unlock()
		if started {
			break
		}
		time.Sleep(time.Millisecond)
	}
	stops.ResumedAll() // before anything ran
	close(gate)
	if err := <-got; !errors.Is(err, errResumed) {
		t.Fatalf("Counts across a resume: %v, want %v", err, errResumed)
	}
	// A stop let go at once: the settle time never ends, no count.
	stops.Stop(1, "step")
	stops.ResumedAll()
	// The next stop, held: its count, once.
	stops.Stop(1, "breakpoint")
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("no counts delivered at a held stop")
	}
	cs, err := m.Counts(ctx, "*.String")
	if err != nil || len(cs) != 1 || cs[0].Name != "java.lang.String" || cs[0].Instances == 0 {
		t.Fatalf("Counts at the held stop: %+v, %v", cs, err)
	}
	stops.ResumedAll()
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 1 || !events[0] {
		t.Errorf("counts delivered %v, want one complete count (the first two stops ended before theirs)", events)
	}
}

// FuzzMatcher: any filter is accepted (everything but * and ? stands for
// itself), and a name matches the filter it contains.
func FuzzMatcher(f *testing.F) {
	for _, s := range []string{"", "order", "com.acme.*", "*$Order", "int[]", "a[b", `\`, "?", "(.*)+", "Ä*ß"} {
		f.Add(s, "com.acme.Order")
	}
	f.Fuzz(func(t *testing.T, filter, name string) {
		m, err := Matcher(filter)
		if err != nil {
			t.Fatalf("Matcher(%q): %v", filter, err)
		}
		m(name)
		plain := strings.TrimSpace(strings.NewReplacer("*", "", "?", "").Replace(filter))
		if plain != "" && utf8.ValidString(plain) && utf8.ValidString(name) && !m2(plain)(name+plain) {
			t.Errorf("Matcher(%q) does not match %q", plain, name+plain)
		}
	})
}

func m2(filter string) func(string) bool {
	m, _ := Matcher(filter)
	return m
}

// walkLog records when the memory view says the VM walks its heap, and
// what for.
type walkLog struct {
	mu    sync.Mutex
	walks []time.Time
	what  []string
}

func (w *walkLog) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("the VM walks its heap")) {
		var line struct{ For string }
		json.Unmarshal(p, &line)
		w.mu.Lock()
		w.walks = append(w.walks, time.Now())
		w.what = append(w.what, line.For)
		w.mu.Unlock()
	}
	return len(p), nil
}

// whatFor returns what the walks so far were for.
func (w *walkLog) whatFor() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.what)
}

// TestMemoryHiddenDuringTheSettleTime: a view hidden after a stop, before
// its settle time ended, has no count taken for it; the stop's other work
// (a tracked class's instances) is still done, on a real HotSpot VM.
func TestMemoryHiddenDuringTheSettleTime(t *testing.T) {
	conn := idleVM(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logs := &walkLog{}
	stops := NewStops()
	m := NewMemory(conn, stops, MemoryConfig{Context: ctx, Settle: 200 * time.Millisecond, Log: zerolog.New(logs).Level(zerolog.DebugLevel)})
	if err := m.Track(ctx, "java.lang.String", true); err != nil { // running: tracked from the first stop
		t.Fatal(err)
	}
	m.SetVisible(true, nil)
	if err := conn.Suspend(ctx); err != nil {
		t.Fatal(err)
	}
	stops.Stop(1, "breakpoint")
	m.SetVisible(false, nil) // within the settle time
	for !slices.Contains(logs.whatFor(), "instances") {
		select {
		case <-ctx.Done():
			t.Fatalf("the stop's background work never listed the tracked class: walks %v", logs.whatFor())
		case <-time.After(10 * time.Millisecond):
		}
	}
	stops.ResumedAll()
	if got := logs.whatFor(); slices.Contains(got, "instance counts") {
		t.Errorf("walks %v: counted for a view hidden before the settle time ended", got)
	}
}

// TestMemoryWaitsForAPause: while the user is at work at a stop (Busy, as
// the front end says at each request), no count starts; it starts a settle
// time after the last request, on a real HotSpot VM.
func TestMemoryWaitsForAPause(t *testing.T) {
	conn := idleVM(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const settle = 300 * time.Millisecond
	logs := &walkLog{}
	done := make(chan struct{}, 1)
	stops := NewStops()
	m := NewMemory(conn, stops, MemoryConfig{Context: ctx, Settle: settle, Log: zerolog.New(logs).Level(zerolog.DebugLevel),
		OnCounts: func(_ []ClassCount, complete bool) {
			if complete {
				done <- struct{}{}
			}
		}})
	m.SetVisible(true, nil) // visible before the stop: counted after the settle time
	if err := conn.Suspend(ctx); err != nil {
		t.Fatal(err)
	}
	stops.Stop(1, "breakpoint")
	var busy []time.Time
	for end := time.Now().Add(4 * settle); time.Now().Before(end); {
		busy = append(busy, time.Now())
		m.Busy()
		time.Sleep(settle / 10) // the pace of a user's requests; not a wait for anything
	}
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("no count after the user paused")
	}
	stops.ResumedAll()
	logs.mu.Lock()
	defer logs.mu.Unlock()
	if len(logs.walks) != 1 {
		t.Fatalf("%d heap walks, want 1", len(logs.walks))
	}
	walk := logs.walks[0]
	var last time.Time
	for _, b := range busy {
		if b.Before(walk) {
			last = b
		}
	}
	if gap := walk.Sub(last); gap < settle {
		t.Errorf("the count began %v after a request of the user's: want a pause of the settle time (%v) at least", gap, settle)
	}
}
