package bridgetest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/demoapp"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// Logger logs to the test at info level (BRIDGE_TEST_LOG=debug|trace for
// more).
func Logger(t testing.TB) zerolog.Logger {
	lvl := zerolog.InfoLevel
	if s := os.Getenv("BRIDGE_TEST_LOG"); s != "" {
		if l, err := zerolog.ParseLevel(s); err == nil {
			lvl = l
		}
	}
	return zerolog.New(zerolog.NewTestWriter(t)).Level(lvl).With().Timestamp().Logger()
}

// TraceProxy says whether the tests log every debugger packet
// (BRIDGE_TEST_LOG=trace).
func TraceProxy() bool { return os.Getenv("BRIDGE_TEST_LOG") == "trace" }

var portMu sync.Mutex
var lastPort = 20000 + os.Getpid()%12000

// FreePorts returns n consecutive loopback ports that are free right now.
// They come from below Linux's ephemeral range (32768 up), so no connection
// made meanwhile, by this or a parallel test process, is given one of them
// as its local port before the VM under test binds it.
func FreePorts(t testing.TB, n int) int {
	t.Helper()
	portMu.Lock()
	defer portMu.Unlock()
	for tries := 0; tries < 200; tries++ {
		lastPort += n + 7
		if lastPort+n > 32000 {
			lastPort = 20000
		}
		base := lastPort
		ok := true
		var lns []net.Listener
		for p := base; p < base+n; p++ {
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				ok = false
				break
			}
			lns = append(lns, ln)
		}
		for _, ln := range lns {
			ln.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free port range")
	return 0
}

// WaitFor polls cond until it holds or the timeout passes. The timeout says
// how long the wait normally takes; it is raised to a minute so that a loaded
// machine only makes the test slower, never red.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	timeout = max(timeout, time.Minute)
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// StartDemo starts DemoApp with its agent on 127.0.0.1:port (0: any), for
// the test's lifetime.
func StartDemo(t testing.TB, port int, suspend bool) *jvmtest.JVM {
	t.Helper()
	jvmtest.RequireJava(t)
	o := jvmtest.Options{Suspend: suspend}
	if port != 0 {
		o.Address = fmt.Sprintf("127.0.0.1:%d", port)
	}
	vm, err := demoapp.Start(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		vm.Close()
		if t.Failed() {
			t.Logf("DemoApp stdout tail: %s", Tail(vm.Stdout(), 5))
			t.Logf("DemoApp stderr tail: %s", Tail(vm.Stderr(), 20))
		}
	})
	return vm
}

// Tail returns the last n lines, joined.
func Tail(lines []string, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// LastTick returns the last TICK value DemoApp printed, or -1.
func LastTick(vm *jvmtest.JVM) int {
	lines := vm.Stdout()
	for i := len(lines) - 1; i >= 0; i-- {
		if n, ok := strings.CutPrefix(lines[i], "TICK "); ok {
			v, _ := strconv.Atoi(n)
			return v
		}
	}
	return -1
}

// WaitTicking checks that the app makes progress: a TICK above the current one.
func WaitTicking(t testing.TB, vm *jvmtest.JVM, timeout time.Duration) {
	t.Helper()
	start := LastTick(vm)
	WaitFor(t, timeout, fmt.Sprintf("DemoApp to progress past TICK %d", start), func() bool { return LastTick(vm) > start })
}

// RawDebugger connects to addr and does the JDWP handshake.
func RawDebugger(t testing.TB, addr string) net.Conn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(nc, jdwp.HandshakeString); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 14)
	if _, err := io.ReadFull(nc, buf); err != nil || string(buf) != jdwp.HandshakeString {
		t.Fatalf("handshake through the bridge: %q %v", buf, err)
	}
	return nc
}

// Command sends one command and reads packets until its reply.
func Command(t testing.TB, nc net.Conn, r *bufio.Reader, id uint32, set, cmd byte, data []byte) *jdwp.Packet {
	t.Helper()
	if err := jdwp.WritePacket(nc, &jdwp.Packet{ID: id, CmdSet: set, Cmd: cmd, Data: data}); err != nil {
		t.Fatal(err)
	}
	for {
		p, err := jdwp.ReadPacket(r, 0)
		if err != nil {
			t.Fatalf("reading the reply to %s: %v", jdwp.CommandName(set, cmd), err)
		}
		if p.IsReply() && p.ID == id {
			return p
		}
	}
}
