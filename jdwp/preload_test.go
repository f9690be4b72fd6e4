package jdwp

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
)

// preloadingVM is a fake VM's side of a handshake with Options.Preload: it
// reads the handshake and then the three commands that came with it
// before it answers the handshake (so they left before the answer), checks
// them, and calls then with the commands.
func preloadingVM(t *testing.T, then func(vm *fakeVM, nc net.Conn, cmds []*Packet)) func(vm *fakeVM, nc net.Conn) {
	return func(vm *fakeVM, nc net.Conn) {
		buf := make([]byte, len(HandshakeString))
		if _, err := io.ReadFull(nc, buf); err != nil || string(buf) != HandshakeString {
			t.Errorf("fake VM: handshake %q, %v", buf, err)
			return
		}
		r := bufio.NewReader(nc)
		var cmds []*Packet
		for i := range preloadCmds {
			p, err := ReadPacket(r, 0)
			if err != nil {
				t.Errorf("fake VM: command %d before the handshake's answer: %v", i, err)
				return
			}
			if got := (Cmd{p.CmdSet, p.Cmd}); got != preloadCmds[i] {
				t.Errorf("fake VM: command %d is %v, want %v", i, got, preloadCmds[i])
			}
			cmds = append(cmds, p)
		}
		then(vm, nc, cmds)
	}
}

// TestPreloadWithTheHandshake: a connection made with Options.Preload sends
// the id sizes, version and capabilities commands behind the handshake,
// before the VM answered it, and takes their answers for IDSizes, Version
// and Capabilities without asking again (the fake answers nothing else).
func TestPreloadWithTheHandshake(t *testing.T) {
	checkLeaks(t)
	vm := startFakeVM(t, fakeConfig{Raw: preloadingVM(t, func(vm *fakeVM, nc net.Conn, cmds []*Packet) {
		nc.Write([]byte(HandshakeString))
		replyIDSizes(vm, cmds[0])
		w := NewWriter(&vm.sizes)
		w.String("fake VM")
		w.Int32(1)
		w.Int32(8)
		w.String("1.0")
		w.String("Fake")
		vm.reply(cmds[1].ID, ErrNone, w.Bytes())
		caps := make([]byte, 32)
		caps[2] = 1 // canGetBytecodes
		vm.reply(cmds[2].ID, ErrNone, caps)
		holdOpen(vm, nc)
	})})
	c := vm.dial(t, &Options{Preload: true})
	ctx := testCtx(t)
	sizes, err := c.IDSizes(ctx)
	if err != nil || sizes != fakeSizes {
		t.Errorf("IDSizes = %+v, %v; want the fake's %+v", sizes, err, fakeSizes)
	}
	v, err := c.Version(ctx)
	if err != nil || v.VMName != "Fake" || v.JDWPMinor != 8 {
		t.Errorf("Version = %+v, %v", v, err)
	}
	caps, err := c.Capabilities(ctx)
	if err != nil || !caps.CanGetBytecodes || caps.CanGetMonitorInfo {
		t.Errorf("Capabilities = %+v, %v", caps, err)
	}
	if err := c.Preload(ctx); err != nil {
		t.Errorf("Preload after the answers: %v", err)
	}
}

// TestPreloadPeerCloses: a peer that takes the handshake and the commands
// behind it and closes fails the attach with the handshake's error, and
// nothing of the connection is left running.
func TestPreloadPeerCloses(t *testing.T) {
	checkLeaks(t)
	vm := startFakeVM(t, fakeConfig{Raw: preloadingVM(t, func(*fakeVM, net.Conn, []*Packet) {})})
	c, err := Dial(testCtx(t), vm.addr(), &Options{Preload: true})
	if err == nil {
		c.Close()
		t.Fatal("Dial succeeded against a peer that closed during the handshake")
	}
	if want := "peer closed the connection after 0 of 14 bytes"; !strings.Contains(err.Error(), want) {
		t.Errorf("Dial error = %q; want %q", err, want)
	}
}
