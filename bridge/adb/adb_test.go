package adb_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// quietVM keeps simulated VMs from ticking during a test.
var quietVM = simvm.Options{Tick: time.Hour, GCInterval: time.Hour}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // generous: load only slows the test
	t.Cleanup(cancel)
	return ctx
}

// attachDDM opens jdwp:PID, does the JDWP handshake and starts DDM on it;
// both are closed when the test ends.
func attachDDM(t *testing.T, ctx context.Context, c *adb.Client, serial string, pid int) (*jdwp.Conn, *ddm.Client) {
	t.Helper()
	nc, err := c.DialJDWP(ctx, serial, pid)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := jdwp.Handshake(ctx, nc, nil)
	if err != nil {
		nc.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.AllowVendorCommands() // a device's VMs are ART: they speak DDM
	dc := ddm.Attach(conn, ddm.Options{})
	t.Cleanup(dc.Close)
	return conn, dc
}

// onDevice starts a private adb server and a simulated device (with quiet
// VMs unless opt.VM.Tick is set) running the named processes, connected
// to the server.
func onDevice(t *testing.T, opt simdevice.Options, names ...string) (srv *adbtest.Server, ctx context.Context, dev *simdevice.Device, serial string, pids []int) {
	t.Helper()
	srv = adbtest.StartServer(t)
	if opt.VM.Tick == 0 {
		opt.VM = quietVM
	}
	dev = simdevice.New(opt)
	for _, name := range names {
		pid, err := dev.AddProcess(simdevice.ProcessOptions{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return srv, testCtx(t), dev, srv.Connect(t, dev), pids
}

// TestDeviceAppears: a simulated device connected with `adb connect` is
// listed with its details, and the server reports its banner features.
func TestDeviceAppears(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	ctx := testCtx(t)
	v, err := srv.Client.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v < 31 {
		t.Errorf("server version %d", v)
	}
	serial := srv.Connect(t, simdevice.New(simdevice.Options{Model: "Pixel_Sim", Product: "simprod", Name: "simdev"}))
	devs, err := srv.Client.Devices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(devs, func(d adb.Device) bool { return d.Serial == serial })
	if i < 0 {
		t.Fatalf("device %s not in %+v", serial, devs)
	}
	if d := devs[i]; d.State != adb.StateDevice || d.Model != "Pixel_Sim" || d.Product != "simprod" || d.Name != "simdev" || d.TransportID == 0 {
		t.Errorf("device %+v", d)
	}
	feats, err := srv.Client.Features(ctx, serial)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(feats, "shell_v2") || !slices.Contains(feats, "cmd") {
		t.Errorf("features %q", feats)
	}
	if _, err := srv.Client.Connect(ctx, "127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("connect to a closed port: %v", err)
	}
	if _, err := srv.Client.Features(ctx, "no-such-device"); err == nil {
		t.Error("features of an unknown device: no error")
	}
}

// TestTrackDevicesPlugAndUnplug: a tracker started before the device sees it
// come online, and sees it leave the online state when the simulator stops.
func TestTrackDevicesPlugAndUnplug(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	ctx := testCtx(t)
	tr, err := srv.Client.TrackDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	dev := simdevice.New(simdevice.Options{})
	serial := srv.Connect(t, dev)
	online := func(devs []adb.Device) bool {
		return slices.ContainsFunc(devs, func(d adb.Device) bool { return d.Serial == serial && d.State.Online() })
	}
	adbtest.Next(t, ctx, tr, "device online", online)
	dev.Close()
	got := adbtest.Next(t, ctx, tr, "device unplugged", func(devs []adb.Device) bool { return !online(devs) })
	t.Logf("after unplug: %+v", got)
	tr.Close()
	if _, ok := <-tr.Updates(); ok {
		t.Error("Updates still open after Close")
	}
	if !errors.Is(tr.Err(), net.ErrClosed) {
		t.Errorf("Err after Close = %v", tr.Err())
	}
}

// TestTrackJDWPFollowsProcesses: track-jdwp lists the pids at once and
// follows processes starting and stopping; the one-shot jdwp service agrees.
func TestTrackJDWPFollowsProcesses(t *testing.T) {
	t.Parallel()
	srv, ctx, dev, serial, pids := onDevice(t, simdevice.Options{}, "com.example.one")
	first := pids[0]
	tr, err := srv.Client.TrackJDWP(ctx, serial)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	adbtest.Next(t, ctx, tr, "the first pid", func(p []int) bool { return slices.Equal(p, []int{first}) })
	second, _ := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.two"})
	adbtest.Next(t, ctx, tr, "two pids", func(p []int) bool { return slices.Equal(p, []int{first, second}) })
	got, err := srv.Client.JDWPProcesses(ctx, serial)
	if err != nil || !slices.Equal(got, []int{first, second}) {
		t.Errorf("jdwp service: %v, %v", got, err)
	}
	dev.RemoveProcess(first)
	adbtest.Next(t, ctx, tr, "the first pid gone", func(p []int) bool { return slices.Equal(p, []int{second}) })
	dev.RemoveProcess(second)
	adbtest.Next(t, ctx, tr, "no pids", func(p []int) bool { return len(p) == 0 })

	// Unplugging ends the tracker with an error.
	dev.Close()
	select {
	case <-tr.Done():
		if tr.Err() == nil {
			t.Error("tracker ended without an error")
		}
	case <-ctx.Done():
		t.Fatal("track-jdwp did not end when the device went away")
	}
	if _, err := srv.Client.TrackJDWP(ctx, "no-such-device"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("track-jdwp of an unknown device: %v", err)
	}
}

// TestDialJDWPReachesVM: a jdwp:PID stream carries the JDWP handshake and
// DDM to the simulated VM, which says who it is; a second stream to the same
// VM is refused while the first is open, as ART does.
func TestDialJDWPReachesVM(t *testing.T) {
	t.Parallel()
	srv, ctx, dev, serial, pids := onDevice(t, simdevice.Options{}, "com.example.hello")
	pid := pids[0]

	conn, c := attachDDM(t, ctx, srv.Client, serial, pid)
	adbtest.WaitFor(t, ctx, "HELO through jdwp:PID", func() bool { id := c.Data().Identity(); return id.AppName != "" && id.PID != 0 })
	if id := c.Data().Identity(); int(id.PID) != pid || id.AppName != "com.example.hello" {
		t.Errorf("HELO through adb: %+v", id)
	}
	if _, err := srv.Client.DialJDWP(ctx, serial, pid); err == nil {
		t.Error("a second jdwp stream to a VM with a debugger was accepted")
	}
	if _, err := srv.Client.DialJDWP(ctx, serial, 99999); err == nil {
		t.Error("jdwp stream to a missing pid was accepted")
	}
	// Ending the process ends the stream.
	dev.RemoveProcess(pid)
	select {
	case <-conn.Done():
	case <-ctx.Done():
		t.Fatal("the JDWP connection outlived the process")
	}
}

// TestForwardJDWP: a forward from a free local port reaches the VM, is
// listed, and goes away when removed.
func TestForwardJDWP(t *testing.T) {
	t.Parallel()
	srv, ctx, _, serial, pids := onDevice(t, simdevice.Options{}, "com.example.fwd")
	pid := pids[0]

	port, err := srv.Client.ForwardJDWP(ctx, serial, 0, pid)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := srv.Client.Forwards(ctx)
	want := adb.ForwardRule{Serial: serial, Local: "tcp:" + strconv.Itoa(port), Remote: "jdwp:" + strconv.Itoa(pid)}
	if err != nil || !slices.Contains(rules, want) {
		t.Fatalf("forwards %+v, %v; want %+v", rules, err, want)
	}
	conn, err := jdwp.Dial(ctx, "127.0.0.1:"+strconv.Itoa(port), nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := conn.Version(ctx)
	conn.Close()
	if err != nil || !strings.Contains(v.Description, "simulated") {
		t.Errorf("Version over the forward: %+v, %v", v, err)
	}
	// A fixed port works too, and a second forward of the same port rebinds.
	fixed := adbtest.FreePort(t)
	if got, err := srv.Client.ForwardJDWP(ctx, serial, fixed, pid); err != nil || got != fixed {
		t.Errorf("forward tcp:%d: %d, %v", fixed, got, err)
	}
	if err := srv.Client.RemoveForward(ctx, serial, want.Local); err != nil {
		t.Fatal(err)
	}
	rules, _ = srv.Client.Forwards(ctx)
	if slices.Contains(rules, want) {
		t.Errorf("forward still listed after removal: %+v", rules)
	}
	if err := srv.Client.RemoveAllForwards(ctx, serial); err != nil {
		t.Fatal(err)
	}
	if rules, _ = srv.Client.Forwards(ctx); len(rules) != 0 {
		t.Errorf("forwards after remove-all: %+v", rules)
	}
	if err := srv.Client.RemoveForward(ctx, serial, "tcp:1"); err == nil {
		t.Error("removing a forward that does not exist: no error")
	}
}

// TestShellHelpers: process names, properties, am start -D of an installed
// (pushed and pm-installed) package, and am's errors.
func TestShellHelpers(t *testing.T) {
	t.Parallel()
	srv, ctx, dev, serial, pids := onDevice(t, simdevice.Options{Model: "ShellSim"}, "com.example.named")
	pid := pids[0]
	c := srv.Client

	if name, err := c.ProcessName(ctx, serial, pid); err != nil || name != "com.example.named" {
		t.Errorf("ProcessName = %q, %v", name, err)
	}
	if _, err := c.ProcessName(ctx, serial, 99999); !errors.Is(err, adb.ErrNoProcess) {
		t.Errorf("ProcessName of a missing pid: %v", err)
	}
	props, err := c.Props(ctx, serial)
	if err != nil || props["ro.product.model"] != "ShellSim" || props["ro.build.version.sdk"] == "" {
		t.Errorf("Props = %v, %v", props, err)
	}
	if out, err := c.ShellArgs(ctx, serial, "echo", "it's", "a b"); err != nil || out != "it's a b\n" {
		t.Errorf("quoted echo = %q, %v", out, err)
	}

	// Not installed: am says so.
	if _, err := c.StartActivity(ctx, serial, "com.example.app", ".Main", true); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("am start of a missing package: %v", err)
	}
	apk := filepath.Join(t.TempDir(), "com.example.app.apk")
	if err := os.WriteFile(apk, make([]byte, 150<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Install(ctx, serial, apk); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(dev.Packages(), "com.example.app") {
		t.Fatalf("installed packages %q", dev.Packages())
	}
	bad := filepath.Join(t.TempDir(), "notapackage.apk")
	os.WriteFile(bad, []byte("x"), 0o644)
	if err := c.Install(ctx, serial, bad); err == nil || !strings.Contains(err.Error(), "Failure") {
		t.Errorf("installing a bad APK: %v", err)
	}

	tr, err := c.TrackJDWP(ctx, serial)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := c.StartActivity(ctx, serial, "com.example.app", ".Main", true); err != nil {
		t.Fatal(err)
	}
	started := adbtest.Next(t, ctx, tr, "the started app", func(p []int) bool { return len(p) == 2 })[1]
	if name, _ := c.ProcessName(ctx, serial, started); name != "com.example.app" {
		t.Errorf("started process is %q", name)
	}
	// It waits for a debugger: the VM says WAIT.
	_, dc := attachDDM(t, ctx, c, serial, started)
	adbtest.WaitFor(t, ctx, "WAIT from am start -D", func() bool { return dc.Data().Debugger() == ddm.DebuggerWaiting })
	// Raw amStartArgs, and force-stop.
	if _, err := c.AmStart(ctx, serial, "-W", "-a", "android.intent.action.MAIN", "-n", "com.example.app/.Main"); err != nil {
		t.Error(err)
	}
	if _, err := c.ShellArgs(ctx, serial, "am", "force-stop", "com.example.app"); err != nil {
		t.Error(err)
	}
	adbtest.Next(t, ctx, tr, "the app stopped", func(p []int) bool { return slices.Equal(p, []int{pid}) })
}

// TestStartsServer: with no server on its port, the client starts one (adb
// -P PORT start-server), and says what to install when adb is missing.
func TestStartsServer(t *testing.T) {
	adbPath := adbtest.RequireADB(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	port := adbtest.FreePort(t)
	adbtest.KillServerAtCleanup(t, adbPath, port, home)
	ctx := testCtx(t)
	t.Setenv("ADB_SERVER_SOCKET", "")
	t.Setenv("ANDROID_ADB_SERVER_PORT", strconv.Itoa(port))

	none := &adb.Client{NoStart: true}
	if _, err := none.Version(ctx); err == nil || !strings.Contains(err.Error(), "is it running") {
		t.Fatalf("NoStart client with no server: %v", err)
	}
	missing := &adb.Client{ADB: filepath.Join(t.TempDir(), "adb")}
	if _, err := missing.Version(ctx); !errors.Is(err, adb.ErrADBNotFound) || !strings.Contains(err.Error(), "apt-get install adb") {
		t.Fatalf("client without adb: %v", err)
	}
	c := &adb.Client{} // the environment's server, started on demand
	v, err := c.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v < 31 {
		t.Errorf("version %d", v)
	}
	if err := c.KillServer(ctx); err != nil {
		t.Fatal(err)
	}
	adbtest.WaitFor(t, ctx, "the server to exit", func() bool { _, err := none.Version(ctx); return err != nil })
}

// TestTrackAllJDWP follows processes on two devices at once; unplugging one
// takes its processes out of the list in one update.
func TestTrackAllJDWP(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	ctx := testCtx(t)
	tr, err := srv.Client.TrackAllJDWP(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	a := simdevice.New(simdevice.Options{VM: quietVM, Model: "A"})
	b := simdevice.New(simdevice.Options{VM: quietVM, Model: "B", FirstPID: 2000})
	pa, _ := a.AddProcess(simdevice.ProcessOptions{Name: "com.example.a"})
	pb, _ := b.AddProcess(simdevice.ProcessOptions{Name: "com.example.b"})
	sa := srv.Connect(t, a)
	sb := srv.Connect(t, b)
	key := func(list []adb.JDWPProcess) string {
		var s []string
		for _, p := range list {
			if p.Device.Serial == sa || p.Device.Serial == sb { // the server may also find others (emulator ports)
				s = append(s, p.Device.Serial+"/"+strconv.Itoa(p.PID)+"/"+p.Device.Model)
			}
		}
		slices.Sort(s)
		return strings.Join(s, " ")
	}
	want := func(ps ...string) func([]adb.JDWPProcess) bool {
		slices.Sort(ps)
		return func(list []adb.JDWPProcess) bool { return key(list) == strings.Join(ps, " ") }
	}
	adbtest.Next(t, ctx, tr, "both devices' processes", want(sa+"/"+strconv.Itoa(pa)+"/A", sb+"/"+strconv.Itoa(pb)+"/B"))
	pb2, _ := b.AddProcess(simdevice.ProcessOptions{Name: "com.example.b2"})
	adbtest.Next(t, ctx, tr, "a new process on B", want(sa+"/"+strconv.Itoa(pa)+"/A", sb+"/"+strconv.Itoa(pb)+"/B", sb+"/"+strconv.Itoa(pb2)+"/B"))
	a.Close()
	adbtest.Next(t, ctx, tr, "A's process gone with A", want(sb+"/"+strconv.Itoa(pb)+"/B", sb+"/"+strconv.Itoa(pb2)+"/B"))
	tr.Close()
	if !errors.Is(tr.Err(), net.ErrClosed) {
		t.Errorf("Err after Close: %v", tr.Err())
	}
}

// TestWaitForProcess is the launch flow: install, note the running pids,
// am start -D, wait for the package's process.
func TestWaitForProcess(t *testing.T) {
	t.Parallel()
	t.Run("track-jdwp", func(t *testing.T) { t.Parallel(); testWaitForProcess(t, nil) })
	t.Run("track-app", func(t *testing.T) { t.Parallel(); testWaitForProcess(t, simdevice.CurrentFeatures) })
}

// testWaitForProcess: names from /proc/PID/cmdline (track-jdwp devices) or
// from track-app's app_info.
func testWaitForProcess(t *testing.T, features []string) {
	srv, ctx, _, serial, pids := onDevice(t, simdevice.Options{Packages: []string{"com.example.launch"}, Features: features}, "com.example.other")
	other := pids[0]
	before, err := srv.Client.JDWPProcesses(ctx, serial)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() {
		pid, err := srv.Client.WaitForProcess(ctx, serial, "com.example.launch", before...)
		if err != nil {
			t.Error(err)
		}
		done <- pid
	}()
	time.Sleep(100 * time.Millisecond)
	if _, err := srv.Client.StartActivity(ctx, serial, "com.example.launch", "com.example.launch.Main", true); err != nil {
		t.Fatal(err)
	}
	pid := <-done
	if pid == 0 || pid == other {
		t.Errorf("WaitForProcess = %d", pid)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := srv.Client.WaitForProcess(short, serial, "com.example.never"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting for a process that never starts: %v", err)
	}
}

// TestTrackAppThroughRealServer: Debian's adb server (v29, older than
// track-app) relays track-app to a device that announces track_app and
// app_info; TrackAllJDWP picks it from the device's features and lists
// profileable-only processes with the rest, with names, packages and the
// waiting flag. A device without the feature falls back to track-jdwp.
func TestTrackAppThroughRealServer(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	ctx := testCtx(t)
	cur := simdevice.New(simdevice.Options{VM: quietVM, Model: "Current", Features: simdevice.CurrentFeatures})
	app, _ := cur.AddProcess(simdevice.ProcessOptions{Name: "com.example.app", UserID: 10, UID: 1010123, Packages: []string{"com.example.app", "com.example.lib"}})
	wait, _ := cur.AddProcess(simdevice.ProcessOptions{Name: "com.example.wait", WaitingForDebugger: true})
	prof, _ := cur.AddProcess(simdevice.ProcessOptions{Name: "com.example.release", NotDebuggable: true, Profileable: true})
	cur.AddProcess(simdevice.ProcessOptions{Name: "com.example.hidden", NotDebuggable: true})
	old := simdevice.New(simdevice.Options{VM: quietVM, Model: "Old", FirstPID: 3000})
	oldPID, _ := old.AddProcess(simdevice.ProcessOptions{Name: "com.example.old"})
	old.AddProcess(simdevice.ProcessOptions{Name: "com.example.oldrelease", NotDebuggable: true})
	sc := srv.Connect(t, cur)
	so := srv.Connect(t, old)

	if feats, err := srv.Client.Features(ctx, sc); err != nil || !slices.Contains(feats, adb.FeatureTrackApp) || !slices.Contains(feats, adb.FeatureAppInfo) {
		t.Fatalf("device features %v, %v", feats, err)
	}
	if hf, err := srv.Client.HostFeatures(ctx); err != nil {
		var fe *adb.FailError
		if !errors.As(err, &fe) {
			t.Errorf("host-features: %v", err)
		}
		t.Logf("this server has no host:host-features (%v): track-app is still relayed", err)
	} else {
		t.Logf("server features: %v", hf)
	}

	tr, err := srv.Client.TrackAllJDWP(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var got map[int]adb.JDWPProcess
	adbtest.Next(t, ctx, tr, "both devices' processes", func(list []adb.JDWPProcess) bool {
		got = map[int]adb.JDWPProcess{}
		for _, p := range list {
			if p.Device.Serial == sc || p.Device.Serial == so {
				got[p.PID] = p
			}
		}
		return len(got) == 4
	})
	a, w, p, o := got[app], got[wait], got[prof], got[oldPID]
	switch {
	case a.App == nil || !a.App.AppInfo || a.App.ProcessName != "com.example.app" || !a.App.Debuggable || a.App.UserID != 10 || a.App.UID != 1010123 ||
		!slices.Equal(a.App.PackageNames, []string{"com.example.app", "com.example.lib"}) || a.App.Architecture != "x86_64" || a.App.WaitingForDebugger:
		t.Errorf("app: %+v %+v", a, a.App)
	case w.App == nil || !w.App.WaitingForDebugger:
		t.Errorf("waiting app: %+v", w.App)
	case p.App == nil || p.App.Debuggable || !p.App.Profileable || p.Debuggable():
		t.Errorf("profileable app: %+v", p.App)
	case o.App != nil || !o.Debuggable() || o.Device.Model != "Old":
		t.Errorf("old device's process (track-jdwp): %+v", o)
	}
}
