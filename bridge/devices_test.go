package bridge

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

var quietVM = bridgetest.QuietVM

// newDevice returns a simulated device running the named processes, and
// their pids.
func newDevice(t testing.TB, opt simdevice.Options, names ...string) (*simdevice.Device, []int) {
	t.Helper()
	return bridgetest.NewDevice(t, opt, names...)
}

// deviceOptions are test options that follow the adb server at addr and
// scan nothing.
func deviceOptions(t testing.TB, addr string) Options {
	o := testOptions(t, 0, 0)
	o.ADB = &adb.Client{Addr: addr, NoStart: true, Logger: testLogger(t)}
	o.ADBRetry = time.Second
	return o
}

// deviceVMs returns the monitored VMs on the device with serial.
func deviceVMs(m *Monitor, serial string) []VMInfo {
	var out []VMInfo
	for _, v := range m.VMs() {
		if v.Serial == serial {
			out = append(out, v)
		}
	}
	return out
}

// waitDeviceVMs waits until the VMs on serial are exactly the processes in
// want (pid → name), each named, and returns them by pid.
func waitDeviceVMs(t testing.TB, m *Monitor, serial string, want map[int]string) map[int]VMInfo {
	t.Helper()
	onDevice := func() []VMInfo { return deviceVMs(m, serial) }
	pidName := func(v VMInfo) (int, string) { return v.PID, v.Name }
	return bridgetest.WaitNamed(t, 10*time.Second, fmt.Sprintf("VMs %v on %s", want, serial), onDevice, pidName, want)
}

// TestUnplugDevice: of two devices, the one unplugged (its simulator closed)
// takes its VMs with it — listeners, connections and goroutines — while the
// other's VMs stay.
func TestUnplugDevice(t *testing.T) {
	srv := adbtest.StartServer(t)
	m := startMonitor(t, deviceOptions(t, srv.Client.Addr))
	stay, stayPIDs := newDevice(t, simdevice.Options{Model: "Stays"}, "com.example.stays")
	staySerial := srv.Connect(t, stay)
	waitDeviceVMs(t, m, staySerial, map[int]string{stayPIDs[0]: "com.example.stays"})
	time.Sleep(300 * time.Millisecond) // lazily started goroutines
	g0, f0 := runtime.NumGoroutine(), openFDs()

	gone, gonePIDs := newDevice(t, simdevice.Options{Model: "Unplugged"}, "com.example.a", "com.example.b")
	goneSerial := srv.Connect(t, gone)
	vms := waitDeviceVMs(t, m, goneSerial, map[int]string{gonePIDs[0]: "com.example.a", gonePIDs[1]: "com.example.b"})
	if len(m.VMs()) != 3 || len(m.Devices()) != 2 {
		t.Fatalf("two devices: VMs %+v, devices %+v", m.VMs(), m.Devices())
	}

	unplugged := time.Now()
	gone.Close()
	waitDeviceVMs(t, m, goneSerial, map[int]string{})
	t.Logf("device unplugged → its 2 VMs removed: %v", time.Since(unplugged).Round(time.Millisecond))
	// The list drops the VMs as track-jdwp ends; each VM's connection and
	// debugger port close as its stream does, a moment later.
	for _, v := range vms {
		waitFor(t, 5*time.Second, fmt.Sprintf("debugger port %d of the unplugged VM %s to close", v.DebugPort, v.Address), func() bool {
			nc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", v.DebugPort), time.Second)
			if err != nil {
				return true
			}
			nc.Close()
			return false
		})
	}
	waitFor(t, 10*time.Second, "the unplugged device to go offline or away", func() bool {
		for _, d := range m.Devices() {
			if d.Serial == goneSerial && d.Online {
				return false
			}
		}
		return true
	})
	if vs := deviceVMs(m, staySerial); len(vs) != 1 || vs[0].Name != "com.example.stays" {
		t.Errorf("the other device's VMs after the unplug: %+v", vs)
	}
	var g1, f1 int
	waitFor(t, 5*time.Second, "goroutines and fds back to the one-device baseline", func() bool {
		g1, f1 = runtime.NumGoroutine(), openFDs()
		return g1 <= g0+2 && f1 <= f0+2
	})
	t.Logf("goroutines %d → %d, open fds %d → %d after plugging and unplugging a device with 2 VMs", g0, g1, f0, f1)
}

// TestJDBToDeviceVM debugs a device process backed by a real HotSpot (behind
// the simulated device's ART front) with jdb, first through the current-VM
// port, then through the VM's own port: both sessions go the same way, and
// the app runs on, monitored by the same connection.
func TestJDBToDeviceVM(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	jvm := startDemo(t, 0, false)
	dev := simdevice.New(simdevice.Options{VM: quietVM})
	pid, err := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.hotspot", JVM: jvm.Addr})
	if err != nil {
		t.Fatal(err)
	}
	serial := srv.Connect(t, dev)
	m := startMonitor(t, deviceOptions(t, srv.Client.Addr))
	info := waitDeviceVMs(t, m, serial, map[int]string{pid: "com.example.hotspot"})[pid]

	viaCurrent := stopInSession(t, startJDB(t, m.CurrentAddr()))
	waitFor(t, 10*time.Second, "the debugger to be gone", func() bool {
		return !waitDeviceVMs(t, m, serial, map[int]string{pid: "com.example.hotspot"})[pid].Debugger
	})
	viaPort := stopInSession(t, startJDB(t, fmt.Sprintf("127.0.0.1:%d", info.DebugPort)))
	if t.Failed() {
		return
	}
	if !slices.Equal(viaCurrent, viaPort) {
		t.Errorf("jdb through the current-VM port and the VM's port differ:\n--- current ---\n%s\n--- port ---\n%s",
			strings.Join(viaCurrent, "\n"), strings.Join(viaPort, "\n"))
	}
	t.Logf("transcript:\n%s", strings.Join(viaPort, "\n"))
	waitTicking(t, jvm, 5*time.Second)
	if after := waitDeviceVMs(t, m, serial, map[int]string{pid: "com.example.hotspot"})[pid]; after.ID != info.ID {
		t.Errorf("the VM was reconnected during the sessions: %s → %s", info.ID, after.ID)
	}
}

// stopInSession runs a stop in / where / locals / cont / where / clear /
// cont / quit session on DemoApp, which calls work() every 50 ms. The
// breakpoint is hit without a cont, and jdb prints the hit from its event
// thread while its command thread answers, the two interleaved: each step
// waits for jdb's prompt after all its expected pieces, in any order. It
// returns the pieces, normalized.
func stopInSession(t testing.TB, j *jdb) []string {
	t.Helper()
	var out []string
	hit := []string{`Breakpoint hit: `, `"thread=main", DemoApp\.work\(\), line=\d+ bci=0`}
	step := func(cmd string, wants ...string) {
		t.Helper()
		j.send(cmd)
		deadline := time.Now().Add(20 * time.Second)
		got := ""
		for {
			got += j.expect(`main\[1\] $`, time.Until(deadline))
			all := true
			for _, w := range wants {
				all = all && regexp.MustCompile(w).MatchString(got)
			}
			if all {
				break
			}
		}
		for _, w := range wants {
			out = append(out, cmd+" => "+normalizeJDB(regexp.MustCompile(w).FindString(got)))
		}
	}
	j.expect(`Initializing jdb \.\.\.\s*`+jdbPrompt, 20*time.Second)
	step("stop in DemoApp.work", append([]string{`Set breakpoint DemoApp\.work`}, hit...)...)
	step("where", `\[1\] DemoApp\.work \(DemoApp\.java:\d+\)\s+\[2\] DemoApp\.main \(DemoApp\.java:\d+\)`)
	step("locals", `Method arguments:\s+n = \d+\s+Local variables:`)
	step("cont", hit...)
	step("where", `\[2\] DemoApp\.main \(DemoApp\.java:\d+\)`)
	step("clear DemoApp.work", `Removed: breakpoint DemoApp\.work`)
	j.send("cont")
	j.expect(`> $`, 10*time.Second)
	j.send("quit")
	select {
	case <-j.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("jdb did not quit")
	}
	return out
}

// TestADBServerStartedAndRestarted: with no adb server running, the
// monitor starts one; when it dies, the device VMs go, and the monitor
// starts it again and follows the device once it is reconnected.
func TestADBServerStartedAndRestarted(t *testing.T) {
	adbPath := adbtest.RequireADB(t)
	home := t.TempDir()
	t.Setenv("HOME", home) // the server's ~/.android
	port := adbtest.FreePort(t)
	adbtest.KillServerAtCleanup(t, adbPath, port, home)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	srv := &adbtest.Server{ADB: adbPath, Port: port, Home: home, Client: &adb.Client{Addr: addr, NoStart: true}}
	o := deviceOptions(t, addr)
	o.ADB = &adb.Client{Addr: addr, ADB: adbPath, Logger: testLogger(t)}
	o.ADBRetry = 500 * time.Millisecond
	m := startMonitor(t, o)
	connected := func() bool { st, _ := m.ADBStatus(); return st.Connected }
	waitFor(t, 10*time.Second, "the monitor to start the adb server", connected)

	dev, pids := newDevice(t, simdevice.Options{}, "com.example.restart")
	serial := srv.Connect(t, dev)
	first := waitDeviceVMs(t, m, serial, map[int]string{pids[0]: "com.example.restart"})[pids[0]]

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := srv.Client.KillServer(ctx); err != nil {
		t.Fatal(err)
	}
	waitDeviceVMs(t, m, serial, map[int]string{})
	waitFor(t, 10*time.Second, "the monitor to restart the adb server", func() bool {
		_, err := srv.Client.Version(ctx)
		return err == nil && connected() && len(m.Devices()) == 0
	})
	if _, err := srv.Client.Connect(ctx, serial); err != nil {
		t.Fatal(err)
	}
	again := waitDeviceVMs(t, m, serial, map[int]string{pids[0]: "com.example.restart"})[pids[0]]
	if again.ID == first.ID {
		t.Errorf("the VM kept its id %s across the server restart", first.ID)
	}
}

// TestNoADB: without adb (none installed, none running) the monitor warns
// once, keeps retrying quietly, and still monitors workstation VMs.
func TestNoADB(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	startSimVM(t, lo, "", simvm.ProfileART)
	var warnings, retries atomic.Int32
	o := testOptions(t, lo, 1)
	o.Logger = o.Logger.Level(zerolog.DebugLevel).Hook(zerolog.HookFunc(func(_ *zerolog.Event, level zerolog.Level, msg string) {
		switch {
		case level == zerolog.WarnLevel:
			warnings.Add(1)
			if !strings.Contains(msg, "Android devices are not monitored") {
				t.Errorf("unexpected warning: %s", msg)
			}
		case msg == "adb server still unavailable":
			retries.Add(1)
		}
	}))
	o.ADB = &adb.Client{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(adbtest.FreePort(t))), ADB: filepath.Join(t.TempDir(), "adb")}
	o.ADBRetry = 50 * time.Millisecond
	m := startMonitor(t, o)
	waitVM(t, m, fmt.Sprintf("127.0.0.1:%d", lo), 5*time.Second)
	waitFor(t, 5*time.Second, "several attempts", func() bool { return retries.Load() >= 3 })
	if n := warnings.Load(); n != 1 {
		t.Errorf("want one warning about the missing adb, got %d", n)
	}
	if st, ok := m.ADBStatus(); !ok || st.Connected || !strings.Contains(st.Error, "apt-get install adb") {
		t.Errorf("ADB status = %+v", st)
	}
}

// TestDdmlibSeesSameDevice: Debian's ddmlib, through the same adb server,
// sees the device and the pids and app names the monitor then lists. (A VM
// takes one JDWP stream at a time, so ddmlib looks first and lets go.)
func TestDdmlibSeesSameDevice(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	dev, pids := newDevice(t, simdevice.Options{Model: "Interop"}, "com.example.one", "com.example.two")
	serial := srv.Connect(t, dev)
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
	defer cancel()

	out := srv.RunDeviceProbe(t, ctx, filepath.Join("adb", "testdata", "ddmlib", "DeviceProbe.java"), serial, 2)
	var seen []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "device=") || strings.HasPrefix(line, "client=") {
			seen = append(seen, line)
		}
	}

	m := startMonitor(t, deviceOptions(t, srv.Client.Addr))
	vms := waitDeviceVMs(t, m, serial, map[int]string{pids[0]: "com.example.one", pids[1]: "com.example.two"})
	waitFor(t, 5*time.Second, "the device in the monitor's list", func() bool { return len(m.Devices()) == 1 })
	d := m.Devices()[0]
	want := []string{fmt.Sprintf("device=%s ONLINE %s", d.Serial, d.Model)}
	for _, v := range vms {
		want = append(want, fmt.Sprintf("client=%s %d %s", v.Serial, v.PID, v.Name))
	}
	slices.Sort(want)
	if !slices.Equal(seen, want) {
		t.Errorf("ddmlib saw:\n%s\nthe monitor lists:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}
