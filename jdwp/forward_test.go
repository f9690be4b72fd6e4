package jdwp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// partsRecorder is a Receiver that keeps what it is given.
type partsRecorder struct {
	mu       sync.Mutex
	hdr      Packet
	size     int
	data     []byte
	parts    int
	first    chan struct{} // closed at the first part
	finished chan *Call
}

func newPartsRecorder() *partsRecorder {
	return &partsRecorder{first: make(chan struct{}), finished: make(chan *Call, 1)}
}

func (r *partsRecorder) ReplyPart(hdr *Packet, size, off int, part []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if off != len(r.data) {
		r.data = append(r.data, []byte("<offset mismatch>")...)
	}
	if off == 0 {
		r.hdr, r.size = *hdr, size
		close(r.first)
	}
	r.data = append(r.data, part...) // part is only valid now: copied
	r.parts++
}

func (r *partsRecorder) Finished(call *Call) { r.finished <- call }

func (r *partsRecorder) wait(t *testing.T) *Call {
	t.Helper()
	select {
	case call := <-r.finished:
		return call
	case <-time.After(time.Minute):
		t.Fatal("the forwarded call never finished")
		return nil
	}
}

// replyInTwo answers cmdEcho with a reply of n bytes written in two pieces,
// the second only once gate is closed: a VM whose reply is still on its way.
func replyInTwo(n int, code ErrorCode, gate <-chan struct{}, afterFirst func(vm *fakeVM)) fakeHandler {
	return func(vm *fakeVM, p *Packet) {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 13)
		}
		whole := (&Packet{ID: p.ID, Flags: FlagReply, Error: code, Data: data}).Bytes()
		vm.mu.Lock()
		nc := vm.nc
		vm.mu.Unlock()
		vm.wmu.Lock()
		defer vm.wmu.Unlock()
		if _, err := nc.Write(whole[:HeaderSize+1000]); err != nil {
			return
		}
		if afterFirst != nil {
			afterFirst(vm)
			return
		}
		select {
		case <-gate:
		case <-vm.quit:
			return
		}
		nc.Write(whole[HeaderSize+1000:])
	}
}

// TestForwardReplyInParts: a large reply to a forwarded command reaches the
// receiver part by part as it arrives (its first part before the VM sent
// the rest), whole and in order, with its header; Finished follows with no
// data. A small reply, and a large one to a plain command, come whole.
func TestForwardReplyInParts(t *testing.T) {
	checkLeaks(t)
	const n = 3 * StreamMin
	rec := newPartsRecorder()
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{cmdEcho: replyInTwo(n, ErrNone, rec.first, nil)}})
	c := vm.dial(t, nil)

	call, err := c.Forward(context.Background(), cmdEcho, nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.wait(t); got != call {
		t.Fatalf("Finished with another call")
	}
	if rp := call.Reply(); rp == nil || rp.Error != ErrNone || rp.Data != nil || rp.ID != call.ID {
		t.Fatalf("finished reply %+v; want the header with no data", rp)
	}
	rec.mu.Lock()
	want := make([]byte, n)
	for i := range want {
		want[i] = byte(i * 13)
	}
	if rec.parts < 2 || rec.size != n || !bytes.Equal(rec.data, want) || rec.hdr.ID != call.ID || !rec.hdr.IsReply() {
		t.Fatalf("%d parts of %d bytes (size %d), header %+v; want 2 or more parts making the %d bytes sent", rec.parts, len(rec.data), rec.size, rec.hdr, n)
	}
	rec.mu.Unlock()

	// Below StreamMin: whole, to Finished.
	vm.handle(cmdEcho, func(vm *fakeVM, p *Packet) { vm.reply(p.ID, ErrNone, make([]byte, StreamMin-1)) })
	small := newPartsRecorder()
	call, err = c.Forward(nil, cmdEcho, nil, small)
	if err != nil {
		t.Fatal(err)
	}
	c.Flush(context.Background())
	small.wait(t)
	if rp := call.Reply(); rp == nil || len(rp.Data) != StreamMin-1 || small.parts != 0 {
		t.Fatalf("small reply: %d parts, reply %v", small.parts, rp)
	}

	// A plain command's large reply comes whole.
	vm.handle(cmdEcho, func(vm *fakeVM, p *Packet) { vm.reply(p.ID, ErrNone, make([]byte, 4*StreamMin)) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if b, err := c.Command(ctx, cmdEcho.Set, cmdEcho.Cmd, nil); err != nil || len(b) != 4*StreamMin {
		t.Fatalf("Command: %d bytes, %v", len(b), err)
	}
}

// TestForwardFailsMidReply: a VM that dies in the middle of a reply in parts
// fails the call (after the parts that came) and the connection.
func TestForwardFailsMidReply(t *testing.T) {
	checkLeaks(t)
	rec := newPartsRecorder()
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		cmdEcho: replyInTwo(2*StreamMin, ErrNone, nil, func(vm *fakeVM) { vm.kill() }),
	}})
	c := vm.dial(t, nil)
	call, err := c.Forward(context.Background(), cmdEcho, nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.wait(t)
	if call.Reply() != nil || c.Err() == nil {
		t.Fatalf("reply %v, connection error %v; want a failed call and connection", call.Reply(), c.Err())
	}
	if _, err := call.Wait(context.Background()); err == nil {
		t.Fatal("Wait on a call failed mid-reply returned no error")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.data) > 1000 {
		t.Fatalf("the receiver got %d bytes; the VM sent 1000", len(rec.data))
	}
}

// TestPacketWriterParts: a packet queued in parts goes out whole, and what
// others queue meanwhile (copied, shared or raw) follows it in order;
// Buffered counts both; Flush waits for the last part.
func TestPacketWriterParts(t *testing.T) {
	a, b := tcpPair(t)
	w := NewPacketWriter(a, nil)
	done := make(chan struct{})
	defer close(done)
	go w.Run(done)

	big := make([]byte, 3000)
	for i := range big {
		big[i] = byte(i)
	}
	shared := make([]byte, SharedMin)
	w.Queue(&Packet{ID: 1, Flags: FlagReply, Data: []byte{1}})
	if !w.BeginPart(&Packet{ID: 2, Flags: FlagReply, Error: ErrInvalidObject}, len(big)) {
		t.Fatal("BeginPart refused")
	}
	if w.BeginPart(&Packet{ID: 9}, 1) {
		t.Fatal("a second BeginPart before the first packet ended was taken")
	}
	w.AppendPart(big[:1000])
	w.DrainNow()
	w.Queue(&Packet{ID: 3, Flags: FlagReply, Data: []byte{3}})
	w.QueueShared(&Packet{ID: 4, Flags: FlagReply, Data: shared})
	w.Kick()
	if got, min := w.Buffered(), 2*HeaderSize+1+SharedMin; got < min {
		t.Fatalf("Buffered %d with two packets aside; want at least %d", got, min)
	}
	var last atomic.Bool
	flushed := make(chan bool, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		ok := w.Flush(ctx)
		flushed <- ok && last.Load()
	}()
	w.AppendPart(big[1000:2000])
	last.Store(true)
	w.AppendPart(big[2000:])

	r := bufio.NewReader(b)
	for _, want := range []*Packet{
		{ID: 1, Flags: FlagReply, Data: []byte{1}},
		{ID: 2, Flags: FlagReply, Error: ErrInvalidObject, Data: big},
		{ID: 3, Flags: FlagReply, Data: []byte{3}},
		{ID: 4, Flags: FlagReply, Data: shared},
	} {
		b.SetReadDeadline(time.Now().Add(time.Minute))
		p, err := ReadPacket(r, 0)
		if err != nil {
			t.Fatalf("reading packet %d: %v", want.ID, err)
		}
		if p.ID != want.ID || p.Error != want.Error || !bytes.Equal(p.Data, want.Data) {
			t.Fatalf("packet %d (error %v, %d bytes); want %d (error %v, %d bytes)", p.ID, p.Error, len(p.Data), want.ID, want.Error, len(want.Data))
		}
	}
	select {
	case ok := <-flushed:
		if !ok {
			t.Fatal("Flush returned before the last part was queued, or failed")
		}
	case <-time.After(time.Minute):
		t.Fatal("Flush did not return")
	}
	if n := w.Buffered(); n != 0 {
		t.Fatalf("Buffered %d after Flush", n)
	}
}

// FuzzForwardReplies feeds a VM's side of a connection, cut into writes of
// the size the first byte picks, to a client with forwarded commands (ids 1
// to 4) pending. Each reply to one of them reaches its receiver exactly as
// ReadPacket reads it from the same bytes: in parts from StreamMin bytes,
// whole below; whatever the stream holds, every call finishes and nothing
// hangs or panics.
func FuzzForwardReplies(f *testing.F) {
	big := make([]byte, StreamMin+7)
	for i := range big {
		big[i] = byte(i)
	}
	f.Add(byte(100), append((&Packet{ID: 2, Flags: FlagReply, Data: big}).Bytes(), (&Packet{ID: 1, Flags: FlagReply, Error: 20}).Bytes()...))
	f.Add(byte(0), (&Packet{ID: 3, Flags: FlagReply, Data: big}).Bytes()[:StreamMin])
	f.Add(byte(7), append((&Packet{ID: 4, Flags: FlagReply, Data: []byte{1, 2}}).Bytes(), header(0x7fffffff, 1, FlagReply)...))
	f.Fuzz(func(t *testing.T, chunk byte, stream []byte) { forwardReplies(t, chunk, stream) })
}

func forwardReplies(t *testing.T, chunk byte, stream []byte) {
	const calls = 4
	// What each call should get: the first reply to its id, as ReadPacket
	// reads it, unless the stream breaks first.
	want := map[uint32]*Packet{}
	r := bytes.NewReader(stream)
	for {
		p, err := ReadPacket(r, DefaultMaxPacketSize)
		if err != nil {
			break
		}
		if p.IsReply() && p.ID >= 1 && p.ID <= calls && want[p.ID] == nil {
			want[p.ID] = p
		}
	}
	a, b := net.Pipe()
	defer b.Close()
	c := NewConn(a, nil)
	defer c.Close()
	go io.Copy(io.Discard, b) // the commands
	recs := make([]*partsRecorder, calls+1)
	for id := uint32(1); id <= calls; id++ {
		recs[id] = newPartsRecorder()
		call, err := c.Forward(nil, cmdEcho, nil, recs[id])
		if err != nil || call.ID != id {
			t.Fatalf("Forward: id %v, %v", call, err)
		}
	}
	c.out.Kick()
	step := int(chunk) + 1
	for off := 0; off < len(stream); off += step {
		if _, err := b.Write(stream[off:min(off+step, len(stream))]); err != nil {
			break // the client dropped a malformed stream
		}
	}
	b.Close()
	for id := uint32(1); id <= calls; id++ {
		rec := recs[id]
		var call *Call
		select {
		case call = <-rec.finished:
		case <-time.After(time.Minute):
			t.Fatalf("call %d never finished", id)
		}
		w, rp := want[id], call.Reply()
		rec.mu.Lock()
		switch {
		case rp == nil:
			// Failed: the stream broke before (or in) its reply.
			if w != nil && rec.parts > 0 && !bytes.Equal(rec.data, w.Data[:len(rec.data)]) {
				t.Fatalf("call %d: parts before the failure differ from the reply", id)
			}
		case w == nil:
			t.Fatalf("call %d finished with %v, which the stream does not hold", id, rp)
		case rp.Error != w.Error:
			t.Fatalf("call %d: error %v, want %v", id, rp.Error, w.Error)
		case len(w.Data) >= StreamMin:
			if rp.Data != nil || rec.size != len(w.Data) || !bytes.Equal(rec.data, w.Data) {
				t.Fatalf("call %d: %d bytes in %d parts (size %d), want the %d-byte reply in parts", id, len(rec.data), rec.parts, rec.size, len(w.Data))
			}
		default:
			if rec.parts != 0 || !bytes.Equal(rp.Data, w.Data) {
				t.Fatalf("call %d: %d parts, %d bytes whole; want the %d-byte reply whole", id, rec.parts, len(rp.Data), len(w.Data))
			}
		}
		rec.mu.Unlock()
	}
}

// TestForwardReplyBeyondMaxPacketSize: MaxPacketSize bounds what the
// connection reads whole, not a reply passed on in parts (issue 25: a
// 100 MB String made a proxy drop the VM). A forwarded reply larger than
// the bound reaches its receiver whole; the same reply to a plain command
// fails the connection with ErrPacketTooLarge.
func TestForwardReplyBeyondMaxPacketSize(t *testing.T) {
	checkLeaks(t)
	const max = 64 << 10
	const n = 5 * max
	rec := newPartsRecorder()
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{cmdEcho: func(vm *fakeVM, p *Packet) {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 13)
		}
		vm.reply(p.ID, ErrNone, data)
	}}})
	c := vm.dial(t, &Options{MaxPacketSize: max})
	if _, err := c.Forward(context.Background(), cmdEcho, nil, rec); err != nil {
		t.Fatal(err)
	}
	call := rec.wait(t)
	rec.mu.Lock()
	if call.Reply() == nil || len(rec.data) != n || rec.size != n || rec.data[n-1] != byte((n-1)*13%256) {
		t.Fatalf("forwarded reply: %d of %d bytes, reply %v; want all %d", len(rec.data), rec.size, call.Reply(), n)
	}
	rec.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.Command(ctx, cmdEcho.Set, cmdEcho.Cmd, nil); !errors.Is(err, ErrPacketTooLarge) {
		t.Fatalf("plain command with a %d-byte reply, bound %d: %v; want ErrPacketTooLarge", n, max, err)
	}
}
