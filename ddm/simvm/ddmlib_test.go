package simvm

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// ddmlibJars are Debian's libandroid-ddms-java and what its handlers load.
var ddmlibJars = []string{
	"/usr/share/java/com.android.tools.ddms.ddmlib.jar",
	"/usr/share/java/com.android.tools.common.jar",
	"/usr/share/java/guava.jar",
}

// needDdmlib returns the java binary, skipping when java or ddmlib is missing,
// except under CI, where their absence is a failure.
func needDdmlib(t *testing.T) (javac, java string) {
	t.Helper()
	missing := func(what string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing; install it (apt-get install -y default-jdk-headless libandroid-ddms-java)", what)
		}
		t.Skipf("%s is missing (apt-get install -y libandroid-ddms-java)", what)
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		missing("javac")
	}
	java, err = exec.LookPath("java")
	if err != nil {
		missing("java")
	}
	for _, j := range ddmlibJars {
		if _, err := os.Stat(j); err != nil {
			missing(j)
		}
	}
	return javac, java
}

// TestDdmlibDecodesSimVM is the differential check: the chunks a simulated ART
// VM really sends are fed to Debian's ddmlib 25.2.2 handlers (HandleHello,
// HandleAppName, HandleWait, HandleThread, HandleHeap) and what ddmlib's
// ClientData makes of them must equal our ClientData. ddmlib cannot open a
// VM connection without an adb server and a Device, so the probe builds a
// ddmlib Client by reflection and calls the handlers' handleChunk directly.
func TestDdmlibDecodesSimVM(t *testing.T) {
	javac, java := needDdmlib(t)
	dir := t.TempDir()
	cp := strings.Join(ddmlibJars, ":")
	if out, err := exec.Command(javac, "-d", dir, "-cp", cp, filepath.Join("testdata", "ddmlib", "DdmlibProbe.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}

	vm, conn := serve(t, Options{Profile: ProfileART, PID: 5150, AppName: "com.example.diff", WaitingForDebugger: true, Threads: 5, Tick: time.Hour, GCInterval: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// Record every chunk in arrival order, as "TYPE reply hex" lines.
	var mu sync.Mutex
	var lines []string
	var segments int
	record := func(ch ddm.Chunk, reply bool) {
		mu.Lock()
		defer mu.Unlock()
		r := "0"
		if reply {
			r = "1"
		}
		lines = append(lines, fmt.Sprintf("%s %s %s", ch.Type, r, hex.EncodeToString(ch.Data)))
		if ch.Type == ddm.HPSG {
			segments++
		}
	}
	conn.AllowVendorCommands() // the simulated VM is Android's: it speaks DDM
	c := ddm.NewClient(conn, ddm.Options{Timeout: 30 * time.Second})
	defer c.Close()
	conn.HandleCommandSet(ddm.CommandSet, func(_ *jdwp.Conn, p *jdwp.Packet) {
		if cs, err := ddm.ParseChunks(p.Data, ddm.ParseOptions{}); err == nil {
			for _, ch := range cs {
				record(ch, false)
			}
		}
		c.HandlePacket(p.ID, p.Cmd, p.Data)
	})
	do := func(m ddm.Message) {
		t.Helper()
		rep, err := c.Send(m, nil).Wait(ctx)
		if err == nil {
			err = rep.Err
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range rep.Chunks {
			record(ch, true)
		}
	}
	// ART answers THEN, REAE, HPSG and HPGC with no reply at all: post those
	// (the VM handles its packets in order) instead of waiting for a timeout.
	post := func(m ddm.Message) { c.Send(m, nil) }
	do(&ddm.HelloRequest{ServerVersion: 1})
	do(&ddm.Empty{Type: ddm.FEAT})
	post(&ddm.ThreadNotify{Enable: true})
	eventually(t, "THCR", func() bool { return len(c.Data().Threads()) == 5 })
	do(&ddm.ThreadStatusRequest{})
	do(&ddm.StackRequest{ThreadID: 2})
	post(&ddm.AllocTrackingEnable{Enable: true})
	do(&ddm.Empty{Type: ddm.REAQ}) // the VM handles its packets in order: the tracker is on
	vm.mu.Lock()
	for range 5 { // the app allocates (the ticks that would are an hour apart)
		vm.allocLocked()
	}
	vm.mu.Unlock()
	do(&ddm.Empty{Type: ddm.REAL})
	post(&ddm.SegmentRequest{When: 1})
	post(&ddm.Empty{Type: ddm.HPGC})
	eventually(t, "heap map", func() bool { return c.Data().HeapMap(1, false) != nil })

	cmd := exec.Command(java, "-cp", dir+":"+cp, "DdmlibProbe", "5150")
	mu.Lock()
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	nseg := segments
	mu.Unlock()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ddmlib probe: %v\n%s", err, out)
	}
	got := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue // ddmlib's own log lines
		}
		got[k] = append(got[k], v)
	}

	// What our model says, in the probe's words.
	d := c.Data()
	id := d.Identity()
	want := map[string][]string{
		"pid":                               {fmt.Sprint(id.PID)},
		"vm":                                {id.VMIdent},
		"app":                               {id.AppName},
		"user":                              {fmt.Sprint(id.UserID)},
		"abi":                               {id.ABI},
		"flags":                             {id.JVMFlags},
		"nativeDebuggable":                  {fmt.Sprint(id.NativeDebuggable)},
		"debugger":                          {strings.ToUpper(d.Debugger().String())},
		"feature.hprof-heap-dump-streaming": {fmt.Sprint(id.HasFeature("hprof-heap-dump-streaming"))},
		"heapComplete":                      {"true"},
		"heapSegments":                      {fmt.Sprint(nseg)},
	}
	for _, th := range d.Threads() {
		want["thread"] = append(want["thread"], fmt.Sprintf("%d %s status=%d tid=%d utime=%d stime=%d daemon=%v", th.ID, th.Name, th.Status, th.TID, th.UTime, th.STime, th.Daemon))
		for _, f := range th.Stack {
			loc := "Unknown Source"
			switch {
			case f.Line == -2:
				loc = "Native Method"
			case f.File != "" && f.Line >= 0:
				loc = fmt.Sprintf("%s:%d", f.File, f.Line)
			case f.File != "":
				loc = f.File
			}
			want["frame"] = append(want["frame"], fmt.Sprintf("%d %s.%s(%s)", th.ID, f.Class, f.Method, loc))
		}
	}
	_, recs := d.Allocations()
	want["allocations"] = []string{fmt.Sprint(len(recs))}
	if len(recs) > 0 {
		want["alloc0"] = []string{fmt.Sprintf("%s %d", javalang.ClassName(recs[0].Class), recs[0].Size)}
	}
	for k, w := range want {
		if strings.Join(got[k], "\n") != strings.Join(w, "\n") {
			t.Errorf("%s:\n ddmlib %q\n ours   %q", k, got[k], w)
		}
	}
	if nseg == 0 || len(want["frame"]) != 3 || len(recs) == 0 {
		t.Errorf("differential covered too little: %d segments, %d frames, %d allocations", nseg, len(want["frame"]), len(recs))
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("probe output:\n%s", out)
	}
}
