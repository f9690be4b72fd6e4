//go:build linux

package hotspot

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// vparkedSrc parks n virtual threads (args[0]) in two stacks, half one
// call deeper, until the VM is killed.
const vparkedSrc = `import java.util.concurrent.CountDownLatch;
public class VParkedDump {
    static final CountDownLatch never = new CountDownLatch(1);
    static void park(int k) throws InterruptedException {
        if (k % 2 == 0) { never.await(); } else { deeper(); }
    }
    static void deeper() throws InterruptedException { never.await(); }
    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        CountDownLatch started = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            final int k = i;
            Thread.ofVirtual().start(() -> {
                started.countDown();
                try { park(k); } catch (InterruptedException e) { }
            });
        }
        started.await();
        System.out.println("READY");
        Thread.sleep(Long.MAX_VALUE);
    }
}
`

// TestThreadDumpOfJDK25 asks a JDK 21+ VM (Temurin 25 here) with 10,000
// parked virtual threads for its JSON thread dump through the attach
// socket: the virtual threads come grouped by their two stacks, with
// their state and blocker (JDK 25's fields), the platform threads listed;
// the JDK's own jcmd dump of the same VM, decoded alike, has the same
// counts.
func TestThreadDumpOfJDK25(t *testing.T) {
	home := jvmtest.ModernJDK(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	classes, err := jvmtest.CompileWith(ctx, home, map[string][]byte{"VParkedDump.java": []byte(vparkedSrc)})
	if err != nil {
		t.Fatal(err)
	}
	const n = 10000
	vm := jvmtest.StartT(t, jvmtest.Options{JavaHome: home, ClassPath: []string{classes}, MainClass: "VParkedDump",
		Args: []string{strconv.Itoa(n)}, ReadyLine: "READY", Timeout: 3 * time.Minute})
	d, err := ThreadDump(ctx, vm.Pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dump of %s: %d virtual threads in %d groups, %d platform threads, process %s, runtime %s", home, d.Virtual, len(d.Groups), d.PlatformCount, d.ProcessID, d.RuntimeVersion)
	if d.ProcessID != strconv.Itoa(vm.Pid) {
		t.Errorf("the dump is of process %s, want %d", d.ProcessID, vm.Pid)
	}
	if d.Virtual != n {
		t.Fatalf("%d virtual threads in the dump, want %d", d.Virtual, n)
	}
	deeper, direct := 0, 0
	for _, g := range d.Groups {
		stack := strings.Join(g.Stack, "\n")
		switch {
		case strings.Contains(stack, "VParkedDump.deeper("):
			deeper += g.Count
		case strings.Contains(stack, "VParkedDump.park("):
			direct += g.Count
		}
		if len(g.Tids) == 0 || len(g.Tids) > maxGroupSamples {
			t.Errorf("group of %d names %d threads", g.Count, len(g.Tids))
		}
	}
	if deeper != n/2 || direct != n/2 || len(d.Groups) != 2 {
		t.Errorf("groups: %d in deeper, %d in park, %d groups; want %d each in 2", deeper, direct, len(d.Groups), n/2)
	}
	if g := d.Groups[0]; g.States["WAITING"] != g.Count || len(g.Blockers) == 0 || !strings.HasPrefix(g.Blockers[0], "java.util.concurrent.CountDownLatch$Sync@") {
		t.Errorf("the largest group's states %v and blockers %v, want all WAITING on the latch", g.States, g.Blockers)
	}
	main := false
	for _, p := range d.Platform {
		main = main || p.Name == "main"
	}
	if !main || d.PlatformCount != len(d.Platform) {
		t.Errorf("platform threads (%d of %d) lack main", len(d.Platform), d.PlatformCount)
	}

	// The JDK's own jcmd, into a file of ours, decoded the same way.
	file := filepath.Join(t.TempDir(), "jcmd.json")
	if out, err := exec.CommandContext(ctx, filepath.Join(home, "bin", "jcmd"), strconv.Itoa(vm.Pid), "Thread.dump_to_file", "-format=json", file).CombinedOutput(); err != nil {
		t.Fatalf("jcmd: %v\n%s", err, out)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref, err := DecodeThreadDump(f)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Virtual != d.Virtual || len(ref.Groups) != len(d.Groups) || ref.Groups[0].Count != d.Groups[0].Count {
		t.Errorf("jcmd's dump: %d virtual threads in %d groups; ours: %d in %d", ref.Virtual, len(ref.Groups), d.Virtual, len(d.Groups))
	}
}

// TestThreadDumpOfJDK17 is refused with words: JDK 17 has no JSON thread
// dump, and the command is not sent (its help does not list it).
func TestThreadDumpOfJDK17(t *testing.T) {
	vm := jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: []string{"-Dobjects=10", "-Xmx64m"}})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if _, err := ThreadDump(ctx, vm.Pid); err == nil || !strings.Contains(err.Error(), "came with JDK 21") {
		t.Errorf("thread dump of a JDK 17 VM: %v", err)
	}
}

// FuzzDecodeThreadDump: whatever the file holds, the decoder returns a
// dump or an error, never panics, and its counts add up. Seeds:
// testdata/fuzz/FuzzDecodeThreadDump.
func FuzzDecodeThreadDump(f *testing.F) {
	f.Add([]byte(`{"threadDump":{"processId":"1","time":"t","runtimeVersion":"25","threadContainers":[{"container":"<root>","parent":null,"owner":null,"threads":[{"tid":"1","name":"main","stack":["A.main(A.java:1)"]},{"tid":"2","virtual":true,"name":"","state":"WAITING","parkBlocker":{"object":"L@1"},"carrier":"9","stack":["B.b(B.java:2)"]}],"threadCount":"2"}]}}`))
	f.Add([]byte(`{"threadDump":{"threadContainers":[]}}`))
	f.Add([]byte(`{"other":[1,2,{"a":null}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := DecodeThreadDump(strings.NewReader(string(in)))
		if err != nil {
			return
		}
		sum := d.Ungrouped
		for _, g := range d.Groups {
			sum += g.Count
			if g.Count <= 0 || len(g.Tids) > maxGroupSamples {
				t.Fatalf("group %+v", g)
			}
		}
		if sum != d.Virtual || len(d.Platform) > d.PlatformCount || len(d.Groups) > MaxGroups {
			t.Fatalf("counts: %d grouped of %d virtual, %d of %d platform", sum, d.Virtual, len(d.Platform), d.PlatformCount)
		}
	})
}
