package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/access"
	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestDumpHeapRPCFiles: vm/dumpHeap with a path creates the file new with
// mode 0600, refuses an existing file unless force, refuses a symlink
// another user planted even with force, and removes its file when the dump
// fails; with stream the client reads the same dump in chunks (issue 25,
// files 2 and payloads 8).
func TestDumpHeapRPCFiles(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	hot := startDemo(t, lo, false)
	m := startMonitor(t, testOptions(t, lo, 1))
	plain := waitVM(t, m, hot.Addr, 30*time.Second)
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	c, err := DialRPC(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	dir := t.TempDir()
	file := filepath.Join(dir, "heap.hprof")
	d, err := c.DumpHeapToPath(ctx, plain.ID, file, DumpOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(file)
	if err != nil || fi.Size() != int64(d.Bytes) || fi.Mode() != 0o600 {
		t.Fatalf("%s: %v %v, result %+v; want %d bytes, mode 0600", file, fi, err, d, d.Bytes)
	}
	first, _ := os.ReadFile(file)
	bridgetest.CheckHotSpotHprof(t, first)

	// An existing file is refused, with the way to replace it.
	_, err = c.DumpHeapToPath(ctx, plain.ID, file, DumpOptions{})
	if rpcCode(err) != CodeInvalidParams || !strings.Contains(err.Error(), "exists") || !strings.Contains(err.Error(), `"force": true`) {
		t.Errorf("an existing path: %v", err)
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, first) {
		t.Error("the refused request changed the existing file")
	}
	os.Chmod(file, 0o644)
	if d, err = c.DumpHeapToPath(ctx, plain.ID, file, DumpOptions{Force: true, All: true}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(file); err != nil || fi.Mode() != 0o600 || fi.Size() != int64(d.Bytes) {
		t.Errorf("forced: %v %v", fi, err)
	}

	// A symlink another user planted is refused, force or not.
	if os.Getuid() == 0 {
		shared, err := os.MkdirTemp("", "rpcdump-shared-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(shared) })
		os.Chmod(shared, 0o1777)
		secret := filepath.Join(dir, "secret")
		os.WriteFile(secret, []byte("secret"), 0o600)
		link := filepath.Join(shared, "heap.hprof")
		lctx, lcancel := context.WithTimeout(ctx, time.Minute)
		ln := exec.CommandContext(lctx, "ln", "-s", secret, link)
		ln.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		out, err := ln.CombinedOutput()
		lcancel()
		if err != nil {
			t.Fatalf("ln -s as uid %d: %v\n%s", nobody, err, out)
		}
		for _, force := range []bool{false, true} {
			if _, err := c.DumpHeapToPath(ctx, plain.ID, link, DumpOptions{Force: force}); rpcCode(err) != CodeInvalidParams {
				t.Errorf("force=%v: a planted symlink: %v", force, err)
			}
			if b, _ := os.ReadFile(secret); string(b) != "secret" {
				t.Fatalf("force=%v: the symlink's target now holds %d bytes", force, len(b))
			}
		}
	}

	// Streamed: the same dump, in chunks of 64 KiB.
	var buf bytes.Buffer
	n, err := c.StreamHeapDump(ctx, plain.ID, false, 64<<10, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Errorf("StreamHeapDump returned %d, wrote %d", n, buf.Len())
	}
	bridgetest.CheckHotSpotHprof(t, buf.Bytes())
	// The stream is closed: reading it again fails.
	var ch HeapDumpChunk
	if err := c.Call(ctx, "heapDump/read", map[string]any{"id": plain.ID, "stream": "1"}, &ch); rpcCode(err) != CodeInvalidParams {
		t.Errorf("reading a closed stream: %v", err)
	}
	for _, bad := range []map[string]any{{"id": plain.ID, "path": "relative.hprof"}, {"id": plain.ID, "path": file, "stream": true}} {
		if err := c.Call(ctx, "vm/dumpHeap", bad, nil); rpcCode(err) != CodeInvalidParams {
			t.Errorf("vm/dumpHeap %v: %v", bad, err)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1+boolInt(os.Getuid() == 0) {
		t.Errorf("the directory holds %v", ents)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestDumpHeapPathOnlyForSameUser: over loopback TCP with
// --allow-other-users, another local user (uid 65534) may call the control
// API but the monitor writes no file for it (it would as the monitor's user,
// wherever asked); the same user over TCP may.
func TestDumpHeapPathOnlyForSameUser(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	lo := freePorts(t, 1)
	hot := startDemo(t, lo, false)
	m := startMonitor(t, testOptions(t, lo, 1))
	plain := waitVM(t, m, hot.Addr, 30*time.Second)
	ln, err := access.Listen("tcp:127.0.0.1:0", access.ListenOptions{AllowOtherUsers: true, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	sctx, scancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { NewServer(m, ServerOptions{Logger: testLogger(t)}).Serve(sctx, ln); close(done) }()
	t.Cleanup(func() { scancel(); <-done })
	port := ln.Addr().(*net.TCPAddr).Port

	shared, err := os.MkdirTemp("", "rpcdump-other-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	os.Chmod(shared, 0o1777)
	target := filepath.Join(shared, "theirs.hprof")
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"vm/dumpHeap","params":{"id":%q,"path":%q}}`, plain.ID, target)
	reply := rpcAs(t, nobody, port, body)
	var r struct {
		Error *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(reply), &r); err != nil || r.Error == nil || r.Error.Code != CodeNotAllowed || !strings.Contains(r.Error.Message, "stream") {
		t.Errorf("another user's vm/dumpHeap with a path: %s (%v)", reply, err)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Errorf("the monitor wrote %s for another user", target)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	c, err := DialRPC(ctx, fmt.Sprintf("tcp:127.0.0.1:%d", port), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.DumpHeapToPath(ctx, plain.ID, target, DumpOptions{}); err != nil {
		t.Errorf("the same user over loopback TCP: %v", err)
	}
}

// rpcAs sends one JSON-RPC request from a shell running as uid to
// 127.0.0.1:port and returns the body of the reply. Bounded to 3 minutes.
func rpcAs(t *testing.T, uid, port int, body string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	script := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d || exit 9
printf '%%s' "$1" >&3
IFS= read -r -t 170 h <&3 || exit 8
IFS= read -r -t 170 blank <&3
n=${h#Content-Length: }; n=${n%%$'\r'}
IFS= read -r -t 170 -N "$n" b <&3
printf '%%s' "$b"`, port)
	cmd := exec.CommandContext(ctx, "bash", "-c", script, "client", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	cmd.Dir = "/"
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the client as uid %d: %v\n%s", uid, err, stderr.String())
	}
	return out.String()
}

// TestDumpHeapRPCVMKilledMidDump: the VM dies while it writes the dump the
// monitor was asked to put at a path. The request fails, and neither the
// path nor the VM's dump directory in /tmp is left behind (issue 25, files
// 3: 190–467 MB partial dumps stayed for good).
func TestDumpHeapRPCVMKilledMidDump(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	vm := jvmtest.StartBenchTargetT(t, jvmtest.Options{Address: fmt.Sprintf("127.0.0.1:%d", lo),
		VMArgs: []string{"-Dobjects=3000000", "-Xmx1g"}, Timeout: 5 * time.Minute})
	m := startMonitor(t, testOptions(t, lo, 1))
	v := waitVM(t, m, vm.Addr, 60*time.Second)
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	c, err := DialRPC(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	file := filepath.Join(t.TempDir(), "heap.hprof")
	done := make(chan error, 1)
	go func() {
		_, err := c.DumpHeapToPath(ctx, v.ID, file, DumpOptions{All: true})
		done <- err
	}()
	dirs := fmt.Sprintf("/tmp/ddmbridge-heap-%d-*", vm.Pid)
	for killed := false; !killed; {
		m, _ := filepath.Glob(dirs + "/heap.hprof")
		for _, f := range m {
			if fi, err := os.Stat(f); err == nil && fi.Size() > 0 {
				killed = syscall.Kill(vm.Pid, syscall.SIGKILL) == nil
			}
		}
		select {
		case err := <-done:
			t.Fatalf("the dump ended (%v) before the VM could be killed during it: make the heap bigger", err)
		case <-ctx.Done():
			t.Fatal("no dump file appeared within 5 minutes")
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := <-done; err == nil {
		t.Fatal("the dump of a VM killed during it succeeded")
	} else {
		t.Logf("vm/dumpHeap: %v", err)
	}
	if _, err := os.Lstat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is left after the failed dump: %v", file, err)
	}
	if m, _ := filepath.Glob(dirs); len(m) > 0 {
		t.Errorf("left in /tmp: %v", m)
	}
}
