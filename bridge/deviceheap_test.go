package bridge

import (
	"context"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// TestHeapFromDumpOnCurrentDevice: a current device (API 34) through
// Debian's real adb server. The monitor learns from the device's API level
// that the VM has no heap chunks, sends it none, and draws the heap views
// from `am dumpheap` dumps (the simulated device writes the app's heap as
// Android's HPROF): a first dump for the watchers, the statistics and the
// address map with the dump's time, a new dump after a GC the user asks for.
// A device of the ART profile (API 30) keeps its HPIF reports.
func TestHeapFromDumpOnCurrentDevice(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	vmo := quietVM
	vmo.Profile = simvm.ProfileCurrent
	dev := simdevice.New(simdevice.Options{VM: vmo, Model: "Pixel_Sim", Features: simdevice.CurrentFeatures})
	app, _ := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.heap"})
	old := simdevice.New(simdevice.Options{VM: quietVM, Model: "Old_Sim"})
	oldApp, _ := old.AddProcess(simdevice.ProcessOptions{Name: "com.example.old"})

	m := startMonitor(t, deviceOptions(t, srv.Client.Addr))
	events, cancel := m.Subscribe()
	defer cancel()
	serial := srv.Connect(t, dev)
	oldSerial := srv.Connect(t, old)
	addr, oldAddr := DeviceAddr(serial, app), DeviceAddr(oldSerial, oldApp)
	waitFor(t, 60*time.Second, "both apps monitored over DDM", func() bool {
		a, _ := entry(m, addr)
		b, _ := entry(m, oldAddr)
		return a.DDM && !a.Listed && b.DDM && !b.Listed
	})
	v, err := m.VM(addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancelCtx := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancelCtx()

	// Watching: no HPIF/HPSG to turn on; a first dump is published.
	if err := v.SetHeapUpdates(true); err != nil {
		t.Fatal(err)
	}
	sawHeap := false
	deadline := time.After(90 * time.Second)
	for !sawHeap {
		select {
		case e := <-events:
			sawHeap = e.Kind == EventHeapMap && e.VM.ID == v.ID()
		case <-deadline:
			t.Fatal("no heap map from a first dump")
		}
	}
	info, hm := v.DumpHeapJSON()
	if len(info.Heaps) != 1 || info.Heaps[0].AllocatedObjects == 0 || info.Source != "dump" || info.DumpedAt == "" || info.Note == "" {
		t.Errorf("heap info from the first dump: %+v", info)
	}
	if len(hm) != 1 || len(hm[0].Pieces) == 0 || hm[0].Totals.Bytes == 0 || hm[0].Source != "dump" {
		t.Errorf("heap map from the first dump: %+v", hm)
	}
	first := v.HeapDumpedAt()

	// A GC the user asks for: HPGC (not waited for: no reply comes), then a new dump.
	if err := v.GC(ctx); err != nil {
		t.Fatalf("GC: %v", err)
	}
	if !v.HeapDumpedAt().After(first) && v.HeapDumpedAt() != first {
		t.Errorf("dump time went back: %v, then %v", first, v.HeapDumpedAt())
	}
	stats, err := v.HeapInfo(ctx)
	if err != nil || len(stats) != 1 || stats[1].AllocatedBytes == 0 {
		t.Fatalf("HeapInfo: %v, %+v", err, stats)
	}
	hmap, err := v.HeapMap(ctx, true)
	if err != nil || len(hmap.Pieces) == 0 {
		t.Fatalf("HeapMap: %v, %+v", err, hmap)
	}
	var buf countingBuffer
	if n, err := v.DumpTo(ctx, true, &buf); err != nil || n == 0 || buf.n != n {
		t.Fatalf("DumpTo: %d bytes, %v", n, err)
	}

	sim := dev.VM(app)
	for _, typ := range []ddm.Type{ddm.HPIF, ddm.HPSG, ddm.NHSG, ddm.HPDU, ddm.HPDS, ddm.REAE, ddm.REAQ, ddm.REAL} {
		if n := sim.ChunksReceived(typ); n != 0 {
			t.Errorf("the current VM was sent %d %s chunks, which it does not serve", n, typ)
		}
	}
	if sim.ChunksReceived(ddm.HPGC) == 0 {
		t.Error("the GC asked for sent no HPGC")
	}
	if n := sim.NonDDMPackets(); n != 0 {
		t.Errorf("%d non-DDM packets: the heap views woke the JDWP agent", n)
	}

	// The older device keeps its DDM heap reports.
	ov, err := m.VM(oldAddr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ov.HeapInfo(ctx); err != nil {
		t.Fatalf("HeapInfo of the API 30 VM: %v", err)
	}
	if ov.DumpSource().Source != "" || old.VM(oldApp).ChunksReceived(ddm.HPIF) == 0 {
		t.Errorf("the API 30 VM's heap: %+v, %d HPIF", ov.DumpSource(), old.VM(oldApp).ChunksReceived(ddm.HPIF))
	}
}

// countingBuffer counts what is written to it and keeps nothing.
type countingBuffer struct{ n int64 }

func (c *countingBuffer) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
