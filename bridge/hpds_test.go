package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// TestDumpHeapDDMStreamed: a DDM VM's heap dump larger than a JDWP packet
// the monitor reads whole (64 MiB) goes to the file as it arrives, and the
// VM stays. Before, the HPDS chunk was read whole: the VM was dropped
// ("packet length exceeds the configured maximum"), and a dump under the
// bound was held whole in the monitor's memory. Not parallel: it counts
// what the process allocates during the dump, which must be far less than
// the dump.
func TestDumpHeapDDMStreamed(t *testing.T) {
	const size = 96 << 20
	lo := freePorts(t, 1)
	serveSim(t, lo, simvm.Options{AppName: "com.example.bigheap", Tick: 50 * time.Millisecond, HprofSize: size})
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, fmt.Sprintf("127.0.0.1:%d", lo), 5*time.Second)
	v, err := m.VM(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	f, err := os.Create(filepath.Join(t.TempDir(), "dump.hprof"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	from := time.Now()
	n, err := v.DumpTo(ctx, true, f)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("DumpTo: %v (after %d bytes)", err, n)
	}
	if fi, _ := f.Stat(); n != size || fi.Size() != size {
		t.Fatalf("dump: %d bytes written, file %d; the VM sent %d", n, fi.Size(), size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/3 {
		t.Errorf("the process allocated %d MiB during a %d MiB dump: the dump was held, not streamed", alloc>>20, size>>20)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	h, err := hprof.Parse(f, hprof.Options{})
	if err != nil {
		t.Fatalf("the streamed dump: %v", err)
	}
	if ms := h.Timestamp.UnixMilli(); h.Format != "JAVA PROFILE 1.0.3" || !h.Android || ms < from.UnixMilli()-1 || h.NumObjects() < 10 {
		t.Errorf("the streamed dump: %s, Android %v, %d objects, taken at %d (asked at %d)", h.Format, h.Android, h.NumObjects(), ms, from.UnixMilli())
	}
	// The VM is still monitored, and a second dump works.
	if v.conn.Err() != nil {
		t.Fatalf("the VM's connection after the dump: %v", v.conn.Err())
	}
	var buf countWriter
	if n, err := v.DumpTo(ctx, true, &buf); err != nil || n != size || buf.n != size {
		t.Fatalf("second dump: %d bytes (%d written), %v", n, buf.n, err)
	}
	if _, err := m.VM(info.ID); err != nil {
		t.Fatalf("the VM after two dumps: %v", err)
	}
}

// countWriter counts and drops what it is given.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// TestDumpDeviceVMWithoutDDM: a device VM that does not speak DDM is never
// dumped through HotSpot's attach mechanism here — its pid is the
// device's, and a process of this host with that pid would be signalled
// (here: the test itself, which SIGQUIT would end).
func TestDumpDeviceVMWithoutDDM(t *testing.T) {
	v := &VM{id: "7", pid: os.Getpid()}
	v.from.serial = "emulator-5554"
	var w countWriter
	n, err := v.dumpDDMTo(t.Context(), &w)
	if !errors.Is(err, ErrNotDDM) || n != 0 || w.n != 0 {
		t.Fatalf("dump of a device VM without DDM: %d bytes, %v; want ErrNotDDM and nothing written", n, err)
	}
}
