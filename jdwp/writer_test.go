package jdwp

import (
	"bufio"
	"context"
	"io"
	"net"
	"testing"
	"time"
)

// tcpPair returns both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (a, b net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		acc <- c
	}()
	a, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b = <-acc
	if b == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// readIDs reads n packets and checks their ids run from from, in order.
func readIDs(t *testing.T, r *bufio.Reader, from, n uint32, size int) {
	t.Helper()
	for id := from; id < from+n; id++ {
		p, err := ReadPacket(r, 0)
		if err != nil {
			t.Fatalf("reading packet %d: %v", id, err)
		}
		if p.ID != id || len(p.Data) != size {
			t.Fatalf("packet %d with %d bytes, want %d with %d", p.ID, len(p.Data), id, size)
		}
	}
}

// A held writer writes nothing until released; then Run writes what was
// queued, in order; Flush waits until everything is written.
func TestPacketWriterHeldAndFlush(t *testing.T) {
	a, b := tcpPair(t)
	w := NewPacketWriter(a, &WriterOptions{Held: true})
	done := make(chan struct{})
	defer close(done)
	go w.Run(done)
	w.QueueBytes([]byte(HandshakeString))
	for id := uint32(1); id <= 100; id++ {
		w.Queue(&Packet{ID: id, CmdSet: 1, Cmd: 7})
	}
	w.Drain(nil) // held: writes nothing
	if n := w.Buffered(); n != len(HandshakeString)+100*HeaderSize {
		t.Fatalf("%d bytes queued while held, want all %d", n, len(HandshakeString)+100*HeaderSize)
	}
	w.Release()
	r := bufio.NewReader(b)
	hs := make([]byte, len(HandshakeString))
	if _, err := io.ReadFull(r, hs); err != nil || string(hs) != HandshakeString {
		t.Fatalf("first bytes %q (%v), want the handshake", hs, err)
	}
	readIDs(t, r, 1, 100, 0)
	for id := uint32(101); id <= 200; id++ {
		w.Queue(&Packet{ID: id, CmdSet: 1, Cmd: 7})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if !w.Flush(ctx) || w.Buffered() != 0 {
		t.Fatalf("Flush left %d bytes", w.Buffered())
	}
	readIDs(t, r, 101, 100, 0)
}

// DrainNow never waits for a peer that does not read: it writes what the
// socket takes and leaves the rest to Run, which finishes it once the peer
// reads, keeping the stream whole.
func TestPacketWriterDrainNow(t *testing.T) {
	a, b := tcpPair(t)
	w := NewPacketWriter(a, nil)
	const n, size = 400, 64 << 10 // far more than the socket buffers hold
	data := make([]byte, size)
	for id := uint32(1); id <= n; id++ {
		w.Queue(&Packet{ID: id, CmdSet: 1, Cmd: 7, Data: data})
	}
	returned := make(chan struct{})
	go func() {
		w.DrainNow()
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(time.Minute):
		t.Fatal("DrainNow waited for a peer that reads nothing")
	}
	if w.Buffered() == 0 {
		t.Fatal("DrainNow wrote 26 MB to a peer that reads nothing")
	}
	done := make(chan struct{})
	defer close(done)
	go w.Run(done)
	w.Kick()
	readIDs(t, bufio.NewReader(b), 1, n, size)
}

// A write error is reported once, and the writer takes no more packets.
func TestPacketWriterError(t *testing.T) {
	a, b := tcpPair(t)
	errs := make(chan error, 2)
	w := NewPacketWriter(a, &WriterOptions{OnError: func(err error) { errs <- err }})
	a.Close()
	b.Close()
	w.Queue(&Packet{ID: 1})
	w.Drain(nil)
	select {
	case err := <-errs:
		if err == nil {
			t.Fatal("OnError(nil)")
		}
	case <-time.After(time.Minute):
		t.Fatal("no error reported")
	}
	if w.Queue(&Packet{ID: 2}) {
		t.Error("a failed writer took a packet")
	}
	w.Drain(nil)
	if len(errs) != 0 {
		t.Error("the error was reported twice")
	}
}
