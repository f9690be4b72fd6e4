package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// checkSimHprof checks a dump against what ddm/simvm streams: a complete
// Android HPROF file ("JAVA PROFILE 1.0.3", 4-byte ids, an "app" heap) of its
// simulated heap, taken between from and to.
func checkSimHprof(t *testing.T, b []byte, from, to time.Time) {
	t.Helper()
	h, err := hprof.Parse(bytes.NewReader(b), hprof.Options{})
	if err != nil {
		t.Fatalf("heap dump of %d bytes: %v", len(b), err)
	}
	if h.Format != "JAVA PROFILE 1.0.3" || h.IDSize != 4 || !h.Android || h.NumObjects() < 10 {
		t.Errorf("heap dump: %s, %d-byte ids, Android %v, %d objects", h.Format, h.IDSize, h.Android, h.NumObjects())
	}
	if ms := h.Timestamp.UnixMilli(); ms < from.UnixMilli() || ms > to.UnixMilli() {
		t.Errorf("hprof timestamp %d outside %d..%d", ms, from.UnixMilli(), to.UnixMilli())
	}
}

// checkHotSpotHprof parses a HotSpot dump and checks it holds the running
// program's heap.
func checkHotSpotHprof(t *testing.T, b []byte) *hprof.Heap {
	t.Helper()
	h, err := hprof.Parse(bytes.NewReader(b), hprof.Options{})
	if err != nil {
		t.Fatalf("heap dump of %d bytes: %v", len(b), err)
	}
	var strs int64
	for _, c := range h.Histogram() {
		if c.Class == "java.lang.String" {
			strs = c.Instances
		}
	}
	if h.Format != "JAVA PROFILE 1.0.2" || h.IDSize != 8 || strs < 1000 {
		t.Errorf("heap dump: %s, %d-byte ids, %d Strings: want a HotSpot dump of a running program", h.Format, h.IDSize, strs)
	}
	return h
}

// startSimOnly serves a simulated DDM VM (no JVM behind it) on 127.0.0.1:port.
func startSimOnly(t *testing.T, port int) {
	t.Helper()
	serveSim(t, port, simvm.Options{AppName: "com.example.dump", Tick: 50 * time.Millisecond})
}

func TestDumpHeap(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	startSimOnly(t, lo)
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, fmt.Sprintf("127.0.0.1:%d", lo), 5*time.Second)
	v, err := m.VM(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	from := time.Now()
	b, err := v.DumpHeap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkSimHprof(t, b, from, time.Now())

	// Concurrent dumps are serialised and each gets a dump of its own.
	var wg sync.WaitGroup
	dumps := make([][]byte, 3)
	errs := make([]error, 3)
	for i := range dumps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dumps[i], errs[i] = v.DumpHeap(ctx)
		}()
	}
	wg.Wait()
	for i := range dumps {
		if errs[i] != nil {
			t.Fatalf("dump %d: %v", i, errs[i])
		}
		checkSimHprof(t, dumps[i], from, time.Now())
		for j := range i {
			if &dumps[i][0] == &dumps[j][0] {
				t.Errorf("dumps %d and %d are the same chunk", j, i)
			}
		}
	}

	// A context that ends first bounds the wait.
	done, stop := context.WithCancel(ctx)
	stop()
	if _, err := v.DumpHeap(done); !errors.Is(err, context.Canceled) {
		t.Errorf("DumpHeap with a cancelled context: %v", err)
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
	checkSimHprof(t, b, from, time.Now())

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
	checkSimHprof(t, b, from, time.Now())

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
	live := checkHotSpotHprof(t, b)
	file = filepath.Join(t.TempDir(), "hotspot.hprof")
	if d, err = c.DumpHeapAll(ctx, plain.ID, file, true); err != nil {
		t.Fatalf("vm/dumpHeap all on HotSpot: %v", err)
	}
	if b, err = os.ReadFile(file); err != nil || len(b) != d.Bytes {
		t.Fatalf("hotspot.hprof: %d bytes (result %d), %v", len(b), d.Bytes, err)
	}
	if all := checkHotSpotHprof(t, b); all.NumObjects() < live.NumObjects()/2 {
		t.Errorf("dump with all: %d objects, live dump %d", all.NumObjects(), live.NumObjects())
	}
	if _, err := c.DumpHeap(ctx, "nope", ""); rpcCode(err) != CodeNoSuchVM {
		t.Errorf("vm/dumpHeap of an unknown VM: %v", err)
	}
}

// TestDumpHeapWithAmDumpheap: a device VM that cannot stream its dump over
// DDM (no hprof-heap-dump-streaming, HPDS refused) is dumped through the
// real adb server instead: `am dumpheap PID FILE`, the file pulled over the
// sync protocol and removed from the device.
func TestDumpHeapWithAmDumpheap(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	vmo := quietVM
	vmo.NoHprofStreaming = true
	dev, pids := newDevice(t, simdevice.Options{VM: vmo, Model: "NoStream"}, "com.example.nostream")
	m := startMonitor(t, deviceOptions(t, srv.Client.Addr))
	serial := srv.Connect(t, dev)
	var v *VM
	waitFor(t, time.Minute, "the device's DDM VM", func() bool {
		var err error
		v, err = m.VM(DeviceAddr(serial, pids[0]))
		return err == nil && v.dc != nil && len(v.dc.Data().Identity().Features) > 0
	})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	from := time.Now()
	b, err := v.DumpHeap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkSimHprof(t, b, from, time.Now())
	if files := dev.Files(); len(files) != 0 {
		t.Errorf("the dump was left on the device: %v", files)
	}
	// DumpTo pulls the file straight into a writer (vm/dumpHeap's file).
	var buf bytes.Buffer
	from = time.Now()
	n, err := v.DumpTo(ctx, true, &buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("DumpTo: %d bytes (%d written), %v", n, buf.Len(), err)
	}
	checkSimHprof(t, buf.Bytes(), from, time.Now())
	if files := dev.Files(); len(files) != 0 {
		t.Errorf("the dump was left on the device: %v", files)
	}
}
