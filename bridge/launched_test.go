package bridge

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/demoapp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestAdoptLaunched: a JVM whose agent connects out (server=n, as a DAP
// launch starts it) is handed to the monitor over the accepted connection:
// it is listed, waiting (suspend=y), with its pid and main class, its threads
// are read over JDWP, MonitoredID names it, StopApp refuses it in words (no
// adb device), and it leaves the list when the process ends.
func TestAdoptLaunched(t *testing.T) {
	jvmtest.RequireJava(t)
	m := startMonitor(t, testOptions(t, 0, 0))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- c
		}
	}()
	vm, err := demoapp.Start(t.Context(), jvmtest.Options{AttachToDebugger: true, Address: ln.Addr().String(), Suspend: true})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	var nc net.Conn
	select {
	case nc = <-accepted:
	case <-time.After(time.Minute):
		t.Fatal("the launched JVM never connected")
	}
	id, err := m.AdoptLaunched(t.Context(), nc, vm.Pid, true)
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.VM(id)
	if err != nil {
		t.Fatal(err)
	}
	if info := v.Info(); info.PID != vm.Pid || info.Name != demoapp.MainClass || !info.Waiting || info.DDM || info.Simulated || info.Address != nc.RemoteAddr().String() {
		t.Errorf("the launched VM: %+v (pid %d)", info, vm.Pid)
	}
	if got := m.MonitoredID(id); got != id {
		t.Errorf("MonitoredID(%q) = %q", id, got)
	}
	if got := m.MonitoredID("no-such-vm"); got != "" {
		t.Errorf("MonitoredID of nothing = %q", got)
	}
	ts, err := v.Threads(t.Context())
	if err != nil || len(ts) == 0 {
		t.Errorf("threads of the launched VM: %v %v", ts, err)
	}
	if err := m.StopApp(t.Context(), id, "com.example.app"); err == nil || !strings.Contains(err.Error(), "not on an adb device") {
		t.Errorf("StopApp on a workstation JVM: %v", err)
	}
	vm.Close()
	waitFor(t, 10*time.Second, "the launched VM to leave the list", func() bool {
		_, err := m.VM(id)
		return err != nil
	})
}

func TestValidPackage(t *testing.T) {
	for pkg, want := range map[string]bool{
		"com.example.app": true, "com.example.app:remote": true, "a_b.C9": true,
		"": false, "com.example; reboot": false, "a b": false, "$(id)": false, strings.Repeat("a", 256): false,
	} {
		if got := validPackage(pkg); got != want {
			t.Errorf("validPackage(%q) = %v, want %v", pkg, got, want)
		}
	}
}
