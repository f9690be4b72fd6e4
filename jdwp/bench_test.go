package jdwp

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"
)

// echoVM is a minimal VM for benchmarks: it answers every command with an empty
// reply as fast as it can, so what is measured is the client and the socket.
func echoVM(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				hs := make([]byte, len(HandshakeString))
				if _, err := io.ReadFull(nc, hs); err != nil {
					return
				}
				nc.Write(hs)
				r := bufio.NewReader(nc)
				w := bufio.NewWriter(nc)
				for {
					p, err := ReadPacket(r, 0)
					if err != nil {
						return
					}
					w.Write((&Packet{ID: p.ID, Flags: FlagReply}).Bytes())
					if r.Buffered() == 0 {
						if w.Flush() != nil {
							return
						}
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// BenchmarkRoundTripRaw is one command and its reply at a time on a bare socket:
// the floor the client's overhead is measured against.
func BenchmarkRoundTripRaw(b *testing.B) {
	addr := echoVM(b)
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	io.WriteString(nc, HandshakeString)
	io.ReadFull(nc, make([]byte, len(HandshakeString)))
	r := bufio.NewReader(nc)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := WritePacket(nc, &Packet{ID: uint32(i), CmdSet: 1, Cmd: 7}); err != nil {
			b.Fatal(err)
		}
		if _, err := ReadPacket(r, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTripClient is the same through Conn.Command; its ns/op minus
// BenchmarkRoundTripRaw's is the client's own overhead per round trip.
func BenchmarkRoundTripClient(b *testing.B) {
	ctx := context.Background()
	c, err := Dial(ctx, echoVM(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Command(ctx, 1, 7, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPipelined keeps 64 callers issuing commands at once.
func BenchmarkPipelined(b *testing.B) {
	ctx := context.Background()
	c, err := Dial(ctx, echoVM(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ResetTimer()
	var wg sync.WaitGroup
	per := b.N/64 + 1
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				if _, err := c.Command(ctx, 1, 7, nil); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// discardParts is a Receiver that drops the parts, as a proxy's writes
// would take them, and signals each finished call.
type discardParts chan *Call

func (discardParts) ReplyPart(*Packet, int, int, []byte) {}
func (d discardParts) Finished(c *Call)                  { d <- c }

// BenchmarkLargeReply: a 403 KB reply (AllClasses of a VM with 7,000
// classes loaded), read whole as StartFunc delivers it, and passed on in
// parts as Forward does (as the monitor forwards it to a debugger): B/op is
// what the client allocates per reply.
func BenchmarkLargeReply(b *testing.B) {
	reply := make([]byte, 403377)
	pkt := (&Packet{Flags: FlagReply, Data: reply}).Bytes() // written with each command's id: the fake allocates nothing
	vm := startFakeVM(b, fakeConfig{Handlers: map[Cmd]fakeHandler{
		cmdEcho: func(vm *fakeVM, p *Packet) {
			vm.wmu.Lock()
			defer vm.wmu.Unlock()
			binary.BigEndian.PutUint32(pkt[4:], p.ID)
			vm.nc.Write(pkt)
		},
	}})
	c := vm.dial(b, nil)
	ctx := context.Background()
	done := make(discardParts, 1)
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(reply)))
		for range b.N {
			if _, err := c.StartFunc(ctx, cmdEcho, nil, func(c *Call) { done <- c }); err != nil {
				b.Fatal(err)
			}
			if call := <-done; call.Reply() == nil || len(call.Reply().Data) != len(reply) {
				b.Fatal("no whole reply")
			}
		}
	})
	b.Run("parts", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(reply)))
		for range b.N {
			if _, err := c.Forward(ctx, cmdEcho, nil, done); err != nil {
				b.Fatal(err)
			}
			if call := <-done; call.Reply() == nil {
				b.Fatal(call.Wait(ctx))
			}
		}
	})
}
