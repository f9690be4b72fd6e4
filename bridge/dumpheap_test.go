package bridge

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// checkSimHprof checks a dump against what ddm/simvm streams: the HPROF
// header "JAVA PROFILE 1.0.3\0", identifier size 4 and a millisecond
// timestamp between from and to.
func checkSimHprof(t *testing.T, b []byte, from, to time.Time) {
	t.Helper()
	head := []byte("JAVA PROFILE 1.0.3\x00\x00\x00\x00\x04")
	if len(b) != len(head)+8 || !bytes.HasPrefix(b, head) {
		t.Fatalf("heap dump = %q, want %q + an 8-byte timestamp", b, head)
	}
	ms := int64(binary.BigEndian.Uint64(b[len(head):]))
	if ms < from.UnixMilli() || ms > to.UnixMilli() {
		t.Errorf("hprof timestamp %d outside %d..%d", ms, from.UnixMilli(), to.UnixMilli())
	}
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
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
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

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
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

	// A plain JDWP VM has no heap dumps through DDM.
	_, err = c.DumpHeap(ctx, plain.ID, "")
	if rpcCode(err) != CodeNotDDM || !strings.Contains(err.Error(), "heap dumps need a DDM-aware VM") {
		t.Errorf("vm/dumpHeap on HotSpot: %v, want code %d", err, CodeNotDDM)
	}
	if _, err := c.DumpHeap(ctx, "nope", ""); rpcCode(err) != CodeNoSuchVM {
		t.Errorf("vm/dumpHeap of an unknown VM: %v", err)
	}
}
