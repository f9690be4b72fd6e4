package hprof

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/internal/hotspot"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// The benchmarks work on a dump of the shared BenchTarget (four objects per
// node: Node, its String label, the label's byte[], an int[]) taken through
// the attach mechanism. HPROF_BENCH_OBJECTS sets the node count (default
// 2 500 000, about 10 million objects and 430 MB); HPROF_BENCH_FILE names a
// dump to use instead. The dump is cached under the user cache directory.
//
//	go test -run X -bench . -benchtime 3x ./ddm/hprof
//
// They run with the GC percent at 20, as `ddmbridge hprof` does (the
// model is pointer-free, so collecting often is cheap and keeps the peak
// near the live data). They print MB/s and objects/s by wall clock and by CPU time (on a shared
// machine the wall clock includes waiting for a core) and the peak RSS of
// the benchmark, also as a multiple of the dump's size.

var benchDumpOnce struct {
	sync.Once
	path string
	err  error
}

func benchDump(b *testing.B) string {
	benchDumpOnce.Do(func() {
		if f := os.Getenv("HPROF_BENCH_FILE"); f != "" {
			benchDumpOnce.path = f
			return
		}
		nodes := 2_500_000
		if s := os.Getenv("HPROF_BENCH_OBJECTS"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				benchDumpOnce.err = fmt.Errorf("HPROF_BENCH_OBJECTS=%q: %v", s, err)
				return
			}
			nodes = n
		}
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		dir = filepath.Join(dir, "ddmbridge-bench")
		path := filepath.Join(dir, fmt.Sprintf("benchtarget-%d.hprof", nodes))
		benchDumpOnce.path = path
		if _, err := os.Stat(path); err == nil {
			return
		}
		benchDumpOnce.err = makeBenchDump(dir, path, nodes)
	})
	if benchDumpOnce.err != nil {
		b.Fatal(benchDumpOnce.err)
	}
	return benchDumpOnce.path
}

func makeBenchDump(dir, path string, nodes int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	heapMB := max(256, nodes/4000*2)
	vm, err := jvmtest.StartBenchTarget(ctx, jvmtest.Options{
		VMArgs:  []string{"-Dobjects=" + strconv.Itoa(nodes), "-Dthreads=4", fmt.Sprintf("-Xmx%dm", heapMB)},
		Timeout: 10 * time.Minute,
	})
	if err != nil {
		return err
	}
	defer vm.Close()
	dump, err := hotspot.DumpHeap(ctx, vm.Pid, true)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, dump, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// resetPeakRSS starts a new peak-RSS measurement (Linux: clear_refs 5).
func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is VmHWM in bytes, 0 where unknown.
func peakRSS() float64 { return procStatus("VmHWM:") }

// rssNow is VmRSS in bytes, 0 where unknown.
func rssNow() float64 { return procStatus("VmRSS:") }

// procStatus is a figure of /proc/self/status in bytes (key "VmHWM:"), 0
// where unknown.
func procStatus(key string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb * 1024
		}
	}
	return 0
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func report(b *testing.B, size int64, objects int, wall, cpu time.Duration) {
	n := float64(b.N)
	b.ReportMetric(float64(size)*n/wall.Seconds()/1e6, "MB/s")
	b.ReportMetric(float64(size)*n/cpu.Seconds()/1e6, "MB/cpu-s")
	b.ReportMetric(float64(objects)*n/wall.Seconds(), "objects/s")
	b.ReportMetric(float64(objects)*n/cpu.Seconds(), "objects/cpu-s")
	rss := peakRSS()
	b.ReportMetric(rss/1e6, "peak-RSS-MB")
	b.ReportMetric(rss/float64(size), "RSS/dump")
	b.Logf("%d objects, dump %.0f MB: %.0f MB/s (%.0f MB per CPU second), %.2f s per run, peak RSS %.0f MB = %.2f× the dump",
		objects, float64(size)/1e6, float64(size)*n/wall.Seconds()/1e6, float64(size)*n/cpu.Seconds()/1e6, wall.Seconds()/n, rss/1e6, rss/float64(size))
}

// BenchmarkParseHistogram: parse a page-cached dump and count its classes.
func BenchmarkParseHistogram(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	path := benchDump(b)
	data, err := os.ReadFile(path) // into the page cache
	if err != nil {
		b.Fatal(err)
	}
	size := int64(len(data))
	data = nil
	runtime.GC()
	resetPeakRSS()
	var objects int
	b.ResetTimer()
	c0, t0 := cpuTime(), time.Now()
	for range b.N {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		h, err := Parse(f, Options{})
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		objects = h.NumObjects()
		if len(h.Histogram()) == 0 {
			b.Fatal("empty histogram")
		}
	}
	wall, cpu := time.Since(t0), cpuTime()-c0
	b.StopTimer()
	report(b, size, objects, wall, cpu)
	// The reference in the same process: reading the page-cached file
	// through the same 1 MiB-buffered path and nothing else, best of 3 —
	// what parsing cannot beat, measured under the same load.
	var ref time.Duration
	for range 3 {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		t := time.Now()
		if _, err := io.Copy(io.Discard, bufio.NewReaderSize(f, 1<<20)); err != nil {
			b.Fatal(err)
		}
		f.Close()
		if d := time.Since(t); ref == 0 || d < ref {
			ref = d
		}
	}
	perRun := wall / time.Duration(b.N)
	b.ReportMetric(perRun.Seconds()/ref.Seconds(), "parse/read")
	b.Logf("reading the file alone: %.0f MB/s; parse + histogram takes %.1f× as long", float64(size)/ref.Seconds()/1e6, perRun.Seconds()/ref.Seconds())
}

// BenchmarkDominators: the dominator tree and retained sizes of a parsed
// dump, each run in a fresh process (this test binary running
// TestDominatorsChild), so that nothing allocated before — another
// benchmark, an earlier run — is in its peak RSS. The child parses the dump,
// returns what parsing freed to the OS, then computes the tree; it reports
// the tree's seconds (wall and CPU) and its peak RSS from then on (VmHWM
// after clear_refs), and the parent reads the child's whole peak, parsing
// included, from getrusage (ru_maxrss).
func BenchmarkDominators(b *testing.B) {
	path := benchDump(b)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	size := float64(fi.Size())
	var wall, cpu, refWall, refCPU time.Duration
	var peakTree, refPeak, peakAll, refPeakAll, model float64
	var objects int
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDominatorsChild$", "-test.v")
		cmd.Env = append(os.Environ(), "HPROF_DOMINATORS_CHILD="+path)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		var r childResult
		for _, l := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l), "RESULT "); ok {
				if err := json.Unmarshal([]byte(v), &r); err != nil {
					b.Fatal(err)
				}
			}
		}
		if r.Objects == 0 {
			b.Fatalf("child printed no result:\n%s", out)
		}
		wall += time.Duration(r.Wall * 1e9)
		cpu += time.Duration(r.CPU * 1e9)
		refWall += time.Duration(r.RefWall * 1e9)
		refCPU += time.Duration(r.RefCPU * 1e9)
		refPeak = max(refPeak, r.RefPeakTree)
		objects = r.Objects
		peakTree = max(peakTree, r.PeakTree)
		model = r.RSSModel
		// The whole peak of each tree's process, parsing included (one
		// child runs both, so its ru_maxrss is the larger of the two).
		peakAll = max(peakAll, r.PeakParse, r.PeakTree)
		refPeakAll = max(refPeakAll, r.PeakParse, r.RefPeakTree)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(wall.Seconds()/n, "tree-s")
	b.ReportMetric(float64(objects)*n/wall.Seconds(), "objects/s")
	b.ReportMetric(float64(objects)*n/cpu.Seconds(), "objects/cpu-s")
	b.ReportMetric(peakTree/size, "tree-RSS/dump")
	b.ReportMetric(peakAll/size, "RSS/dump")
	b.ReportMetric(peakAll/1e6, "peak-RSS-MB")
	b.ReportMetric(cpu.Seconds()/refCPU.Seconds(), "CPU/ref")
	b.ReportMetric(wall.Seconds()/refWall.Seconds(), "wall/ref")
	b.ReportMetric(peakTree/refPeak, "tree-RSS/ref")
	b.ReportMetric(peakAll/refPeakAll, "RSS/ref")
	b.Logf("against the tree before the class edges (dominatorsBefore: references only, every class a root), in the same process, best of %d each: %.3f vs %.3f CPU s (%.3f×), %.3f vs %.3f wall s (%.3f×), peak RSS from the model on %.0f vs %.0f MB (%.3f×), with parsing %.0f vs %.0f MB (%.3f×)",
		dominatorRounds, cpu.Seconds()/n, refCPU.Seconds()/n, cpu.Seconds()/refCPU.Seconds(), wall.Seconds()/n, refWall.Seconds()/n, wall.Seconds()/refWall.Seconds(), peakTree/1e6, refPeak/1e6, peakTree/refPeak, peakAll/1e6, refPeakAll/1e6, peakAll/refPeakAll)
	b.Logf("%d objects, dump %.0f MB: dominator tree in %.2f s (%.2f CPU s), %.0f objects/s; peak RSS %.0f MB = %.2f× the dump (parsing included; from the tree on %.0f MB = %.2f×, over the parsed model's %.0f MB)",
		objects, size/1e6, wall.Seconds()/n, cpu.Seconds()/n, float64(objects)*n/wall.Seconds(), peakAll/1e6, peakAll/size, peakTree/1e6, peakTree/size, model/1e6)
}

type childResult struct {
	Objects   int
	Wall, CPU float64
	PeakTree  float64
	RSSModel  float64 // RSS after parsing, the parsed model's
	PeakParse float64 // the peak while parsing
	// The reference, dominatorsBefore, in the same process: best CPU
	// seconds and wall seconds, its own peak from the model on.
	RefWall, RefCPU, RefPeakTree float64
}

// dominatorRounds is how many times the child computes each tree,
// alternating with the reference; the best of each counts (a shared
// machine only ever slows a run down).
const dominatorRounds = 3

// TestDominatorsChild is BenchmarkDominators' child process.
func TestDominatorsChild(t *testing.T) {
	path := os.Getenv("HPROF_DOMINATORS_CHILD")
	if path == "" {
		t.Skip("run by BenchmarkDominators")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Parse(f, Options{})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	parsePeak := peakRSS()
	debug.FreeOSMemory() // what parsing freed (its id index) is not the tree's peak
	resetPeakRSS()
	r := childResult{Objects: h.NumObjects(), RSSModel: peakRSS(), PeakParse: parsePeak}
	timeTree := func(tree func(*Heap) *Dominators, wall, cpu, peak *float64) {
		debug.FreeOSMemory()
		resetPeakRSS()
		c0, t0 := cpuTime(), time.Now()
		d := tree(h)
		w, c := time.Since(t0).Seconds(), (cpuTime() - c0).Seconds()
		*peak = max(*peak, peakRSS())
		if len(d.Children(Root, 1)) == 0 {
			t.Fatal("no dominator tree")
		}
		if *cpu == 0 || c < *cpu {
			*wall, *cpu = w, c
		}
	}
	if prof := os.Getenv("HPROF_DOMINATORS_CPUPROFILE"); prof != "" {
		// A profile of the tree alone (go tool pprof): both trees, the
		// reference's functions named dominatorsBefore.
		pf, err := os.Create(prof)
		if err != nil {
			t.Fatal(err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			t.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	for range dominatorRounds {
		timeTree(dominatorsBefore, &r.RefWall, &r.RefCPU, &r.RefPeakTree)
		timeTree((*Heap).Dominators, &r.Wall, &r.CPU, &r.PeakTree)
	}
	out, _ := json.Marshal(r)
	fmt.Printf("RESULT %s\n", out)
}

// BenchmarkParseSample: the small writer-made sample, for allocation counts.
func BenchmarkParseSample(b *testing.B) {
	in := sample(b, 8, false)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for range b.N {
		if _, err := Parse(bytes.NewReader(in), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWhyAlive: the answers of the editor's "why alive" views on the
// bench dump, each without field names (as before they were named) and
// with them (each step's referrer read back from the file), interleaved,
// best of 3: paths to the 2.5 M instances of BenchTarget$Node (a class with
// many instances), paths to one node, the incoming references of the
// node class's object and of one node (held by the Node[] of every node).
// It prints the milliseconds per answer, the bytes allocated per answer
// and the peak RSS above the parsed model during the answer.
func BenchmarkWhyAlive(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	path := benchDump(b)
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	h, err := Parse(f, Options{})
	if err != nil {
		b.Fatal(err)
	}
	nodes := instancesOf(h, "BenchTarget$Node")
	if len(nodes) == 0 {
		b.Fatal("no BenchTarget$Node in the dump")
	}
	nodeClass := h.Classes[h.cls[nodes[0]]].Object
	one := nodes[len(nodes)/2]
	answers := []struct {
		name string
		run  func(src io.ReaderAt) any
	}{
		{"paths to BenchTarget$Node (class)", func(src io.ReaderAt) any {
			p, _ := h.PathsToClass(path, "BenchTarget$Node", PathOptions{Source: src})
			return p
		}},
		{"paths to one node", func(src io.ReaderAt) any { return h.PathsToObject(path, one, PathOptions{Source: src}) }},
		{"incoming of class BenchTarget$Node", func(src io.ReaderAt) any { return h.Incoming(path, nodeClass, 0, 100, nil, src) }},
		{"incoming of one node", func(src io.ReaderAt) any { return h.Incoming(path, one, 0, 100, nil, src) }},
	}
	type figures struct {
		wall, alloc, peak float64
		fields            int
	}
	measure := func(run func(io.ReaderAt) any, src io.ReaderAt) figures {
		runtime.GC()
		debug.FreeOSMemory()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		base := rssNow()
		resetPeakRSS()
		t0 := time.Now()
		v := run(src)
		wall := time.Since(t0).Seconds()
		peak := peakRSS() - base
		runtime.ReadMemStats(&m1)
		js, _ := json.Marshal(v)
		return figures{wall, float64(m1.TotalAlloc - m0.TotalAlloc), peak, strings.Count(string(js), `"field":`)}
	}
	b.ResetTimer()
	for range b.N {
		for _, a := range answers {
			var without, with figures
			for k := range 3 {
				w, f2 := measure(a.run, nil), measure(a.run, f)
				if k == 0 || w.wall < without.wall {
					without = w
				}
				if k == 0 || f2.wall < with.wall {
					with = f2
				}
			}
			b.Logf("%s: %.1f ms without field names, %.1f ms with (%d named, %.2f×); allocated %.0f vs %.0f KB; peak RSS above the model %.1f vs %.1f MB",
				a.name, without.wall*1e3, with.wall*1e3, with.fields, with.wall/without.wall, without.alloc/1e3, with.alloc/1e3, without.peak/1e6, with.peak/1e6)
		}
	}
}

// BenchmarkStreamHistogram: the streamed histogram of a page-cached dump,
// counted on the parsing goroutine alone and in parallel, alternately in
// one process (the machine's other load falls on both alike): wall and
// CPU seconds of each, and their ratio.
func BenchmarkStreamHistogram(b *testing.B) {
	path := benchDump(b)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	size := fi.Size()
	var wall, cpu [2]time.Duration
	var objects int64
	b.ResetTimer()
	for range b.N {
		for k, seq := range []bool{true, false} {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			c0, t0 := cpuTime(), time.Now()
			s, err := StreamHistogram(b.Context(), f, StreamOptions{sequential: seq})
			wall[k] += time.Since(t0)
			cpu[k] += cpuTime() - c0
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			objects = s.Objects
		}
	}
	b.StopTimer()
	n := float64(b.N)
	for k, name := range []string{"sequential", "parallel"} {
		b.ReportMetric(float64(size)*n/wall[k].Seconds()/1e6, name+"-MB/s")
		b.ReportMetric(float64(size)*n/cpu[k].Seconds()/1e6, name+"-MB/cpu-s")
		b.Logf("%s: %d objects, %.0f MB: %.2f s wall, %.2f CPU s per run: %.0f MB/s, %.0f MB per CPU second", name, objects, float64(size)/1e6,
			wall[k].Seconds()/n, cpu[k].Seconds()/n, float64(size)*n/wall[k].Seconds()/1e6, float64(size)*n/cpu[k].Seconds()/1e6)
	}
	b.ReportMetric(wall[0].Seconds()/wall[1].Seconds(), "speedup")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
	b.ReportMetric(peakRSS()/1e6, "peak-RSS-MB")
}
