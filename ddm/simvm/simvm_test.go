package simvm

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// start runs a VM on a loopback port and attaches a ddm.Client through a real jdwp.Conn.
func start(t *testing.T, opt Options, copt ddm.Options) (*VM, *jdwp.Conn, *ddm.Client) {
	t.Helper()
	vm, conn := serve(t, opt)
	if copt.Timeout == 0 {
		copt.Timeout = 30 * time.Second // generous: a loaded machine only slows the test
	}
	conn.AllowVendorCommands() // the simulated VM is Android's: it speaks DDM
	c := ddm.Attach(conn, copt)
	t.Cleanup(c.Close)
	return vm, conn, c
}

// serve runs a VM on a loopback port and dials it with a real jdwp.Conn; both
// are closed when the test ends.
func serve(t *testing.T, opt Options) (*VM, *jdwp.Conn) {
	t.Helper()
	vm, addr := listen(t, opt)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := jdwp.Dial(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return vm, conn
}

// listen starts a simulated VM serving on a loopback port and returns it with
// the port's address; it is closed when the test ends.
func listen(t *testing.T, opt Options) (*VM, string) {
	t.Helper()
	vm, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vm.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go vm.Serve(ln)
	return vm, ln.Addr().String()
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // generous: load only slows the test
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestARTProfile(t *testing.T) {
	_, conn, c := start(t, Options{Profile: ProfileART, AppName: "com.example.art", PID: 777, WaitingForDebugger: true, Threads: 4, Tick: 20 * time.Millisecond, GCInterval: time.Hour},
		ddm.Options{ThreadUpdates: true})
	d := c.Data()
	// APNM may come before HELO's reply is applied: wait for both.
	eventually(t, "identity", func() bool { id := d.Identity(); return id.PackageName == "com.example.art" && id.VMIdent != "" })
	id := d.Identity()
	if id.PID != 777 || id.VMIdent != "Dalvik v2.1.0" || id.HelloTails != 6 || id.ABI != "64-bit (x86_64)" || id.BootStage != ddm.StageGo {
		t.Errorf("identity %+v", id)
	}
	eventually(t, "features", func() bool { return d.Identity().HasFeature("hprof-heap-dump-streaming") })
	if d.Debugger() != ddm.DebuggerWaiting {
		t.Error("WAIT was not received")
	}
	// THEN(1) from the ready step produced THCR for every thread.
	eventually(t, "threads", func() bool { return len(d.Threads()) >= 4 })
	if th := d.Threads(); th[0].ID != 1 || th[0].Name != "main" {
		t.Errorf("threads %+v", th)
	}
	ctx := context.Background()
	m, err := c.Request(ctx, &ddm.ThreadStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	st := m.(*ddm.ThreadStatus)
	if st.Layout != ddm.LayoutART || len(st.Threads) < 4 {
		t.Fatalf("THST %+v", st)
	}
	for _, e := range st.Threads {
		if e.Status > ddm.ThreadWait {
			t.Errorf("ART reported state %v", e.Status)
		}
	}
	if _, err := c.Request(ctx, &ddm.StackRequest{ThreadID: 9999}); !errors.As(err, new(*ddm.FailError)) {
		t.Errorf("STKL unknown thread: %v", err)
	}
	m, err = c.Request(ctx, &ddm.StackRequest{ThreadID: 1})
	if err != nil || len(m.(*ddm.Stack).Frames) != 3 {
		t.Errorf("STKL: %v %v", m, err)
	}
	if _, err := c.Request(ctx, &ddm.HeapInfoRequest{When: 9}); !errors.As(err, new(*ddm.FailError)) {
		t.Errorf("HPIF 9: %v", err)
	}

	// Heap: ask for info and segments after every GC, then GC.
	c.RequestHeapInfo(ddm.WhenEveryGC)
	c.SetHeapSegments(true, false)
	c.GC()
	eventually(t, "heap map", func() bool { return d.HeapMap(1, false) != nil })
	hm := d.HeapMap(1, false)
	info := d.HeapInfo()[1]
	tot := hm.Totals()
	if len(hm.Rejected) != 0 || !hm.Complete || tot.Bytes == 0 || info.MaxBytes != maxHeapBytes {
		t.Errorf("heap map %+v info %+v", tot, info)
	}
	// The map and HPIF describe the same heap (no allocation between them: same GC).
	if got := tot.Bytes - tot.Free.Bytes; got != uint64(info.AllocatedBytes) {
		t.Errorf("map has %d allocated bytes, HPIF says %d", got, info.AllocatedBytes)
	}
	// A query (HPIF when=now) leaves the reporting mode alone: the next GC
	// still reports, as every-GC.
	c.RequestHeapInfo(ddm.WhenNow)
	eventually(t, "HPIF now", func() bool { return d.HeapInfo()[1].Reason == ddm.WhenNow })
	c.GC()
	eventually(t, "HPIF after the next GC", func() bool { return d.HeapInfo()[1].Reason == ddm.WhenEveryGC })

	// Allocation tracking, profiling, hprof.
	c.Send(&ddm.AllocTrackingEnable{Enable: true}, nil)
	eventually(t, "REAQ", func() bool {
		m, _ := c.Request(ctx, &ddm.Empty{Type: ddm.REAQ})
		return m != nil && m.(*ddm.AllocTrackingStatus).Enabled
	})
	m, err = c.Request(ctx, &ddm.Empty{Type: ddm.REAL})
	if err != nil || len(m.(*ddm.AllocRecords).Records) == 0 {
		t.Errorf("REAL: %v", err)
	}
	c.Send(&ddm.TraceStart{Type: ddm.MPSS, BufferSize: 8 << 20}, nil)
	eventually(t, "tracing", func() bool {
		m, _ := c.Request(ctx, &ddm.Empty{Type: ddm.MPRQ})
		return m != nil && m.(*ddm.ProfilingStatus).Mode == ddm.ProfilingTracing
	})
	c.Send(&ddm.Empty{Type: ddm.MPSE}, nil)
	c.Send(&ddm.Empty{Type: ddm.HPDS}, nil)
	eventually(t, "trace and hprof data", func() bool {
		p := d.Profiling()
		return strings.HasPrefix(string(p.LastTrace), "*version") && strings.HasPrefix(string(p.LastHprof), "JAVA PROFILE")
	})
	m, err = c.Request(ctx, &ddm.Empty{Type: ddm.NHGT})
	if err != nil || m.(*ddm.NativeHeap).TotalMemory != 1<<20 {
		t.Errorf("NHGT: %v %v", m, err)
	}

	// Thread churn reaches the model: wait for a thread beyond the initial four to be born.
	eventually(t, "a new thread", func() bool {
		for _, th := range d.Threads() {
			if th.ID > 4 {
				return true
			}
		}
		return false
	})

	// Core JDWP answers keep a debugger happy.
	data, err := conn.Command(ctx, 1, 1, nil)
	if err != nil || !strings.Contains(string(data), "simulated VM") {
		t.Errorf("VirtualMachine.Version: %q %v", data, err)
	}
	data, err = conn.Command(ctx, 1, 4, nil)
	if err != nil || len(data) < 4 || int(binary.BigEndian.Uint32(data)) < 4 || len(data) != 4+8*int(binary.BigEndian.Uint32(data)) {
		t.Errorf("AllThreads: %v", err)
	}
	if _, err := conn.Command(ctx, 2, 1, make([]byte, 8)); jdwp.Code(err) != jdwp.ErrInvalidClass {
		t.Errorf("ReferenceType.Signature of no class: %v, want INVALID_CLASS", err)
	}
	if _, err := conn.Command(ctx, 3, 3, nil); jdwp.Code(err) != jdwp.ErrNotImplemented {
		t.Errorf("ClassType.InvokeMethod: %v, want NOT_IMPLEMENTED (no code runs here)", err)
	}
}

// Modern ART sends no reply when a handler returns nothing: the client gives
// up after its timeout. A client of its own with a short timeout, so that no
// other request of a test can be cut short by it on a loaded machine.
func TestARTNoReplyTimesOut(t *testing.T) {
	_, _, c := start(t, Options{Profile: ProfileART, Threads: 1, Tick: time.Hour, GCInterval: time.Hour},
		ddm.Options{Timeout: 300 * time.Millisecond})
	if _, err := c.Request(context.Background(), &ddm.ViewListWindows{Flag: 1}); !errors.Is(err, ddm.ErrTimeout) {
		t.Errorf("VULW on ART: %v, want a timeout", err)
	}
}

func TestDraftProfile(t *testing.T) {
	vm, conn, c := start(t, Options{Profile: ProfileDraft, Threads: 30, Tick: 20 * time.Millisecond, GCInterval: time.Hour}, ddm.Options{})
	d := c.Data()
	ctx := context.Background()
	eventually(t, "identity", func() bool { return d.Identity().PID == 4242 })
	if id := d.Identity(); id.HelloTails != 0 || id.VMIdent != "Dalvik v1.0.0" || id.AppName != "com.example.simvm" {
		t.Errorf("draft HELO %+v", id)
	}
	// FEAT is not in the 2007 design: empty reply, no error.
	if m, err := c.Request(ctx, &ddm.Empty{Type: ddm.FEAT}); m != nil || err != nil {
		t.Errorf("FEAT on draft: %v %v", m, err)
	}
	// DBGD is acknowledged with DBGD.
	if m, err := c.Request(ctx, &ddm.Empty{Type: ddm.DBGD}); err != nil || m.ChunkType() != ddm.DBGD {
		t.Errorf("DBGD: %v %v", m, err)
	}
	// Periodic THST in the draft layout.
	if m, err := c.Request(ctx, &ddm.ThreadStatusRequest{Draft: true, IntervalMs: 30}); m != nil || err != nil {
		t.Errorf("THST interval: %v %v", m, err)
	}
	eventually(t, "periodic THST", func() bool { th := d.Threads(); return len(th) >= 30 && th[0].HaveStatus })
	for _, th := range d.Threads() {
		if th.Status < 1 || th.Status > ddm.ThreadVMWait {
			t.Errorf("draft state %v", th.Status)
		}
	}
	c.Request(ctx, &ddm.ThreadStatusRequest{Draft: true, IntervalMs: 0})

	// Heap segments arrive ZLIB-compressed and still assemble.
	var zlibSeen atomic.Bool
	conn.HandleCommandSet(ddm.CommandSet, func(_ *jdwp.Conn, p *jdwp.Packet) {
		if len(p.Data) >= 4 && ddm.Type(binary.BigEndian.Uint32(p.Data)) == ddm.ZLIB {
			zlibSeen.Store(true)
		}
		c.HandlePacket(p.ID, p.Cmd, p.Data)
	})
	c.SetHeapSegments(true, true)
	c.Send(&ddm.SegmentRequest{Native: true, When: 1}, nil)
	if _, err := c.Request(ctx, &ddm.HeapInfoRequest{When: ddm.WhenNextGC}); err != nil {
		t.Fatal(err)
	}
	// HPGC is not in the draft (it gets an empty reply); collect from the simulation side.
	if m, err := c.Request(ctx, &ddm.Empty{Type: ddm.HPGC}); m != nil || err != nil {
		t.Errorf("HPGC on draft: %v %v", m, err)
	}
	vm.GC()
	eventually(t, "heap and native maps", func() bool { return d.HeapMap(1, false) != nil && d.HeapMap(1, true) != nil })
	if !zlibSeen.Load() {
		t.Error("no ZLIB chunk on the wire from the draft VM")
	}
	if hm := d.HeapMap(1, false); !hm.PerObject || len(hm.Rejected) != 0 {
		t.Errorf("HPSO map: %+v", hm.Rejected)
	}
	if nm := d.HeapMap(1, true); nm.Totals().ByKind[ddm.KindNative].Bytes != 256 {
		t.Errorf("native map %+v", nm.Totals())
	}
}

func TestProfileParse(t *testing.T) {
	if _, err := ParseProfile("jamvm"); err == nil {
		t.Error("jamvm accepted")
	}
	if p, err := ParseProfile("ART"); err != nil || p != ProfileART {
		t.Error(p, err)
	}
	if _, err := New(Options{Profile: "x"}); err == nil {
		t.Error("New accepted a bad profile")
	}
}

// TestCurrentProfile: the framework's FEAT strings, HELO's boot stage, no
// THST or STKL answer while only DDM flows (adbconnection sends nothing) and
// an empty answer once a non-DDM packet has loaded the JDWP agent; the VM
// counts the non-DDM packets.
func TestCurrentProfile(t *testing.T) {
	vm, conn, c := start(t, Options{Profile: ProfileCurrent, AppName: "com.example.now", Threads: 3, Tick: time.Hour, GCInterval: time.Hour}, ddm.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	eventually(t, "HELO and FEAT", func() bool {
		id := c.Data().Identity()
		return id.HasFeature("support_boot_stages") && id.HasFeature("view-hierarchy") && id.HasFeature("hprof-heap-dump") && id.HelloTails == 6
	})
	if id := c.Data().Identity(); id.BootStage != ddm.StageGo || id.PackageName != "com.example.now" {
		t.Errorf("identity: %+v", id)
	}
	// No reply at all: the wait for one ends with a short deadline of its own
	// (the client's timeout is generous, so that a loaded machine cuts no
	// real reply short).
	noReply := func(what string, m ddm.Message) {
		t.Helper()
		short, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if _, err := c.Request(short, m); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s before the agent: %v, want no reply", what, err)
		}
	}
	noReply("THST", &ddm.ThreadStatusRequest{})
	noReply("STKL", &ddm.StackRequest{ThreadID: 1})
	if n := vm.NonDDMPackets(); n != 0 || vm.AgentLoaded() {
		t.Fatalf("%d non-DDM packets counted from a DDM-only client", n)
	}
	if _, err := conn.Version(ctx); err != nil {
		t.Fatal(err)
	}
	if n := vm.NonDDMPackets(); n < 1 || !vm.AgentLoaded() { // Version, and IDSizes the client asks first
		t.Errorf("after VirtualMachine.Version: %d non-DDM packets, agent loaded %v", n, vm.AgentLoaded())
	}
	if m, err := c.Request(ctx, &ddm.ThreadStatusRequest{}); err != nil || m != nil {
		t.Errorf("THST with the agent loaded: %v, %v, want an empty reply", m, err)
	}
}
