package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/internal/hotspot"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmrun"
)

// hprofFillSource builds a heap whose HotSpot dump is about the size asked
// for, shaped like a server's: a linked list of N nodes, every other one
// holding a distinct String (and its byte[]), and a HashMap of N/2 Integer
// keys to the nodes. Per node the dump takes about hprofFillBytesPerNode.
const hprofFillSource = `import java.util.HashMap;
public class HprofFill {
    static final class Node { Node next; Object value; int n; }
    static Node head;
    static HashMap<Integer, Node> index;
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]);
        index = new HashMap<>(n);
        Node tail = null;
        for (int i = 0; i < n; i++) {
            Node x = new Node();
            x.n = i;
            if ((i & 1) == 0) {
                x.value = "value-" + i;
            } else {
                index.put(i, x);
            }
            if (tail == null) head = x; else tail.next = x;
            tail = x;
        }
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
`

// hprofFillBytesPerNode is what one list node of HprofFill costs in its
// HotSpot dump, with its share of strings, map entries, keys and table
// (measured: 106.0 MB for 787 k nodes).
const hprofFillBytesPerNode = 134

// hprofBenchResult is one JSON line of `bench hprof`.
type hprofBenchResult struct {
	File        string  `json:"file"`
	DumpBytes   int64   `json:"dumpBytes"`
	Objects     int64   `json:"objects"`
	HistoSecs   float64 `json:"histoSeconds"`
	HistoMBps   float64 `json:"histoMBps"`       // dump bytes (10^6) a second
	HistoCPU    float64 `json:"histoCPUSeconds"` // user and system
	HistoPeakMi float64 `json:"histoPeakMiB"`
	HistoRatio  float64 `json:"histoPeakPerDump"` // peak RSS over the dump's size
	DomSecs     float64 `json:"dominatorsSeconds,omitempty"`
	DomCPU      float64 `json:"dominatorsCPUSeconds,omitempty"`
	DomPeakMi   float64 `json:"dominatorsPeakMiB,omitempty"`
	DomRatio    float64 `json:"dominatorsPeakPerDump,omitempty"`
	DomNsPerObj float64 `json:"dominatorsNsPerObject,omitempty"`
	// The same with --max-memory at what the compact strategy needs (the
	// model's arrays the tree does not read packed in memory).
	CompactSecs     float64 `json:"compactSeconds,omitempty"`
	CompactCPU      float64 `json:"compactCPUSeconds,omitempty"`
	CompactPeakMi   float64 `json:"compactPeakMiB,omitempty"`
	CompactRatio    float64 `json:"compactPeakPerDump,omitempty"`
	CompactNsPerObj float64 `json:"compactNsPerObject,omitempty"`
	// The same with --max-memory at what the spill strategy needs (the
	// model and the tree partly in a temporary file).
	SpillSecs     float64 `json:"spillSeconds,omitempty"`
	SpillCPU      float64 `json:"spillCPUSeconds,omitempty"`
	SpillPeakMi   float64 `json:"spillPeakMiB,omitempty"`
	SpillRatio    float64 `json:"spillPeakPerDump,omitempty"`
	SpillNsPerObj float64 `json:"spillNsPerObject,omitempty"`
}

const benchHprofUsage = "ddmbridge bench hprof [--sizes 1500MB,6GB] [--file DUMP] [--dir DIR] [--keep] [--no-dominators] [--max-memory SIZE] [--synthetic N] [--timeout 60m]"

// runBenchHprof measures `ddmbridge hprof` on HotSpot dumps of given sizes:
// for each size it starts a JVM (HprofFill) whose heap dumps to about that
// size, dumps it through HotSpot's attach (live objects), stops the JVM,
// then runs `hprof FILE --histo --json` and `hprof FILE --dominators --json`
// as child processes one after the other and prints their time and peak
// RSS, and again with --max-memory set to what the compact and the spill strategies need
// (checking that the tree is the same). --file measures an existing dump
// instead.
func runBenchHprof(ctx context.Context, fs *flag.FlagSet, args []string) error {
	sizes := fs.String("sizes", "1500MB", "comma-separated dump sizes to make (1500MB, 6GB, 512MiB, 2GiB: MB and GB are 10^6 and 10^9 bytes)")
	file := fs.String("file", "", "measure this dump instead of making ones")
	dir := fs.String("dir", "", "directory for the dumps (default: a new one in $TMPDIR, removed afterwards)")
	keep := fs.Bool("keep", false, "keep the dumps made (in --dir)")
	noDoms := fs.Bool("no-dominators", false, "measure the histogram only")
	maxMem := fs.String("max-memory", "", "passed to `hprof --dominators --max-memory`")
	synthetic := fs.Int64("synthetic", 0, "instead: stream the histogram of a generated dump of N objects (hprof.SyntheticDump; 2^31 objects are 30 GB) in this process")
	timeout := fs.Duration("timeout", 60*time.Minute, "bound on the whole benchmark")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: "+benchHprofUsage)
		fmt.Fprintln(fs.Output(), "\nPrints one JSON line per dump on stdout: seconds, MB/s (10^6 bytes a second) and peak RSS (MiB, from getrusage) of the histogram and the dominator tree, and the peaks over the dump's size.")
		fs.PrintDefaults()
	}
	if err := parse(ctx, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q; want %s", errUsage, fs.Args(), benchHprofUsage)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	out := stdout(ctx)
	measure := func(path string) error {
		r, err := benchHprofFile(ctx, path, !*noDoms, *maxMem)
		if err != nil {
			return err
		}
		return json.NewEncoder(out).Encode(r)
	}
	if *synthetic > 0 {
		r, err := benchSynthetic(ctx, *synthetic)
		if err != nil {
			return err
		}
		return json.NewEncoder(out).Encode(r)
	}
	if *file != "" {
		return measure(*file)
	}
	if *dir == "" {
		if *keep {
			return fmt.Errorf("%w: --keep needs --dir", errUsage)
		}
		d, err := os.MkdirTemp("", "ddmbridge-benchhprof-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	classes, err := jvmrun.CompileFiles(ctx, map[string][]byte{"HprofFill.java": []byte(hprofFillSource)})
	if err != nil {
		return err
	}
	for _, s := range strings.Split(*sizes, ",") {
		size, err := parseDecimalSize(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("%w: --sizes %q: %v", errUsage, s, err)
		}
		path := filepath.Join(*dir, fmt.Sprintf("fill-%s.hprof", strings.TrimSpace(s)))
		if err := makeFillDump(ctx, classes, size, path); err != nil {
			os.Remove(path)
			return err
		}
		err = measure(path)
		if !*keep {
			os.Remove(path)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// parseDecimalSize reads 1500MB, 6GB (powers of ten) or what parseSize reads.
func parseDecimalSize(s string) (uint64, error) {
	for suf, m := range map[string]uint64{"MB": 1e6, "GB": 1e9} {
		if v, ok := strings.CutSuffix(s, suf); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 {
				return uint64(f * float64(m)), nil
			}
			return 0, fmt.Errorf("not a size (want e.g. 1500MB, 6GB, 512MiB)")
		}
	}
	return parseSize(s)
}

// makeFillDump starts HprofFill sized for a dump of about size bytes and
// dumps its live heap to path.
func makeFillDump(ctx context.Context, classes string, size uint64, path string) error {
	nodes := max(size/hprofFillBytesPerNode, 1000)
	if nodes > 1<<31-1 {
		return fmt.Errorf("%w: a dump of %d bytes needs more list nodes than a Java int counts", errUsage, size)
	}
	// The VM holds about 80 bytes per node; twice that leaves the
	// collector room.
	heapMiB := nodes*160>>20 + 256
	vm, err := jvmrun.Start(ctx, jvmrun.Options{ClassPath: []string{classes}, MainClass: "HprofFill", Args: []string{strconv.FormatUint(nodes, 10)},
		VMArgs: []string{fmt.Sprintf("-Xmx%dm", heapMiB), "-XX:+UseParallelGC"}, ReadyLine: "READY", Timeout: 20 * time.Minute})
	if err != nil {
		return fmt.Errorf("the JVM building %d list nodes: %w", nodes, err)
	}
	defer vm.Close()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := hotspot.DumpHeapTo(ctx, vm.Pid, true, f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// benchHprofFile runs the histogram and (doms) the dominator tree of path
// as child processes, one after the other.
func benchHprofFile(ctx context.Context, path string, doms bool, maxMem string) (hprofBenchResult, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return hprofBenchResult{}, err
	}
	r := hprofBenchResult{File: filepath.Base(path), DumpBytes: fi.Size()}
	dump := float64(fi.Size()) / (1 << 20)
	from := time.Now()
	m, err := runMeasured(ctx, "hprof", path, "--histo", "--json")
	if err != nil {
		return r, err
	}
	r.HistoSecs = time.Since(from).Seconds()
	r.HistoMBps = float64(fi.Size()) / 1e6 / r.HistoSecs
	r.HistoPeakMi, r.HistoRatio, r.HistoCPU = m.peakMiB, m.peakMiB/dump, m.cpuSecs
	var hist []struct {
		Instances int64 `json:"instances"`
	}
	if err := json.Unmarshal(m.out, &hist); err != nil {
		return r, fmt.Errorf("hprof --histo --json printed %.200q: %w", m.out, err)
	}
	for _, c := range hist {
		r.Objects += c.Instances
	}
	if !doms {
		return r, nil
	}
	args := []string{"hprof", path, "--dominators", "--top", "5", "--json"}
	if maxMem != "" {
		args = append(args, "--max-memory", maxMem)
	}
	from = time.Now()
	if m, err = runMeasured(ctx, args...); err != nil {
		return r, err
	}
	r.DomSecs = time.Since(from).Seconds()
	r.DomPeakMi, r.DomRatio, r.DomCPU = m.peakMiB, m.peakMiB/dump, m.cpuSecs
	r.DomNsPerObj = r.nsPerObject(r.DomSecs)
	if maxMem != "" {
		return r, nil
	}
	// tree runs the dominator tree again under a --max-memory the previous
	// strategy exceeds, so that the next one is chosen, hands its figures
	// to set, and checks its tree is the one computed in memory (how names
	// the strategy in the error).
	tree := func(limit uint64, how string, set func(secs float64, t measured)) error {
		from := time.Now()
		t, err := runMeasured(ctx, append(args, "--max-memory", strconv.FormatUint(limit, 10))...)
		if err != nil {
			return err
		}
		set(time.Since(from).Seconds(), t)
		if !bytes.Equal(t.out, m.out) {
			return fmt.Errorf("the dominator tree of %s %s differs from the one in memory:\n%s\n%s", path, how, t.out, m.out)
		}
		return nil
	}
	if err := tree(hprof.MemoryNeededCompact(fi.Size()), "with the compact strategy", func(secs float64, t measured) {
		r.CompactSecs, r.CompactNsPerObj = secs, r.nsPerObject(secs)
		r.CompactPeakMi, r.CompactRatio, r.CompactCPU = t.peakMiB, t.peakMiB/dump, t.cpuSecs
	}); err != nil {
		return r, err
	}
	err = tree(hprof.MemoryNeededSpill(fi.Size()), "with a spill file", func(secs float64, t measured) {
		r.SpillSecs, r.SpillNsPerObj = secs, r.nsPerObject(secs)
		r.SpillPeakMi, r.SpillRatio, r.SpillCPU = t.peakMiB, t.peakMiB/dump, t.cpuSecs
	})
	return r, err
}

// nsPerObject is secs in nanoseconds an object of the dump, or 0 when its
// objects were not counted.
func (r *hprofBenchResult) nsPerObject(secs float64) float64 {
	if r.Objects == 0 {
		return 0
	}
	return secs * 1e9 / float64(r.Objects)
}

// syntheticBenchResult is the JSON line of `bench hprof --synthetic N`.
type syntheticBenchResult struct {
	Synthetic   int64   `json:"synthetic"`   // objects generated
	Objects     int64   `json:"objects"`     // objects counted (the two class objects too)
	StreamBytes int64   `json:"streamBytes"` // the dump's size
	HistoSecs   float64 `json:"histoSeconds"`
	HistoMBps   float64 `json:"histoMBps"`
	HistoCPU    float64 `json:"histoCPUSeconds"`
	HistoPeakMi float64 `json:"histoPeakMiB"`
}

// benchSynthetic streams the histogram of hprof.SyntheticDump(n) in this
// process and checks its counts: a dump of more than 2^31 objects counted
// without a file of its size.
func benchSynthetic(ctx context.Context, n int64) (syntheticBenchResult, error) {
	r := syntheticBenchResult{Synthetic: n}
	c0, t0 := processCPU(), time.Now()
	s, err := hprof.StreamHistogram(ctx, hprof.SyntheticDump(n), hprof.StreamOptions{Progress: func(read int64) { r.StreamBytes = read }})
	if err != nil {
		return r, err
	}
	r.HistoSecs, r.HistoCPU = time.Since(t0).Seconds(), processCPU()-c0
	r.HistoMBps = float64(r.StreamBytes) / 1e6 / r.HistoSecs
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		r.HistoPeakMi = float64(ru.Maxrss) / 1024 // Linux: kilobytes
	}
	r.Objects = s.Objects
	want := []hprof.ClassStat{{Class: "int[]", Instances: n / 2, Bytes: n / 2 * 16}, {Class: "Tiny", Instances: (n + 1) / 2, Bytes: (n + 1) / 2 * 8},
		{Class: "java.lang.Class", Instances: 2, Bytes: 16}}
	if s.Objects != n+2 || !slices.Equal(s.Histogram, want) {
		return r, fmt.Errorf("the synthetic dump of %d objects counted as %d objects, %v; want %d, %v", n, s.Objects, s.Histogram, n+2, want)
	}
	return r, nil
}

// processCPU is this process's user and system seconds so far.
func processCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
