package dap

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	godap "github.com/google/go-dap"
	"github.com/rs/zerolog"
)

// countOf returns a class's row of an instanceCounts body.
func countOf(t *testing.T, cs []debugger.ClassCount, name string) debugger.ClassCount {
	t.Helper()
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no class %s among %d counted", name, len(cs))
	return debugger.ClassCount{}
}

func (c *client) instanceCounts(filter string) []debugger.ClassCount {
	c.t.Helper()
	c.send("instanceCounts", map[string]any{"filter": filter})
	return until[*instanceCountsResponse](c, "instanceCounts response", nil).Body.Classes
}

// TestMemoryOnHotSpot runs Alloc, which allocates 250 orders, then 1000,
// then 1, between breakpoints, on a real HotSpot VM: exact instance counts
// and deltas (through the request and the background memoryCounts event
// of a visible view), the instances paged with their fields, the objects
// referring to one (the list's array, referred to by the ArrayList), and
// the one instance that appeared since the previous stop of a tracked class.
func TestMemoryOnHotSpot(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "Alloc"))
	c.setBreakpoints(source(t, "Alloc.java"), bp(t, "Alloc.java", "first"), bp(t, "Alloc.java", "second"), bp(t, "Alloc.java", "third"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId

	// First stop: 250 orders, no delta yet; the view made visible counts.
	c.send("memoryView", map[string]any{"visible": true})
	ev := until[*customEvent[InstanceCountsBody]](c, "memoryCounts at the first stop", func(e *customEvent[InstanceCountsBody]) bool { return e.Body.Complete })
	if o := countOf(t, ev.Body.Classes, "Alloc$Order"); o.Instances != 250 || o.Delta != 0 {
		t.Errorf("first stop: %+v, want 250 instances, delta 0", o)
	}
	cs := c.instanceCounts("Alloc$Ord")
	if len(cs) != 1 || cs[0] != (debugger.ClassCount{Name: "Alloc$Order", Instances: 250}) {
		t.Errorf("instanceCounts Alloc$Ord at the first stop: %+v", cs)
	}
	for i := 1; i < len(ev.Body.Classes); i++ {
		if ev.Body.Classes[i-1].Instances < ev.Body.Classes[i].Instances {
			t.Fatalf("classes not sorted by instances: %+v then %+v", ev.Body.Classes[i-1], ev.Body.Classes[i])
		}
	}

	// Second stop: 1000 more, in the background event and the request.
	c.send("continue", map[string]any{"threadId": th})
	until[*godap.ContinueResponse](c, "continue response", nil)
	c.expectStop("breakpoint")
	ev = until[*customEvent[InstanceCountsBody]](c, "memoryCounts at the second stop", func(e *customEvent[InstanceCountsBody]) bool { return e.Body.Complete })
	if o := countOf(t, ev.Body.Classes, "Alloc$Order"); o.Instances != 1250 || o.Delta != 1000 {
		t.Errorf("second stop (event): %+v, want 1250 instances, delta 1000", o)
	}
	cs = c.instanceCounts("*$Order")
	if o := countOf(t, cs, "Alloc$Order"); o.Instances != 1250 || o.Delta != 1000 {
		t.Errorf("second stop (request): %+v, want 1250 instances, delta 1000", o)
	}
	for _, cc := range cs {
		if !strings.HasSuffix(cc.Name, "$Order") {
			t.Errorf("glob *$Order selected %s", cc.Name)
		}
	}

	// The instances, paged, each with its fields.
	c.send("instances", map[string]any{"className": "Alloc$Order", "start": 1200, "count": 100})
	page := until[*instancesResponse](c, "instances response", nil).Body
	if page.Total != 1250 {
		t.Fatalf("instances total %d, want 1250", page.Total)
	}
	tail := c.variables(page.VariablesReference)
	if len(tail) != 50 || tail[0].Name != "[1200]" || tail[49].Name != "[1249]" {
		t.Fatalf("instances [1200, 1250): %d, first %+v", len(tail), tail[0])
	}
	c.send("instances", map[string]any{"className": "Alloc$Order", "count": 100})
	page = until[*instancesResponse](c, "instances response", nil).Body
	first := c.variables(page.VariablesReference)
	if len(first) != 100 {
		t.Fatalf("first page has %d instances, want 100", len(first))
	}
	ids := map[string]bool{}
	for _, v := range append(first[:5], tail[:5]...) {
		if !strings.HasPrefix(v.Value, "Alloc$Order (id=") && !strings.HasPrefix(v.Value, "Order (id=") {
			t.Errorf("instance %s = %q", v.Name, v.Value)
		}
		f := byName(c.variables(v.VariablesReference))
		id, err := strconv.Atoi(f["id"].Value)
		if err != nil || f["label"].Value != `"order-`+f["id"].Value+`"` || id < 0 || id >= 1250 || ids[f["id"].Value] {
			t.Errorf("fields of %s: %s", v.Name, mustJSON(f))
		}
		ids[f["id"].Value] = true
		if _, ok := f[referrersName]; !ok {
			t.Errorf("instance %s has no %s child", v.Name, referrersName)
		}
	}

	// Who holds one: the ArrayList's array, held by the ArrayList.
	f := byName(c.variables(first[0].VariablesReference))
	refs := c.variables(f[referrersName].VariablesReference)
	var arr *godap.Variable
	for i := range refs {
		if strings.HasPrefix(refs[i].Value, "Object[") {
			arr = &refs[i]
		}
	}
	if arr == nil {
		t.Fatalf("referrers of an order: %s, want the list's Object[]", mustJSON(refs))
	}
	// Each referrer is named with where it holds the object: the array's element.
	if !regexp.MustCompile(`^\[\d+\] via \[\d+\]$`).MatchString(arr.Name) {
		t.Errorf("the array among the referrers is named %q, want its element holding the order", arr.Name)
	}
	var up []godap.Variable
	for _, v := range c.variables(arr.VariablesReference, "filter", "named") {
		if v.Name == referrersName {
			up = c.variables(v.VariablesReference)
		}
	}
	found := false
	for _, v := range up {
		found = found || strings.HasPrefix(v.Value, "ArrayList (size=1250)") && strings.HasSuffix(v.Name, " via .elementData")
	}
	if !found {
		t.Errorf("referrers of the array: %s, want the ArrayList of 1250, via .elementData", mustJSON(up))
	}

	// Track new orders: the one made before the third stop.
	c.send("trackInstances", map[string]any{"className": "Alloc$Order", "track": true})
	until[*trackInstancesResponse](c, "trackInstances response", nil)
	c.send("continue", map[string]any{"threadId": th})
	until[*godap.ContinueResponse](c, "continue response", nil)
	c.expectStop("breakpoint")
	c.send("instances", map[string]any{"className": "Alloc$Order", "new": true})
	fresh := until[*instancesResponse](c, "instances response", nil).Body
	if fresh.Total != 1 {
		t.Fatalf("new instances: %d, want 1", fresh.Total)
	}
	one := c.variables(fresh.VariablesReference)
	if f := byName(c.variables(one[0].VariablesReference)); f["id"].Value != "1250" {
		t.Errorf("the new order: %s, want id 1250", mustJSON(f))
	}
	if o := countOf(t, c.instanceCounts("Alloc$Order"), "Alloc$Order"); o.Instances != 1251 || o.Delta != 1 {
		t.Errorf("third stop: %+v, want 1251 instances, delta 1", o)
	}

	// Bad input is answered, the session goes on.
	c.send("instances", map[string]any{"className": "No$Such"})
	c.expectError(ErrUnableToListVariables, "class No$Such is not loaded")
	c.send("instances", map[string]any{"className": "java.lang.String", "new": true})
	c.expectError(ErrUnableToListVariables, "is not tracked")
	c.send("instances", map[string]any{"className": "Alloc$Order", "start": -1})
	c.expectError(ErrUnableToListVariables, "must not be negative")
	c.send("allocations", map[string]any{"enable": true})
	c.expectError(ErrVMCannot, "no allocation tracker")
}

// TestMemoryWithoutInstanceInfo: a VM that cannot count (the stand-alone
// simulated VM's old Capabilities) is answered clearly.
func TestMemoryWithoutInstanceInfo(t *testing.T) {
	port := startSimVM(t, simvm.Options{Profile: simvm.ProfileART, GCInterval: time.Hour})
	c := startSession(t, Config{})
	c.initialize()
	c.send("attach", map[string]any{"port": port})
	until[*godap.InitializedEvent](c, "initialized", nil)
	c.send("memoryView", map[string]any{"visible": true})
	body := until[*memoryViewResponse](c, "memoryView response", nil).Body
	if body.CanCount || !body.CanTrackAllocations || !body.Simulated {
		t.Errorf("memoryView on the simulated VM: %+v, want no counts, allocations, said to be simulated", body)
	}
	c.send("trackInstances", map[string]any{"className": "java.lang.String", "track": true})
	c.expectError(ErrVMCannot, "CanGetInstanceInfo is false")
}

// TestAllocationsThroughSimulatedDDM: a HotSpot VM behind the simulated ART
// VM; the allocation tracker turned on at one stop gives, at the next, the
// records of the allocations between them, with their stack traces and
// their threads named (the JVM's threads, which the simulator's follow).
func TestAllocationsThroughSimulatedDDM(t *testing.T) {
	vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{fixtures(t)}, MainClass: "Loop", ReadyLine: "READY"})
	sim, port := startSimVMs(t, simvm.Options{Profile: simvm.ProfileART, JVM: vm.Addr, GCInterval: time.Hour, Tick: 20 * time.Millisecond})
	c := startSession(t, Config{})
	c.initialize()
	c.attach(map[string]any{"hostName": "127.0.0.1", "port": port, "sourcePaths": []string{source(t, "")}})
	c.configurationDone()
	c.send("pause", map[string]any{"threadId": 1})
	th := until[*godap.StoppedEvent](c, "pause stop", nil).Body.ThreadId

	c.send("memoryView", map[string]any{"visible": true})
	if v := until[*memoryViewResponse](c, "memoryView response", nil).Body; !v.CanTrackAllocations || !v.Simulated {
		t.Errorf("memoryView on the simulated ART VM: %+v, want allocations, said to be simulated", v)
	}
	c.send("allocations", map[string]any{"enable": true})
	on := until[*allocationsResponse](c, "allocations response", nil).Body
	if !on.Enabled || len(on.Allocations) != 0 {
		t.Fatalf("allocations at the stop the tracker was turned on: %s", mustJSON(on))
	}
	var recs []debugger.Allocation
	for try := 0; len(recs) == 0; try++ { // the simulator allocates every tick while the JVM runs
		if try == 50 {
			t.Fatal("no allocation recorded between two stops in 50 tries")
		}
		c.send("continue", map[string]any{"threadId": th})
		until[*godap.ContinueResponse](c, "continue response", nil)
		time.Sleep(100 * time.Millisecond) // let the program run: what is measured is what happens meanwhile
		c.send("pause", map[string]any{"threadId": th})
		until[*godap.StoppedEvent](c, "pause stop", nil)
		c.send("allocations", nil)
		body := until[*allocationsResponse](c, "allocations response", nil).Body
		if !body.Enabled {
			t.Fatalf("allocations: tracker off: %s", mustJSON(body))
		}
		recs = body.Allocations
	}
	t.Logf("%d records; the first: %s", len(recs), mustJSON(recs[0]))
	// Each record is named after its thread, one of the JVM's (the
	// simulator's threads follow them: DDM's THCR names, JDWP's here).
	c.send("threads", nil)
	jvmThreads := map[string]bool{}
	for _, th := range until[*godap.ThreadsResponse](c, "threads response", nil).Body.Threads {
		jvmThreads[th.Name] = true
	}
	for _, r := range recs {
		if r.Class == "" || r.Size == 0 || len(r.Frames) == 0 || r.Frames[0].Method == "" || r.Frames[0].File == "" {
			t.Errorf("allocation record without class, size or stack: %+v", r)
		}
		if r.Thread == 0 || !jvmThreads[r.ThreadName] {
			t.Errorf("allocation on thread %d named %q, not one of the JVM's threads %v", r.Thread, r.ThreadName, jvmThreads)
		}
	}
	// The same stop asked again: the same records; off: none.
	c.send("allocations", nil)
	if again := until[*allocationsResponse](c, "allocations response", nil).Body; len(again.Allocations) != len(recs) {
		t.Errorf("asked twice at one stop: %d then %d records", len(recs), len(again.Allocations))
	}
	c.send("allocations", map[string]any{"enable": false})
	if off := until[*allocationsResponse](c, "allocations response", nil).Body; off.Enabled || len(off.Allocations) != 0 {
		t.Errorf("allocations off: %s", mustJSON(off))
	}
	for deadline := time.Now().Add(time.Minute); sim.AllocTracking(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the VM's tracker is still on a minute after allocations {enable: false}")
		}
	}
	// On again, then the session ends: the VM's tracker is turned off
	// (recording costs the app), before the connection closes.
	c.send("allocations", map[string]any{"enable": true})
	until[*allocationsResponse](c, "allocations response", nil)
	// The VM turns its tracker on when it reads the chunk: wait for that.
	for deadline := time.Now().Add(time.Minute); !sim.AllocTracking(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the VM's tracker is off a minute after allocations {enable: true}")
		}
	}
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect response", nil)
	for deadline := time.Now().Add(time.Minute); sim.AllocTracking(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the VM's allocation tracker is still on a minute after the session ended")
		}
	}
}

// TestStepDuringAHeapWalk steps while the memory view's count of a heap of
// a million objects runs in the VM (a second or more; HotSpot's agent
// answers nothing else meanwhile, and JDWP cannot take a command back): the
// step is done once the walk is, and the user is told meanwhile why it waits
// — progress "Waiting for the VM" from before the step's response to the
// end of the walk.
func TestStepDuringAHeapWalk(t *testing.T) {
	logs := &lockedbuf.Buffer{}
	c := startSession(t, Config{Logger: zerolog.New(logs).Level(zerolog.DebugLevel)})
	c.send("initialize", map[string]any{"adapterID": "ddmbridge", "linesStartAt1": true, "pathFormat": "path", "supportsProgressReporting": true})
	expect[*godap.InitializeResponse](c)
	c.launch(launchArgs(t, "MemBench", "args", []string{"1000000"}, "vmArgs", []string{"-Xmx1g"}))
	c.setBreakpoints(source(t, "MemBench.java"), bp(t, "MemBench.java", "bench-a"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	c.setBreakpoints(source(t, "MemBench.java"))

	c.send("memoryView", map[string]any{"visible": true}) // visible at a stop: counted at once
	until[*memoryViewResponse](c, "memoryView response", nil)
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(logs.String(), "the VM walks its heap") {
		if time.Now().After(deadline) {
			t.Fatalf("no heap walk began in 2 minutes; log:\n%s", logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.send("next", map[string]any{"threadId": th})
	var start *godap.ProgressStartEvent
	var answered, ended, stopped bool
	for !answered || !ended || !stopped {
		switch m := c.next().(type) {
		case *godap.ProgressStartEvent:
			if start != nil || answered {
				t.Fatalf("progress %+v: want one, before the step's response", m.Body)
			}
			start = m
			if m.Body.Title != "Waiting for the VM" || !strings.Contains(m.Body.Message, "walking its heap") {
				t.Errorf("progress %+v: want it to say the VM walks its heap", m.Body)
			}
		case *godap.NextResponse:
			answered = true
		case *godap.ProgressEndEvent:
			ended = start != nil && m.Body.ProgressId == start.Body.ProgressId
		case *godap.StoppedEvent:
			stopped = m.Body.Reason == "step"
			if !stopped {
				t.Fatalf("stopped %+v, want the step's", m.Body)
			}
		case *godap.ErrorResponse:
			t.Fatalf("error response to %s: %+v", m.Command, m.Body.Error)
		}
	}
	if start == nil {
		t.Fatal("the step waited for the heap walk without a word")
	}
}

// TestInstancesOfAHugeClass lists a class of 250,000 instances (MemBench,
// a million objects): 100,000 are listed and the body says there are more,
// the last page reads, a class of few instances is not marked; the new
// instances of a tracked class compared across cut listings are marked too.
func TestInstancesOfAHugeClass(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.launch(launchArgs(t, "MemBench", "args", []string{"1000000"}, "vmArgs", []string{"-Xmx1g"}))
	c.setBreakpoints(source(t, "MemBench.java"), bp(t, "MemBench.java", "bench-a"))
	c.configurationDone()
	th := c.expectStop("breakpoint").Body.ThreadId
	c.setBreakpoints(source(t, "MemBench.java"))

	c.send("instances", map[string]any{"className": "MemBench$Node", "start": 99_990, "count": 100})
	body := until[*instancesResponse](c, "instances response", nil).Body
	if body.Total != 100_000 || !body.Truncated {
		t.Fatalf("instances of 250,000 nodes: %s, want total 100000, truncated", mustJSON(body))
	}
	if page := c.variables(body.VariablesReference); len(page) != 10 || page[9].Name != "[99999]" {
		t.Errorf("the last page: %d variables, last %+v", len(page), page[len(page)-1])
	}
	c.send("instances", map[string]any{"className": "java.util.HashMap"})
	if few := until[*instancesResponse](c, "instances response", nil).Body; few.Total == 0 || few.Total >= 100_000 || few.Truncated {
		t.Errorf("instances of HashMap: %s, want a few, not truncated", mustJSON(few))
	}

	c.send("trackInstances", map[string]any{"className": "MemBench$Node", "track": true})
	until[*trackInstancesResponse](c, "trackInstances response", nil)
	c.send("next", map[string]any{"threadId": th})
	until[*godap.NextResponse](c, "next response", nil)
	c.expectStop("step")
	c.send("instances", map[string]any{"className": "MemBench$Node", "new": true})
	if fresh := until[*instancesResponse](c, "instances response", nil).Body; !fresh.Truncated {
		t.Errorf("new nodes across cut listings: %s, want truncated", mustJSON(fresh))
	}
}
