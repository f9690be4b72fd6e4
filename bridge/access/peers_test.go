package access

import (
	"context"
	"net"
	"os"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
)

// TestListenerUIDSameUser: the owner of a listening socket of this process
// is this user, bound to the address itself or to any address, over IPv4
// and IPv6.
func TestListenerUIDSameUser(t *testing.T) {
	t.Parallel()
	for _, bind := range []string{"127.0.0.1:0", "0.0.0.0:0", "[::1]:0", "[::]:0"} {
		ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", bind)
		if err != nil {
			t.Logf("%s: %v (no such address here)", bind, err)
			continue
		}
		defer ln.Close()
		a := ln.Addr().(*net.TCPAddr)
		dst := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: a.Port}
		if a.IP.To4() == nil && !a.IP.IsUnspecified() {
			dst.IP = net.IPv6loopback
		}
		uid, err := ListenerUID(dst)
		if err != nil || uid != os.Getuid() {
			t.Errorf("listener %s, dialled at %s: uid %d, %v; want %d", a, dst, uid, err, os.Getuid())
		}
	}
}

// TestGuardSameUserClosingAtOnce: a same-user client that connects and
// closes at once is not logged as refused (issue 25: it was, at warn
// level, as if another user had connected); the next client is served.
func TestGuardSameUserClosingAtOnce(t *testing.T) {
	t.Parallel()
	logs := &bridgetest.LogLines{T: t}
	ln, err := Listen("tcp:127.0.0.1:0", ListenOptions{Logger: zerolog.New(logs).Level(zerolog.InfoLevel)})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	for i := range 50 {
		quick, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		quick.Close()
		stay, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		want := stay.LocalAddr().String()
		// The quick one may be admitted (checked before it closed) or
		// dropped; the one that stays is served either way.
		for c := range accepted {
			got := c.RemoteAddr().String()
			c.Close()
			if got == want {
				break
			}
		}
		stay.Close()
		if logs.Has("refused") {
			t.Fatalf("round %d: a same-user client that closed at once was logged as refused", i)
		}
	}
}
