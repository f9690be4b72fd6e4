package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/rpc"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmrun"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestKilledMonitorDumpCleanedUp: a monitor killed (SIGKILL) in the middle
// of a heap dump to a path leaves the partial file; the next monitor of the
// user removes it when it starts (issue 25: the partial dump stayed
// forever). The dump is a DDM VM's HPDS, held halfway by the simulated VM
// so the kill lands mid-dump.
func TestKilledMonitorDumpCleanedUp(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cache, dir := t.TempDir(), t.TempDir()
	gate := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	const size = 64 << 20
	sv, err := simvm.New(simvm.Options{AppName: "com.example.killed", HprofSize: size, HprofGate: gate})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go sv.Serve(ln)
	defer sv.Close()
	defer open() // before Close: the held dump goes on (to a closed connection)
	vmAddr := ln.Addr().String()

	serve := func(name string) (*exec.Cmd, string) {
		rpcAddr := "unix:" + filepath.Join(dir, name+".sock")
		cmd := selfCommand(ctx, "serve", "--no-adb", "--scan", vmAddr, "--scan-interval", "100ms", "--rpc", rpcAddr,
			"--dap", "", "--current-port", "-1", "--debug-port-base", "-1")
		cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+cache)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // gone with the test, even one that panics
		var logs strings.Builder
		cmd.Stderr = &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
			t.Logf("%s's log:\n%s", name, logs.String())
		})
		return cmd, rpcAddr
	}
	first, rpcAddr := serve("first")
	id, err := waitBenchVM(ctx, rpcAddr, vmAddr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rpc.DialRPC(ctx, rpcAddr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	file := filepath.Join(dir, "heap.hprof")
	dumped := make(chan error, 1)
	go func() {
		_, err := c.DumpHeapToPath(ctx, id, file, rpc.DumpOptions{})
		dumped <- err
	}()
	pollUntil(t, ctx, "half the dump in the file", func() bool {
		fi, err := os.Stat(file)
		return err == nil && fi.Size() >= size/4
	})
	journal := filepath.Join(cache, "ddmbridge", "partial-dumps")
	if ents, _ := os.ReadDir(journal); len(ents) != 1 {
		t.Fatalf("the journal holds %v during the dump; want its note", ents)
	}
	first.Process.Kill()
	first.Wait()
	open()
	if err := <-dumped; err == nil {
		t.Fatal("the dump succeeded although its monitor was killed")
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the killed monitor's partial dump: %v (the test wants it left behind)", err)
	}

	serve("second")
	pollUntil(t, ctx, "the next monitor to remove the partial dump", func() bool {
		_, err := os.Lstat(file)
		return os.IsNotExist(err)
	})
	// The note goes after what it notes: wait for it too.
	pollUntil(t, ctx, "the journal emptied", func() bool {
		ents, _ := os.ReadDir(journal)
		return len(ents) == 0
	})
}

// pollUntil polls ok until it holds or ctx ends.
func pollUntil(t *testing.T, ctx context.Context, what string, ok func() bool) {
	t.Helper()
	pollEvery(t, ctx, 50*time.Millisecond, what, ok)
}

// pollEvery is pollUntil polling every d.
func pollEvery(t *testing.T, ctx context.Context, d time.Duration, what string, ok func() bool) {
	t.Helper()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(d):
		}
	}
}

// TestKilledMonitorHotSpotDumpCleanedUp: a monitor killed while a local
// HotSpot VM writes its dump leaves the directory it made in /tmp for the
// VM; once the VM has finished writing, the next monitor removes it (the
// threat model said: `rm -r /tmp/ddmbridge-heap-*`).
func TestKilledMonitorHotSpotDumpCleanedUp(t *testing.T) {
	jvmtest.RequireJava(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cache, dir := t.TempDir(), t.TempDir()
	classes, err := jvmrun.CompileFiles(ctx, map[string][]byte{"DumpFill.java": []byte(fillSource)})
	if err != nil {
		t.Fatal(err)
	}
	const mib = 128
	vm, err := jvmrun.Start(ctx, jvmrun.Options{ClassPath: []string{classes}, MainClass: "DumpFill", Args: []string{strconv.Itoa(mib)},
		VMArgs: []string{fmt.Sprintf("-Xmx%dm", mib+mib/4+256)}, ReadyLine: "READY", Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()

	serve := func(name string) (*exec.Cmd, string) {
		rpcAddr := "unix:" + filepath.Join(dir, name+".sock")
		cmd := selfCommand(ctx, "serve", "--no-adb", "--scan", vm.Addr, "--scan-interval", "100ms", "--rpc", rpcAddr,
			"--dap", "", "--current-port", "-1", "--debug-port-base", "-1")
		cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+cache)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // gone with the test, even one that panics
		var logs strings.Builder
		cmd.Stderr = &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
			t.Logf("%s's log:\n%s", name, logs.String())
		})
		return cmd, rpcAddr
	}
	first, rpcAddr := serve("first")
	id, err := waitBenchVM(ctx, rpcAddr, vm.Addr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rpc.DialRPC(ctx, rpcAddr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	journal := filepath.Join(cache, "ddmbridge", "partial-dumps")
	// The monitor is stopped (SIGSTOP) as soon as the directory shows, then
	// killed; a dump that finished first (a fast machine) is taken again.
	var made []string
	for attempt := 1; ; attempt++ {
		dumped := make(chan struct{})
		go func() {
			c.DumpHeapToPath(ctx, id, filepath.Join(dir, fmt.Sprintf("heap-%d.hprof", attempt)), rpc.DumpOptions{})
			close(dumped)
		}()
		// The directory, its note (besides the note of the file at the
		// path: a kill between the two would leave it unnoted), and the VM
		// writing into it (its attach listener up: a kill before would
		// leave .attach_pid<PID> in the VM's working directory).
		pollEvery(t, ctx, time.Millisecond, "the VM writing into the dump directory, noted", func() bool {
			made, _ = filepath.Glob(fmt.Sprintf("/tmp/ddmbridge-heap-%d-*", vm.Pid))
			notes, _ := os.ReadDir(journal)
			return len(made) == 1 && len(notes) == 2 && holdsOpenIn(vm.Pid, made[0]) || len(made) == 0 && attemptOver(dumped)
		})
		first.Process.Signal(syscall.SIGSTOP)
		if len(made) == 1 {
			if _, err := os.Lstat(made[0]); err == nil {
				break
			}
		}
		if attempt == 5 {
			t.Fatalf("5 dumps finished before the monitor could be stopped")
		}
		first.Process.Signal(syscall.SIGCONT)
		pollUntil(t, ctx, "the finished dump's directory gone", func() bool {
			m, _ := filepath.Glob(fmt.Sprintf("/tmp/ddmbridge-heap-%d-*", vm.Pid))
			return len(m) == 0
		})
	}
	first.Process.Kill()
	first.Wait()
	// The VM goes on writing into the directory; it stays, and the next
	// monitor leaves it alone while the VM writes.
	pollUntil(t, ctx, "the VM to finish writing its dump", func() bool { return !holdsOpenIn(vm.Pid, made[0]) })
	if _, err := os.Lstat(made[0]); err != nil {
		t.Fatalf("the killed monitor's dump directory: %v (the test wants it left behind)", err)
	}
	serve("second")
	pollUntil(t, ctx, "the next monitor to remove the dump directory", func() bool {
		_, err := os.Lstat(made[0])
		return os.IsNotExist(err)
	})
	// The note goes after what it notes: wait for it too.
	pollUntil(t, ctx, "the journal emptied", func() bool {
		ents, _ := os.ReadDir(journal)
		return len(ents) == 0
	})
}

// attemptOver reports whether a dump attempt has ended.
func attemptOver(done chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// holdsOpenIn reports whether process pid has a file under dir open.
func holdsOpenIn(pid int, dir string) bool {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && strings.HasPrefix(l, dir+"/") {
			return true
		}
	}
	return false
}
