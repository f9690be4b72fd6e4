package rpc

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
)

// vthreadsApp parks 2,000 virtual threads, named vt-N, until it is killed.
const vthreadsApp = `import java.util.concurrent.CountDownLatch;
public class VThreadsApp {
    static final CountDownLatch never = new CountDownLatch(1);
    public static void main(String[] args) throws Exception {
        CountDownLatch started = new CountDownLatch(2000);
        for (int i = 0; i < 2000; i++) {
            Thread.ofVirtual().name("vt-" + i).start(() -> {
                started.countDown();
                try { never.await(); } catch (InterruptedException e) { }
            });
        }
        started.await();
        System.out.println("READY");
        Thread.sleep(Long.MAX_VALUE);
    }
}
`

// TestThreadDumpRPC: the monitor finds a JDK 21+ VM (Temurin 25 here) and
// vm/threadDump answers its JSON thread dump, taken through the attach
// mechanism with no debugger: the 2,000 virtual threads in one group
// with their state and blocker, main among the platform threads. A VM of
// JDK 17 is refused with words.
func TestThreadDumpRPC(t *testing.T) {
	home := jvmtest.ModernJDK(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	classes, err := jvmtest.CompileWith(ctx, home, map[string][]byte{"VThreadsApp.java": []byte(vthreadsApp)})
	if err != nil {
		t.Fatal(err)
	}
	lo := freePorts(t, 2)
	vm := jvmtest.StartT(t, jvmtest.Options{JavaHome: home, ClassPath: []string{classes}, MainClass: "VThreadsApp",
		Address: fmt.Sprintf("127.0.0.1:%d", lo), ReadyLine: "READY", Timeout: 2 * time.Minute})
	old := startDemo(t, lo+1, false)
	m := startMonitor(t, testOptions(t, lo, 2))
	v25 := waitVM(t, m, vm.Addr, time.Minute)
	v17 := waitVM(t, m, old.Addr, time.Minute)
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	c, err := DialRPC(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var d VMThreadDump
	waitFor(t, time.Minute, "the VM's pid known to the monitor", func() bool {
		d, err = c.ThreadDump(ctx, v25.ID)
		return err == nil || !strings.Contains(err.Error(), "no local process")
	})
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != v25.ID || d.Virtual != 2000 || len(d.Groups) != 1 {
		t.Fatalf("thread dump: id %s, %d virtual threads in %d groups; want 2000 in 1", d.ID, d.Virtual, len(d.Groups))
	}
	g := d.Groups[0]
	if g.Count != 2000 || g.States["WAITING"] != 2000 || len(g.Blockers) != 1 || !strings.Contains(strings.Join(g.Stack, "\n"), "VThreadsApp.lambda$main$0(VThreadsApp.java:") {
		t.Errorf("group: %d threads, states %v, blockers %v, stack %v", g.Count, g.States, g.Blockers, g.Stack)
	}
	main := false
	for _, p := range d.Platform {
		main = main || p.Name == "main"
	}
	if !main {
		t.Errorf("no main among the platform threads %v", d.Platform)
	}
	if _, err := c.ThreadDump(ctx, v17.ID); err == nil || !strings.Contains(err.Error(), "JDK 21") {
		t.Errorf("thread dump of the JDK 17 VM: %v", err)
	}
}

// TestRPCJDKsList: jdks/list names the JDKs installed here, as
// localjvm.InstalledJDKs reads them, and the one running the tests among
// them.
func TestRPCJDKsList(t *testing.T) {
	jvmtest.RequireJava(t)
	m := startMonitor(t, testOptions(t, 0, 0))
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	c, err := DialRPC(t.Context(), addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var jdks []localjvm.JDK
	if err := c.Call(t.Context(), "jdks/list", nil, &jdks); err != nil {
		t.Fatal(err)
	}
	java, err := jvmtest.FindTool("java")
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(java)
	found := false
	for _, j := range jdks {
		home, _ := filepath.EvalSymlinks(j.Home)
		found = found || strings.HasPrefix(real, home+string(filepath.Separator))
		if j.Version == 0 || j.Full == "" {
			t.Errorf("jdks/list entry %+v", j)
		}
	}
	if !found {
		t.Errorf("jdks/list %+v lacks the JDK of %s", jdks, real)
	}
}
