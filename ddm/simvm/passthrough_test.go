package simvm

import (
	"context"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestPassthroughToRealJVM puts the simulator in front of a real HotSpot JVM:
// core JDWP is answered by HotSpot (Version given as ART's), DDM by the simulator, and DDM's threads
// are the JVM's real ones.
func TestPassthroughToRealJVM(t *testing.T) {
	jvm := jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: []string{"-Dthreads=3"}})
	_, conn := serve(t, Options{Profile: ProfileART, JVM: jvm.Addr, Tick: time.Hour, GCInterval: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn.AllowVendorCommands() // the simulated VM is Android's: it speaks DDM
	c := ddm.Attach(conn, ddm.Options{ThreadUpdates: true})
	defer c.Close()

	// Version is the simulated ART VM's (a client learns from it that the VM
	// speaks DDM), though the JVM behind answers it, in order.
	if v, err := conn.Version(ctx); err != nil || !v.Android() || !ddm.Simulated(v.Description) {
		t.Errorf("VirtualMachine.Version through the simulator: %+v %v; want the simulated ART VM's", v, err)
	}
	// Real JDWP passes through: HotSpot's threads.
	if ts, err := conn.AllThreads(ctx); err != nil || len(ts) < 3 {
		t.Errorf("AllThreads through the simulator: %d %v", len(ts), err)
	}
	// An unknown-to-the-simulator command reaches the JVM too.
	if _, err := conn.Command(ctx, 1, 7, nil); err != nil {
		t.Errorf("IDSizes through the proxy: %v", err)
	}
	// DDM is answered locally, with the JVM's threads.
	eventually(t, "JVM threads over THCR", func() bool {
		for _, th := range c.Data().Threads() {
			if th.Name == "main" || th.Name == "Reference Handler" {
				return true
			}
		}
		return false
	})
	// HELO's reply is applied on its own goroutine: wait for it.
	eventually(t, "HELO via the simulator", func() bool { return c.Data().Identity().VMIdent == "Dalvik v2.1.0" })
}
