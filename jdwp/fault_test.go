package jdwp

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
	"github.com/rs/zerolog"
)

// Every test here checks that a failure ends in a clear error, not a hang (all
// waits are bounded by testCtx), not a panic, and not a leaked goroutine
// (checkLeaks).

// holdOpen keeps the fake's side of the socket open, discarding what the client
// sends, until the client closes it or the test ends.
func holdOpen(vm *fakeVM, nc net.Conn) {
	go func() {
		<-vm.quit
		nc.Close()
	}()
	io.Copy(io.Discard, nc)
}

func TestHandshakePeerCloses(t *testing.T) {
	for _, n := range []int{0, 5} {
		t.Run(fmt.Sprintf("after %d bytes", n), func(t *testing.T) {
			checkLeaks(t)
			vm := startFakeVM(t, fakeConfig{Raw: func(vm *fakeVM, nc net.Conn) {
				// Read what the debugger sent first, so closing sends FIN, not RST.
				io.ReadFull(nc, make([]byte, len(HandshakeString)))
				nc.Write([]byte(HandshakeString[:n]))
			}})
			c, err := Dial(testCtx(t), vm.addr(), nil)
			if err == nil {
				c.Close()
				t.Fatal("Dial succeeded against a peer that closed during the handshake")
			}
			want := fmt.Sprintf("peer closed the connection after %d of 14 bytes", n)
			if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), vm.addr()) {
				t.Errorf("Dial error = %q; want it to name %s and say %q", err, vm.addr(), want)
			}
		})
	}
}

func TestHandshakeWrongAnswer(t *testing.T) {
	checkLeaks(t)
	vm := startFakeVM(t, fakeConfig{Raw: func(vm *fakeVM, nc net.Conn) {
		io.ReadFull(nc, make([]byte, len(HandshakeString)))
		nc.Write([]byte("SSH-2.0-Open\r\n"))
		holdOpen(vm, nc)
	}})
	c, err := Dial(testCtx(t), vm.addr(), nil)
	if err == nil {
		c.Close()
		t.Fatal("Dial succeeded against a peer that is not a JDWP VM")
	}
	if !strings.Contains(err.Error(), "not a JDWP VM") || !strings.Contains(err.Error(), `"SSH-2.0-Open\r\n"`) {
		t.Errorf("Dial error = %q; want it to quote the answer and say it is not a JDWP VM", err)
	}
}

func TestHandshakeTimeout(t *testing.T) {
	checkLeaks(t)
	silent := func(vm *fakeVM, nc net.Conn) { holdOpen(vm, nc) } // never answers

	t.Run("HandshakeTimeout", func(t *testing.T) {
		vm := startFakeVM(t, fakeConfig{Raw: silent})
		c, err := Dial(testCtx(t), vm.addr(), &Options{HandshakeTimeout: 200 * time.Millisecond})
		if err == nil {
			c.Close()
			t.Fatal("Dial succeeded against a silent peer")
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "handshake") {
			t.Errorf("Dial error = %v; want a handshake deadline error", err)
		}
	})
	t.Run("context", func(t *testing.T) {
		vm := startFakeVM(t, fakeConfig{Raw: silent})
		ctx, cancel := context.WithCancel(testCtx(t))
		time.AfterFunc(100*time.Millisecond, cancel)
		c, err := Dial(ctx, vm.addr(), nil)
		if err == nil {
			c.Close()
			t.Fatal("Dial succeeded against a silent peer")
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Dial error = %v; want context.Canceled", err)
		}
	})
}

func TestDialRefused(t *testing.T) {
	checkLeaks(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = Dial(testCtx(t), addr, nil)
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "-agentlib:jdwp") {
		t.Errorf("Dial to a closed port: %v; want a refusal that says how to start the VM", err)
	}
}

// header builds a packet header with an arbitrary length field.
func header(length, id uint32, flags byte) []byte {
	h := binary.BigEndian.AppendUint32(nil, length)
	h = binary.BigEndian.AppendUint32(h, id)
	return append(h, flags, 0, 0)
}

// TestFramingFaults: whatever breaks the framing after the handshake, the
// pending call fails promptly with a *ConnError naming the cause, Done is
// closed, and later calls fail at once with the same error.
func TestFramingFaults(t *testing.T) {
	for _, tc := range []struct {
		name   string
		send   []byte
		close  bool  // close after sending; otherwise hold the socket open
		early  bool  // send right after the handshake, before the client's command
		want   error // errors.Is target for the cause
		inText string
	}{
		{name: "garbage", send: []byte("this is not a JDWP packet\r\n"), early: true, want: ErrPacketTooLarge, inText: "exceeds"},
		{name: "truncated", send: append(header(100, 1, FlagReply), make([]byte, 20)...), close: true, want: io.ErrUnexpectedEOF, inText: "truncated packet"},
		{name: "truncated header", send: header(100, 1, FlagReply)[:7], close: true, want: io.ErrUnexpectedEOF},
		{name: "2GiB", send: header(0x80000000, 1, FlagReply), want: ErrPacketTooLarge, inText: "2147483648"},
		{name: "length below header", send: header(5, 1, FlagReply), want: ErrPacketTooShort, inText: "length field 5"},
		{name: "clean close", close: true, want: io.EOF, inText: "the VM closed the connection"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			vm := startFakeVM(t, fakeConfig{Raw: func(vm *fakeVM, nc net.Conn) {
				if err := vmHandshake(nc); err != nil {
					return
				}
				if !tc.early {
					if _, err := ReadPacket(nc, 0); err != nil {
						return
					}
				}
				nc.Write(tc.send)
				if !tc.close {
					holdOpen(vm, nc)
				}
			}})
			c := vm.dial(t, nil)
			ctx := testCtx(t)
			if tc.early {
				select {
				case <-c.Done():
				case <-ctx.Done():
					t.Fatal("connection not failed after garbage")
				}
			}
			_, err := c.Command(ctx, cmdEcho.Set, cmdEcho.Cmd, []byte("hello"))
			var ce *ConnError
			if !errors.As(err, &ce) || !errors.Is(err, tc.want) {
				t.Fatalf("call error = %v; want a *ConnError caused by %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), vm.addr()) || !strings.Contains(err.Error(), tc.inText) {
				t.Errorf("call error %q: want it to name %s and say %q", err, vm.addr(), tc.inText)
			}
			select {
			case <-c.Done():
			case <-ctx.Done():
				t.Fatal("Done not closed")
			}
			if !errors.Is(c.Err(), tc.want) {
				t.Errorf("Err() = %v; want cause %v", c.Err(), tc.want)
			}
			if _, err := c.Start(cmdEcho, nil); !errors.As(err, &ce) {
				t.Errorf("Start after failure = %v; want the *ConnError", err)
			}
		})
	}
}

// TestReadPacketHugeLength: a length field of 2 GiB is rejected from the header
// alone, before anything is read or allocated for the data.
func TestReadPacketHugeLength(t *testing.T) {
	data := &countingReader{r: neverEnding('x')}
	r := io.MultiReader(strings.NewReader(string(header(0x80000000, 7, 0))), data)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p, err := ReadPacket(r, 0)
	runtime.ReadMemStats(&after)
	if p != nil || !errors.Is(err, ErrPacketTooLarge) {
		t.Fatalf("ReadPacket = %v, %v; want ErrPacketTooLarge", p, err)
	}
	if data.n != 0 {
		t.Errorf("ReadPacket read %d data bytes of a packet it rejects", data.n)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("ReadPacket allocated %d bytes rejecting a 2 GiB packet", n)
	}
	// A configured bound is honoured too.
	if _, err := ReadPacket(strings.NewReader(string(header(HeaderSize+101, 1, 0))), 111); !errors.Is(err, ErrPacketTooLarge) {
		t.Errorf("ReadPacket with max 111 of a 112-byte packet: %v; want ErrPacketTooLarge", err)
	}
}

type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestVMDiesWithCallsInFlight: the VM dies with 50 calls waiting; each fails
// promptly with a *ConnError and Done is closed.
func TestVMDiesWithCallsInFlight(t *testing.T) {
	checkLeaks(t)
	const calls = 50
	n := 0
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		cmdEcho: func(vm *fakeVM, p *Packet) {
			if n++; n == calls {
				vm.kill()
			}
		},
	}})
	c := vm.dial(t, nil)
	ctx := testCtx(t)
	errs := make(chan error, calls)
	for range calls {
		go func() {
			_, err := c.Command(ctx, cmdEcho.Set, cmdEcho.Cmd, nil)
			errs <- err
		}()
	}
	for range calls {
		err := <-errs
		var ce *ConnError
		if !errors.As(err, &ce) || ce.Addr != vm.addr() || !strings.Contains(err.Error(), "jdwp connection to "+vm.addr()+" lost") {
			t.Fatalf("call error = %v; want a *ConnError saying the connection to %s was lost", err, vm.addr())
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call error = %v: the call waited for its deadline instead of failing with the connection", err)
		}
	}
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("Done not closed")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) != 0 {
		t.Errorf("%d calls left pending", len(c.pending))
	}
}

// TestCloseWithPendingCalls: Close fails every pending call with ErrClosed.
func TestCloseWithPendingCalls(t *testing.T) {
	checkLeaks(t)
	const calls = 20
	arrived := make(chan struct{}, calls)
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		cmdEcho: func(vm *fakeVM, p *Packet) { arrived <- struct{}{} }, // never answered
	}})
	c := vm.dial(t, nil)
	ctx := testCtx(t)
	errs := make(chan error, calls)
	for range calls {
		go func() {
			_, err := c.Command(ctx, cmdEcho.Set, cmdEcho.Cmd, nil)
			errs <- err
		}()
	}
	for range calls {
		<-arrived
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	for range calls {
		if err := <-errs; !errors.Is(err, ErrClosed) || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("pending call after Close: %v; want ErrClosed", err)
		}
	}
	<-c.Done()
	if !errors.Is(c.Err(), ErrClosed) {
		t.Errorf("Err() = %v; want ErrClosed", c.Err())
	}
	if _, err := c.Command(ctx, cmdEcho.Set, cmdEcho.Cmd, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: %v; want ErrClosed", err)
	}
	if err := c.Reply(1, ErrNone, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Reply after Close: %v; want ErrClosed", err)
	}
	c.Close() // idempotent
}

// TestCancelOneCall: cancelling one call returns at once, leaves the others
// waiting, and its late reply is discarded without disturbing the connection.
func TestCancelOneCall(t *testing.T) {
	checkLeaks(t)
	held := make(chan *Packet, 2)
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		cmdEcho: func(vm *fakeVM, p *Packet) { held <- p },
	}})
	var logs lockedbuf.Buffer
	c := vm.dial(t, &Options{Logger: zerolog.New(&logs)})
	ctx := testCtx(t)

	cctx, cancel := context.WithCancel(ctx)
	cancelled := make(chan error, 1)
	go func() {
		_, err := c.Command(cctx, cmdEcho.Set, cmdEcho.Cmd, []byte("A"))
		cancelled <- err
	}()
	other := make(chan []byte, 1)
	go func() {
		b, err := c.Command(ctx, cmdEcho.Set, cmdEcho.Cmd, []byte("B"))
		if err != nil {
			t.Errorf("uncancelled call: %v", err)
		}
		other <- b
	}()
	p1, p2 := <-held, <-held
	if string(p1.Data) == "B" {
		p1, p2 = p2, p1
	}
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), CommandName(cmdEcho.Set, cmdEcho.Cmd)) {
		t.Errorf("cancelled call: %v; want context.Canceled naming the command", err)
	}
	waitFor(t, "the cancelled call to be forgotten", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.pending[p1.ID] == nil
	})
	select {
	case <-other:
		t.Fatal("the other call returned before its reply was sent")
	default:
	}
	vm.reply(p1.ID, ErrNone, []byte("late A")) // discarded
	vm.reply(p2.ID, ErrNone, []byte("B"))
	if b := <-other; string(b) != "B" {
		t.Errorf("other call got %q; want B", b)
	}
	if !strings.Contains(logs.String(), "reply to no pending command") {
		t.Errorf("late reply not logged as dropped; logs:\n%s", logs.String())
	}
	// The connection is still healthy.
	vm.handle(cmdEcho, func(vm *fakeVM, p *Packet) { vm.reply(p.ID, ErrNone, p.Data) })
	if b, err := c.Command(ctx, cmdEcho.Set, cmdEcho.Cmd, []byte("C")); err != nil || string(b) != "C" || c.Err() != nil {
		t.Errorf("call after a discarded reply = %q, %v (conn err %v)", b, err, c.Err())
	}
}

// TestRequestTimeout: Options.RequestTimeout bounds calls whose context has no
// deadline, and the connection survives a timed-out call.
func TestRequestTimeout(t *testing.T) {
	checkLeaks(t)
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		cmdEcho: func(vm *fakeVM, p *Packet) {}, // never answered
	}})
	c := vm.dial(t, &Options{RequestTimeout: 100 * time.Millisecond})
	_, err := c.Command(context.Background(), cmdEcho.Set, cmdEcho.Cmd, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("unanswered call with RequestTimeout: %v; want DeadlineExceeded", err)
	}
	if _, err := c.IDSizes(testCtx(t)); err != nil {
		t.Errorf("call after a timeout: %v", err)
	}
}

// TestErrorReplies: JDWP error replies and malformed replies fail only their
// own call, with the command named and the code testable.
func TestErrorReplies(t *testing.T) {
	checkLeaks(t)
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		{SetThreadReference, 1}: answer(func(r *Reader, w *Writer) ErrorCode { r.ObjectID(); return ErrInvalidThread }),
		CmdVMAllThreads: answer(func(r *Reader, w *Writer) ErrorCode {
			w.Int32(1000) // a count with no ids behind it
			w.ObjectID(1)
			return ErrNone
		}),
		CmdVMVersion: answer(func(r *Reader, w *Writer) ErrorCode {
			w.Int32(-1) // a negative string length
			return ErrNone
		}),
	}})
	c := vm.dial(t, nil)
	ctx := testCtx(t)

	_, err := c.ThreadName(ctx, 1)
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Command != "ThreadReference.Name" || ce.Code != ErrInvalidThread ||
		!errors.Is(err, ErrInvalidThread) || Code(err) != ErrInvalidThread {
		t.Errorf("ThreadName error = %#v; want a *CommandError for ThreadReference.Name with INVALID_THREAD", err)
	}
	if _, err := c.AllThreads(ctx); !errors.Is(err, ErrShortData) || !strings.Contains(err.Error(), "VirtualMachine.AllThreads: bad reply") {
		t.Errorf("AllThreads with a corrupt count: %v; want a bad reply error", err)
	}
	if _, err := c.Version(ctx); err == nil || !strings.Contains(err.Error(), "negative string length") {
		t.Errorf("Version with a negative string length: %v", err)
	}
	if c.Err() != nil {
		t.Errorf("bad replies broke the connection: %v", c.Err())
	}
}

// TestSubscriptionDrainsThenDisconnects: sets still queued when the VM goes
// away are delivered in order, then one VM_DISCONNECTED set, then C closes.
func TestSubscriptionDrainsThenDisconnects(t *testing.T) {
	checkLeaks(t)
	vm := startFakeVM(t, fakeConfig{})
	c := vm.dial(t, nil)
	ctx := testCtx(t)
	if _, err := c.IDSizes(ctx); err != nil {
		t.Fatal(err)
	}
	sub := c.Subscribe()
	for i := range 3 {
		vm.sendEvents(&EventSet{SuspendPolicy: SuspendNone, Events: []Event{{Kind: EventThreadStart, RequestID: int32(i + 1), Thread: ThreadID(100 + i)}}})
	}
	vm.sendEvents(&EventSet{SuspendPolicy: SuspendNone, Events: []Event{{Kind: EventVMDeath}}})
	vm.kill()
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("connection not closed after the VM died")
	}
	var got []Event
	for es := range sub.C {
		if len(es.Events) != 1 {
			t.Fatalf("set with %d events: %+v", len(es.Events), es.Events)
		}
		got = append(got, es.Events[0])
	}
	want := []Event{
		{Kind: EventThreadStart, RequestID: 1, Thread: 100},
		{Kind: EventThreadStart, RequestID: 2, Thread: 101},
		{Kind: EventThreadStart, RequestID: 3, Thread: 102},
		{Kind: EventVMDeath},
		{Kind: EventVMDisconnected},
	}
	if !slices.Equal(got, want) {
		t.Errorf("delivered %v\nwant %v", kinds(got), kinds(want))
	}

	// A subscription made after the end gets exactly the disconnect, then C closes.
	got = got[:0]
	for es := range c.Subscribe().C {
		got = append(got, es.Events...)
	}
	if want := []Event{{Kind: EventVMDisconnected}}; !slices.Equal(got, want) {
		t.Errorf("late subscriber got %v; want one VM_DISCONNECTED set", kinds(got))
	}
}

// TestSubscriptionCloseWithoutDraining: a subscriber that closes its
// subscription and stops reading must not leave the pump goroutine behind.
func TestSubscriptionCloseWithoutDraining(t *testing.T) {
	checkLeaks(t)
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		cmdEcho: func(vm *fakeVM, p *Packet) {
			// Events first, so the client has queued them when the reply arrives.
			for i := range 3 {
				vm.sendEvents(&EventSet{Events: []Event{{Kind: EventThreadDeath, RequestID: int32(i), Thread: 1}}})
			}
			vm.reply(p.ID, ErrNone, nil)
		},
	}})
	c := vm.dial(t, &Options{IDSizes: &fakeSizes})
	sub := c.Subscribe()
	other := c.Subscribe()
	if _, err := c.Command(testCtx(t), cmdEcho.Set, cmdEcho.Cmd, nil); err != nil {
		t.Fatal(err)
	}
	sub.Close() // never read
	sub.Close() // idempotent
	// The other subscriber is unaffected.
	for i := range 3 {
		if es := <-other.C; es.Events[0].RequestID != int32(i) {
			t.Errorf("other subscriber: set %d has request %d", i, es.Events[0].RequestID)
		}
	}
	other.Close()
}

// TestConcurrentCloseAndCalls races Close against calls, events and handler
// registration; run with -race it checks the connection's locking.
func TestConcurrentCloseAndCalls(t *testing.T) {
	checkLeaks(t)
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		cmdEcho: func(vm *fakeVM, p *Packet) {
			vm.sendEvents(&EventSet{Events: []Event{{Kind: EventThreadStart, Thread: 1}}})
			vm.reply(p.ID, ErrNone, p.Data)
		},
	}})
	c := vm.dial(t, nil)
	ctx := testCtx(t)
	sub := c.Subscribe()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; ; j++ {
				_, err := c.Command(ctx, cmdEcho.Set, cmdEcho.Cmd, []byte{byte(i), byte(j)})
				if err != nil {
					if !errors.Is(err, ErrClosed) {
						t.Errorf("call racing Close: %v; want ErrClosed", err)
					}
					return
				}
				if j == 5 {
					c.HandleCommandSet(SetDDM, func(*Conn, *Packet) {})
				}
			}
		}()
	}
	n := 0
	for es := range sub.C {
		if n++; n == 50 {
			c.Close()
		}
		if es.Events[0].Kind == EventVMDisconnected {
			break
		}
	}
	wg.Wait()
	for range sub.C {
	}
}

func kinds(es []Event) []EventKind {
	var out []EventKind
	for _, e := range es {
		out = append(out, e.Kind)
	}
	return out
}

// TestAccept covers the debugger-listens direction (a VM started with
// server=n): a VM that attaches is handshaken; none attaching ends with the
// context, and no goroutine outlives the listener.
func TestAccept(t *testing.T) {
	checkLeaks(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx := testCtx(t)

	vmDone := make(chan error, 1)
	go func() {
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			vmDone <- err
			return
		}
		defer nc.Close()
		if err := vmHandshake(nc); err != nil {
			vmDone <- err
			return
		}
		_, err = io.Copy(io.Discard, nc) // until the debugger closes
		vmDone <- err
	}()
	c, err := Accept(ctx, ln, nil)
	if err != nil {
		t.Fatalf("Accept: %v", err)
	}
	c.Close()
	if err := <-vmDone; err != nil {
		t.Errorf("VM side: %v", err)
	}

	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := Accept(short, ln, nil); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no VM attached") {
		t.Errorf("Accept with no VM: %v; want a deadline error saying no VM attached", err)
	}
}

// TestBadIDSizesReply: id sizes outside 1..8 are refused, not used to decode.
func TestBadIDSizesReply(t *testing.T) {
	checkLeaks(t)
	vm := startFakeVM(t, fakeConfig{Sizes: IDSizes{8, 8, 16, 8, 8}})
	c := vm.dial(t, nil)
	if _, err := c.AllThreads(testCtx(t)); err == nil || !strings.Contains(err.Error(), "objectID size 16 outside 1..8") {
		t.Errorf("call on a VM reporting 16-byte object ids: %v", err)
	}
	if err := c.SetIDSizes(IDSizes{8, 8, 0, 8, 8}); err == nil {
		t.Error("SetIDSizes accepted a 0-byte object id")
	}
}

// TestVMStopsReading: a VM that stops reading its socket makes writes block.
// A call must still return when its context ends, and the packet it was
// writing must reach the VM whole once the VM reads again, so the stream stays
// in step.
func TestVMStopsReading(t *testing.T) {
	checkLeaks(t)
	const size = 24 << 20 // well beyond the loopback socket buffers
	resume := make(chan struct{})
	var resumeOnce sync.Once
	resumeVM := func() { resumeOnce.Do(func() { close(resume) }) }
	t.Cleanup(resumeVM)
	bigOK := make(chan bool, 1)
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		{0x70, 2}: func(vm *fakeVM, p *Packet) { // stall: stop reading until resumed
			select {
			case <-resume:
			case <-vm.quit:
			}
			vm.reply(p.ID, ErrNone, nil)
		},
		cmdEcho: func(vm *fakeVM, p *Packet) {
			if len(p.Data) == size {
				ok := true
				for i, b := range p.Data {
					if b != byte(i%251) {
						ok = false
						break
					}
				}
				bigOK <- ok
				p.Data = nil
			}
			vm.reply(p.ID, ErrNone, p.Data)
		},
	}})
	c := vm.dial(t, nil)
	if _, err := c.Start(Cmd{0x70, 2}, nil); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, size)
	for i := range big {
		big[i] = byte(i % 251)
	}
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err := c.Command(ctx, cmdEcho.Set, cmdEcho.Cmd, big)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("call to a VM that stopped reading: %v; want DeadlineExceeded", err)
		}
	case <-time.After(time.Minute):
		t.Errorf("call blocked in a write past its 300ms deadline")
		resumeVM()
		<-done
	}
	resumeVM()
	select {
	case ok := <-bigOK:
		if !ok {
			t.Error("the VM received the abandoned packet corrupted")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the abandoned packet never reached the VM")
	}
	if b, err := c.Command(testCtx(t), cmdEcho.Set, cmdEcho.Cmd, []byte("after")); err != nil || string(b) != "after" {
		t.Errorf("call after the VM resumed reading = %q, %v", b, err)
	}
}
