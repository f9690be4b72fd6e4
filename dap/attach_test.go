package dap

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	godap "github.com/google/go-dap"
)

func startLoop(t *testing.T) *jvmtest.JVM {
	t.Helper()
	return jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{fixtures(t)}, MainClass: "Loop", ReadyLine: "READY"})
}

// attach sends attach and checks the exact answer: process, response, initialized.
func (c *client) attach(args map[string]any) *godap.ProcessEvent {
	c.t.Helper()
	c.send("attach", args)
	p := expect[*godap.ProcessEvent](c)
	if p.Body.StartMethod != "attach" {
		c.t.Errorf("process event %+v", p.Body)
	}
	expect[*godap.AttachResponse](c)
	expect[*godap.InitializedEvent](c)
	return p
}

// TestAttachMessageOrder attaches to a running VM, stops at a breakpoint in
// a loaded class, and disconnects: the VM runs on with nothing suspended
// and no request left.
func TestAttachMessageOrder(t *testing.T) {
	vm := startLoop(t)
	c := startSession(t, Config{})
	c.initialize()
	c.attach(map[string]any{"hostName": "127.0.0.1", "port": vm.Port, "sourcePaths": []string{source(t, "")}})
	bps := c.setBreakpointsRunning(source(t, "Loop.java"), bp(t, "Loop.java", "tick", "condition", "i % 2 == 1"))
	if !bps[0].Verified || bps[0].Line != line(t, "Loop.java", "tick") {
		t.Fatalf("breakpoint in a loaded class: %+v", bps[0])
	}
	c.send("setExceptionBreakpoints", map[string]any{"filters": []string{}})
	var early *godap.StoppedEvent // the breakpoint may be hit before this response
	for {
		m := c.next()
		if s, ok := m.(*godap.StoppedEvent); ok {
			early = s
			continue
		}
		if _, ok := m.(*godap.SetExceptionBreakpointsResponse); !ok {
			t.Fatalf("got %T, want setExceptionBreakpoints' response", m)
		}
		break
	}
	stop := c.configurationDoneAndStop("breakpoint", early)
	locals, frames := c.locals(stop.Body.ThreadId)
	frameAt(t, frames[0], "Loop.tick", line(t, "Loop.java", "tick"))
	if !strings.HasSuffix(locals["i"].Value, "1") && !strings.HasSuffix(locals["i"].Value, "3") && !strings.HasSuffix(locals["i"].Value, "5") && !strings.HasSuffix(locals["i"].Value, "7") && !strings.HasSuffix(locals["i"].Value, "9") {
		t.Errorf("condition i %% 2 == 1 stopped with i = %s", locals["i"].Value)
	}
	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
	checkRunningFree(t, vm)
}

// checkRunningFree attaches with a plain JDWP client and checks that no
// thread is suspended and the program still ticks.
func checkRunningFree(t *testing.T, vm *jvmtest.JVM) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	before := len(vm.Stdout())
	var conn *jdwp.Conn
	var err error
	for conn == nil {
		conn, err = jdwp.Dial(ctx, vm.Addr, nil)
		if err != nil && ctx.Err() != nil {
			t.Fatalf("re-attach after disconnect: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	defer conn.Close()
	threads, err := conn.AllThreads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range threads {
		if n, err := conn.SuspendCount(ctx, th); err == nil && n != 0 {
			name, _ := conn.ThreadName(ctx, th)
			t.Errorf("thread %q is suspended %d times after disconnect", name, n)
		}
	}
	conn.Dispose(ctx)
	if _, err := vm.WaitForLine(ctx, "tick"); err != nil {
		t.Fatal(err)
	}
	for len(vm.Stdout()) <= before+1 && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	if ctx.Err() != nil {
		t.Error("the program stopped ticking after disconnect")
	}
}

// TestAttachByProcessID finds the JDWP address from the process's command
// line, and a client that just goes away leaves the VM running.
func TestAttachByProcessID(t *testing.T) {
	vm := startLoop(t)
	c := startSession(t, Config{})
	c.initialize()
	p := c.attach(map[string]any{"processId": vm.Pid})
	if p.Body.SystemProcessId != vm.Pid {
		t.Errorf("process event pid %d, want %d", p.Body.SystemProcessId, vm.Pid)
	}
	c.setBreakpointsRunning(source(t, "Loop.java"), bp(t, "Loop.java", "tick"))
	c.configurationDoneAndStop("breakpoint", nil) // the VM runs: the stop may come before the response
	c.conn.Close()                                // no disconnect: the session must still release the VM
	select {
	case <-c.done:
	case <-time.After(20 * time.Second):
		t.Fatal("session did not end")
	}
	checkRunningFree(t, vm)
}

// TestAttachThroughSimulatedDDM attaches to a HotSpot VM behind the simulated
// DDM VM: JDWP debugging works through it, and the DDM events flow.
func TestAttachThroughSimulatedDDM(t *testing.T) {
	vm := startLoop(t)
	port := startSimVM(t, simvm.Options{Profile: simvm.ProfileART, JVM: vm.Addr, GCInterval: time.Hour, Tick: 50 * time.Millisecond})

	c := startSession(t, Config{})
	c.initialize()
	c.attach(map[string]any{"hostName": "127.0.0.1", "port": port})
	c.configurationDone()

	c.send("ddmUpdates", map[string]any{"threads": true, "heapInfo": true, "heapMap": true})
	resp := expect[*ddmUpdatesResponse](c)
	if !resp.Body.Threads || !resp.Body.HeapInfo || !strings.Contains(resp.Body.VM, "Dalvik") {
		t.Fatalf("ddmUpdates: %+v", resp.Body)
	}
	threads := until(c, "ddmThreads with main", func(e *customEvent[DDMThreadsBody]) bool {
		for _, th := range e.Body.Threads {
			if th.Name == "main" && th.State != "unknown" {
				return true
			}
		}
		return false
	})
	if len(threads.Body.Threads) < 2 {
		t.Errorf("ddmThreads: %+v", threads.Body)
	}
	c.send("ddmGC", nil)
	until[*customEvent[DDMHeapInfoBody]](c, "ddmHeapInfo", func(e *customEvent[DDMHeapInfoBody]) bool {
		return len(e.Body.Heaps) > 0 && e.Body.Heaps[0].MaxBytes > 0
	})
	hm := until[*customEvent[DDMHeapMapBody]](c, "ddmHeapMap", nil)
	if len(hm.Body.Pieces) == 0 || len(hm.Body.Pieces[0].Blocks) == 0 || hm.Body.Totals.Bytes == hm.Body.Totals.FreeBytes {
		t.Errorf("ddmHeapMap: %s", mustJSON(hm.Body))
	}
	if err := hm.Body.Validate(); err != nil {
		t.Errorf("ddmHeapMap is not the one schema: %v", err)
	}
	if err := threads.Body.Validate(); err != nil {
		t.Errorf("ddmThreads is not the one schema: %v", err)
	}

	// Real JDWP through the simulator: a breakpoint in the real JVM.
	c.send("ddmUpdates", map[string]any{"threads": false, "heapInfo": false, "heapMap": false})
	until[*ddmUpdatesResponse](c, "ddmUpdates response", nil)
	c.setBreakpoints(source(t, "Loop.java"), bp(t, "Loop.java", "tick"))
	stop := until(c, "stopped", func(*godap.StoppedEvent) bool { return true })
	frameAt(t, c.stackTrace(stop.Body.ThreadId)[0], "Loop.tick", line(t, "Loop.java", "tick"))
	c.send("disconnect", nil)
	until[*godap.DisconnectResponse](c, "disconnect response", nil)
}

// TestNotDDM: a plain HotSpot VM answers HELO with a JDWP error, so DDM
// requests fail with a message saying why, not shown to the user.
func TestNotDDM(t *testing.T) {
	vm := startLoop(t)
	c := startSession(t, Config{})
	c.initialize()
	c.attach(map[string]any{"port": vm.Port})
	c.send("ddmGC", nil)
	if e := c.expectError(ErrNoDDM, "does not speak DDM"); e.Body.Error.ShowUser {
		t.Error("ErrNoDDM is shown to the user: the editor would pop it up on every plain-Java session")
	}
	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
}

// TestCapabilitiesEvent attaches to the stand-alone simulated VM, whose old
// Capabilities reply cannot pop frames: restartFrame is withdrawn.
func TestCapabilitiesEvent(t *testing.T) {
	port := startSimVM(t, simvm.Options{Profile: simvm.ProfileART, GCInterval: time.Hour})
	c := startSession(t, Config{})
	c.initialize()
	c.send("attach", map[string]any{"port": port})
	expect[*godap.ProcessEvent](c)
	var caps customEvent[capabilitiesBody]
	if err := json.Unmarshal(c.nextRaw(), &caps); err != nil || caps.Event.Event != "capabilities" {
		t.Fatalf("capabilities event: %v %+v", err, caps)
	}
	for _, name := range []string{"supportsRestartFrame", "supportsDataBreakpoints", "supportsHotCodeReplace"} {
		if v, ok := caps.Body.Capabilities[name]; !ok || v {
			t.Errorf("capabilities event %s does not withdraw %s", mustJSON(caps.Body), name)
		}
	}
	expect[*godap.AttachResponse](c)
	expect[*godap.InitializedEvent](c)
	// Requests that need what the VM lacks say so.
	c.send("setDataBreakpoints", map[string]any{"breakpoints": []map[string]any{{"dataId": "field/1/2/0"}}})
	c.expectError(ErrVMCannot, "this VM cannot watch fields (CanWatchFieldAccess and CanWatchFieldModification are false)")
	c.send("redefineClasses", map[string]any{"classFiles": []string{"X.class"}})
	c.expectError(ErrVMCannot, "this VM cannot redefine classes (CanRedefineClasses is false)")
	c.send("disconnect", nil)
	expect[*godap.DisconnectResponse](c)
}

// startSimVM serves a simulated DDM VM on a loopback port and returns the port.
func startSimVM(t *testing.T, opt simvm.Options) int {
	t.Helper()
	_, port := startSimVMs(t, opt)
	return port
}

// startSimVMs is startSimVM that returns the simulated VM too.
func startSimVMs(t *testing.T, opt simvm.Options) (*simvm.VM, int) {
	t.Helper()
	sim, err := simvm.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go sim.Serve(ln)
	return sim, ln.Addr().(*net.TCPAddr).Port
}
