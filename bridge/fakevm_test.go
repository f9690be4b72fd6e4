package bridge

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// A hostile VM in Go (no real VM misbehaves on purpose): it speaks JDWP as
// shared/reference/ddm.md and the JDWP spec lay it out, then attacks the
// monitor that adopted it.

// fakeVM is a JDWP agent listening on 127.0.0.1:port that serves one
// connection with serve and then stops listening. It stops at test cleanup.
type fakeVM struct {
	ln    net.Listener
	conns atomic.Int32 // connections accepted
	quit  chan struct{}
	wg    sync.WaitGroup
}

func startFakeVM(t *testing.T, port int, serve func(f *fakeVM, nc net.Conn, r *bufio.Reader)) *fakeVM {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeVM{ln: ln, quit: make(chan struct{})}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			f.conns.Add(1)
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				defer nc.Close()
				stop := make(chan struct{})
				defer close(stop)
				go func() {
					select {
					case <-f.quit:
						nc.Close()
					case <-stop:
					}
				}()
				hs := make([]byte, len(jdwp.HandshakeString))
				if _, err := io.ReadFull(nc, hs); err != nil || string(hs) != jdwp.HandshakeString {
					return
				}
				if _, err := nc.Write(hs); err != nil {
					return
				}
				serve(f, nc, bufio.NewReader(nc))
			}()
		}
	}()
	t.Cleanup(func() {
		close(f.quit)
		ln.Close()
		f.wg.Wait()
	})
	return f
}

// reply writes a reply packet.
func fakeReply(nc net.Conn, id uint32, code jdwp.ErrorCode, data []byte) error {
	return jdwp.WritePacket(nc, &jdwp.Packet{ID: id, Flags: jdwp.FlagReply, Error: code, Data: data})
}

// jdwpString is a JDWP string: u4 length, UTF-8.
func jdwpString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// servePlainUntilIdentified answers what the monitor asks a plain JDWP VM
// until it has its identity (HELO: NOT_IMPLEMENTED; IDSizes: 8 each;
// Version; AllThreads: none), then returns.
func servePlainUntilIdentified(nc net.Conn, r *bufio.Reader) error {
	for {
		p, err := jdwp.ReadPacket(r, jdwp.DefaultMaxPacketSize)
		if err != nil {
			return err
		}
		cmd := jdwp.Cmd{Set: p.CmdSet, Cmd: p.Cmd}
		switch cmd {
		case jdwp.CmdVMIDSizes:
			var b []byte
			for range 5 {
				b = binary.BigEndian.AppendUint32(b, 8)
			}
			err = fakeReply(nc, p.ID, jdwp.ErrNone, b)
		case jdwp.CmdVMVersion:
			b := jdwpString(nil, "fake VM")
			b = binary.BigEndian.AppendUint32(b, 17)
			b = binary.BigEndian.AppendUint32(b, 0)
			b = jdwpString(b, "17")
			b = jdwpString(b, "Fake")
			err = fakeReply(nc, p.ID, jdwp.ErrNone, b)
		case jdwp.CmdVMAllThreads:
			err = fakeReply(nc, p.ID, jdwp.ErrNone, []byte{0, 0, 0, 0})
			if err == nil {
				return nil
			}
		default:
			err = fakeReply(nc, p.ID, jdwp.ErrNotImplemented, nil)
		}
		if err != nil {
			return err
		}
	}
}

// TestFakeVMEventFloodDropped: a VM that sends events endlessly while it
// reads nothing (so the monitor's resume of each waits in vain) is dropped
// with a warning once its backlog passes the bound, instead of taking the
// monitor to gigabytes (issue 25).
func TestFakeVMEventFloodDropped(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	var sent atomic.Int64
	f := startFakeVM(t, lo, func(f *fakeVM, nc net.Conn, r *bufio.Reader) {
		if servePlainUntilIdentified(nc, r) != nil {
			return
		}
		f.ln.Close() // one connection: what the monitor does after the drop is another test's
		// THREAD_START, suspending all, and never a byte read again.
		ev := []byte{byte(jdwp.SuspendAll), 0, 0, 0, 1, byte(jdwp.EventThreadStart), 0, 0, 0, 0}
		ev = binary.BigEndian.AppendUint64(ev, 7)
		w := bufio.NewWriterSize(nc, 64<<10)
		for id := uint32(1); ; id++ {
			jdwp.WritePacket(w, &jdwp.Packet{ID: id, CmdSet: jdwp.SetEvent, Cmd: 100, Data: ev})
			if id%1024 == 0 {
				if w.Flush() != nil {
					return
				}
				sent.Store(int64(id))
			}
		}
	})
	logs := &bridgetest.LogLines{T: t}
	o := testOptions(t, lo, 1)
	o.Logger = zerolog.New(logs).Level(zerolog.InfoLevel)
	m := startMonitor(t, o)
	addr := f.ln.Addr().String()
	waitFor(t, time.Minute, "the flooding VM to be dropped with a warning", func() bool {
		return logs.Has(`"level":"warn"`, "VM gone", "event backlog")
	})
	waitGone(t, m, addr, time.Minute)
	t.Logf("the fake VM sent %d+ event packets", sent.Load())
}

// ddmFakeHello is the HELO reply of the DDM fake VM.
func ddmFakeHello() []byte {
	return ddm.EncodeChunks(ddm.Encode(&ddm.Hello{ProtocolVersion: 1, PID: 4242, VMIdent: "Fake v1", AppName: "com.example.hostile", Tails: 1}))
}

// serveDDMUntilGreeted answers as an Android VM (VirtualMachine.Version
// names Dalvik, HELO gets ddmFakeHello, anything else an empty reply) and
// returns once HELO is answered; what the monitor sends later is read and
// answered by the goroutine it leaves running.
func serveDDMUntilGreeted(nc net.Conn, r *bufio.Reader, wmu *sync.Mutex) error {
	greeted := make(chan error, 1)
	tell := func(err error) {
		select {
		case greeted <- err: // the first outcome; later ones are nobody's business
		default:
		}
	}
	go func() {
		for {
			p, err := jdwp.ReadPacket(r, jdwp.DefaultMaxPacketSize)
			if err != nil {
				tell(err)
				return
			}
			var data []byte
			hello := false
			switch {
			case jdwp.Cmd{Set: p.CmdSet, Cmd: p.Cmd} == jdwp.CmdVMVersion:
				data = jdwpString(nil, "Android fake")
				data = binary.BigEndian.AppendUint32(data, 1)
				data = binary.BigEndian.AppendUint32(data, 6)
				data = jdwpString(data, "2.1.0")
				data = jdwpString(data, "Dalvik")
			case p.CmdSet == ddm.CommandSet && len(p.Data) >= 4 && ddm.Type(binary.BigEndian.Uint32(p.Data)) == ddm.HELO:
				data, hello = ddmFakeHello(), true
			}
			wmu.Lock()
			err = fakeReply(nc, p.ID, jdwp.ErrNone, data)
			wmu.Unlock()
			if err != nil {
				tell(err)
				return
			}
			if hello {
				tell(nil)
			}
		}
	}()
	return <-greeted
}

// zlibBombPacket is one DDM packet of count ZLIB chunks, each inflating to
// size zero bytes.
func zlibBombPacket(count, size int) []byte {
	c := ddm.Compress(ddm.Chunk{Type: ddm.HPDS, Data: make([]byte, size)})
	cs := make([]ddm.Chunk, count)
	for i := range cs {
		cs[i] = c
	}
	return ddm.EncodeChunks(cs...)
}

// heapPeak samples the heap in use until stop is closed and returns its
// peak.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var peak uint64
		var ms runtime.MemStats
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-t.C:
			case <-stop:
				out <- peak
				return
			}
		}
	}()
	return out
}

// TestFakeVMDDMBombsBounded: a DDM VM sends three packets of a hundred
// ZLIB chunks, each inflating to 60 MiB (18 GB in all), then three
// thread-created chunks with names of 30 million characters (issue 25:
// 5.6 GB and half a gigabyte). The monitor refuses them with a log line,
// keeps the VM, and its heap stays far below what they would inflate to;
// a well-formed chunk after them is applied.
func TestFakeVMDDMBombsBounded(t *testing.T) {
	lo := freePorts(t, 1)
	bomb := zlibBombPacket(100, 60<<20)
	longName := ddm.EncodeChunks(ddm.Encode(&ddm.ThreadName{ID: 9, Name: string(make([]byte, 30_000_000))}))
	okThread := ddm.EncodeChunks(ddm.Encode(&ddm.ThreadName{ID: 10, Name: "after-the-bombs"}))
	sentAll := make(chan struct{})
	start := make(chan struct{})
	f := startFakeVM(t, lo, func(f *fakeVM, nc net.Conn, r *bufio.Reader) {
		var wmu sync.Mutex
		if serveDDMUntilGreeted(nc, r, &wmu) != nil {
			return
		}
		select {
		case <-start:
		case <-f.quit:
			return
		}
		id := uint32(0x40000000)
		send := func(data []byte) {
			id++
			wmu.Lock()
			defer wmu.Unlock()
			jdwp.WritePacket(nc, &jdwp.Packet{ID: id, CmdSet: ddm.CommandSet, Cmd: ddm.Command, Data: data})
		}
		for range 3 {
			send(bomb)
		}
		for range 3 {
			send(longName)
		}
		send(okThread)
		close(sentAll)
		<-f.quit
	})
	logs := &bridgetest.LogLines{T: t}
	o := testOptions(t, lo, 1)
	o.Logger = zerolog.New(logs).Level(zerolog.InfoLevel)
	m := startMonitor(t, o)
	addr := f.ln.Addr().String()
	info := waitVM(t, m, addr, time.Minute)
	v, err := m.VM(info.ID)
	if err != nil || v.DDM() == nil {
		t.Fatalf("VM %s: %v, DDM %v; want a DDM VM", info.ID, err, v != nil && v.DDM() != nil)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	stop := make(chan struct{})
	peak := heapPeak(stop)
	close(start)
	waitFor(t, time.Minute, "the thread sent after the bombs", func() bool {
		for _, th := range v.DDM().Data().Threads() {
			if th.Name == "after-the-bombs" {
				return true
			}
		}
		return false
	})
	close(stop)
	p := <-peak - base
	// Each packet is read whole (up to 64 MiB) and one ZLIB chunk of 60 MiB
	// inflates within the bound before the next is refused; garbage waits
	// for the collector. 18 GB would inflate unbounded.
	t.Logf("heap in use grew by %d MiB at most (from %d MiB)", p>>20, base>>20)
	if p > 1<<30 {
		t.Fatalf("heap in use grew by %d MiB; the bombs must be refused before they inflate", p>>20)
	}
	if !logs.Has("malformed DDM packet", "inflates beyond") {
		t.Error("no log line says the ZLIB bomb was refused")
	}
	if !logs.Has("string of 30000000 UTF-16 units") {
		t.Error("no log line says the huge name was refused")
	}
	for _, th := range v.DDM().Data().Threads() {
		if th.ID == 9 {
			t.Errorf("the thread with the huge name was kept: %d bytes", len(th.Name))
		}
	}
	if _, err := m.VM(info.ID); errors.Is(err, ErrNoVM) {
		t.Fatal("the VM was dropped")
	}
}

// serveDying identifies as a plain JDWP VM, then answers the next command
// with half a reply and closes: a VM that dies mid-reply right after it was
// found.
func serveDying(f *fakeVM, nc net.Conn, r *bufio.Reader) {
	if servePlainUntilIdentified(nc, r) != nil {
		return
	}
	fmt.Printf("fakevm adopted %d\n", time.Now().UnixNano())
	p, err := jdwp.ReadPacket(r, jdwp.DefaultMaxPacketSize)
	if err != nil {
		return
	}
	whole := (&jdwp.Packet{ID: p.ID, Flags: jdwp.FlagReply, Data: make([]byte, 40)}).Bytes()
	nc.Write(whole[:20])
}

// TestFakeVMHost is the process of a fake VM that another test runs as a
// child (so that it has a pid of its own): BRIDGE_FAKEVM=PORT serves
// serveDying there until stdin closes. It does nothing in a normal test run.
func TestFakeVMHost(t *testing.T) {
	spec := os.Getenv("BRIDGE_FAKEVM")
	if spec == "" {
		t.Skip("only a helper process of TestFakeVMDyingMidReplyBacksOff")
	}
	port, _ := strconv.Atoi(spec)
	startFakeVM(t, port, serveDying)
	fmt.Println("fakevm listening")
	bufio.NewReader(os.Stdin).ReadString('\n')
}

// TestFakeVMDyingMidReplyBacksOff: a VM that dies in the middle of a
// packet right after it was found is adopted again ever less often (2 scan
// intervals, doubling), not at every scan, and keeps its id since it is the
// same process (issue 25: re-adopted every second under a new id). The
// fake VM is a child process, so that the monitor can tell its pid.
func TestFakeVMDyingMidReplyBacksOff(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestFakeVMHost$", "-test.v")
	cmd.Env = append(os.Environ(), fmt.Sprintf("BRIDGE_FAKEVM=%d", lo))
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for l := range lines {
		if l == "fakevm listening" {
			break
		}
	}
	var mu sync.Mutex
	var at []time.Time
	go func() {
		for l := range lines {
			if ns, ok := strings.CutPrefix(l, "fakevm adopted "); ok {
				n, _ := strconv.ParseInt(ns, 10, 64)
				mu.Lock()
				at = append(at, time.Unix(0, n))
				mu.Unlock()
			}
		}
	}()
	o := testOptions(t, lo, 1)
	m := startMonitor(t, o)
	events, unsub := m.Subscribe()
	defer unsub()
	ids := map[string]bool{}
	const adoptions = 4
	deadline := time.After(2 * time.Minute)
	for n := 0; n < adoptions; {
		select {
		case e := <-events:
			if e.Kind == EventAdded {
				ids[e.VM.ID] = true
				n++
				// A thread poll: the VM dies in the middle of its reply.
				if v, err := m.VM(e.VM.ID); err == nil {
					v.Threads(ctx)
				}
			}
		case <-deadline:
			t.Fatalf("only %d adoptions within 2 minutes", n)
		}
	}
	var gaps []time.Duration
	waitFor(t, time.Minute, "the fake VM's report of its adoptions", func() bool {
		mu.Lock()
		defer mu.Unlock()
		gaps = gaps[:0]
		for i := 1; i < len(at); i++ {
			gaps = append(gaps, at[i].Sub(at[i-1]))
		}
		return len(gaps) >= adoptions-1
	})
	t.Logf("adoptions %v apart; ids %v", gaps, ids)
	for i, g := range gaps[:adoptions-1] {
		if least := 2 * o.ScanInterval << i; g < least*9/10 {
			t.Errorf("adoption %d came %v after the one before; the backoff wants %v", i+2, g, least)
		}
	}
	if len(ids) != 1 {
		t.Errorf("the same process was adopted under %d ids %v; want one", len(ids), ids)
	}
}
