package jdwp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// This file holds a small in-process stand-in for the VM side of a JDWP
// connection. No real VM can be told to misbehave on cue (die mid-request, send
// garbage, use 1-byte frame ids), so the fault and codec-width tests use this.
// Tests against a real HotSpot VM live with jvmtest.

// fakeSizes are deliberately unlike HotSpot's all-8 sizes, and all different,
// so a client that encodes or decodes one id kind at another kind's width fails.
var fakeSizes = IDSizes{FieldID: 5, MethodID: 3, ObjectID: 4, ReferenceTypeID: 2, FrameID: 1}

// fakeHandler answers one command the client sent. It runs on the fake's
// reader goroutine, so commands are handled one at a time in arrival order; it
// may answer later (or never) by keeping the packet.
type fakeHandler func(vm *fakeVM, cmd *Packet)

// fakeConfig configures a fake VM.
type fakeConfig struct {
	// Sizes is the VirtualMachine.IDSizes reply; the zero value means fakeSizes.
	Sizes IDSizes
	// Handlers answer commands by (set, command). VirtualMachine.IDSizes has a
	// default handler; commands without one get NOT_IMPLEMENTED.
	Handlers map[Cmd]fakeHandler
	// Raw, if set, replaces the handshake and packet loop: it gets the accepted
	// socket and does whatever the test needs. It must return once vm.quit is
	// closed or the socket fails.
	Raw func(vm *fakeVM, nc net.Conn)
}

// fakeVM is a listening fake VM that serves one debugger connection.
type fakeVM struct {
	t     testing.TB
	ln    net.Listener
	sizes IDSizes

	mu       sync.Mutex
	handlers map[Cmd]fakeHandler
	nc       net.Conn

	wmu    sync.Mutex // serializes writes to nc
	nextID atomic.Uint32

	// replies receives the client's replies to VM-initiated commands.
	replies chan *Packet
	// quit is closed at cleanup; handlers and Raw functions that wait must watch it.
	quit   chan struct{}
	served chan struct{} // closed when the serving goroutine ends
}

// startFakeVM starts a fake VM on 127.0.0.1:0. It is stopped, and its goroutine
// waited for, at test cleanup.
func startFakeVM(t testing.TB, cfg fakeConfig) *fakeVM {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fake VM: listen: %v", err)
	}
	vm := &fakeVM{
		t:        t,
		ln:       ln,
		sizes:    cfg.Sizes,
		handlers: map[Cmd]fakeHandler{CmdVMIDSizes: replyIDSizes},
		replies:  make(chan *Packet, 64),
		quit:     make(chan struct{}),
		served:   make(chan struct{}),
	}
	if vm.sizes == (IDSizes{}) {
		vm.sizes = fakeSizes
	}
	vm.nextID.Store(0x40000000) // VM-initiated ids, well apart from the client's
	for k, h := range cfg.Handlers {
		vm.handlers[k] = h
	}
	go vm.serve(cfg.Raw)
	t.Cleanup(vm.stop)
	return vm
}

func (vm *fakeVM) addr() string { return vm.ln.Addr().String() }

func (vm *fakeVM) stop() {
	select {
	case <-vm.quit:
		return
	default:
	}
	close(vm.quit)
	vm.ln.Close()
	vm.kill()
	select {
	case <-vm.served:
	case <-time.After(5 * time.Second):
		vm.t.Errorf("fake VM: serving goroutine did not stop")
	}
}

// kill closes the debugger connection, as a VM that dies does.
func (vm *fakeVM) kill() {
	vm.mu.Lock()
	nc := vm.nc
	vm.mu.Unlock()
	if nc != nil {
		nc.Close()
	}
}

// handle sets (or replaces) the handler of a command.
func (vm *fakeVM) handle(cmd Cmd, h fakeHandler) {
	vm.mu.Lock()
	vm.handlers[cmd] = h
	vm.mu.Unlock()
}

func (vm *fakeVM) serve(raw func(*fakeVM, net.Conn)) {
	defer close(vm.served)
	nc, err := vm.ln.Accept()
	if err != nil {
		return // stopped before anyone attached
	}
	vm.mu.Lock()
	vm.nc = nc
	vm.mu.Unlock()
	defer nc.Close()
	select {
	case <-vm.quit: // stop ran before nc was visible to kill
		return
	default:
	}
	if raw != nil {
		raw(vm, nc)
		return
	}
	if err := vmHandshake(nc); err != nil {
		vm.t.Errorf("fake VM: %v", err)
		return
	}
	r := bufio.NewReader(nc)
	for {
		p, err := ReadPacket(r, 0)
		if errors.Is(err, ErrPacketTooLarge) || errors.Is(err, ErrPacketTooShort) {
			vm.t.Errorf("fake VM: the client sent a malformed packet: %v", err)
		}
		if err != nil {
			return
		}
		if p.IsReply() {
			select {
			case vm.replies <- p:
			default:
				vm.t.Errorf("fake VM: reply queue full, dropped %v", p)
			}
			continue
		}
		vm.mu.Lock()
		h := vm.handlers[Cmd{p.CmdSet, p.Cmd}]
		vm.mu.Unlock()
		if h == nil {
			vm.reply(p.ID, ErrNotImplemented, nil)
			continue
		}
		h(vm, p)
	}
}

// vmHandshake does the VM side of the handshake: read the debugger's string, echo it.
func vmHandshake(nc net.Conn) error {
	buf := make([]byte, len(HandshakeString))
	if _, err := io.ReadFull(nc, buf); err != nil {
		return err
	}
	if string(buf) != HandshakeString {
		return fmt.Errorf("debugger sent handshake %q", buf)
	}
	_, err := io.WriteString(nc, HandshakeString)
	return err
}

// send writes a packet to the client; errors mean the connection is gone, which
// the tests that cause that expect.
func (vm *fakeVM) send(p *Packet) error {
	vm.mu.Lock()
	nc := vm.nc
	vm.mu.Unlock()
	vm.wmu.Lock()
	defer vm.wmu.Unlock()
	return WritePacket(nc, p)
}

// reply answers a command of the client.
func (vm *fakeVM) reply(id uint32, code ErrorCode, data []byte) error {
	return vm.send(&Packet{ID: id, Flags: FlagReply, Error: code, Data: data})
}

// command sends a VM-initiated command and returns its id. A send error means
// the client is gone, which tests that care see as a missing reply or event.
func (vm *fakeVM) command(set, cmd byte, data []byte) uint32 {
	id := vm.nextID.Add(1)
	vm.send(&Packet{ID: id, CmdSet: set, Cmd: cmd, Data: data})
	return id
}

// sendEvents sends an Event.Composite packet encoded with the fake's id sizes.
func (vm *fakeVM) sendEvents(es *EventSet) uint32 {
	return vm.command(SetEvent, 100, EncodeEventSet(es, &vm.sizes))
}

// nextReply waits for the client's reply to a VM-initiated command.
func (vm *fakeVM) nextReply(t testing.TB) *Packet {
	t.Helper()
	select {
	case p := <-vm.replies:
		return p
	case <-time.After(5 * time.Second):
		t.Fatalf("fake VM: no reply from the client within 5s")
		return nil
	}
}

// answer adapts a function that decodes the command with r and encodes the
// reply with w, both at the fake's id sizes. A command the function does not
// read to the end, or reads past the end, is a client encoding error.
func answer(fn func(r *Reader, w *Writer) ErrorCode) fakeHandler {
	return func(vm *fakeVM, cmd *Packet) {
		r := NewReader(cmd.Data, &vm.sizes)
		w := NewWriter(&vm.sizes)
		code := fn(r, w)
		if r.Err() != nil || (code == ErrNone && r.Remaining() != 0) {
			vm.t.Errorf("fake VM: %s: command data % x decoded badly (err %v, %d bytes left)",
				CommandName(cmd.CmdSet, cmd.Cmd), cmd.Data, r.Err(), r.Remaining())
			code = ErrIllegalArgument
		}
		if code != ErrNone {
			w.Buf = nil
		}
		vm.reply(cmd.ID, code, w.Bytes())
	}
}

func replyIDSizes(vm *fakeVM, cmd *Packet) {
	w := NewWriter(nil)
	for _, n := range []int{vm.sizes.FieldID, vm.sizes.MethodID, vm.sizes.ObjectID, vm.sizes.ReferenceTypeID, vm.sizes.FrameID} {
		w.Int32(int32(n))
	}
	vm.reply(cmd.ID, ErrNone, w.Bytes())
}

// dial attaches a client to the fake; the client is closed at cleanup, before
// the fake stops.
func (vm *fakeVM) dial(t testing.TB, opts *Options) *Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, vm.addr(), opts)
	if err != nil {
		t.Fatalf("Dial fake VM: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// testCtx is a context bounded well under the test timeout, so a hang fails the
// test instead of stalling the run.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// checkLeaks fails the test when goroutines it started outlive it. Call it
// first, so that its cleanup runs last: after the client is closed and the fake
// VM has stopped. Goroutines are told apart by id, so stragglers of an earlier
// test that exit during this one cannot hide a leak.
func checkLeaks(t *testing.T) {
	t.Helper()
	before := goroutines()
	t.Cleanup(func() {
		deadline := time.Now().Add(3 * time.Second)
		for {
			var leaked []string
			for id, stack := range goroutines() {
				if _, ok := before[id]; !ok {
					leaked = append(leaked, stack)
				}
			}
			if len(leaked) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d goroutines leaked:\n\n%s", len(leaked), strings.Join(leaked, "\n\n"))
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

// goroutines returns the stack of every goroutine, by goroutine id.
func goroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	m := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if f := strings.Fields(g); len(f) > 1 && f[0] == "goroutine" {
			m[f[1]] = g
		}
	}
	return m
}

// waitFor polls cond until it holds or a minute passes: generous, so that a
// loaded machine only makes the test slower, never red.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestFakeVMIDWidths drives typed calls through a VM whose ids are 4/2/3/5/1
// bytes wide: every argument the client encodes and every id it decodes must
// use the width of its kind.
func TestFakeVMIDWidths(t *testing.T) {
	checkLeaks(t)
	threads := []ThreadID{1, 0xDEADBEEF, 0x7FFFFFFF}
	frames := []Frame{
		{ID: 0x01, Location: Location{TypeTag: TypeTagClass, Class: 0xBEEF, Method: 0xABCDEF, Index: 7}},
		{ID: 0xFF, Location: Location{TypeTag: TypeTagInterface, Class: 0x0102, Method: 0x030405, Index: 0xFFFFFFFFFFFFFFFF}},
	}
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		CmdVMAllThreads: answer(func(r *Reader, w *Writer) ErrorCode {
			w.Int32(int32(len(threads)))
			for _, id := range threads {
				w.ObjectID(id)
			}
			return ErrNone
		}),
		{SetThreadReference, 1}: answer(func(r *Reader, w *Writer) ErrorCode {
			switch r.ObjectID() {
			case 0xDEADBEEF:
				w.String("main")
			case 0x7FFFFFFF:
				w.String("Reference Handler")
			default:
				return ErrInvalidThread
			}
			return ErrNone
		}),
		{SetThreadReference, 6}: answer(func(r *Reader, w *Writer) ErrorCode {
			if t, start, n := r.ObjectID(), r.Int32(), r.Int32(); t != 0xDEADBEEF || start != 0 || n != -1 {
				return ErrIllegalArgument
			}
			w.Int32(int32(len(frames)))
			for _, f := range frames {
				w.FrameID(f.ID)
				w.Location(f.Location)
			}
			return ErrNone
		}),
		{SetStackFrame, 1}: answer(func(r *Reader, w *Writer) ErrorCode {
			if r.ObjectID() != 0xDEADBEEF || r.FrameID() != 0xFF {
				return ErrInvalidFrameID
			}
			n := r.Count(5)
			w.Int32(int32(n))
			for range n {
				slot, tag := r.Int32(), Tag(r.Byte())
				switch tag {
				case TagInt:
					w.Value(IntValue(slot * 10))
				case TagObject:
					w.Value(ObjectValue(0xCAFEF00D))
				default:
					return ErrInvalidTag
				}
			}
			return ErrNone
		}),
		{SetObjectReference, 2}: answer(func(r *Reader, w *Writer) ErrorCode {
			if r.ObjectID() != 0xCAFEF00D {
				return ErrInvalidObject
			}
			n := r.Count(5)
			w.Int32(int32(n))
			for range n {
				w.Value(LongValue(int64(r.FieldID())))
			}
			return ErrNone
		}),
		{SetEventRequest, 1}: answer(func(r *Reader, w *Writer) ErrorCode {
			kind, _, n := EventKind(r.Byte()), r.Byte(), r.Count(1)
			if kind != EventBreakpoint || n != 1 || r.Byte() != 7 {
				return ErrIllegalArgument
			}
			if l := r.Location(); l != frames[0].Location {
				return ErrInvalidLocation
			}
			w.Int32(42)
			return ErrNone
		}),
	}})
	c := vm.dial(t, nil)
	ctx := testCtx(t)

	sizes, err := c.IDSizes(ctx)
	if err != nil || sizes != fakeSizes {
		t.Fatalf("IDSizes = %+v, %v; want %+v", sizes, err, fakeSizes)
	}
	got, err := c.AllThreads(ctx)
	if err != nil || !slices.Equal(got, threads) {
		t.Fatalf("AllThreads = %x, %v; want %x", got, err, threads)
	}
	if name, err := c.ThreadName(ctx, 0xDEADBEEF); err != nil || name != "main" {
		t.Errorf("ThreadName(0xDEADBEEF) = %q, %v", name, err)
	}
	if _, err := c.ThreadName(ctx, 5); Code(err) != ErrInvalidThread {
		t.Errorf("ThreadName(5) error = %v; want INVALID_THREAD", err)
	}
	fs, err := c.Frames(ctx, 0xDEADBEEF, 0, -1)
	if err != nil || !slices.Equal(fs, frames) {
		t.Fatalf("Frames = %+v, %v; want %+v", fs, err, frames)
	}
	vals, err := c.FrameValues(ctx, 0xDEADBEEF, 0xFF, []SlotRequest{{1, TagInt}, {2, TagObject}})
	if want := []Value{IntValue(10), ObjectValue(0xCAFEF00D)}; err != nil || !slices.Equal(vals, want) {
		t.Errorf("FrameValues = %v, %v; want %v", vals, err, want)
	}
	vals, err = c.FieldValues(ctx, 0xCAFEF00D, []FieldID{0xFFFFFFFFFF, 3})
	if want := []Value{LongValue(0xFFFFFFFFFF), LongValue(3)}; err != nil || !slices.Equal(vals, want) {
		t.Errorf("FieldValues = %v, %v; want %v", vals, err, want)
	}
	if id, err := c.SetRequest(ctx, EventBreakpoint, SuspendAll, LocationOnly(frames[0].Location)); err != nil || id != 42 {
		t.Errorf("SetRequest = %d, %v; want 42", id, err)
	}
}

// TestFakeVMEvents checks composite events at the fake's widths, including one
// sent before the client knows the id sizes (it must ask, then decode in order).
func TestFakeVMEvents(t *testing.T) {
	checkLeaks(t)
	vm := startFakeVM(t, fakeConfig{})
	c := vm.dial(t, nil)
	sub := c.Subscribe()
	defer sub.Close()

	sets := []*EventSet{
		{SuspendPolicy: SuspendAll, Events: []Event{{Kind: EventVMStart, Thread: 0xFFFFFFFE}}},
		{SuspendPolicy: SuspendEventThread, Events: []Event{
			{Kind: EventBreakpoint, RequestID: 3, Thread: 0x01020304, Location: Location{TypeTagClass, 0xFFFE, 0xFFFFFD, 12}},
			{Kind: EventClassPrepare, RequestID: 4, Thread: 0x01020304, TypeTag: TypeTagClass, RefType: 0x1234, Signature: "LHello;", Status: ClassVerified | ClassPrepared},
		}},
		{SuspendPolicy: SuspendNone, Events: []Event{
			{Kind: EventFieldModification, RequestID: 5, Thread: 9, Location: Location{TypeTagClass, 1, 2, 3}, TypeTag: TypeTagClass, RefType: 0x00FF,
				Field: 0xFFFFFFFFFF, Object: TaggedObjectID{TagObject, 0xAABBCCDD}, Value: ObjectValue(0x11223344)},
			{Kind: EventMonitorWait, RequestID: 6, Thread: 9, Object: TaggedObjectID{TagObject, 7}, Location: Location{TypeTagClass, 1, 2, 3}, Timeout: 1500},
		}},
	}
	for _, es := range sets {
		vm.sendEvents(es)
	}
	ctx := testCtx(t)
	for i, want := range sets {
		select {
		case got := <-sub.C:
			if got.Err != nil {
				t.Fatalf("set %d: %v", i, got.Err)
			}
			if got.SuspendPolicy != want.SuspendPolicy || !slices.Equal(got.Events, want.Events) {
				t.Errorf("set %d = %+v\nwant %+v", i, got.Events, want.Events)
			}
			if got.Packet == nil || got.Packet.CmdSet != SetEvent {
				t.Errorf("set %d: Packet = %v", i, got.Packet)
			}
		case <-ctx.Done():
			t.Fatalf("set %d not delivered", i)
		}
	}
}

// TestFakeVMVendorCommands: a VM-initiated command of a set nobody handles is
// answered NOT_IMPLEMENTED (the VM must never wait forever); once a handler is
// registered it gets the packet, id and all, and its Reply reaches the VM.
func TestFakeVMVendorCommands(t *testing.T) {
	checkLeaks(t)
	vm := startFakeVM(t, fakeConfig{})
	c := vm.dial(t, nil)

	id := vm.command(SetDDM, 1, []byte("HELO\x00\x00\x00\x04\x00\x00\x00\x01"))
	p := vm.nextReply(t)
	if p.ID != id || p.Error != ErrNotImplemented || len(p.Data) != 0 {
		t.Fatalf("reply to unhandled DDM command = %v; want id=%d NOT_IMPLEMENTED", p, id)
	}

	got := make(chan Packet, 1)
	c.HandleCommandSet(SetDDM, func(c *Conn, p *Packet) {
		got <- *p
		c.Reply(p.ID, ErrNone, append([]byte("ack:"), p.Data...))
	})
	id = vm.command(SetDDM, 1, []byte("HELO"))
	select {
	case p := <-got:
		if p.ID != id || p.CmdSet != SetDDM || p.Cmd != 1 || string(p.Data) != "HELO" {
			t.Errorf("handler got %v %q; want id=%d DDM.Chunk HELO", &p, p.Data, id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("handler not called")
	}
	p = vm.nextReply(t)
	if p.ID != id || p.Error != ErrNone || string(p.Data) != "ack:HELO" {
		t.Errorf("handler's reply = %v %q; want id=%d ack:HELO", p, p.Data, id)
	}

	// Other sets still get NOT_IMPLEMENTED, and the connection stays healthy.
	id = vm.command(0xC8, 2, nil)
	if p := vm.nextReply(t); p.ID != id || p.Error != ErrNotImplemented {
		t.Errorf("reply to set 0xC8 = %v; want NOT_IMPLEMENTED", p)
	}
	if _, err := c.IDSizes(testCtx(t)); err != nil || c.Err() != nil {
		t.Errorf("connection unhealthy after vendor commands: %v, %v", err, c.Err())
	}
}

// TestVendorCommandsNeedAllow: a command outside the standard ranges (DDM's
// set 0xC7, any set or command byte of 0x80 and up, command 0) is refused
// with nothing sent until the VM has been identified as speaking it, by
// every way of sending; afterwards it goes out. HotSpot's agent crashes on
// such a packet (JDK-8382537), so the fake counts what reaches it.
func TestVendorCommandsNeedAllow(t *testing.T) {
	checkLeaks(t)
	var vendor atomic.Int32
	echo := func(vm *fakeVM, p *Packet) { vm.reply(p.ID, ErrNone, nil) }
	vm := startFakeVM(t, fakeConfig{Handlers: map[Cmd]fakeHandler{
		{SetDDM, 1}: func(vm *fakeVM, p *Packet) { vendor.Add(1); echo(vm, p) },
		{0x80, 1}:   func(vm *fakeVM, p *Packet) { vendor.Add(1); echo(vm, p) },
		{1, 0x80}:   func(vm *fakeVM, p *Packet) { vendor.Add(1); echo(vm, p) },
		{1, 0}:      func(vm *fakeVM, p *Packet) { vendor.Add(1); echo(vm, p) },
	}})
	c := vm.dial(t, nil)
	ctx := testCtx(t)
	for _, cmd := range []Cmd{{SetDDM, 1}, {0x80, 1}, {1, 0x80}, {1, 0}, {0xFF, 0xFF}} {
		if cmd.Standard() {
			t.Errorf("%v counted standard", cmd)
		}
		if _, err := c.Command(ctx, cmd.Set, cmd.Cmd, []byte("HELO")); !errors.Is(err, ErrVendorCommand) {
			t.Errorf("Command %v before AllowVendorCommands: %v; want ErrVendorCommand", cmd, err)
		} else if !strings.Contains(err.Error(), "JDK-8382537") {
			t.Errorf("error does not say why: %v", err)
		}
		if _, err := c.StartFunc(ctx, cmd, nil, nil); !errors.Is(err, ErrVendorCommand) {
			t.Errorf("StartFunc %v: %v", cmd, err)
		}
		if _, err := c.Forward(ctx, cmd, nil, nil); !errors.Is(err, ErrVendorCommand) {
			t.Errorf("Forward %v: %v", cmd, err)
		}
		if err := c.Send(&Packet{ID: c.NewID(), CmdSet: cmd.Set, Cmd: cmd.Cmd}); !errors.Is(err, ErrVendorCommand) {
			t.Errorf("Send %v: %v", cmd, err)
		}
	}
	// The standard commands on either side of the limits go out, and the
	// connection is healthy: nothing vendor reached the VM.
	if !(Cmd{0x7F, 0x7F}).Standard() || !CmdVMVersion.Standard() {
		t.Error("standard commands refused")
	}
	if _, err := c.IDSizes(ctx); err != nil || c.Err() != nil {
		t.Fatalf("connection unhealthy after refused vendor commands: %v, %v", err, c.Err())
	}
	if n := vendor.Load(); n != 0 {
		t.Fatalf("%d vendor packets reached the VM before AllowVendorCommands", n)
	}
	// A reply to a VM-initiated vendor command is no command: it goes out.
	id := vm.command(SetDDM, 1, nil)
	if p := vm.nextReply(t); p.ID != id || p.Error != ErrNotImplemented {
		t.Errorf("reply to the VM's DDM command = %v; want NOT_IMPLEMENTED", p)
	}

	c.AllowVendorCommands()
	if _, err := c.Command(ctx, SetDDM, 1, []byte("HELO")); err != nil {
		t.Fatalf("DDM command after AllowVendorCommands: %v", err)
	}
	if n := vendor.Load(); n != 1 {
		t.Fatalf("vendor packets after AllowVendorCommands: %d; want 1", n)
	}
}

func TestVersionAndroid(t *testing.T) {
	for _, tc := range []struct {
		v    VersionInfo
		want bool
	}{
		// current ART: the OpenJDK agent over ART's JVMTI, java.vm.name = Dalvik
		{VersionInfo{Description: "Java Debug Wire Protocol (Reference Implementation) version 1.8\nJVM Debug Interface version 1.2\nJVM version 2.1.0 (Dalvik, )", VMVersion: "2.1.0", VMName: "Dalvik"}, true},
		// Dalvik's own agent
		{VersionInfo{Description: "Android DalvikVM 1.6.0", VMVersion: "1.6.0", VMName: "DalvikVM"}, true},
		{VersionInfo{Description: "Java Debug Wire Protocol (Reference Implementation) version 17.0\nJVM Debug Interface version 17.0\nJVM version 17.0.21.1 (OpenJDK 64-Bit Server VM, mixed mode, sharing)", VMVersion: "17.0.21.1+2-1-deb12u1-Debian", VMName: "OpenJDK 64-Bit Server VM"}, false},
		{VersionInfo{VMName: "Eclipse OpenJ9 VM"}, false},
		{VersionInfo{}, false},
	} {
		if got := tc.v.Android(); got != tc.want {
			t.Errorf("%q/%q Android() = %v; want %v", tc.v.VMName, tc.v.Description, got, tc.want)
		}
	}
}
