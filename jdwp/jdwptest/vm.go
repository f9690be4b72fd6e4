package jdwptest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Sizes are the id sizes a VM reports unless told others: HotSpot's.
var Sizes = jdwp.IDSizes{FieldID: 8, MethodID: 8, ObjectID: 8, ReferenceTypeID: 8, FrameID: 8}

// Handler answers one command of the debugger. It runs on the VM's reader
// goroutine, so commands are handled one at a time in arrival order (as
// HotSpot's agent does); it may answer later, or never, by keeping the packet.
type Handler func(vm *VM, cmd *jdwp.Packet)

// Config configures a VM.
type Config struct {
	// Sizes is the IDSizes reply; the zero value means Sizes.
	Sizes jdwp.IDSizes
	// Handlers answer commands by (set, command); commands without one get
	// NOT_IMPLEMENTED.
	Handlers map[jdwp.Cmd]Handler
}

// VM is a listening stand-in VM that serves one debugger connection.
type VM struct {
	t     testing.TB
	ln    net.Listener
	sizes jdwp.IDSizes

	mu       sync.Mutex
	handlers map[jdwp.Cmd]Handler
	nc       net.Conn

	wmu    sync.Mutex // serializes writes to nc
	nextID atomic.Uint32

	replies chan *jdwp.Packet // the debugger's replies to VM-initiated commands
	quit    chan struct{}
	served  chan struct{}
}

// Start starts a VM on 127.0.0.1:0; it is stopped, and its goroutine waited
// for, at test cleanup.
func Start(t testing.TB, cfg Config) *VM {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("jdwptest: listen: %v", err)
	}
	vm := &VM{
		t: t, ln: ln, sizes: cfg.Sizes,
		handlers: map[jdwp.Cmd]Handler{},
		replies:  make(chan *jdwp.Packet, 64),
		quit:     make(chan struct{}),
		served:   make(chan struct{}),
	}
	if vm.sizes == (jdwp.IDSizes{}) {
		vm.sizes = Sizes
	}
	vm.handlers[jdwp.CmdVMIDSizes] = replyIDSizes
	for c, h := range cfg.Handlers {
		vm.handlers[c] = h
	}
	go vm.serve()
	t.Cleanup(vm.Stop)
	return vm
}

// Addr is the address to dial.
func (vm *VM) Addr() string { return vm.ln.Addr().String() }

// IDSizes are the VM's id sizes.
func (vm *VM) IDSizes() *jdwp.IDSizes { return &vm.sizes }

// Stop closes the listener and the connection and waits for the VM's
// goroutine.
func (vm *VM) Stop() {
	select {
	case <-vm.quit:
		return
	default:
	}
	close(vm.quit)
	vm.ln.Close()
	vm.mu.Lock()
	if vm.nc != nil {
		vm.nc.Close()
	}
	vm.mu.Unlock()
	<-vm.served
}

// Handle installs (or replaces) the handler of a command.
func (vm *VM) Handle(cmd jdwp.Cmd, h Handler) {
	vm.mu.Lock()
	vm.handlers[cmd] = h
	vm.mu.Unlock()
}

func (vm *VM) serve() {
	defer close(vm.served)
	nc, err := vm.ln.Accept()
	if err != nil {
		return
	}
	vm.mu.Lock()
	vm.nc = nc
	vm.mu.Unlock()
	defer nc.Close()
	select {
	case <-vm.quit:
		return
	default:
	}
	if err := handshake(nc); err != nil {
		vm.t.Errorf("jdwptest: %v", err)
		return
	}
	r := bufio.NewReader(nc)
	for {
		p, err := jdwp.ReadPacket(r, 0)
		if errors.Is(err, jdwp.ErrPacketTooLarge) || errors.Is(err, jdwp.ErrPacketTooShort) {
			vm.t.Errorf("jdwptest: the debugger sent a malformed packet: %v", err)
		}
		if err != nil {
			return
		}
		if p.IsReply() {
			select {
			case vm.replies <- p:
			default:
				vm.t.Errorf("jdwptest: reply queue full, dropped %v", p)
			}
			continue
		}
		vm.mu.Lock()
		h := vm.handlers[jdwp.Cmd{Set: p.CmdSet, Cmd: p.Cmd}]
		vm.mu.Unlock()
		if h == nil {
			vm.Reply(p.ID, jdwp.ErrNotImplemented, nil) //nolint:errcheck // the debugger may be gone
			continue
		}
		h(vm, p)
	}
}

func handshake(nc net.Conn) error {
	buf := make([]byte, len(jdwp.HandshakeString))
	if _, err := io.ReadFull(nc, buf); err != nil {
		return err
	}
	if string(buf) != jdwp.HandshakeString {
		return fmt.Errorf("debugger sent handshake %q", buf)
	}
	_, err := io.WriteString(nc, jdwp.HandshakeString)
	return err
}

// Send writes a packet to the debugger; an error means it is gone.
func (vm *VM) Send(p *jdwp.Packet) error {
	vm.mu.Lock()
	nc := vm.nc
	vm.mu.Unlock()
	if nc == nil {
		return errors.New("jdwptest: no debugger attached")
	}
	vm.wmu.Lock()
	defer vm.wmu.Unlock()
	return jdwp.WritePacket(nc, p)
}

// Reply answers command id of the debugger.
func (vm *VM) Reply(id uint32, code jdwp.ErrorCode, data []byte) error {
	return vm.Send(&jdwp.Packet{ID: id, Flags: jdwp.FlagReply, Error: code, Data: data})
}

// Command sends a VM-initiated command and returns its id.
func (vm *VM) Command(set, cmd byte, data []byte) uint32 {
	id := vm.nextID.Add(1)
	vm.Send(&jdwp.Packet{ID: id, CmdSet: set, Cmd: cmd, Data: data}) //nolint:errcheck // a gone debugger shows as a missing reply
	return id
}

// SendEvents sends an Event.Composite packet.
func (vm *VM) SendEvents(es *jdwp.EventSet) uint32 {
	return vm.Command(jdwp.SetEvent, 100, jdwp.EncodeEventSet(es, &vm.sizes))
}

// NextReply waits for the debugger's reply to a VM-initiated command.
func (vm *VM) NextReply(t testing.TB) *jdwp.Packet {
	t.Helper()
	select {
	case p := <-vm.replies:
		return p
	case <-time.After(30 * time.Second):
		t.Fatalf("jdwptest: no reply from the debugger within 30s")
		return nil
	}
}

// Answer adapts a function that decodes a command with r and encodes the
// reply with w. A command the function does not read to the end, or reads
// past the end, is the debugger's encoding error.
func Answer(fn func(r *jdwp.Reader, w *jdwp.Writer) jdwp.ErrorCode) Handler {
	return func(vm *VM, cmd *jdwp.Packet) {
		r := jdwp.NewReader(cmd.Data, &vm.sizes)
		w := jdwp.NewWriter(&vm.sizes)
		code := fn(r, w)
		if r.Err() != nil || (code == jdwp.ErrNone && r.Remaining() != 0) {
			vm.t.Errorf("jdwptest: %s: command data % x decoded badly (err %v, %d bytes left)",
				jdwp.CommandName(cmd.CmdSet, cmd.Cmd), cmd.Data, r.Err(), r.Remaining())
			code = jdwp.ErrIllegalArgument
		}
		if code != jdwp.ErrNone {
			w.Buf = nil
		}
		vm.Reply(cmd.ID, code, w.Bytes()) //nolint:errcheck // the debugger may be gone
	}
}

func replyIDSizes(vm *VM, cmd *jdwp.Packet) {
	w := jdwp.NewWriter(nil)
	for _, n := range []int{vm.sizes.FieldID, vm.sizes.MethodID, vm.sizes.ObjectID, vm.sizes.ReferenceTypeID, vm.sizes.FrameID} {
		w.Int32(int32(n))
	}
	vm.Reply(cmd.ID, jdwp.ErrNone, w.Bytes()) //nolint:errcheck // the debugger may be gone
}

// Dial attaches a debugger connection to the VM; it is closed at cleanup,
// before the VM stops.
func (vm *VM) Dial(t testing.TB, opts *jdwp.Options) *jdwp.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := jdwp.Dial(ctx, vm.Addr(), opts)
	if err != nil {
		t.Fatalf("jdwptest: dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
