package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
)

// The control API over a monitor of real VMs and devices.

// TestRPCJVMsList: jvms/list names a local JVM with the address its JDWP
// agent listens at, for the extension's process picker.
func TestRPCJVMsList(t *testing.T) {
	jvmtest.RequireJava(t)
	vm := startIdle(t, "")
	m := startMonitor(t, testOptions(t, 0, 0))
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	c, err := DialRPC(t.Context(), addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var ps []localjvm.Process
	if err := c.Call(t.Context(), "jvms/list", nil, &ps); err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Main == "Idle" && p.Address == vm.Addr {
			return
		}
	}
	t.Errorf("jvms/list lacks Idle at %s: %+v", vm.Addr, ps)
}

// A selection by address sticks; by a shared name it is refused as
// ambiguous; vms/select {"auto": true} makes the oldest VM current again.
func TestSelectByNameAddressAndAuto(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 2)
	first := startDemo(t, lo, false)
	m := startMonitor(t, testOptions(t, lo, 2))
	older := waitVM(t, m, first.Addr, passDeadline)
	second := startDemo(t, lo+1, false)
	younger := waitVM(t, m, second.Addr, passDeadline)
	c, err := DialRPC(t.Context(), startRPC(t, m, ServerOptions{Logger: testLogger(t)}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	current := func() string {
		for _, v := range m.VMs() {
			if v.Current {
				return v.ID
			}
		}
		return ""
	}
	if got := current(); got != older.ID {
		t.Fatalf("automatic current VM %q, want the oldest %q", got, older.ID)
	}
	if _, err := c.Select(t.Context(), "DemoApp"); rpcCode(err) != CodeNoSuchVM {
		t.Errorf("select by a name two VMs share: %v, want a no-such-VM error naming the ids", err)
	}
	v, err := c.Select(t.Context(), second.Addr)
	if err != nil || v.ID != younger.ID || current() != younger.ID {
		t.Fatalf("select by address: %+v %v; current %q", v, err, current())
	}
	auto, err := c.SelectAuto(t.Context())
	if err != nil || auto == nil || auto.ID != older.ID || current() != older.ID {
		t.Fatalf("select --auto: %+v %v; current %q, want %q", auto, err, current(), older.ID)
	}
	// With one VM of that name left, the name selects it.
	first.Close()
	waitGone(t, m, first.Addr, passDeadline)
	if v, err := c.Select(t.Context(), "DemoApp"); err != nil || v.ID != younger.ID {
		t.Errorf("select by name: %+v %v, want VM %s", v, err, younger.ID)
	}
}

// TestDevicePluggedInWhileMonitorRuns is the seed's third scenario on a
// device: the monitor runs first, then a device is plugged in; its VMs join
// the list with their app names, serial and pid, follow processes starting
// and stopping, send DDM data, and the control API lists the device.
func TestDevicePluggedInWhileMonitorRuns(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	m := startMonitor(t, deviceOptions(t, srv.Client.Addr))
	rpcAddr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	var notes []string
	c, err := DialRPC(ctx, rpcAddr, func(method string, params json.RawMessage) {
		mu.Lock()
		notes = append(notes, method+" "+string(params))
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	waitFor(t, 5*time.Second, "the monitor to follow the adb server", func() bool {
		var st MonitorStatus
		return c.Call(ctx, "monitor/status", nil, &st) == nil && st.ADB != nil && st.ADB.Connected && st.ADB.Version >= 31
	})

	dev, pids := newDevice(t, simdevice.Options{Model: "Plugged", VM: simvm.Options{Tick: 50 * time.Millisecond, GCInterval: 200 * time.Millisecond}},
		"com.example.first", "com.example.second")
	serial := srv.Connect(t, dev)
	online := time.Now()
	vms := waitDeviceVMs(t, m, serial, map[int]string{pids[0]: "com.example.first", pids[1]: "com.example.second"})
	t.Logf("device online → its 2 VMs listed with names: %v", time.Since(online).Round(time.Millisecond))
	for _, pid := range pids {
		v := vms[pid]
		if v.Address != serial+"/"+strconv.Itoa(pid) || v.Device != "Plugged" || !v.DDM || v.DebugPort == 0 || v.Protocol != "ddm" {
			t.Errorf("device VM %d: %+v", pid, v)
		}
	}

	// The control API: devices/list, and the VM objects' keys.
	devs, err := c.Devices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 1 || devs[0].Serial != serial || !devs[0].Online || devs[0].State != "device" || devs[0].Model != "Plugged" || devs[0].TransportID == 0 {
		t.Errorf("devices/list = %+v", devs)
	}
	var raw []map[string]any
	if err := c.Call(ctx, "vms/list", nil, &raw); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"id", "address", "pid", "name", "vm", "ddm", "waiting", "debugger", "debugPort", "serial", "device"} {
		if len(raw) != 2 || raw[0][key] == nil {
			t.Errorf("vms/list entry lacks %q: %v", key, raw)
		}
	}

	// DDM data flows from the simulated ART process, by address too.
	v, err := m.VM(bridge.DeviceAddr(serial, pids[0]))
	if err != nil {
		t.Fatal(err)
	}
	if th, err := c.Threads(ctx, v.ID()); err != nil || len(th.Threads) == 0 {
		t.Errorf("vm/threads of a device VM: %+v, %v", th, err)
	}
	if hi, err := c.HeapInfo(ctx, v.ID()); err != nil || len(hi.Heaps) == 0 || hi.Heaps[0].MaxBytes == 0 {
		t.Errorf("vm/heapInfo of a device VM: %+v, %v", hi, err)
	}

	// Processes come and go while the device stays.
	// (as `am start -D` does it: the new process waits for a debugger)
	third, err := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.third", WaitingForDebugger: true})
	if err != nil {
		t.Fatal(err)
	}
	waitDeviceVMs(t, m, serial, map[int]string{pids[0]: "com.example.first", pids[1]: "com.example.second", third: "com.example.third"})
	waitFor(t, 5*time.Second, "the new VM to wait for a debugger", func() bool {
		v, err := m.VM(bridge.DeviceAddr(serial, third))
		return err == nil && v.Info().Waiting
	})
	if err := dev.RemoveProcess(pids[0]); err != nil {
		t.Fatal(err)
	}
	waitDeviceVMs(t, m, serial, map[int]string{pids[1]: "com.example.second", third: "com.example.third"})
	select {
	case <-v.Done():
	case <-time.After(5 * time.Second):
		t.Error("the removed process's VM is not closed")
	}

	notified := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(notes, "\n")
	}
	deadline := time.Now().Add(5 * time.Second)
	addedDevice := regexp.MustCompile(`(?m)^devices/added \{.*"serial":"` + regexp.QuoteMeta(serial) + `"`)
	for all := notified(); !addedDevice.MatchString(all) ||
		strings.Count(all, "vms/added ") != 3 || strings.Count(all, "vms/removed ") != 1; all = notified() {
		if time.Now().After(deadline) {
			t.Fatalf("want devices/added, 3 vms/added and 1 vms/removed; notifications:\n%s", all)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDumpHeapRPC(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 2)
	startSimOnly(t, lo)
	hot := startDemo(t, lo+1, false)
	m := startMonitor(t, testOptions(t, lo, 2))
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	sim := waitVM(t, m, fmt.Sprintf("127.0.0.1:%d", lo), 5*time.Second)
	plain := waitVM(t, m, hot.Addr, 5*time.Second)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c, err := DialRPC(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// Without a path: the data comes back in base64.
	from := time.Now()
	d, err := c.DumpHeap(ctx, sim.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != sim.ID || d.Path != "" {
		t.Errorf("vm/dumpHeap = %+v", d)
	}
	b, err := d.Decode()
	if err != nil {
		t.Fatal(err)
	}
	bridgetest.CheckSimHprof(t, b, from, time.Now())

	// With a path: the server writes the file.
	file := filepath.Join(t.TempDir(), "sim.hprof")
	d, err = c.DumpHeap(ctx, sim.ID, file)
	if err != nil {
		t.Fatal(err)
	}
	if d.Path != file || d.Data != "" {
		t.Errorf("vm/dumpHeap with a path = %+v", d)
	}
	b, err = os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != d.Bytes {
		t.Errorf("file has %d bytes, result says %d", len(b), d.Bytes)
	}
	bridgetest.CheckSimHprof(t, b, from, time.Now())

	// Bad paths are rejected before dumping.
	for _, p := range []string{"relative.hprof", filepath.Join(t.TempDir(), "no", "such", "dir.hprof")} {
		if _, err := c.DumpHeap(ctx, sim.ID, p); rpcCode(err) != CodeInvalidParams {
			t.Errorf("vm/dumpHeap path %q: %v, want code %d", p, err, CodeInvalidParams)
		}
	}

	// A plain HotSpot VM on this host dumps through its attach mechanism:
	// live objects by default, everything with all.
	d, err = c.DumpHeap(ctx, plain.ID, "")
	if err != nil {
		t.Fatalf("vm/dumpHeap on HotSpot: %v", err)
	}
	b, err = d.Decode()
	if err != nil {
		t.Fatal(err)
	}
	live := bridgetest.CheckHotSpotHprof(t, b)
	file = filepath.Join(t.TempDir(), "hotspot.hprof")
	if d, err = c.DumpHeapAll(ctx, plain.ID, file, true); err != nil {
		t.Fatalf("vm/dumpHeap all on HotSpot: %v", err)
	}
	if b, err = os.ReadFile(file); err != nil || len(b) != d.Bytes {
		t.Fatalf("hotspot.hprof: %d bytes (result %d), %v", len(b), d.Bytes, err)
	}
	if all := bridgetest.CheckHotSpotHprof(t, b); all.NumObjects() < live.NumObjects()/2 {
		t.Errorf("dump with all: %d objects, live dump %d", all.NumObjects(), live.NumObjects())
	}
	if _, err := c.DumpHeap(ctx, "nope", ""); rpcCode(err) != CodeNoSuchVM {
		t.Errorf("vm/dumpHeap of an unknown VM: %v", err)
	}
}
