package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
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
	d.attach(`{"vm":"` + waitingID + `"}`)
	if names := d.threadNames(); !strings.Contains(strings.Join(names, ","), "worker-0") {
		t.Errorf("threads of the waiting app: %v", names)
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
