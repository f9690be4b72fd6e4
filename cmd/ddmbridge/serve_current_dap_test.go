package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestDAPOnWaitingAppOfCurrentDevice is what VS Code's picker does on a
// current device behind Debian's real adb server: from vms/list it takes the
// app that waits for a debugger (track-app says so before any JDWP
// connection), attaches a DAP session to it and sees its threads; the app
// got no non-DDM packet before that. Attaching to the frozen app fails in
// words that say what to do.
func TestDAPOnWaitingAppOfCurrentDevice(t *testing.T) {
	jvmtest.RequireJava(t)
	t.Parallel()
	srv := adbtest.StartServer(t)
	jvm := jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: []string{"-Dthreads=3", "-Ddepth=2", "-Dobjects=10"}})
	dev := simdevice.New(simdevice.Options{Model: "Current", Features: simdevice.CurrentFeatures,
		VM: simvm.Options{Profile: simvm.ProfileCurrent, Tick: time.Hour, GCInterval: time.Hour}})
	waitPID, err := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.waiting", WaitingForDebugger: true, JVM: jvm.Addr})
	if err != nil {
		t.Fatal(err)
	}
	dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.cached", Frozen: true})
	srv.Connect(t, dev)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	s := startServeDAP(t, ctx, "--adb", "tcp:"+strconv.Itoa(srv.Port), "--scan", "", "--current-port", "0", "--debug-port-base", "0")

	// The picker's choice: the attachable app waiting for a debugger.
	var waitingID, frozenID string
	s.waitVMs("the waiting and the frozen app", func(l []map[string]any) bool {
		for _, v := range l {
			switch {
			case v["waitingForDebugger"] == true && v["ddm"] == true && v["listedOnly"] == nil:
				waitingID = fmt.Sprint(v["id"])
			case v["frozen"] == true:
				frozenID = fmt.Sprint(v["id"])
			}
		}
		return waitingID != "" && frozenID != ""
	})
	if n := dev.VM(waitPID).NonDDMPackets(); n != 0 {
		t.Errorf("%d non-DDM packets reached the waiting app before any debugger", n)
	}

	d := s.session()
	d.attach(`{"vm":"` + waitingID + `", "logcatLevel": "I"}`)
	if names := d.threadNames(); !strings.Contains(strings.Join(names, ","), "worker-0") {
		t.Errorf("threads of the waiting app: %v", names)
	}
	// The app's log in the Debug Console: I as stdout, W and E as stderr,
	// D below the configured level left out.
	dev.Log(waitPID, waitPID, "D", "App", "a debug line")
	dev.Log(waitPID, waitPID, "I", "App", "an info line")
	dev.Log(waitPID, waitPID+1, "W", "App", "a warning line")
	dev.Log(waitPID, waitPID+1, "E", "App", "an error line")
	out := d.awaitOutput("an error line")
	for _, want := range []string{
		fmt.Sprintf(`stdout: \S+ \S+ +%d +%d I App +: an info line\n`, waitPID, waitPID),
		fmt.Sprintf(`stderr: \S+ \S+ +%d +%d W App +: a warning line\n\S+ \S+ +%d +%d E App +: an error line\n`, waitPID, waitPID+1, waitPID, waitPID+1),
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("Debug Console lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "a debug line") {
		t.Errorf("a D line shown with logcatLevel I:\n%s", out)
	}

	// The Heap view of the session: current Android has no heap reports, so
	// the heap comes from an am dumpheap dump, with its time; a GC the user
	// asks for brings a new one. The memory view says why it has no
	// allocations. The app is sent no heap chunk but HPGC.
	on := true
	info := d.customAwait("ddmUpdates", map[string]any{"heapInfo": on, "heapMap": on}, "ddmHeapInfo")
	if info["source"] != "dump" || info["dumpedAt"] == nil || len(info["heaps"].([]any)) != 1 {
		t.Errorf("ddmHeapInfo of a current app: %v", info)
	}
	first := info["dumpedAt"]
	hm := d.customAwait("ddmGC", map[string]any{}, "ddmHeapMap")
	if hm["source"] != "dump" || len(hm["pieces"].([]any)) == 0 {
		t.Errorf("ddmHeapMap after ddmGC: source %v, %d pieces", hm["source"], len(hm["pieces"].([]any)))
	}
	t.Logf("dumps at %v, then %v", first, hm["dumpedAt"])
	mv := d.custom("memoryView", map[string]any{"visible": false})
	if body, _ := mv["body"].(map[string]any); body["canTrackAllocations"] != false || !strings.Contains(fmt.Sprint(body["allocationsNote"]), "no allocation tracker") || body["canCount"] != true {
		t.Errorf("memoryView of a current app: %v", mv)
	}
	sim := dev.VM(waitPID)
	for _, typ := range []ddm.Type{ddm.HPIF, ddm.HPSG, ddm.NHSG, ddm.HPDU, ddm.HPDS, ddm.REAE, ddm.REAQ, ddm.REAL} {
		if n := sim.ChunksReceived(typ); n != 0 {
			t.Errorf("the current app was sent %d %s chunks", n, typ)
		}
	}
	if sim.ChunksReceived(ddm.HPGC) == 0 {
		t.Error("ddmGC sent no HPGC")
	}
	if dev.VM(waitPID).NonDDMPackets() == 0 {
		t.Error("the debug session's packets did not reach the app")
	}
	d.disconnect()

	// The frozen app: the session is refused with what to do.
	f := s.session()
	f.send(&godap.AttachRequest{Request: f.req("attach"), Arguments: json.RawMessage(`{"vm":"` + frozenID + `"}`)})
	if msg := f.awaitError("attach"); !strings.Contains(msg, "frozen") || !strings.Contains(msg, "foreground") {
		t.Errorf("attach to the frozen app: %q", msg)
	}
}

// awaitOutput reads until an output event contains text, and returns the
// output events seen, each as "category: output".
func (d *dapClient) awaitOutput(text string) string {
	d.t.Helper()
	var b strings.Builder
	seen := func(m godap.Message) bool {
		o, ok := m.(*godap.OutputEvent)
		if !ok {
			return false
		}
		fmt.Fprintf(&b, "%s: %s", o.Body.Category, o.Body.Output)
		return strings.Contains(o.Body.Output, text)
	}
	for _, m := range d.bodies {
		if seen(m) {
			return b.String()
		}
	}
	d.nc.SetDeadline(time.Now().Add(90 * time.Second))
	for {
		m, err := godap.ReadProtocolMessage(d.r)
		if err != nil {
			d.t.Fatalf("reading DAP: %v; output so far:\n%s", err, b.String())
		}
		if seen(m) {
			return b.String()
		}
	}
}

// customAwait sends a custom request and reads until both its response and
// the event named event have come, and returns the event's body.
func (d *dapClient) customAwait(command string, args any, event string) map[string]any {
	d.t.Helper()
	req := struct {
		godap.Request
		Arguments any `json:"arguments"`
	}{d.req(command), args}
	d.send(&req)
	d.nc.SetDeadline(time.Now().Add(2 * time.Minute))
	var body map[string]any
	answered := false
	for body == nil || !answered {
		raw, err := godap.ReadBaseMessage(d.r)
		if err != nil {
			d.t.Fatalf("reading DAP: %v\n%s", err, d.logs.String())
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			d.t.Fatalf("DAP message %s: %v", raw, err)
		}
		switch {
		case m["type"] == "event" && m["event"] == event:
			body, _ = m["body"].(map[string]any)
		case m["type"] == "response" && m["command"] == command:
			if m["success"] != true {
				d.t.Fatalf("%s failed: %v", command, m)
			}
			answered = true
		}
	}
	return body
}
