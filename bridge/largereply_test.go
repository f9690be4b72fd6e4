package bridge

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// bigStringSrc holds a String of N characters "abcdefghij" repeated in a
// static field, so a debugger can read it whole (StringReference.Value).
const bigStringSrc = `public class BigString {
    static String big;
    public static void main(String[] a) throws Exception {
        big = "abcdefghij".repeat(Integer.parseInt(a[0]) / 10);
        System.out.println("READY " + big.length());
        Thread.sleep(Long.MAX_VALUE);
    }
}
`

// startBigString starts a JVM holding a String of n characters (n a
// multiple of 10) with its agent on 127.0.0.1:port.
func startBigString(tb testing.TB, n, port int) *jvmtest.JVM {
	tb.Helper()
	jvmtest.RequireJava(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir, err := jvmtest.CompileFiles(ctx, map[string][]byte{"BigString.java": []byte(bigStringSrc)})
	if err != nil {
		tb.Fatal(err)
	}
	heap := 3*n/(1<<20) + 256
	vm, err := jvmtest.Start(ctx, jvmtest.Options{
		ClassPath: []string{dir}, MainClass: "BigString", Args: []string{strconv.Itoa(n)},
		VMArgs:  []string{fmt.Sprintf("-Xmx%dm", heap), "-XX:-UsePerfData"},
		Address: fmt.Sprintf("127.0.0.1:%d", port), ReadyLine: "READY", Timeout: 2 * time.Minute,
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { vm.Close() })
	return vm
}

// stringChecker is a jdwp.Receiver that checks a StringReference.Value
// reply of BigString's string part by part without keeping it.
type stringChecker struct {
	mu   sync.Mutex
	size int
	seen int
	code jdwp.ErrorCode
	bad  string
	done chan struct{}
}

func (sc *stringChecker) ReplyPart(hdr *jdwp.Packet, size, off int, part []byte) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.size, sc.code = size, hdr.Error
	for i, b := range part {
		pos := off + i - 4 // the string's characters follow its u4 length
		if pos >= 0 && b != byte('a'+pos%10) && sc.bad == "" {
			sc.bad = fmt.Sprintf("character %d is %q, want %q", pos, b, 'a'+pos%10)
		}
	}
	sc.seen += len(part)
}

func (sc *stringChecker) Finished(call *jdwp.Call) { close(sc.done) }

// readBigString attaches to addr as a debugger, finds BigString.big and
// reads its value (StringReference.Value) in parts, checking every
// character; it returns the number of characters read.
func readBigString(ctx context.Context, addr string) (int, error) {
	nc, err := jvmtest.DialHandshake(ctx, addr)
	if err != nil {
		return 0, err
	}
	c := jdwp.NewConn(nc, nil)
	defer c.Close()
	classes, err := c.ClassesBySignature(ctx, "LBigString;")
	if err != nil || len(classes) != 1 {
		return 0, fmt.Errorf("ClassesBySignature(BigString): %v, %v", classes, err)
	}
	fields, err := c.Fields(ctx, classes[0].ID)
	if err != nil {
		return 0, err
	}
	var big []jdwp.FieldID
	for _, f := range fields {
		if f.Name == "big" {
			big = append(big, f.ID)
		}
	}
	vals, err := c.StaticValues(ctx, classes[0].ID, big)
	if err != nil || len(vals) != 1 || vals[0].Bits == 0 {
		return 0, fmt.Errorf("BigString.big: %v, %v", vals, err)
	}
	sizes, err := c.IDSizes(ctx)
	if err != nil {
		return 0, err
	}
	w := jdwp.Writer{Sizes: &sizes}
	w.ObjectID(jdwp.ObjectID(vals[0].Bits))
	sc := &stringChecker{done: make(chan struct{})}
	call, err := c.Forward(ctx, jdwp.CmdStringRefValue, w.Buf, sc)
	if err != nil {
		return 0, err
	}
	select {
	case <-sc.done:
	case <-ctx.Done():
		return 0, fmt.Errorf("StringReference.Value: %w after %d bytes", ctx.Err(), sc.seen)
	}
	if call.Reply() == nil {
		_, err := call.Wait(ctx)
		return 0, fmt.Errorf("StringReference.Value failed after %d bytes: %v", sc.seen, err)
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	switch {
	case sc.code != jdwp.ErrNone:
		return 0, fmt.Errorf("StringReference.Value: JDWP error %s", sc.code)
	case sc.bad != "":
		return 0, fmt.Errorf("StringReference.Value: %s", sc.bad)
	case sc.seen != sc.size:
		return 0, fmt.Errorf("StringReference.Value: %d of %d bytes", sc.seen, sc.size)
	}
	return sc.size - 4, nil
}

// TestLargeReplyThroughCurrentPort: a debugger reads a 100 MB String
// through port 8700 (issue 25: a reply over 64 MiB made the monitor declare
// the VM gone for every debugger). The reply is passed on whole and
// checked character by character, the VM stays monitored, and a second
// debugger reads it again.
func TestLargeReplyThroughCurrentPort(t *testing.T) {
	const n = 100_000_000
	lo := freePorts(t, 1)
	vm := startBigString(t, n, lo)
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, vm.Addr, passDeadline)
	for round := range 2 {
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		got, err := readBigString(ctx, m.CurrentAddr())
		cancel()
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if got != n {
			t.Fatalf("round %d: read %d characters, want %d", round, got, n)
		}
		if v := waitVM(t, m, vm.Addr, passDeadline); v.ID != info.ID {
			t.Fatalf("round %d: the VM is %s now, was %s: it was dropped", round, v.ID, info.ID)
		}
	}
}

// BenchmarkLargeString100MB and BenchmarkLargeString1GB read a 100 MB and
// a 1 GB String through the current-VM port of a monitor running in a
// child process and report the monitor's peak RSS (VmHWM) and the time of
// the read: the monitor's memory does not grow with the reply.
func BenchmarkLargeString100MB(b *testing.B) { benchLargeString(b, 100_000_000) }

// BenchmarkLargeString1GB: see BenchmarkLargeString100MB.
func BenchmarkLargeString1GB(b *testing.B) { benchLargeString(b, 1_000_000_000) }

func benchLargeString(b *testing.B, n int) {
	lo := freePorts(b, 1)
	vm := startBigString(b, n, lo)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestMonitorHost$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("BRIDGE_MONITOR_HOST=%d", lo))
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	sc := bufio.NewScanner(stdout)
	var cur string
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "monitorhost "); ok {
			cur = a
			break
		}
	}
	if cur == "" {
		b.Fatal("the monitor process printed no address")
	}
	_ = vm
	base := vmHWM(b, cmd.Process.Pid)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		got, err := readBigString(ctx, cur)
		if err != nil || got != n {
			b.Fatalf("read %d of %d characters: %v", got, n, err)
		}
	}
	b.StopTimer()
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/read")
	b.ReportMetric(float64(base)/(1<<20), "MiB-monitor-RSS-before")
	b.ReportMetric(float64(vmHWM(b, cmd.Process.Pid))/(1<<20), "MiB-monitor-peak-RSS")
}

// vmHWM is a process's peak resident set size in bytes.
func vmHWM(tb testing.TB, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	tb.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// TestMonitorHost is the monitor process of benchLargeString: it monitors
// the port BRIDGE_MONITOR_HOST names, prints its current-VM address once
// the VM is found and runs until stdin closes. It does nothing in a normal
// test run.
func TestMonitorHost(t *testing.T) {
	spec := os.Getenv("BRIDGE_MONITOR_HOST")
	if spec == "" {
		t.Skip("only a helper process of the large-reply benchmarks")
	}
	port, _ := strconv.Atoi(spec)
	o := testOptions(t, port, 1)
	o.Logger = o.Logger.Level(1) // info and up
	m := startMonitor(t, o)
	waitVM(t, m, fmt.Sprintf("127.0.0.1:%d", port), passDeadline)
	fmt.Printf("monitorhost %s\n", m.CurrentAddr())
	bufio.NewReader(os.Stdin).ReadString('\n')
}
