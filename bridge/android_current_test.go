package bridge

import (
	"context"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// TestCurrentAndroidThroughRealADB runs the monitor against Debian's real
// adb server and a device as current as Android is today (track-app with
// app_info, the current ART profile): every process is in the VM list with
// its process name, packages and waiting state from its first announcement,
// before any JDWP connection; the monitored app receives no non-DDM packet
// until a debugger attaches (current ART loads its JDWP agent on the first
// one); a frozen app and a profileable-only app are listed with, in words,
// why they cannot be debugged and what to do.
func TestCurrentAndroidThroughRealADB(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	vmo := quietVM
	vmo.Profile = simvm.ProfileCurrent
	dev := simdevice.New(simdevice.Options{VM: vmo, Model: "Pixel_Sim", Features: simdevice.CurrentFeatures})
	app, _ := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.app", Packages: []string{"com.example.app", "com.example.shared"}})
	wait, _ := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.wait", WaitingForDebugger: true})
	frozen, _ := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.cached", Frozen: true})
	release, _ := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.release", NotDebuggable: true, Profileable: true})

	m := startMonitor(t, deviceOptions(t, srv.Client.Addr))
	events, cancel := m.Subscribe()
	defer cancel()
	serial := srv.Connect(t, dev)

	// The first word of each process is the device's list, not a JDWP connection.
	first := map[int]VMInfo{}
	deadline := time.After(60 * time.Second)
	for len(first) < 4 {
		select {
		case e := <-events:
			if e.Kind != EventAdded || e.VM.Serial != serial {
				continue
			}
			if _, seen := first[e.VM.PID]; !seen {
				first[e.VM.PID] = e.VM
			}
		case <-deadline:
			t.Fatalf("announced: %+v", first)
		}
	}
	for pid, e := range first {
		if !e.Listed || e.Process == "" || e.Debuggable == nil || e.WaitingForDebugger == nil {
			t.Errorf("pid %d first announced as %+v, not from track-app", pid, e)
		}
	}
	if e := first[app]; e.Process != "com.example.app" || strings.Join(e.Packages, ",") != "com.example.app,com.example.shared" {
		t.Errorf("app announced as %+v", e)
	}
	if e := first[wait]; !*e.WaitingForDebugger || !e.Waiting || e.Name != "com.example.wait" {
		t.Errorf("waiting app announced as %+v", e)
	}
	waitFor(t, 60*time.Second, "the waiting app at boot stage DEBG", func() bool {
		e, _ := entry(m, DeviceAddr(serial, wait))
		return e.BootStage == "DEBG"
	})
	if e := first[release]; *e.Debuggable || !*e.Profileable || !strings.Contains(e.Note, "not debuggable") {
		t.Errorf("release app announced as %+v", e)
	}

	// The monitored app: DDM identity and features, then a DDM round trip
	// after everything the monitor sent on connecting; no non-DDM packet.
	addr := DeviceAddr(serial, app)
	var info VMInfo
	waitFor(t, 60*time.Second, "the app monitored over DDM", func() bool {
		info, _ = entry(m, addr)
		return !info.Listed && info.DDM && len(info.Features) > 0
	})
	if info.ID != first[app].ID || info.Process != "com.example.app" || info.Frozen == nil || *info.Frozen ||
		info.BootStage != "A_GO" || info.JVMFlags != "CheckJNI=false" || !slices.Contains(info.Features, "support_boot_stages") {
		t.Errorf("monitored app: %+v (listed as %s)", info, first[app].ID)
	}
	v, err := m.VM(addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancelCtx := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancelCtx()
	if _, err := v.HeapInfo(ctx); err != nil {
		t.Fatal(err)
	}
	// Current ART has no THST or STKL: the views degrade with words, still
	// without a JDWP packet.
	ts, err := v.Threads(ctx)
	if err != nil || len(ts) == 0 || ts[0].State != "unknown" || !strings.Contains(v.ThreadsNote(), "debugger") {
		t.Errorf("threads without THST: %+v, %v, note %q", ts, err, v.ThreadsNote())
	}
	if ts, err := v.Threads(ctx); err != nil || len(ts) == 0 {
		t.Errorf("threads asked again: %+v, %v", ts, err)
	}
	if _, err := v.Stack(ctx, uint32(ts[0].ID)); err == nil || !strings.Contains(err.Error(), "attach a debugger") {
		t.Errorf("stack without STKL: %v", err)
	}
	svm := dev.VM(app)
	if n := svm.NonDDMPackets(); n != 0 || svm.AgentLoaded() {
		t.Errorf("the monitor sent %d non-DDM packets while only monitoring: the JDWP agent was woken", n)
	}
	if n := dev.VM(wait).NonDDMPackets(); n != 0 {
		t.Errorf("the monitor sent %d non-DDM packets to the waiting app", n)
	}

	// The frozen app: listed, refused, said so.
	waitFor(t, 60*time.Second, "the frozen app reported", func() bool {
		for _, e := range m.VMs() {
			if e.PID == frozen && e.Serial == serial {
				return e.Frozen != nil && *e.Frozen && strings.Contains(e.Note, "frozen") && strings.Contains(e.Note, "foreground")
			}
		}
		return false
	})
	if _, err := m.VM(DeviceAddr(serial, frozen)); err == nil || !strings.Contains(err.Error(), "frozen") {
		t.Errorf("VM(frozen app): %v", err)
	}
	if _, err := m.VM(DeviceAddr(serial, release)); err == nil || !strings.Contains(err.Error(), "not debuggable") {
		t.Errorf("VM(release app): %v", err)
	}

	// A debugger attaches to the app: its first packets load the agent.
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(info.DebugPort)))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := jdwp.Handshake(ctx, nc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Version(ctx); err != nil {
		t.Fatal(err)
	}
	if svm.NonDDMPackets() == 0 || !svm.AgentLoaded() {
		t.Errorf("a debugger's packets did not reach the VM: %d", svm.NonDDMPackets())
	}
	waitFor(t, 60*time.Second, "the debugger seen", func() bool { return v.Info().Debugger })
	if ts, err := v.Threads(ctx); err != nil || len(ts) == 0 || ts[0].State == "unknown" || ts[0].Name == "" {
		t.Errorf("threads from JDWP with a debugger attached: %+v, %v", ts, err)
	}

	// On the waiting app a debugger comes first: THST then gets the empty
	// reply of a loaded agent, and states come from JDWP at once.
	wv, err := m.VM(DeviceAddr(serial, wait))
	if err != nil {
		t.Fatal(err)
	}
	wi, _ := entry(m, DeviceAddr(serial, wait))
	wnc, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(wi.DebugPort)))
	if err != nil {
		t.Fatal(err)
	}
	wconn, err := jdwp.Handshake(ctx, wnc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer wconn.Close()
	if _, err := wconn.Version(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "the debugger seen on the waiting app, which goes on (STAG A_GO, track-app no longer waiting)", func() bool {
		e, _ := entry(m, DeviceAddr(serial, wait))
		return e.Debugger && e.BootStage == "A_GO" && e.WaitingForDebugger != nil && !*e.WaitingForDebugger
	})
	if ts, err := wv.Threads(ctx); err != nil || len(ts) == 0 || ts[0].State == "unknown" || wv.ThreadsNote() == "" {
		t.Errorf("threads of the waiting app with a debugger: %+v, %v, note %q", ts, err, wv.ThreadsNote())
	}

	// Thawed, the app is monitored like any other.
	dev.SetFrozen(frozen, false)
	waitFor(t, 60*time.Second, "the thawed app monitored", func() bool {
		e, ok := entry(m, DeviceAddr(serial, frozen))
		return ok && !e.Listed && e.DDM && e.Frozen != nil && !*e.Frozen && e.Note == ""
	})
}

// entry is the VM-list entry at addr.
func entry(m *Monitor, addr string) (VMInfo, bool) {
	for _, e := range m.VMs() {
		if e.Address == addr {
			return e, true
		}
	}
	return VMInfo{}, false
}
