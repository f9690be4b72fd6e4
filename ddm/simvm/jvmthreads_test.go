package simvm

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// threadStatesSource has a thread in each state JDWP tells apart, and starts
// and ends one more when the test creates files in the directory args[0].
const threadStatesSource = `import java.nio.file.*;
import java.util.concurrent.CountDownLatch;

public class ThreadStates {
    static final Object lock = new Object(), monitor = new Object();
    static volatile long sink;

    static void start(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    static void sleepForever() {
        try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) {}
    }

    static void await(Path p) throws InterruptedException {
        while (!Files.exists(p)) Thread.sleep(10);
    }

    public static void main(String[] args) throws Exception {
        Path dir = Paths.get(args[0]);
        start("waiter", () -> { synchronized (lock) { try { lock.wait(); } catch (InterruptedException e) {} } });
        start("sleeper", ThreadStates::sleepForever);
        start("spinner", () -> { for (long i = 0; ; i++) sink = i; });
        CountDownLatch held = new CountDownLatch(1);
        start("holder", () -> { synchronized (monitor) { held.countDown(); sleepForever(); } });
        held.await();
        start("blocked", () -> { synchronized (monitor) { sink++; } });
        System.out.println("READY");
        await(dir.resolve("start"));
        Thread late = new Thread(() -> {
            try { await(dir.resolve("stop")); } catch (InterruptedException e) {}
        }, "latecomer");
        late.start();
        late.join();
        System.out.println("LATECOMER ENDED");
        sleepForever();
    }
}
`

// startThreadStates starts ThreadStates under the JDWP agent; files created
// in the returned directory drive it.
func startThreadStates(t *testing.T) (*jvmtest.JVM, string) {
	t.Helper()
	jvmtest.RequireJava(t)
	classes, err := jvmtest.CompileFiles(t.Context(), map[string][]byte{"ThreadStates.java": []byte(threadStatesSource)})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	return jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{classes}, MainClass: "ThreadStates", Args: []string{dir}, ReadyLine: "READY"}), dir
}

func thst(t *testing.T, c *ddm.Client) map[uint32]ddm.ThreadInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := c.Request(ctx, &ddm.ThreadStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint32]ddm.ThreadInfo{}
	for _, e := range m.(*ddm.ThreadStatus).Threads {
		out[e.ID] = e
	}
	return out
}

// threadIDs maps thread names to ids as THCR/THNM told the client.
func threadIDs(c *ddm.Client) map[string]uint32 {
	ids := map[string]uint32{}
	for _, th := range c.Data().Threads() {
		ids[th.Name] = th.ID
	}
	return ids
}

// In front of a real JVM, DDM reports the JVM's threads with their real
// states, native tids and CPU times, kept current: a thread started later is
// announced, one that ends is gone.
func TestPassthroughRealThreadStates(t *testing.T) {
	jvm, dir := startThreadStates(t)
	_, conn := serve(t, Options{Profile: ProfileART, JVM: jvm.Addr, PID: uint32(jvm.Pid), Tick: 50 * time.Millisecond, GCInterval: time.Hour})
	conn.AllowVendorCommands() // the simulated VM is Android's: it speaks DDM
	c := ddm.Attach(conn, ddm.Options{ThreadUpdates: true, Timeout: 5 * time.Second})
	defer c.Close()

	want := map[string]ddm.ThreadState{"waiter": ddm.ThreadWait, "sleeper": ddm.ThreadTimedWait, "spinner": ddm.ThreadRunning, "blocked": ddm.ThreadMonitor}
	var ids map[string]uint32
	eventually(t, "the test threads over THCR", func() bool {
		ids = threadIDs(c)
		for name := range want {
			if ids[name] == 0 {
				return false
			}
		}
		return ids["main"] != 0
	})
	// "blocked" may still be on its way to the monitor at the first read.
	var first map[uint32]ddm.ThreadInfo
	deadline := time.Now().Add(10 * time.Second)
	for {
		first = thst(t, c)
		ok := true
		for name, st := range want {
			ok = ok && first[ids[name]].Status == st
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			for name, st := range want {
				if got := first[ids[name]].Status; got != st {
					t.Errorf("%s: THST state %v, want %v", name, got, st)
				}
			}
			t.FailNow()
		}
		time.Sleep(50 * time.Millisecond)
	}
	t0 := time.Now()
	cpu := func(m map[uint32]ddm.ThreadInfo, name string) uint32 { return m[ids[name]].UTime + m[ids[name]].STime }
	// A busy thread accrues about 100 ticks a second on a free core: wait for
	// 10, however long a loaded machine takes.
	var second map[uint32]ddm.ThreadInfo
	eventually(t, "spinner to use CPU", func() bool {
		second = thst(t, c)
		return runtime.GOOS != "linux" || cpu(second, "spinner")-cpu(first, "spinner") >= 10
	})
	elapsed := time.Since(t0)
	for _, th := range c.Data().Threads() {
		e := second[th.ID]
		t.Logf("%4d %-24s %-10v tid %-7d utime %-5d stime %d", th.ID, th.Name, e.Status, e.TID, e.UTime, e.STime)
	}
	for name := range want {
		if first[ids[name]].TID != second[ids[name]].TID {
			t.Errorf("%s: tid %d, then %d", name, first[ids[name]].TID, second[ids[name]].TID)
		}
	}

	spinner, main := second[ids["spinner"]], second[ids["main"]]
	if runtime.GOOS != "linux" {
		// No /proc: no tids and no CPU times, rather than made-up ones.
		for id, e := range second {
			if e.TID != 0 || e.UTime != 0 || e.STime != 0 {
				t.Errorf("thread %d without /proc: tid %d, utime %d, stime %d", id, e.TID, e.UTime, e.STime)
			}
		}
		return
	}
	t.Logf("spinner's CPU time grew by %d ticks in %v", cpu(second, "spinner")-cpu(first, "spinner"), elapsed)
	if n := cpu(second, "sleeper"); n > 2 {
		t.Errorf("sleeper used %d ticks of CPU time, want ~0", n)
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/comm", jvm.Pid, spinner.TID))
	if spinner.TID == 0 || err != nil || strings.TrimSuffix(string(comm), "\n") != "spinner" {
		t.Errorf("spinner's tid %d is not the JVM's native thread \"spinner\": %q %v", spinner.TID, comm, err)
	}
	if main.TID == 0 || main.TID == uint32(jvm.Pid) {
		t.Errorf("main's tid %d: want the launcher's thread, not 0 or the pid %d", main.TID, jvm.Pid)
	} else if _, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d", jvm.Pid, main.TID)); err != nil {
		t.Errorf("main's tid %d: %v", main.TID, err)
	}

	// A thread started now is announced with a new id, and reported.
	if err := os.WriteFile(filepath.Join(dir, "start"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var late uint32
	eventually(t, "THCR for latecomer", func() bool { late = threadIDs(c)["latecomer"]; return late != 0 })
	if _, ok := first[late]; ok {
		t.Errorf("latecomer took id %d of a thread already there", late)
	}
	if _, ok := thst(t, c)[late]; !ok {
		t.Errorf("latecomer (id %d) not in THST", late)
	}
	// When it ends, THDE, and it is gone from THST.
	if err := os.WriteFile(filepath.Join(dir, "stop"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := jvm.WaitForLine(t.Context(), "LATECOMER ENDED"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "THDE for latecomer", func() bool { return threadIDs(c)["latecomer"] == 0 })
	if _, ok := thst(t, c)[late]; ok {
		t.Error("latecomer still in THST after THDE")
	}
	if got := threadIDs(c); got["spinner"] != ids["spinner"] || got["main"] != ids["main"] {
		t.Errorf("ids changed: %v, were %v", got, ids)
	}
}

// The simulator's own queries share the JVM connection with a debugger's
// commands: the debugger gets exactly its replies, in order, and never one
// of the simulator's.
func TestPassthroughQueriesApart(t *testing.T) {
	jvm, _ := startThreadStates(t)
	vm, addr := listen(t, Options{Profile: ProfileART, JVM: jvm.Addr, PID: uint32(jvm.Pid), Tick: 5 * time.Millisecond, GCInterval: time.Hour})
	nc, err := jvmtest.DialHandshake(t.Context(), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r := bufio.NewReader(nc)
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	read := func() *jdwp.Packet {
		t.Helper()
		for {
			p, err := jdwp.ReadPacket(r, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !p.IsReply() && p.CmdSet == ddm.CommandSet {
				continue // THCR/THDE: thread events are on
			}
			return p
		}
	}
	send := func(id uint32, cmd jdwp.Cmd, data []byte) {
		t.Helper()
		if err := jdwp.WritePacket(nc, &jdwp.Packet{ID: id, CmdSet: cmd.Set, Cmd: cmd.Cmd, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	// Thread events on, so the refreshes also write to this connection (ART
	// does not answer THEN).
	send(1, jdwp.CmdDDMChunk, ddm.EncodeChunks(ddm.Encode(&ddm.ThreadNotify{Enable: true})))
	send(2, jdwp.CmdVMAllThreads, nil)
	all := read()
	if all.ID != 2 || all.Error != jdwp.ErrNone {
		t.Fatalf("AllThreads: %v", all)
	}
	thread := all.Data[4:12]

	sess := func() *session {
		vm.mu.Lock()
		defer vm.mu.Unlock()
		for s := range vm.sessions {
			return s
		}
		return nil
	}()
	qid := func() uint32 { sess.qmu.Lock(); defer sess.qmu.Unlock(); return sess.qid }
	q0 := qid()

	// Rounds of pipelined commands while the simulator queries every 5 ms.
	id := uint32(10)
	kinds := []struct {
		cmd   jdwp.Cmd
		data  []byte
		check func(p *jdwp.Packet) bool
	}{
		{jdwp.CmdVMVersion, nil, func(p *jdwp.Packet) bool { return strings.Contains(string(p.Data), "Java") }},
		{jdwp.CmdVMIDSizes, nil, func(p *jdwp.Packet) bool { return len(p.Data) == 20 }},
		{jdwp.CmdThreadName, thread, func(p *jdwp.Packet) bool { return len(p.Data) > 4 }},
		{jdwp.CmdThreadStatus, thread, func(p *jdwp.Packet) bool { return len(p.Data) == 8 }},
	}
	replies := 0
	for round := 0; round < 40 || qid()-q0 < 200; round++ {
		if round == 1000 {
			t.Fatalf("the simulator made only %d queries", qid()-q0)
		}
		first := id + 1
		for i := range 25 {
			k := kinds[i%len(kinds)]
			id++
			send(id, k.cmd, k.data)
		}
		for want := first; want <= id; want++ {
			p := read()
			k := kinds[(want-first)%uint32(len(kinds))]
			if !p.IsReply() || p.ID != want || p.ID >= queryIDBase || p.Error != jdwp.ErrNone || !k.check(p) {
				t.Fatalf("round %d: got %v (data %q), want the reply to %d (%v)", round, p, p.Data, want, k.cmd)
			}
			replies++
		}
		time.Sleep(time.Millisecond)
	}
	t.Logf("%d replies to the debugger while the simulator made %d queries", replies, qid()-q0)
}

// A session in front of a JVM ends with its goroutines when the debugger
// leaves and when the JVM goes away, refreshes in flight or not.
func TestPassthroughSessionEnds(t *testing.T) {
	jvm, _ := startThreadStates(t)
	vm, addr := listen(t, Options{Profile: ProfileART, JVM: jvm.Addr, PID: uint32(jvm.Pid), Tick: time.Millisecond, GCInterval: time.Hour})
	sessions := func() int { vm.mu.Lock(); defer vm.mu.Unlock(); return len(vm.sessions) }
	// attach opens a session; the JVM listens again only a moment after the
	// last one left, so the simulator's dial may need another try.
	attach := func() net.Conn {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
			nc, err := jvmtest.DialHandshake(t.Context(), addr)
			if err != nil {
				t.Fatal(err)
			}
			for wait := time.Now().Add(time.Second); time.Now().Before(wait); time.Sleep(5 * time.Millisecond) {
				if sessions() == 1 {
					return nc
				}
			}
			nc.Close()
		}
		t.Fatal("no session in front of the JVM")
		return nil
	}

	// Warm up, then count: a debugger that leaves takes its goroutines along.
	nc := attach()
	nc.Close()
	eventually(t, "the session's end", func() bool { return sessions() == 0 })
	time.Sleep(100 * time.Millisecond)
	g0 := runtime.NumGoroutine()
	for range 5 {
		nc := attach()
		time.Sleep(20 * time.Millisecond) // refreshes under way
		nc.Close()
		eventually(t, "the session's end", func() bool { return sessions() == 0 })
	}
	var g1 int
	deadline := time.Now().Add(time.Minute)
	for g1 = runtime.NumGoroutine(); g1 > g0 && time.Now().Before(deadline); g1 = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	if g1 > g0 {
		t.Errorf("goroutines %d → %d after 5 sessions", g0, g1)
	}

	// The JVM dies under a session: the debugger's connection closes.
	nc = attach()
	defer nc.Close()
	time.Sleep(20 * time.Millisecond)
	jvm.Kill()
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := bufio.NewReader(nc).ReadByte(); err == nil || isTimeout(err) {
		t.Errorf("debugger's connection after the JVM died: %v, want closed", err)
	}
	closed := make(chan struct{})
	go func() { vm.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs after the JVM died")
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// fakeJVM is a JDWP agent with one thread, "main", whose AllThreads replies
// after the first come late by delay. It closes the connection on kill.
func fakeJVM(t *testing.T, delay time.Duration) (addr string, kill func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns := make(chan net.Conn, 1)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		conns <- nc
		buf := make([]byte, len(jdwp.HandshakeString))
		if _, err := io.ReadFull(nc, buf); err != nil {
			return
		}
		nc.Write(buf)
		var wmu sync.Mutex
		reply := func(id uint32, data []byte) {
			wmu.Lock()
			defer wmu.Unlock()
			jdwp.WritePacket(nc, &jdwp.Packet{ID: id, Flags: jdwp.FlagReply, Data: data})
		}
		r := bufio.NewReader(nc)
		allThreads := 0
		for {
			p, err := jdwp.ReadPacket(r, 0)
			if err != nil {
				return
			}
			var out []byte
			switch (jdwp.Cmd{Set: p.CmdSet, Cmd: p.Cmd}) {
			case jdwp.CmdVMIDSizes:
				for range 5 {
					out = binary.BigEndian.AppendUint32(out, 8)
				}
			case jdwp.CmdVMAllThreads:
				out = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(nil, 1), 0x42)
				if allThreads++; allThreads > 1 {
					go func(id uint32) { time.Sleep(delay); reply(id, out) }(p.ID)
					continue
				}
			case jdwp.CmdThreadName:
				out = jdwpString(nil, "main")
			case jdwp.CmdThreadStatus:
				out = binary.BigEndian.AppendUint64(nil, uint64(jdwp.ThreadRunning)<<32)
			case jdwp.CmdVMVersion:
				out = jdwpString(nil, "fake")
			}
			reply(p.ID, out)
		}
	}()
	return ln.Addr().String(), func() {
		select {
		case nc := <-conns:
			nc.Close()
		case <-time.After(5 * time.Second):
			t.Error("the simulator never connected")
		}
	}
}

// Replies that come after the simulator stopped waiting are dropped, not
// passed to the debugger; and a session whose JVM goes away mid-query ends
// at once.
func TestPassthroughLateReplies(t *testing.T) {
	defer func(d time.Duration) { queryTimeout = d }(queryTimeout)
	queryTimeout = 50 * time.Millisecond
	jvmAddr, kill := fakeJVM(t, 150*time.Millisecond)
	vm, addr := listen(t, Options{JVM: jvmAddr, Tick: 10 * time.Millisecond, GCInterval: time.Hour})
	nc, err := jvmtest.DialHandshake(t.Context(), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r := bufio.NewReader(nc)
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	for id := uint32(1); id <= 50; id++ {
		if err := jdwp.WritePacket(nc, &jdwp.Packet{ID: id, CmdSet: jdwp.CmdVMVersion.Set, Cmd: jdwp.CmdVMVersion.Cmd}); err != nil {
			t.Fatal(err)
		}
		p, err := jdwp.ReadPacket(r, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !p.IsReply() || p.ID != id {
			t.Fatalf("got %v, want the reply to %d", p, id)
		}
		time.Sleep(10 * time.Millisecond)
	}
	vm.mu.Lock()
	var s *session
	for s = range vm.sessions {
	}
	vm.mu.Unlock()
	s.qmu.Lock()
	sent, outstanding := s.qid-queryIDBase, len(s.pending)
	s.qmu.Unlock()
	t.Logf("%d queries, %d outstanding", sent, outstanding)
	if sent < 10 || outstanding > 5 {
		t.Errorf("%d queries sent, %d outstanding: want late replies to clear them", sent, outstanding)
	}
	if ids := vm.ThreadIDs(); len(ids) != 1 || ids[0] != 1 {
		t.Errorf("threads %v", vm.ThreadIDs())
	}

	kill()
	if _, err := r.ReadByte(); err == nil || isTimeout(err) {
		t.Errorf("debugger's connection after the JVM left: %v, want closed", err)
	}
	done := make(chan struct{})
	go func() { vm.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("Close hangs after the JVM left")
	}
}
