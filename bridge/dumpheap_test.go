package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
)

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
	bridgetest.CheckSimHprof(t, b, from, time.Now())

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
		bridgetest.CheckSimHprof(t, dumps[i], from, time.Now())
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
	bridgetest.CheckSimHprof(t, b, from, time.Now())
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
	bridgetest.CheckSimHprof(t, buf.Bytes(), from, time.Now())
	if files := dev.Files(); len(files) != 0 {
		t.Errorf("the dump was left on the device: %v", files)
	}
}

func startSimOnly(t *testing.T, port int) {
	t.Helper()
	bridgetest.StartSimOnly(t, port)
}
