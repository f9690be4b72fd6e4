package hostproc

import (
	"errors"
	"net"
	"os"
	"testing"
)

// TestSocketBetween: both ends of a loopback connection of this process
// are in the kernel's table as this user's, each its own socket; a
// connection that does not exist is ErrNoSocket.
func TestSocketBetween(t *testing.T) {
	for _, network := range []string{"127.0.0.1:0", "[::1]:0"} {
		ln, err := net.Listen("tcp", network)
		if err != nil {
			t.Logf("%s: %v (no such address here)", network, err)
			continue
		}
		defer ln.Close()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		la, ra := c.LocalAddr().(*net.TCPAddr), c.RemoteAddr().(*net.TCPAddr)
		uid, client, err := SocketBetween(la, ra)
		if err != nil || uid != os.Getuid() || client == "0" {
			t.Errorf("%s: the client's socket %s→%s: uid %d, inode %q, %v; want uid %d", network, la, ra, uid, client, err, os.Getuid())
		}
		_, server, err := SocketBetween(ra, la)
		if err != nil || server == client {
			t.Errorf("%s: the server's socket %s→%s: inode %q (the client's %q), %v", network, ra, la, server, client, err)
		}
		listening := false
		if err := Sockets(func(s Socket) bool {
			listening = s.Listening && s.Local.Port == ra.Port
			return !listening
		}); err != nil || !listening {
			t.Errorf("%s: the listener at port %d is not listed as listening (%v)", network, ra.Port, err)
		}
		gone := &net.TCPAddr{IP: la.IP, Port: 1}
		if _, _, err := SocketBetween(gone, ra); !errors.Is(err, ErrNoSocket) {
			t.Errorf("%s: SocketBetween(%s, %s) = %v; want ErrNoSocket", network, gone, ra, err)
		}
	}
}

// FuzzParseSocket: any row of a socket table is read or passed over, and a
// row read keeps the ports it says.
func FuzzParseSocket(f *testing.F) {
	f.Add("   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 123456 1 0000000000000000 100 0 0 10 0")
	f.Add("   1: 00000000000000000000000001000000:A3B2 00000000000000000000000001000000:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 654321 1")
	f.Add("   2: 0100007F:1F90 0100007F:C350 06 00000000:00000000 03:00000F3A 00000000     0        0 0 3")
	f.Add("0: 0100007F: :1 0A 0 0 0 x 0 0")
	f.Fuzz(func(t *testing.T, line string) {
		s, ok := parseSocket(line)
		if !ok {
			return
		}
		if s.Local == nil || s.Remote == nil || s.Local.Port < 0 || s.Local.Port > 0xFFFF || s.Remote.Port > 0xFFFF {
			t.Fatalf("parseSocket(%q) = %+v", line, s)
		}
		if l := len(s.Local.IP); l != 4 && l != 16 {
			t.Fatalf("parseSocket(%q): local IP of %d bytes", line, l)
		}
	})
}
