package bridge

import (
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// TestGoneDebuggersLateInvoke (issue 42.4): of two debuggers on a VM
// through the monitor, one stops main at a breakpoint (suspending all) and
// invokes a method there that returns seconds later (DemoApp.sleep), then
// is killed. The other keeps working; when the method returns, main is not
// left suspended with no owner: it runs on (the app ticks again).
func TestGoneDebuggersLateInvoke(t *testing.T) {
	for _, single := range []bool{true, false} {
		t.Run(fmt.Sprintf("single=%v", single), func(t *testing.T) { lateInvoke(t, single) })
	}
}

func lateInvoke(t *testing.T, single bool) {
	logs := &bridgetest.LogLines{T: t}
	o := testOptions(t, 0, 0)
	o.Logger = zerolog.New(logs).Level(zerolog.InfoLevel)
	m := startMonitor(t, o)
	id, vm := launchAdopted(t, m, true)
	v, err := m.VM(id)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", v.Info().DebugPort)
	ctx := t.Context()
	stay, err := jdwp.Dial(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stay.Close()
	if err := stay.Resume(ctx); err != nil { // the launched VM waits (suspend=y)
		t.Fatal(err)
	}
	a, err := jdwp.Dial(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	events := a.Subscribe()
	var class jdwp.ClassInfo
	waitFor(t, time.Minute, "DemoApp to load", func() bool {
		cs, err := a.ClassesBySignature(ctx, "LDemoApp;")
		if err == nil && len(cs) == 1 {
			class = cs[0]
		}
		return class.ID != 0
	})
	methods, err := a.Methods(ctx, class.ID)
	if err != nil {
		t.Fatal(err)
	}
	var work, sleep jdwp.MethodID
	for _, mi := range methods {
		switch mi.Name {
		case "work":
			work = mi.ID
		case "sleep":
			sleep = mi.ID
		}
	}
	if _, err := a.SetRequest(ctx, jdwp.EventBreakpoint, jdwp.SuspendAll,
		jdwp.LocationOnly(jdwp.Location{TypeTag: class.TypeTag, Class: class.ID, Method: work})); err != nil {
		t.Fatal(err)
	}
	var main jdwp.ThreadID
	deadline := time.After(time.Minute)
	for main == 0 {
		select {
		case es := <-events.C:
			for _, e := range es.Events {
				if e.Kind == jdwp.EventBreakpoint {
					main = e.Thread
				}
			}
		case <-deadline:
			t.Fatal("main never stopped in work()")
		}
	}
	opts := jdwp.InvokeOptions(0)
	if single {
		opts = jdwp.InvokeSingleThreaded
	}
	invoked := make(chan error, 1)
	go func() {
		_, err := a.InvokeStatic(ctx, jdwp.ClassID(class.ID), main, sleep, []jdwp.Value{jdwp.LongValue(5000)}, opts)
		invoked <- err
	}()
	// The method runs: main is not suspended meanwhile.
	waitFor(t, time.Minute, "the invocation to start", func() bool {
		n, err := stay.SuspendCount(ctx, main)
		return err == nil && n == 0
	})
	a.Close() // killed mid-invocation
	waitFor(t, time.Minute, "the cleanup after the killed debugger", func() bool {
		return v.mux.Sessions() == 1
	})
	// The other debugger keeps working.
	if _, err := stay.Version(ctx); err != nil {
		t.Fatal(err)
	}
	// When the method returns, main runs on: a new TICK.
	before := lastTick(vm)
	waitFor(t, 2*time.Minute, "main to run on after the method returned", func() bool { return lastTick(vm) > before })
	if n, err := stay.SuspendCount(ctx, main); err != nil || n != 0 {
		t.Fatalf("main's suspend count %d, %v", n, err)
	}
}
