package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/rpc"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmrun"
)

// fillSource keeps about N MiB reachable in 256 KiB arrays (below G1's
// humongous size for these heaps) and prints READY.
const fillSource = `public class DumpFill {
    static byte[][] keep;
    public static void main(String[] a) throws Exception {
        int mib = Integer.parseInt(a[0]);
        keep = new byte[mib * 4][];
        for (int i = 0; i < keep.length; i++) {
            keep[i] = new byte[256 << 10];
            keep[i][i & 1023] = (byte) i;
        }
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
`

// dumpBenchResult is one JSON line of `bench dump`.
type dumpBenchResult struct {
	VM                 string  `json:"vm"`   // hotspot: a JVM through HotSpot's attach; ddm: a DDM VM (simvm) through HPDS
	Mode               string  `json:"mode"` // path: the monitor writes FILE; stream: chunks through the control API
	HeapMiB            uint64  `json:"heapMiB"`
	DumpBytes          int64   `json:"dumpBytes"`
	Seconds            float64 `json:"seconds"`
	MBps               float64 `json:"MBps"`               // dump bytes (10^6) a second, from the request to the file complete
	VsPath             float64 `json:"vsPath,omitempty"`   // stream: MBps over path mode's for the same VM and size
	MonitorBaselineMiB float64 `json:"monitorBaselineMiB"` // RSS before the dump
	MonitorPeakMiB     float64 `json:"monitorPeakMiB"`     // peak RSS during it
	CLIBaselineMiB     float64 `json:"cliBaselineMiB"`     // peak RSS of `ddmbridge vms`
	CLIPeakMiB         float64 `json:"cliPeakMiB"`         // peak RSS of `ddmbridge heap ID --hprof FILE`
}

const benchDumpUsage = "ddmbridge bench dump [--sizes 256MiB,1GiB] [--modes path,stream] [--vms hotspot,ddm] [--dir DIR] [--timeout 30m]"

// runBenchDump measures what a heap dump through the monitor costs in
// memory and time: for each heap size and VM kind it starts a VM (a JVM
// holding that much, or a simulated DDM VM whose HPDS dump is that large),
// a monitor (`serve`, a child process) that adopts it, and the CLI (`heap
// ID --hprof FILE`, a child process), and prints the monitor's RSS before
// and its peak during the dump, the CLI's peak next to its peak for `vms`,
// and the throughput (stream mode also as a ratio to path mode).
func runBenchDump(ctx context.Context, fs *flag.FlagSet, args []string) error {
	sizes := fs.String("sizes", "256MiB,1GiB", "comma-separated heap sizes to dump")
	modes := fs.String("modes", "path,stream", "comma-separated: path (the monitor writes FILE), stream (the CLI reads chunks, --stream)")
	vms := fs.String("vms", "hotspot,ddm", "comma-separated: hotspot (a JVM holding the size, dumped through HotSpot's attach), ddm (a simulated DDM VM whose HPDS dump is the size)")
	dir := fs.String("dir", "", "directory for the dumps (default: a new one in $TMPDIR, removed afterwards)")
	timeout := fs.Duration("timeout", 30*time.Minute, "bound on the whole benchmark")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: "+benchDumpUsage)
		fmt.Fprintln(fs.Output(), "\nPrints one JSON line per size, VM and mode on stdout (RSS in MiB, from /proc and getrusage; MBps in 10^6 bytes a second).")
		fs.PrintDefaults()
	}
	if err := parse(ctx, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q; want %s", errUsage, fs.Args(), benchDumpUsage)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if *dir == "" {
		d, err := os.MkdirTemp("", "ddmbridge-benchdump-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	var classes string
	out := stdout(ctx)
	for _, s := range strings.Split(*sizes, ",") {
		size, err := parseSize(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("%w: --sizes %q: %v", errUsage, s, err)
		}
		var results []dumpBenchResult
		for _, kind := range strings.Split(*vms, ",") {
			var vm dumpTarget
			switch kind = strings.TrimSpace(kind); kind {
			case "hotspot":
				if classes == "" {
					if classes, err = jvmrun.CompileFiles(ctx, map[string][]byte{"DumpFill.java": []byte(fillSource)}); err != nil {
						return err
					}
				}
				vm, err = startFillJVM(ctx, classes, size>>20)
			case "ddm":
				vm, err = startBigSimVM(int64(size))
			default:
				return fmt.Errorf("%w: --vms: %q is neither hotspot nor ddm", errUsage, kind)
			}
			if err != nil {
				return err
			}
			r, err := benchDumpSize(ctx, vm, kind, *dir, size>>20, strings.Split(*modes, ","))
			vm.close()
			if err != nil {
				return err
			}
			results = append(results, r...)
		}
		for _, r := range results {
			if err := json.NewEncoder(out).Encode(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// dumpTarget is the VM a dump is taken of.
type dumpTarget struct {
	addr  string
	close func()
}

// startFillJVM starts a JVM holding mib MiB.
func startFillJVM(ctx context.Context, classes string, mib uint64) (dumpTarget, error) {
	vm, err := jvmrun.Start(ctx, jvmrun.Options{ClassPath: []string{classes}, MainClass: "DumpFill", Args: []string{strconv.FormatUint(mib, 10)},
		VMArgs: []string{fmt.Sprintf("-Xmx%dm", mib+mib/4+256)}, ReadyLine: "READY", Timeout: 10 * time.Minute})
	if err != nil {
		return dumpTarget{}, fmt.Errorf("the JVM holding %d MiB: %w", mib, err)
	}
	return dumpTarget{addr: vm.Addr, close: func() { vm.Close() }}, nil
}

// startBigSimVM serves, in this process, a simulated DDM VM whose heap
// dump (HPDS, written as it is sent) is size bytes.
func startBigSimVM(size int64) (dumpTarget, error) {
	sv, err := simvm.New(simvm.Options{AppName: "com.example.bigheap", HprofSize: size, Logger: component("ddm")})
	if err != nil {
		return dumpTarget{}, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		sv.Close()
		return dumpTarget{}, err
	}
	go sv.Serve(ln)
	return dumpTarget{addr: ln.Addr().String(), close: func() { sv.Close() }}, nil
}

func benchDumpSize(ctx context.Context, vm dumpTarget, kind, dir string, mib uint64, modes []string) ([]dumpBenchResult, error) {
	rpcAddr := "unix:" + filepath.Join(dir, "rpc.sock")
	serve := selfCommand(ctx, "serve", "--no-adb", "--scan", vm.addr, "--scan-interval", "100ms", "--rpc", rpcAddr,
		"--dap", "", "--current-port", "-1", "--debug-port-base", "-1")
	serve.Stderr = nil
	if err := serve.Start(); err != nil {
		return nil, err
	}
	defer func() {
		serve.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { serve.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			serve.Process.Kill()
			<-done
		}
	}()
	id, err := waitBenchVM(ctx, rpcAddr, vm.addr)
	if err != nil {
		return nil, err
	}
	cliBase, err := runMeasured(ctx, "vms", "--rpc", rpcAddr)
	if err != nil {
		return nil, err
	}
	var results []dumpBenchResult
	var pathMBps float64
	for _, mode := range modes {
		mode = strings.TrimSpace(mode)
		file := filepath.Join(dir, fmt.Sprintf("heap-%d-%s.hprof", mib, mode))
		args := []string{"heap", id, "--hprof", file, "--json", "--rpc", rpcAddr, "--timeout", "20m"}
		switch mode {
		case "path":
		case "stream":
			args = append(args, "--stream")
		default:
			return nil, fmt.Errorf("%w: mode %q is neither path nor stream", errUsage, mode)
		}
		// The monitor's peak is measured from its RSS now (clear_refs 5
		// resets the high-water mark).
		if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", serve.Process.Pid), []byte("5"), 0); err != nil {
			return nil, fmt.Errorf("resetting the monitor's peak RSS: %w", err)
		}
		base, _ := procMiB(serve.Process.Pid, "VmRSS")
		from := time.Now()
		cli, err := runMeasured(ctx, args...)
		if err != nil {
			return nil, err
		}
		secs := time.Since(from).Seconds()
		peak, err := procMiB(serve.Process.Pid, "VmHWM")
		if err != nil {
			return nil, err
		}
		var d rpc.HeapDump
		if err := json.Unmarshal(cli.out, &d); err != nil {
			return nil, fmt.Errorf("heap --json printed %q: %w", cli.out, err)
		}
		fi, err := os.Stat(file)
		if err != nil || fi.Size() != int64(d.Bytes) {
			return nil, fmt.Errorf("%s: %v (%d bytes announced)", file, err, d.Bytes)
		}
		os.Remove(file)
		r := dumpBenchResult{VM: kind, Mode: mode, HeapMiB: mib, DumpBytes: fi.Size(), Seconds: secs, MBps: float64(fi.Size()) / 1e6 / secs,
			MonitorBaselineMiB: base, MonitorPeakMiB: peak, CLIBaselineMiB: cliBase.peakMiB, CLIPeakMiB: cli.peakMiB}
		if mode == "path" {
			pathMBps = r.MBps
		} else if pathMBps > 0 {
			r.VsPath = r.MBps / pathMBps
		}
		results = append(results, r)
	}
	return results, nil
}

// selfCommand runs this binary (under `go test`, its main: see TestMain).
func selfCommand(ctx context.Context, args ...string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), "DDMBRIDGE_TEST_MAIN=1")
	return cmd
}

type measured struct {
	out     []byte
	peakMiB float64
	cpuSecs float64 // user and system
}

// runMeasured runs `ddmbridge args...` and returns its output and peak RSS.
func runMeasured(ctx context.Context, args ...string) (measured, error) {
	cmd := selfCommand(ctx, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return measured{}, fmt.Errorf("ddmbridge %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		return measured{}, fmt.Errorf("no resource usage for ddmbridge %s", args[0])
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	return measured{out: out, peakMiB: float64(ru.Maxrss) / 1024, cpuSecs: cpu}, nil // Linux: kilobytes
}

// procMiB reads a VmXXX line of /proc/PID/status in MiB.
func procMiB(pid int, key string) (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no %s", pid, key)
}

// waitBenchVM waits until the monitor at rpc lists the VM at addr with its
// pid known (needed for HotSpot's attach) and returns its id.
func waitBenchVM(ctx context.Context, rpcAddr, addr string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		if c, err := rpc.DialRPC(ctx, rpcAddr, nil); err == nil {
			var vms []map[string]any
			err = c.Call(ctx, "vms/list", nil, &vms)
			c.Close()
			for _, v := range vms {
				if v["address"] == addr {
					if id, ok := v["id"].(string); ok {
						return id, nil
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("the monitor listed no VM at %s: %w", addr, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
