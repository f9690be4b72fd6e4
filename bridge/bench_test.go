package bridge

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// startIdle starts a JVM that does nothing, so timings measure transport.
func startIdle(b testing.TB, addr string) *jvmtest.JVM { return bridgetest.StartIdle(b, addr) }

// benchOptions are the options of a quiet monitor scanning port lo.
func benchOptions(b *testing.B, lo int) Options {
	o := testOptions(b, lo, 1)
	o.Logger = o.Logger.Level(5) // quiet
	return o
}

// benchTargets returns a direct JVM address, the current-VM port of a
// monitor in front of an identical JVM and a bare relay in front of a
// third.
func benchTargets(b *testing.B) (direct, via, relay string) {
	jvmtest.RequireJava(b)
	lo := freePorts(b, 1)
	startIdle(b, fmt.Sprintf("127.0.0.1:%d", lo))
	d := startIdle(b, "")
	r := startIdle(b, "")
	m := startMonitor(b, benchOptions(b, lo))
	waitVM(b, m, fmt.Sprintf("127.0.0.1:%d", lo), 60*time.Second)
	return d.Addr, m.CurrentAddr(), startRelay(b, r.Addr)
}

// startRelay serves one connection at a time by copying bytes to and from
// addr through user-space buffers, as the monitor's hops do (io.Copy
// between TCP sockets would splice in the kernel): the floor any user-space
// relay sits on, measured in the same run as the bridge.
func startRelay(b testing.TB, addr string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	pump := func(dst, src net.Conn) {
		buf := make([]byte, 64<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		dst.Close()
		src.Close()
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			vm, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			go pump(vm, c)
			go pump(c, vm)
		}
	}()
	return ln.Addr().String()
}

var idSizes = []byte{0, 0, 0, 11, 0, 0, 0, 1, 0, 1, 7} // VirtualMachine.IDSizes; the id is patched per use

// roundTrips times n sequential round trips of a command (11-byte, no
// data) on nc.
func roundTrips(b testing.TB, nc net.Conn, r *bufio.Reader, n int, cmd []byte) time.Duration {
	pkt := append([]byte(nil), cmd...)
	t0 := time.Now()
	for i := 0; i < n; i++ {
		pkt[7] = byte(i)
		nc.Write(pkt)
		if _, err := jdwp.ReadPacket(r, 0); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(t0) / time.Duration(n)
}

// pipelined times n IDSizes commands sent in bursts of window while the
// replies are read concurrently, and returns the time per command.
func pipelined(b testing.TB, nc net.Conn, r *bufio.Reader, n, window int) time.Duration {
	done := make(chan error, 1)
	t0 := time.Now()
	go func() {
		for i := 0; i < n; i++ {
			if _, err := jdwp.ReadPacket(r, 0); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	w := bufio.NewWriter(nc)
	p := append([]byte(nil), idSizes...)
	for i := 0; i < n; i++ {
		p[4], p[5], p[6], p[7] = byte(i>>24), byte(i>>16), byte(i>>8), byte(i)
		w.Write(p)
		if i%window == window-1 {
			w.Flush()
		}
	}
	w.Flush()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	return time.Since(t0) / time.Duration(n)
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// proxyWorkloads are the debugger workloads compared direct and through
// the current-VM port; each returns the time per command.
var proxyWorkloads = map[string]func(tb testing.TB, nc net.Conn, r *bufio.Reader) time.Duration{
	"roundtrip": func(tb testing.TB, nc net.Conn, r *bufio.Reader) time.Duration {
		return roundTrips(tb, nc, r, 25, idSizes)
	},
	"allclasses": func(tb testing.TB, nc net.Conn, r *bufio.Reader) time.Duration {
		return roundTrips(tb, nc, r, 2, allClasses)
	},
	"pipelined": func(tb testing.TB, nc net.Conn, r *bufio.Reader) time.Duration { return pipelined(tb, nc, r, 2000, 64) },
}

var allClasses = []byte{0, 0, 0, 11, 0, 0, 0, 1, 0, 1, 3} // VirtualMachine.AllClasses

// compareProxy measures a workload alternately on a direct connection and
// through the current-VM port, in many short rounds so that load from
// elsewhere hits both alike, and reports the medians and their ratio. The
// debugger runs in a child process, as jdb or an IDE would: in this process
// it would share the monitor's scheduler, which no real debugger does.
func compareProxy(b *testing.B, workload string) {
	direct, via, relay := benchTargets(b)
	rounds := 100 * b.N
	cmd := exec.Command(os.Args[0], "-test.run=^TestProxyBenchClient$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("BRIDGE_PROXY_CLIENT=%s,%s,%s,%d,%s", workload, direct, via, rounds, relay))
	cmd.Stderr = os.Stderr
	b.ReportAllocs() // the monitor's (the relay allocates only per connection)
	b.ResetTimer()
	out, err := cmd.Output()
	b.StopTimer()
	if err != nil {
		b.Fatalf("benchmark client: %v\n%s", err, out)
	}
	var d, v, r float64
	for _, line := range strings.Split(string(out), "\n") {
		if _, err := fmt.Sscanf(line, "proxybench %g %g %g", &d, &v, &r); err == nil {
			break
		}
	}
	if d == 0 || v == 0 || r == 0 {
		b.Fatalf("benchmark client printed no figures:\n%s", out)
	}
	b.ReportMetric(d, "µs/op-direct")
	b.ReportMetric(v, "µs/op-bridge")
	b.ReportMetric(r, "µs/op-relay")
	b.ReportMetric(v/d, "bridge/direct")
	b.ReportMetric(v/r, "bridge/relay")
}

// TestProxyBenchClient is the debugger process of compareProxy: it times a
// workload on both connections in alternating rounds and prints the median
// times per command. It does nothing in a normal test run.
func TestProxyBenchClient(t *testing.T) {
	spec := os.Getenv("BRIDGE_PROXY_CLIENT")
	if spec == "" {
		t.Skip("only a helper process of the proxy benchmarks")
	}
	f := strings.Split(spec, ",")
	work := proxyWorkloads[f[0]]
	rounds, _ := strconv.Atoi(f[3])
	conns := map[string]net.Conn{"direct": rawDebugger(t, f[1]), "via": rawDebugger(t, f[2]), "relay": rawDebugger(t, f[4])}
	readers := map[string]*bufio.Reader{}
	for k, nc := range conns {
		nc.SetDeadline(time.Time{})
		readers[k] = bufio.NewReader(nc)
		defer nc.Close()
		for range 4 {
			work(t, nc, readers[k]) // warm up
		}
	}
	times := map[string][]time.Duration{}
	// A VM goes on working a little after its reply (the agent frees what
	// the command used), on the same 2 cores as the next connection's
	// round: the connection timed right after another is slowed by it (by
	// 3–4 % on AllClasses), so the rounds go through every order in turn.
	orders := [][]string{
		{"direct", "via", "relay"}, {"via", "relay", "direct"}, {"relay", "direct", "via"},
		{"direct", "relay", "via"}, {"relay", "via", "direct"}, {"via", "direct", "relay"},
	}
	for i := range rounds {
		for _, k := range orders[i%len(orders)] {
			times[k] = append(times[k], work(t, conns[k], readers[k]))
		}
	}
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
	fmt.Printf("proxybench %.3f %.3f %.3f\n", us(median(times["direct"])), us(median(times["via"])), us(median(times["relay"])))
}

// BenchmarkRoundTrip: one command at a time, direct, through the current-VM
// port and through a bare relay (goal: the bridge within 1.05× the relay).
// Each op is 100 alternating rounds of 25 round trips.
func BenchmarkRoundTrip(b *testing.B) { compareProxy(b, "roundtrip") }

// BenchmarkRoundTripAllClasses: a command with real work and a large reply
// (VirtualMachine.AllClasses, about 19 KiB from an idle HotSpot, which
// sends it in two writes), one at a time (goal: within 1.05× the relay).
func BenchmarkRoundTripAllClasses(b *testing.B) { compareProxy(b, "allclasses") }

// BenchmarkPipelined: 64 commands in flight, direct vs through the
// current-VM port (goal: throughput at least direct's, bridge/direct ≤ 1).
func BenchmarkPipelined(b *testing.B) { compareProxy(b, "pipelined") }

// BenchmarkIdle100VMs monitors 100 simulated VMs served by a child process
// and measures the monitor's CPU over 10 s of idling (getrusage) and its
// heap per VM.
func BenchmarkIdle100VMs(b *testing.B) {
	const n = 100
	lo := freePorts(b, n)
	cmd := exec.Command(os.Args[0], "-test.run=^TestSimVMHost$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("BRIDGE_SIMVM_HOST=%d:%d", lo, n))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	o := testOptions(b, lo, n)
	o.ScanInterval = 0 // default: 1 s
	o.Logger = o.Logger.Level(5)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	m := startMonitor(b, o)
	waitFor(b, 30*time.Second, "100 simulated VMs", func() bool { return len(m.VMs()) == n })
	time.Sleep(2 * time.Second) // let the greetings settle
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	for i := 0; i < b.N; i++ {
		var r0, r1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
		t0 := time.Now()
		time.Sleep(10 * time.Second)
		syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
		cpu := time.Duration(r1.Utime.Nano()+r1.Stime.Nano()-r0.Utime.Nano()-r0.Stime.Nano()) * time.Nanosecond
		b.ReportMetric(100*cpu.Seconds()/time.Since(t0).Seconds(), "%cpu")
	}
	b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/n, "heap-bytes/VM")
	b.ReportMetric(float64(runtime.NumGoroutine())/n, "goroutines/VM")
}

// TestSimVMHost is the child process of BenchmarkIdle100VMs: it serves
// simulated VMs until killed. It does nothing in a normal test run.
func TestSimVMHost(t *testing.T) {
	spec := os.Getenv("BRIDGE_SIMVM_HOST")
	if spec == "" {
		t.Skip("only a helper process of BenchmarkIdle100VMs")
	}
	var lo, n int
	fmt.Sscanf(spec, "%d:%d", &lo, &n)
	for i := 0; i < n; i++ {
		sv, err := simvm.New(simvm.Options{Seed: uint64(i + 1), AppName: "com.example.sim" + strconv.Itoa(i)})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", lo+i))
		if err != nil {
			t.Fatal(err)
		}
		go sv.Serve(ln)
	}
	select {}
}

// BenchmarkJDIThroughBridge is what an IDE sees: the JDK's own debugger
// (JDI, jdwp/jvmrun/jdi) runs the shared benchmark's workloads on one
// BenchTarget alternately directly and through the current-VM port of a
// monitor started for the run (and stopped after it, so the VM is free for
// the direct run); per workload it reports the median seconds and their
// ratio. BenchTarget is scaled down (50 threads, 20 frames deep, 2 000
// objects) so a round takes seconds. One debuggee, as in real use: two
// would each keep a CPU busy with their hot loops.
func BenchmarkJDIThroughBridge(b *testing.B) {
	jvmtest.RequireJava(b)
	lo := freePorts(b, 1)
	addr := fmt.Sprintf("127.0.0.1:%d", lo)
	jvmtest.StartBenchTargetT(b, jvmtest.Options{Address: addr, VMArgs: []string{"-Dthreads=50", "-Ddepth=20", "-Dobjects=2000"}})
	o := benchOptions(b, lo)
	ctx := context.Background()
	jdi := func(target, w string) float64 {
		var err error
		for try := 0; try < 50; try++ { // the agent re-listens a moment after a debugger leaves
			var r jvmtest.BenchResult
			if r, err = jvmtest.RunJDI(ctx, target, w); err == nil {
				return r.Seconds
			}
			time.Sleep(100 * time.Millisecond)
		}
		b.Fatal(err)
		return 0
	}
	via := func(w string) float64 {
		m, err := New(o)
		if err != nil {
			b.Fatal(err)
		}
		mctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { m.Run(mctx); close(done) }()
		defer func() { cancel(); <-done }()
		waitVM(b, m, addr, 10*time.Second)
		return jdi(m.CurrentAddr(), w)
	}
	workloads := []string{"classes", "threaddump", "objects", "step"}
	if w := os.Getenv("BRIDGE_JDI_WORKLOADS"); w != "" {
		workloads = strings.Split(w, ",")
	}
	times := map[string][]float64{}
	for _, w := range workloads {
		jdi(addr, w) // warm up
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, w := range workloads {
			times[w+"/direct"] = append(times[w+"/direct"], jdi(addr, w))
			times[w+"/via"] = append(times[w+"/via"], via(w))
		}
	}
	med := func(x []float64) float64 {
		s := append([]float64(nil), x...)
		sort.Float64s(s)
		return s[len(s)/2]
	}
	for _, w := range workloads {
		dm, vm := med(times[w+"/direct"]), med(times[w+"/via"])
		b.ReportMetric(dm*1000, w+"-ms-direct")
		b.ReportMetric(vm*1000, w+"-ms-bridge")
		b.ReportMetric(vm/dm, w+"-bridge/direct")
	}
}
