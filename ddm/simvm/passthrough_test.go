package simvm

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestPassthroughToRealJVM puts the simulator in front of a real HotSpot JVM:
// core JDWP is answered by HotSpot, DDM by the simulator, and DDM's threads
// are the JVM's real ones.
func TestPassthroughToRealJVM(t *testing.T) {
	jvm := jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: []string{"-Dthreads=3"}})
	_, conn := serve(t, Options{Profile: ProfileART, JVM: jvm.Addr, Tick: time.Hour, GCInterval: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn.AllowVendorCommands() // the simulated VM is Android's: it speaks DDM
	c := ddm.Attach(conn, ddm.Options{ThreadUpdates: true})
	defer c.Close()

	// Real JDWP passes through: HotSpot describes itself.
	data, err := conn.Command(ctx, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := binary.BigEndian.Uint32(data); !strings.Contains(string(data[4:4+n]), "Java") || strings.Contains(string(data), "simulated") {
		t.Errorf("VirtualMachine.Version description %q is not HotSpot's", data[4:4+n])
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
