//go:build linux

package hotspot

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// nobody is the uid another local user's VM and files run as.
const nobody = 65534

// holdSource is a program that keeps n small arrays reachable (a heap that
// takes a while to dump when n is large), prints READY and waits.
const holdSource = `public class Hold {
    static Object keep;
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]);
        Object[] nodes = new Object[n];
        for (int i = 0; i < n; i++) nodes[i] = new byte[16 + (i & 31)];
        keep = nodes;
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
`

// startHold runs Hold (a single-file source program) as uid in dir cwd and
// returns its pid once it printed READY. The process is killed when the test
// ends, and after 10 minutes in any case.
func startHold(t *testing.T, uid int, cwd string, n int, vmArgs ...string) *exec.Cmd {
	t.Helper()
	jvmtest.RequireJava(t)
	java, err := jvmtest.FindTool("java")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.MkdirTemp("", "hotspot-hold-") // readable by uid
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(src) })
	os.Chmod(src, 0o755)
	file := filepath.Join(src, "Hold.java")
	if err := os.WriteFile(file, []byte(holdSource), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	args := append(append([]string{"-Xshare:auto"}, vmArgs...), file, strconv.Itoa(n))
	cmd := exec.CommandContext(ctx, java, args...)
	cmd.Dir = cwd
	if uid != os.Getuid() {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		cancel()
	})
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "READY" {
				ready <- nil
				io.Copy(io.Discard, out)
				return
			}
		}
		ready <- fmt.Errorf("the JVM ended before READY: %v", sc.Err())
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
	case <-time.After(5 * time.Minute):
		t.Fatalf("no READY from the JVM within 5 minutes\n%s", stderr.String())
	}
	return cmd
}

// runAsNobody runs a command as uid nobody, bounded to a minute.
func runAsNobody(t *testing.T, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, name, args...)
	c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	c.Dir = "/"
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%s %v as uid %d: %v\n%s", name, args, nobody, err, out)
	}
}

// dumpDirs lists the dump directories left in /tmp for pid.
func dumpDirs(pid int) []string {
	m, _ := filepath.Glob(fmt.Sprintf("/tmp/ddmbridge-heap-%d-*", pid))
	return m
}

func ownerModeContent(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	st := fi.Sys().(*syscall.Stat_t)
	return fmt.Sprintf("%d:%d %v %q", st.Uid, st.Gid, fi.Mode(), b)
}

// TestRootAttachIgnoresPlantedFiles: a root monitor attaches to a VM of
// another user (uid 65534) that planted .attach_pid<PID> symlinks to a
// root-only file, in its working directory and in /tmp (issue 25, files 1:
// a heap request by root followed the link and chowned the target to the
// VM's user). The monitor creates no file through them, chowns nothing,
// removes nothing it did not create, and still attaches when one of the two
// places is free; the dump directory it hands to the VM's user goes away.
func TestRootAttachIgnoresPlantedFiles(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: the monitor as root against another user's VM")
	}
	cwd, err := os.MkdirTemp("", "hotspot-victim-cwd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(cwd) })
	if err := os.Chown(cwd, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	vm := startHold(t, nobody, cwd, 1000)
	pid := vm.Process.Pid
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("root's secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := ownerModeContent(t, secret)
	inCwd := filepath.Join(cwd, fmt.Sprintf(".attach_pid%d", pid))
	inTmp := fmt.Sprintf("/tmp/.attach_pid%d", pid)
	runAsNobody(t, "ln", "-s", secret, inCwd)
	runAsNobody(t, "ln", "-s", secret, inTmp)
	t.Cleanup(func() { os.Remove(inTmp) })

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	_, err = Execute(ctx, pid, "properties")
	if err == nil || !strings.Contains(err.Error(), "not made by the monitor") {
		t.Errorf("both places planted: err = %v, want a refusal naming the planted files", err)
	}
	if got := ownerModeContent(t, secret); got != want {
		t.Fatalf("the symlinks' target changed: %s, was %s", got, want)
	}
	for _, l := range []string{inCwd, inTmp} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: the planted link was removed or replaced (%v)", l, err)
		}
	}

	// /tmp free again: the monitor attaches through its own file there.
	if err := os.Remove(inTmp); err != nil {
		t.Fatal(err)
	}
	out, err := Execute(ctx, pid, "properties")
	if err != nil || !strings.Contains(out, "java.version") {
		t.Fatalf("attach with the working directory planted: %v\n%.200s", err, out)
	}
	if got := ownerModeContent(t, secret); got != want {
		t.Errorf("the symlink's target changed: %s, was %s", got, want)
	}
	if _, err := os.Lstat(inTmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the monitor's own attach file in /tmp stayed: %v", err)
	}
	if fi, err := os.Lstat(inCwd); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link planted in the working directory was removed: %v", err)
	}

	// A dump of the other user's VM works (the directory is handed over
	// through its descriptor) and leaves nothing in /tmp.
	dump, err := DumpHeap(ctx, pid, true)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(dump, []byte("JAVA PROFILE 1.0.2")) {
		t.Errorf("the dump starts with %q", dump[:min(len(dump), 20)])
	}
	if d := dumpDirs(pid); len(d) > 0 {
		t.Errorf("dump directories left: %v", d)
	}
	if got := ownerModeContent(t, secret); got != want {
		t.Errorf("the symlink's target changed: %s, was %s", got, want)
	}
}

// TestRootRefusesAnotherUsersSocket: a socket at /tmp/.java_pid<PID> that
// the VM's user did not open (here: root's own listener, while the VM runs
// as uid 65534) is not talked to.
func TestRootRefusesAnotherUsersSocket(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: the monitor as root against another user's VM")
	}
	vm := startHold(t, nobody, "/", 10)
	pid := vm.Process.Pid
	sock := fmt.Sprintf("/tmp/.java_pid%d", pid)
	os.Remove(sock)
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err = Execute(ctx, pid, "properties")
	if err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("err = %v, want a refusal of a socket of uid 0 for a VM of uid %d", err, nobody)
	}
}

// TestDumpCleanupWhenVMKilled: the VM is killed while it writes its dump
// (a heap of a few million arrays); DumpHeapTo fails and the partial dump
// and its directory are gone from /tmp (issue 25, files 3: 190–467 MB were
// left behind for good, since /proc/PID/root no longer led to them).
func TestDumpCleanupWhenVMKilled(t *testing.T) {
	vm := startHold(t, os.Getuid(), t.TempDir(), 4_000_000, "-Xmx1g")
	pid := vm.Process.Pid
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	type result struct {
		n   int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := DumpHeapTo(ctx, pid, false, io.Discard)
		done <- result{n, err}
	}()
	// Kill the VM once its dump file has data.
	var seen int64
	for seen == 0 {
		for _, d := range dumpDirs(pid) {
			if fi, err := os.Stat(filepath.Join(d, "heap.hprof")); err == nil && fi.Size() > 0 {
				seen = fi.Size()
			}
		}
		select {
		case r := <-done:
			t.Fatalf("the dump ended before the VM could be killed during it (%d bytes, %v): make the heap bigger", r.n, r.err)
		case <-ctx.Done():
			t.Fatal("no dump file appeared within 5 minutes")
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := vm.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err == nil {
		t.Fatalf("the dump of a VM killed during it succeeded (%d bytes)", r.n)
	}
	if d := dumpDirs(pid); len(d) > 0 {
		t.Errorf("left behind after the VM died mid-dump: %v", d)
	}
	t.Logf("killed at %d bytes written; DumpHeapTo: %v", seen, r.err)
}

// TestStaleSocketOfAnEarlierVM: a VM killed without a clean exit leaves its
// /tmp/.java_pid<PID> behind; a later VM that gets the same pid has no
// listener behind that file. The attach starts the new VM's listener and
// waits for its own socket instead of dialing the stale one ("connection
// refused": seen once in a CI run, where thousands of VMs come and go).
func TestStaleSocketOfAnEarlierVM(t *testing.T) {
	vm := startHold(t, os.Getuid(), t.TempDir(), 10)
	pid := vm.Process.Pid
	sock := fmt.Sprintf("/tmp/.java_pid%d", pid)
	os.Remove(sock)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close() // the file stays, nobody listens: as a killed VM leaves it
	t.Cleanup(func() { os.Remove(sock) })
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	out, err := Execute(ctx, pid, "properties")
	if err != nil || !strings.Contains(out, "java.version") {
		t.Fatalf("attach past a stale socket: %v\n%.200s", err, out)
	}
}
