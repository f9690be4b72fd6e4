//go:build linux

package hotspot

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

func TestRequestEncoding(t *testing.T) {
	b, err := request("dumpheap", "/tmp/x.hprof", "-all")
	if err != nil {
		t.Fatal(err)
	}
	if want := "1\x00dumpheap\x00/tmp/x.hprof\x00-all\x00\x00"; string(b) != want {
		t.Errorf("request = %q, want %q", b, want)
	}
	if _, err := request("x", "a\x00b"); err == nil {
		t.Error("a NUL in an argument was accepted")
	}
	if out, err := response(strings.NewReader("0\nHeap dump file created\n")); err != nil || out != "Heap dump file created\n" {
		t.Errorf("response = %q, %v", out, err)
	}
	if _, err := response(strings.NewReader("101\n")); err == nil {
		t.Error("status 101 taken for success")
	}
}

// jcmdHistogram runs the JDK's own jcmd PID GC.class_histogram (which runs
// a full GC first) and returns instances and bytes per class name.
func jcmdHistogram(t *testing.T, pid int) map[string][2]int64 {
	t.Helper()
	jcmd, err := jvmtest.FindTool("jcmd")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, jcmd, strconv.Itoa(pid), "GC.class_histogram").Output()
	if err != nil {
		t.Fatalf("jcmd: %v\n%s", err, out)
	}
	line := regexp.MustCompile(`^\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)`)
	m := map[string][2]int64{}
	for _, l := range strings.Split(string(out), "\n") {
		if g := line.FindStringSubmatch(l); g != nil {
			n, _ := strconv.ParseInt(g[1], 10, 64)
			b, _ := strconv.ParseInt(g[2], 10, 64)
			name := jvmName(g[3])
			old := m[name]
			m[name] = [2]int64{old[0] + n, old[1] + b}
		}
	}
	if len(m) < 100 {
		t.Fatalf("jcmd printed only %d classes:\n%s", len(m), out)
	}
	return m
}

// jvmName turns jcmd's names ("[B", "[Ljava.lang.Object;") into Java source form.
func jvmName(s string) string {
	dims := strings.Count(s, "[")
	base := s[dims:]
	if dims > 0 {
		prim := map[string]string{"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long", "F": "float", "D": "double"}
		if p, ok := prim[base]; ok {
			base = p
		} else {
			base = strings.TrimSuffix(strings.TrimPrefix(base, "L"), ";")
		}
	}
	return base + strings.Repeat("[]", dims)
}

// TestDumpHeapMatchesJcmd dumps a real HotSpot VM through the attach
// mechanism (no jmap, no jcmd), parses the dump and compares its histogram
// with jcmd's GC.class_histogram taken right after. BenchTarget allocates
// nothing once READY (its main thread calls a static method in a loop), so
// the two may differ only by what the JDK itself allocates between the
// calls — the attach listener serving jcmd among it — which the test bounds.
func TestDumpHeapMatchesJcmd(t *testing.T) {
	const nodes = 20000
	vm := jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: []string{"-Dobjects=" + strconv.Itoa(nodes), "-Dthreads=4", "-Xmx256m"}})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	dump, err := DumpHeap(ctx, vm.Pid, true)
	if err != nil {
		t.Fatal(err)
	}
	want := jcmdHistogram(t, vm.Pid)
	// A second command finds the listener already up (no SIGQUIT).
	if out, err := Execute(ctx, vm.Pid, "properties"); err != nil || !strings.Contains(out, "java.version") {
		t.Errorf("properties through a running listener: %v\n%.200s", err, out)
	}
	h, err := hprof.Parse(bytes.NewReader(dump), hprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]hprof.ClassStat{}
	for _, c := range h.Histogram() {
		got[c.Class] = c
	}
	if n := got["BenchTarget$Node"].Instances; n != nodes {
		t.Errorf("BenchTarget$Node: %d instances in the dump, want %d", n, nodes)
	}
	// Per class: instance counts within 1% + 64 (the attach and jcmd
	// machinery allocates between the two snapshots), bytes per instance as
	// the VM counts them. java.lang.Class is left out: HotSpot's dump omits
	// the mirrors of hidden and not yet linked classes that jcmd counts.
	compared := 0
	for name, w := range want {
		if name == "java.lang.Class" || w[0] < 50 {
			continue
		}
		compared++
		g := got[name]
		if d := abs(g.Instances - w[0]); d > w[0]/100+64 {
			t.Errorf("%s: %d instances in the dump, jcmd counts %d", name, g.Instances, w[0])
			continue
		}
		if g.Instances == 0 {
			continue
		}
		// Same average size within 5% (arrays vary in length between snapshots).
		gAvg, wAvg := float64(g.Bytes)/float64(g.Instances), float64(w[1])/float64(w[0])
		if gAvg < wAvg*0.95 || gAvg > wAvg*1.05 {
			t.Errorf("%s: %.1f bytes per instance in the dump, jcmd %.1f", name, gAvg, wAvg)
		}
	}
	if compared < 20 {
		t.Errorf("only %d classes with ≥ 50 instances compared", compared)
	}
	t.Logf("dump %d bytes, %d objects; %d classes compared with jcmd", len(dump), h.NumObjects(), compared)
}

func abs(v int64) int64 { return max(v, -v) }

func TestDumpHeapErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := DumpHeap(ctx, 1<<30, true); err == nil || !strings.Contains(err.Error(), "process") {
		t.Errorf("DumpHeap of a missing pid: %v", err)
	}
}

// TestCompressedOops asks real VMs, with and without compressed oops, for
// their flags as jcmd VM.flags does.
func TestCompressedOops(t *testing.T) {
	for _, want := range []bool{true, false} {
		flag := "-XX:+UseCompressedOops"
		if !want {
			flag = "-XX:-UseCompressedOops"
		}
		vm := jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: []string{"-Dobjects=10", "-Xmx64m", flag}})
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		got, err := CompressedOops(ctx, vm.Pid)
		cancel()
		if err != nil || got != want {
			t.Errorf("VM run with %s: compressed oops %v, %v", flag, got, err)
		}
	}
	if _, err := compressedOops("-XX:CICompilerCount=2\n", 1); err == nil {
		t.Error("flags without UseCompressedOops accepted")
	}
}
