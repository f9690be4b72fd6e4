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

// Large data queued with QueueShared is written from where it is, among
// copied packets, in order: by DrainNow (partly, the rest by Run, to a
// peer that does not read yet), by Drain and over a pipe; Buffered counts
// it.
func TestPacketWriterShared(t *testing.T) {
	big := make([]byte, 4*SharedMin+5)
	for i := range big {
		big[i] = byte(i * 7)
	}
	check := func(t *testing.T, r *bufio.Reader, n uint32) {
		for id := uint32(1); id <= n; id++ {
			p, err := ReadPacket(r, 0)
			if err != nil {
				t.Fatalf("packet %d: %v", id, err)
			}
			want := 1
			if id%3 == 0 {
				want = len(big)
			}
			if p.ID != id || !p.IsReply() || p.Error != ErrorCode(id) || len(p.Data) != want {
				t.Fatalf("packet %v, want id %d with %d bytes", p, id, want)
			}
			if want == len(big) && string(p.Data) != string(big) {
				t.Fatalf("packet %d: data differs", id)
			}
		}
	}
	queue := func(w *PacketWriter, from, to uint32) int {
		size := 0
		for id := from; id <= to; id++ {
			p := &Packet{ID: id, Flags: FlagReply, Error: ErrorCode(id), Data: []byte{byte(id)}}
			if id%3 == 0 {
				p.Data = big
			}
			w.QueueShared(p)
			size += HeaderSize + len(p.Data)
		}
		return size
	}
	t.Run("tcp", func(t *testing.T) {
		a, b := tcpPair(t)
		w := NewPacketWriter(a, nil)
		const n = 1200 // 26 MB: more than the socket buffers hold
		if size := queue(w, 1, n/2); w.Buffered() != size {
			t.Fatalf("Buffered %d, want %d", w.Buffered(), size)
		}
		w.DrainNow()
		if w.Buffered() == 0 {
			t.Fatal("DrainNow wrote 13 MB to a peer that reads nothing")
		}
		queue(w, n/2+1, n)
		done := make(chan struct{})
		defer close(done)
		go w.Run(done)
		w.Kick()
		check(t, bufio.NewReader(b), n)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if !w.Flush(ctx) || w.Buffered() != 0 {
			t.Fatalf("Flush left %d bytes", w.Buffered())
		}
	})
	t.Run("pipe", func(t *testing.T) {
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		w := NewPacketWriter(a, nil)
		queue(w, 1, 30)
		go w.Drain(context.Background())
		check(t, bufio.NewReader(b), 30)
	})
}
