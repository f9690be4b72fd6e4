package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmrun"
)

//go:embed ddmlibbench/DdmlibHpsgBench.java
var ddmlibHpsgBenchSource []byte

// ddmlibClassPath is Debian's libandroid-ddms-java.
const ddmlibClassPath = "/usr/share/java/com.android.tools.ddms.ddmlib.jar"

// heapBenchResult is one JSON line of `bench heap`.
type heapBenchResult struct {
	Client   string  `json:"client"`
	Workload string  `json:"workload"`
	Items    uint64  `json:"items"`
	Bytes    uint64  `json:"bytes"`
	Seconds  float64 `json:"seconds"`
}

const benchHeapUsage = "ddmbridge bench heap FILE [--runs N] [--ddmlib] | ddmbridge bench heap --generate SIZE FILE"

// runBenchHeap decodes a DDM heap capture (HPST, HPSG…, HPEN) into the heap
// map model with per-kind totals, best of --runs after an untimed pass, and prints
// {"client":"ddmbridge","workload":"hpsg","items":UNITS,"bytes":RUN_BYTES,"seconds":S}.
func runBenchHeap(ctx context.Context, fs *flag.FlagSet, args []string) error {
	runs := fs.Int("runs", 3, "runs; the best is printed")
	withDdmlib := fs.Bool("ddmlib", false, "also run ddmlib's HeapSegment parser (Debian libandroid-ddms-java) on the same file and print the throughput ratio")
	generate := fs.String("generate", "", "instead of decoding, write a synthetic ART-like heap capture of this size (e.g. 2GiB, 512MiB) to FILE")
	seed := fs.Uint64("seed", 1, "with --generate: the random seed")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: "+benchHeapUsage)
		fmt.Fprintln(fs.Output(), "\nA capture is DDM chunks back to back: u4 type, u4 length, data.")
		fs.PrintDefaults()
	}
	pos, err := parseWithOperands(ctx, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *runs < 1 {
		return fmt.Errorf("%w: want %s", errUsage, benchHeapUsage)
	}
	file := pos[0]
	out := stdout(ctx)
	if *generate != "" {
		size, err := parseSize(*generate)
		if err != nil {
			return fmt.Errorf("%w: --generate %q: %v", errUsage, *generate, err)
		}
		f, err := os.Create(file)
		if err != nil {
			return err
		}
		if err := ddm.WriteSyntheticCapture(f, size, *seed); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fi, _ := os.Stat(file)
		fmt.Fprintf(out, "wrote %s: a %s heap in %s of chunks\n", file, mib(size), mib(uint64(fi.Size())))
		return nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	best := heapBenchResult{Client: "ddmbridge", Workload: "hpsg", Seconds: -1}
	var dec ddm.CaptureDecoder // its block array is reused from run to run
	// The thread's CPU time is measured too (the ddmlib harness measures its
	// parsing thread's): on a shared machine the wall clock also counts
	// waiting for a core.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	bestCPU := -1.0
	// One untimed pass first, as the ddmlib harness warms its JIT up: the
	// block array is allocated and the file's pages are touched.
	for r := -1; r < *runs; r++ {
		t0, c0 := time.Now(), threadCPU()
		chunks, err := ddm.ReadCapture(data)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		st, err := dec.Decode(chunks)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		sec, cpu := time.Since(t0).Seconds(), threadCPU()-c0
		if st.Units == 0 {
			return fmt.Errorf("%s: no heap segments (HPSG/HPSO/NHSG) in the capture", file)
		}
		if r < 0 {
			continue
		}
		if best.Seconds < 0 || sec < best.Seconds {
			best.Seconds = sec
		}
		if bestCPU < 0 || cpu < bestCPU {
			bestCPU = cpu
		}
		best.Items, best.Bytes = st.Units, st.RunBytes
	}
	best.Seconds = roundSec(best.Seconds)
	if err := json.NewEncoder(out).Encode(best); err != nil {
		return err
	}
	if !*withDdmlib {
		return nil
	}
	ref, refCPU, err := runDdmlibHpsg(ctx, file, *runs)
	if err != nil {
		return err
	}
	if err := json.NewEncoder(out).Encode(ref); err != nil {
		return err
	}
	if ref.Items != best.Items {
		return fmt.Errorf("ddmlib counted %d units, ddmbridge %d: the two decoders disagree", ref.Items, best.Items)
	}
	cpuRatio := "unknown"
	if refCPU > 0 && bestCPU > 0 {
		cpuRatio = fmt.Sprintf("%.2f×", refCPU/bestCPU)
	}
	fmt.Fprintf(out, "ddmbridge/ddmlib throughput: %.2f× (by the parsing thread's CPU time: %s)\n", ref.Seconds/best.Seconds, cpuRatio)
	return nil
}

func roundSec(s float64) float64 { v, _ := strconv.ParseFloat(fmt.Sprintf("%.4f", s), 64); return v }

// runDdmlibHpsg compiles (cached) and runs ddmlibbench/DdmlibHpsgBench.java:
// its result line and its parsing thread's best CPU seconds (0 if it did not say).
func runDdmlibHpsg(ctx context.Context, file string, runs int) (heapBenchResult, float64, error) {
	var r heapBenchResult
	if _, err := os.Stat(ddmlibClassPath); err != nil {
		return r, 0, fmt.Errorf("ddmlib is missing (%v): apt-get install -y libandroid-ddms-java", err)
	}
	javac, err := jvmrun.FindTool("javac")
	if err != nil {
		return r, 0, err
	}
	java, err := jvmrun.FindTool("java")
	if err != nil {
		return r, 0, err
	}
	dir, err := os.MkdirTemp("", "ddmlib-hpsg-")
	if err != nil {
		return r, 0, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "DdmlibHpsgBench.java")
	if err := os.WriteFile(src, ddmlibHpsgBenchSource, 0o644); err != nil {
		return r, 0, err
	}
	if b, err := exec.CommandContext(ctx, javac, "-cp", ddmlibClassPath, "-d", dir, src).CombinedOutput(); err != nil {
		return r, 0, fmt.Errorf("javac DdmlibHpsgBench.java: %v\n%s", err, b)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, java, "-Xmx6g", "-cp", dir+string(os.PathListSeparator)+ddmlibClassPath, "DdmlibHpsgBench", file, strconv.Itoa(runs))
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		return r, 0, fmt.Errorf("ddmlib harness: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(bytes.TrimSpace(outb), &r); err != nil {
		return r, 0, fmt.Errorf("ddmlib harness printed %q: %v", outb, err)
	}
	var cpu float64
	for _, l := range strings.Split(stderr.String(), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "cpu-seconds "); ok {
			cpu, _ = strconv.ParseFloat(v, 64)
		}
	}
	return r, cpu, nil
}

// parseSize reads 2GiB, 512MiB, 64KiB or a byte count.
func parseSize(s string) (uint64, error) {
	mult := uint64(1)
	for suf, m := range map[string]uint64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if v, ok := strings.CutSuffix(s, suf); ok {
			s, mult = v, m
			break
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("not a size (want e.g. 2GiB, 512MiB or a byte count)")
	}
	return n * mult, nil
}
