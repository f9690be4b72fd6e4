package bridge

import (
	"fmt"
	"io"
	"net"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/rs/zerolog"
)

func TestProbeBackoffPolicy(t *testing.T) {
	b := newProbeBackoff(time.Second)
	now := time.Unix(1000, 0)
	bad := fmt.Errorf("%w: EOF", errNotMonitorable)
	var got []time.Duration
	for i := 0; i < 10; i++ {
		got = append(got, b.result("a", bad, now))
	}
	want := []time.Duration{2, 4, 8, 16, 32, 64, 128, 256, 300, 300}
	for i := range want {
		if got[i] != want[i]*time.Second {
			t.Fatalf("waits after repeated failures: %v, want %v s", got, want)
		}
	}
	if !b.waiting("a", now.Add(299*time.Second)) || b.waiting("a", now.Add(301*time.Second)) {
		t.Error("waiting does not follow the last wait")
	}
	if d := b.result("b", errNotJDWP, now); d != notJDWPBackoff {
		t.Errorf("not JDWP: %v, want %v", d, notJDWPBackoff)
	}
	if d := b.result("b", errNotJDWP, now); d != 2*notJDWPBackoff {
		t.Errorf("not JDWP twice: %v, want %v", d, 2*notJDWPBackoff)
	}
	if d := b.result("c", syscall.ECONNREFUSED, now); d != 0 || b.waiting("c", now) {
		t.Errorf("refused: %v, want no wait (no VM there yet)", d)
	}
	if b.result("a", nil, now); b.waiting("a", now) || b.result("a", bad, now) != 2*time.Second {
		t.Error("success does not forget the failures")
	}
}

// TestHostileEndpointBackedOff: an endpoint in the scan range that answers
// the JDWP handshake and then hangs up is probed again after growing waits,
// not every scan interval (issue 12).
func TestHostileEndpointBackedOff(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, len(jdwp.HandshakeString))
			io.ReadFull(c, buf)
			io.WriteString(c, jdwp.HandshakeString)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	o := testOptions(t, port, 1)
	var logs lockedbuf.Buffer
	o.Logger = zerolog.New(&logs).Level(zerolog.DebugLevel)
	startMonitor(t, o)
	re := regexp.MustCompile(`"retryIn":([0-9.]+),"message":"port in the scan range left alone`)
	var waits [][]string
	waitFor(t, 120*time.Second, "three failed probes of the hostile endpoint", func() bool {
		waits = re.FindAllStringSubmatch(logs.String(), -1)
		return len(waits) >= 3
	})
	first := 2 * o.ScanInterval
	for i, w := range waits[:3] {
		want := fmt.Sprint(float64(first<<i) / float64(time.Millisecond))
		if w[1] != want {
			t.Errorf("wait %d: %s ms, want %s ms", i+1, w[1], want)
		}
	}
}
