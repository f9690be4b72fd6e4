package jdwp

import (
	"bytes"
	"errors"
	"sync"
	"testing"
	"time"
)

// cmdParts records a large command given in parts.
type cmdParts struct {
	mu    sync.Mutex
	data  []byte
	parts int
	fail  int // CommandPart fails once this many bytes came (0: never)
	end   chan error
}

func (r *cmdParts) CommandPart(off int, part []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if off != len(r.data) {
		return errors.New("parts out of order")
	}
	r.parts++
	r.data = append(r.data, part...)
	if r.fail > 0 && len(r.data) >= r.fail {
		return errors.New("disk full")
	}
	return nil
}

func (r *cmdParts) CommandEnd(err error) { r.end <- err }

// TestLargeCommandInParts: a VM-initiated command its set's
// LargeCommandHandler takes comes in parts, beyond MaxPacketSize; one it
// declines comes whole to the CommandHandler, as does one below StreamMin;
// a receiver that fails has the rest dropped, and the connection goes on.
func TestLargeCommandInParts(t *testing.T) {
	checkLeaks(t)
	const max = 64 << 10
	const n = 5 * max
	vm := startFakeVM(t, fakeConfig{})
	c := vm.dial(t, &Options{MaxPacketSize: max})
	whole := make(chan *Packet, 4)
	c.HandleCommandSet(0xC7, func(_ *Conn, p *Packet) { whole <- p })
	var rcv *cmdParts
	var heads [][]byte
	c.HandleLargeCommands(0xC7, func(_ *Conn, hdr *Packet, size int, head []byte) CommandReceiver {
		heads = append(heads, bytes.Clone(head))
		if head[0] == 'W' { // "whole, please"
			return nil
		}
		return rcv
	})
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i * 13)
	}
	data[0] = 'P'

	rcv = &cmdParts{end: make(chan error, 1)}
	vm.command(0xC7, 1, data)
	if err := waitEnd(t, rcv.end); err != nil {
		t.Fatalf("CommandEnd: %v", err)
	}
	if rcv.parts < 2 || !bytes.Equal(rcv.data, data) || len(heads) != 1 || !bytes.Equal(heads[0], data[:LargeCommandHead]) {
		t.Fatalf("%d parts, %d bytes, heads %d; want 2 or more parts making the %d bytes sent, one head of %d", rcv.parts, len(rcv.data), len(heads), n, LargeCommandHead)
	}

	// Declined: whole (within MaxPacketSize), to the set's handler.
	small := bytes.Repeat([]byte{'W'}, 2*StreamMin)
	vm.command(0xC7, 1, small)
	if p := waitPacket(t, whole); !bytes.Equal(p.Data, small) {
		t.Fatalf("declined command: %d bytes whole; want %d", len(p.Data), len(small))
	}
	// Below StreamMin: whole, the handler not asked.
	vm.command(0xC7, 1, []byte("PING"))
	if p := waitPacket(t, whole); string(p.Data) != "PING" || len(heads) != 2 {
		t.Fatalf("small command %q, %d heads; want PING whole, no head", p.Data, len(heads))
	}

	// A receiver that fails: the rest is dropped, the next packet arrives.
	rcv = &cmdParts{end: make(chan error, 1), fail: 1}
	vm.command(0xC7, 1, data)
	if err := waitEnd(t, rcv.end); err == nil {
		t.Fatal("CommandEnd after a failing part: no error")
	}
	vm.command(0xC7, 1, []byte("PONG"))
	if p := waitPacket(t, whole); string(p.Data) != "PONG" || c.Err() != nil {
		t.Fatalf("after a dropped command: %q, connection %v; want PONG on a live connection", p.Data, c.Err())
	}

	// The VM dies mid-command: the receiver hears of it.
	rcv = &cmdParts{end: make(chan error, 1)}
	vm.wmu.Lock()
	vm.nc.Write((&Packet{ID: 7, CmdSet: 0xC7, Cmd: 1, Data: data}).Bytes()[:HeaderSize+n/2])
	vm.wmu.Unlock()
	vm.kill()
	if err := waitEnd(t, rcv.end); err == nil || c.Err() == nil {
		t.Fatalf("VM gone mid-command: CommandEnd(%v), connection %v; want both failed", err, c.Err())
	}
}

func waitEnd(t *testing.T, ch chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(time.Minute):
		t.Fatal("CommandEnd not called within a minute")
		return nil
	}
}

func waitPacket(t *testing.T, ch chan *Packet) *Packet {
	t.Helper()
	select {
	case p := <-ch:
		return p
	case <-time.After(time.Minute):
		t.Fatal("no command within a minute")
		return nil
	}
}
