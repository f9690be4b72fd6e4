package bridge

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// TestNoVMEventAfterRemoved: once a VM's vms/removed is queued, nothing more
// of it is: what the VM's debugger sessions and DDM model announce on their
// way out (they end after the connection is lost) would put the dead VM back
// into a client's list, since a client applies vms/changed by id (the
// extension's explorer kept a force-stopped app's row that way). A device
// event queued after the late announcements marks the end of what the
// client gets.
func TestNoVMEventAfterRemoved(t *testing.T) {
	t.Parallel()
	m := startMonitor(t, testOptions(t, 0, 0))
	events, cancel := m.Subscribe()
	defer cancel()
	sv, err := simvm.New(simvm.Options{AppName: "com.example.late", Tick: time.Hour, GCInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer sv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go sv.Serve(ln)
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.Connect(t.Context(), nc, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	m.remove(v, "test")
	// The late announcements: a debugger's leaving, a model change, a
	// watcher turned on.
	m.notify(EventChanged, v)
	m.notify(EventThreads, v)
	v.SetThreadUpdates(true)
	m.notify(EventAdded, v)
	m.notifyDevice(EventDeviceAdded, DeviceInfo{Serial: "sentinel"})

	var kinds []string
	deadline := time.After(time.Minute)
	for {
		select {
		case e := <-events:
			if e.Kind == EventDeviceAdded && e.Device.Serial == "sentinel" {
				if got := strings.Join(kinds, " "); !strings.HasPrefix(got, string(EventAdded)) || !strings.HasSuffix(got, string(EventRemoved)) ||
					strings.Count(got, string(EventRemoved)) != 1 || strings.Count(got, string(EventAdded)) != 1 {
					t.Fatalf("the VM's events: %s; want vms/added first and nothing after vms/removed", got)
				}
				return
			}
			if e.VM.ID == v.id {
				kinds = append(kinds, string(e.Kind))
			}
		case <-deadline:
			t.Fatalf("no sentinel within a minute; the VM's events: %v", kinds)
		}
	}
}
