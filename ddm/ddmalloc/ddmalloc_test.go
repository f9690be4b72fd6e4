package ddmalloc

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
)

// TestAllocationsNamed: each record gets its thread's name from the model,
// by DDM id; a thread the model does not know, or knows without a name,
// leaves ThreadName empty (the view then says "thread N"); class names and
// frames are written as Java writes them.
func TestAllocationsNamed(t *testing.T) {
	recs := []ddm.AllocRecord{
		{Size: 24, ThreadID: 1, Class: "Ljava/lang/String;", Frames: []ddm.AllocFrame{{Class: "Lcom/example/simvm/Worker;", Method: "work", File: "Worker.java", Line: 12}}},
		{Size: 1040, ThreadID: 7, Class: "[B", Frames: []ddm.AllocFrame{{Class: "Lcom/example/simvm/Worker;", Method: "run", Line: -2}}},
		{Size: 16, ThreadID: 9, Class: "[[I"},
		{Size: 16, ThreadID: 3, Class: "Ljava/lang/Object;"},
	}
	threads := []ddm.Thread{{ID: 1, Name: "main"}, {ID: 7, Name: "Binder:42_1"}, {ID: 3, Name: ""}}
	got := Allocations(recs, threads)
	want := []debugger.Allocation{
		{Class: "java.lang.String", Size: 24, Thread: 1, ThreadName: "main", Frames: []debugger.AllocSite{{Class: "com.example.simvm.Worker", Method: "work", File: "Worker.java", Line: 12}}},
		{Class: "byte[]", Size: 1040, Thread: 7, ThreadName: "Binder:42_1", Frames: []debugger.AllocSite{{Class: "com.example.simvm.Worker", Method: "run", Line: -2}}},
		{Class: "int[][]", Size: 16, Thread: 9, Frames: []debugger.AllocSite{}},
		{Class: "java.lang.Object", Size: 16, Thread: 3, Frames: []debugger.AllocSite{}},
	}
	if len(got) != len(want) {
		t.Fatalf("%d allocations, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Class != w.Class || g.Size != w.Size || g.Thread != w.Thread || g.ThreadName != w.ThreadName || len(g.Frames) != len(w.Frames) {
			t.Errorf("[%d] = %+v, want %+v", i, g, w)
			continue
		}
		for j := range w.Frames {
			if g.Frames[j] != w.Frames[j] {
				t.Errorf("[%d] frame %d = %+v, want %+v", i, j, g.Frames[j], w.Frames[j])
			}
		}
	}
}

// simulated starts a simulated ART VM (threads and allocations change every
// few milliseconds) and a DDM client and feed over a real JDWP connection to
// it; all are closed when the test ends.
func simulated(t *testing.T) (*simvm.VM, *ddm.Client, *ddm.Feed) {
	t.Helper()
	vm, err := simvm.New(simvm.Options{Profile: simvm.ProfileART, Tick: 10 * time.Millisecond, GCInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vm.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go vm.Serve(ln)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := jdwp.Dial(ctx, ln.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.AllowVendorCommands()
	c := ddm.Attach(conn, ddm.Options{Timeout: 30 * time.Second})
	t.Cleanup(c.Close)
	f := ddm.NewFeed(c, ddm.FeedOptions{Interval: time.Hour}) // a THST poll would show as a second round: none is expected
	t.Cleanup(f.Close)
	return vm, c, f
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // generous: load only slows the test
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestTrackerNamesThreads: on, the tracker watches the VM's thread names
// (THEN), so its records come named; a restart keeps the names; off, the
// names watch is released, and THEN stays on for another watcher of the
// feed (the names it uses stay); Close turns the VM's tracker off and
// releases the watch once. (TestFeedNames counts the THEN packets.)
func TestTrackerNamesThreads(t *testing.T) {
	_, c, f := simulated(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tr := New(f, "Java Debug Wire Protocol (Reference Implementation) version 1.8\nJVM Debug Interface version 1.2\nJVM version 2.1.0 (Dalvik, ddmbridge simulated VM, art profile)")
	if !tr.Simulated() {
		t.Error("a simulated VM's tracker does not say its records are simulated")
	}
	if New(f, "JVM version 2.1.0 (Dalvik)").Simulated() {
		t.Error("a device VM's tracker says its records are simulated")
	}
	tracking := func() bool {
		t.Helper()
		m, err := c.Request(ctx, &ddm.Empty{Type: ddm.REAQ})
		if err != nil {
			t.Fatalf("REAQ: %v", err)
		}
		return m.(*ddm.AllocTrackingStatus).Enabled
	}
	named := func() map[uint32]string {
		out := map[uint32]string{}
		for _, th := range c.Data().Threads() {
			if th.Name != "" {
				out[th.ID] = th.Name
			}
		}
		return out
	}
	if len(named()) != 0 {
		t.Fatalf("threads named before anyone watched: %v", named())
	}

	if err := tr.Enable(ctx, true); err != nil {
		t.Fatal(err)
	}
	if !tracking() {
		t.Fatal("REAQ after Enable(true): off")
	}
	var recs []debugger.Allocation
	eventually(t, "records, all named", func() bool {
		var err error
		if recs, err = tr.Records(ctx); err != nil {
			t.Fatal(err)
		}
		if len(recs) < 3 {
			return false
		}
		for _, r := range recs {
			if r.ThreadName == "" {
				return false // THCR not here yet, or a thread born since
			}
		}
		return true
	})
	names := named()
	for _, r := range recs {
		if names[r.Thread] != r.ThreadName {
			t.Errorf("record on thread %d named %q; the model names it %q", r.Thread, r.ThreadName, names[r.Thread])
		}
	}
	if _, ok := names[1]; !ok || names[1] != "main" {
		t.Errorf("thread 1 is %q, want main (the simulated VM's first thread)", names[1])
	}
	if tw, _ := f.Watching(); tw || !f.WatchingNames() {
		t.Errorf("the tracker on: watching threads %v (THST polling), names %v; want names alone", tw, f.WatchingNames())
	}

	// Restart: an empty buffer, tracking on, the names kept.
	if err := tr.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if !tracking() || len(named()) == 0 {
		t.Fatalf("after Restart: tracking %v, %d named threads", tracking(), len(named()))
	}

	// Off with another watcher of the feed's threads: THEN stays on for it.
	f.WatchThreads(true)
	if err := tr.Enable(ctx, false); err != nil {
		t.Fatal(err)
	}
	if tracking() {
		t.Fatal("REAQ after Enable(false): on")
	}
	if len(named()) == 0 {
		t.Fatal("the tracker turned off cleared the thread names another watcher of the feed uses")
	}
	if f.WatchingNames() {
		t.Fatal("the tracker is off, but its names watch is held")
	}
	f.WatchThreads(false)

	// On again, then Close: the VM's tracker off, the watch released.
	if err := tr.Enable(ctx, true); err != nil {
		t.Fatal(err)
	}
	eventually(t, "names again", func() bool { return len(named()) > 0 })
	tr.Close()
	tr.Close()
	if tracking() {
		t.Fatal("REAQ after Close: on")
	}
	if f.WatchingNames() {
		t.Fatal("Close left the names watch on")
	}
	if err := tr.Enable(ctx, true); !errors.Is(err, ErrEnded) {
		t.Errorf("Enable after Close: %v, want ErrEnded", err)
	}
}
