package bridge

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// vendorCountingRelay listens on 127.0.0.1:port and relays each connection
// to upstream, counting the commands outside JDWP's standard ranges (DDM's
// 0xC7 among them) that reach it. It never passes one on: HotSpot's agent
// crashes on them (JDK-8382537); it answers NOT_IMPLEMENTED itself.
func vendorCountingRelay(t *testing.T, port int, upstream string) *atomic.Int32 {
	t.Helper()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			t.Cleanup(func() { c.Close(); up.Close() })
			var wmu chanMutex = make(chan struct{}, 1)
			go func() {
				defer c.Close()
				buf := make([]byte, 32<<10)
				for {
					k, err := up.Read(buf)
					if k > 0 {
						wmu.lock()
						_, werr := c.Write(buf[:k])
						wmu.unlock()
						if werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() {
				defer up.Close()
				hs := make([]byte, len(jdwp.HandshakeString))
				if _, err := io.ReadFull(c, hs); err != nil {
					return
				}
				up.Write(hs)
				r := bufio.NewReader(c)
				for {
					p, err := jdwp.ReadPacket(r, 0)
					if err != nil {
						return
					}
					if !p.IsReply() && !(jdwp.Cmd{Set: p.CmdSet, Cmd: p.Cmd}).Standard() {
						n.Add(1)
						wmu.lock()
						jdwp.WritePacket(c, &jdwp.Packet{ID: p.ID, Flags: jdwp.FlagReply, Error: jdwp.ErrNotImplemented})
						wmu.unlock()
						continue
					}
					jdwp.WritePacket(up, p)
				}
			}()
		}
	}()
	return &n
}

type chanMutex chan struct{}

func (m chanMutex) lock()   { m <- struct{}{} }
func (m chanMutex) unlock() { <-m }

// TestNoVendorPacketsToHotSpot: the monitor adopts a HotSpot VM on a scanned
// port without a single vendor packet (it asks Version and sees no Android
// VM), shows it as plain JDWP, and answers a debugger's vendor commands
// through the pass-through itself; the VM keeps running.
func TestNoVendorPacketsToHotSpot(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	jvm := startDemo(t, 0, false)
	vendor := vendorCountingRelay(t, lo, jvm.Addr)
	m := startMonitor(t, testOptions(t, lo, 1))
	info := waitVM(t, m, fmt.Sprintf("127.0.0.1:%d", lo), 10*time.Second)
	if info.DDM {
		t.Errorf("a HotSpot VM shown as DDM-aware: %+v", info)
	}
	v, _ := m.VM(info.ID)
	if _, err := v.Threads(t.Context()); err != nil {
		t.Fatal(err)
	}
	nc := rawDebugger(t, fmt.Sprintf("127.0.0.1:%d", info.DebugPort))
	r := bufio.NewReader(nc)
	for i, c := range []jdwp.Cmd{{Set: 0xC7, Cmd: 1}, {Set: 0x80, Cmd: 1}, {Set: 1, Cmd: 0x80}, {Set: 1, Cmd: 0}} {
		if p := command(t, nc, r, uint32(10+i), c.Set, c.Cmd, []byte("HELO\x00\x00\x00\x04\x00\x00\x00\x01")); p.Error != jdwp.ErrNotImplemented {
			t.Errorf("vendor command %v from the debugger: error %v, want NOT_IMPLEMENTED", c, p.Error)
		}
	}
	if p := command(t, nc, r, 20, 1, 1, nil); p.Error != 0 {
		t.Errorf("Version after vendor commands: %v", p.Error)
	}
	nc.Close()
	waitTicking(t, jvm, 10*time.Second)
	if k := vendor.Load(); k != 0 {
		t.Errorf("%d vendor packets reached the HotSpot VM", k)
	}
}
