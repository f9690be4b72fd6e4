package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// nobody is the uid a test client runs as to be another local user.
const nobody = 65534

// rawCall is a vms/list request as it goes on the wire.
func rawCall() string {
	body := `{"jsonrpc":"2.0","id":1,"method":"vms/list"}`
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// runAs sends a vms/list request to 127.0.0.1:port from a shell running as
// uid and returns the first line it read back, "" if the monitor closed the
// connection first. The shell is killed after 60 s.
func runAs(t *testing.T, uid int, port int) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	script := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d || exit 9; printf '%%s' "$1" >&3; IFS= read -r -t 60 line <&3; printf '%%s' "$line"`, port)
	cmd := exec.CommandContext(ctx, "bash", "-c", script, "client", rawCall())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	cmd.Dir = "/"
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.Run() // read fails, and the shell with it, when the monitor closes
	if ctx.Err() != nil {
		return out.String(), fmt.Errorf("the client got no answer nor was disconnected within 60 s: %w (%s)", ctx.Err(), stderr.String())
	}
	return out.String(), nil
}

// TestRPCTCPRefusesOtherUsers: a loopback TCP control address serves this
// user and closes a connection from another local user without answering
// it (issue 12: another user could reach what the control API and the DAP
// listener offer). With AllowOtherUsers, the other user is served.
func TestRPCTCPRefusesOtherUsers(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	o := testOptions(t, 0, 0)
	m := startMonitor(t, o)
	serve := func(lo ListenOptions) int {
		lo.Logger = testLogger(t)
		ln, err := Listen("tcp:127.0.0.1:0", lo)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { NewServer(m, ServerOptions{Logger: testLogger(t)}).Serve(ctx, ln); close(done) }()
		t.Cleanup(func() { cancel(); <-done })
		return ln.Addr().(*net.TCPAddr).Port
	}
	port := serve(ListenOptions{})

	out, err := runAs(t, nobody, port)
	if err != nil || out != "" {
		t.Fatalf("another user's request: got %q, %v; want the connection closed unanswered", out, err)
	}
	c, err := DialRPC(t.Context(), fmt.Sprintf("tcp:127.0.0.1:%d", port), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := c.VMs(ctx); err != nil {
		t.Fatalf("same user's vms/list: %v", err)
	}

	open := serve(ListenOptions{AllowOtherUsers: true})
	out, err = runAs(t, nobody, open)
	if err != nil || !strings.HasPrefix(out, "Content-Length:") {
		t.Fatalf("with AllowOtherUsers another user got %q, want the vms/list answer's header", out)
	}
}

// TestPeerUIDSameUser: the peer of a loopback connection from this process
// is this user, over IPv4 and IPv6.
func TestPeerUIDSameUser(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Logf("%s: %v (no such loopback here)", addr, err)
			continue
		}
		defer ln.Close()
		d, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		uid, err := peerUID(c)
		if err != nil || uid != os.Getuid() {
			t.Errorf("%s: peerUID = %d, %v; want %d", addr, uid, err, os.Getuid())
		}
	}
}

// flakyListener fails its first accepts with EMFILE, as a process out of
// file descriptors does.
type flakyListener struct {
	net.Listener
	fails atomic.Int32
}

func (f *flakyListener) Accept() (net.Conn, error) {
	if f.fails.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "unix", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return f.Listener.Accept()
}

// TestServeSurvivesTemporaryAcceptErrors: EMFILE from accept does not stop
// the control API (issue 12: "control API stopped" under prlimit --nofile).
func TestServeSurvivesTemporaryAcceptErrors(t *testing.T) {
	t.Parallel()
	m := startMonitor(t, testOptions(t, 0, 0))
	path := filepath.Join(t.TempDir(), "rpc.sock")
	inner, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	ln := &flakyListener{Listener: inner}
	ln.fails.Store(5)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- NewServer(m, ServerOptions{Logger: testLogger(t)}).Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	c, err := DialRPC(t.Context(), "unix:"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cctx, ccancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer ccancel()
	if _, err := c.VMs(cctx); err != nil {
		t.Fatalf("vms/list after EMFILE from accept: %v", err)
	}
	if n := ln.fails.Load(); n >= 0 {
		t.Fatalf("the listener still had %d failures to give: the test did not exercise them", n+1)
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned while its listener was open: %v", err)
	default:
	}
}

// TestFallbackRuntimeDirChecked: without XDG_RUNTIME_DIR the control socket
// lives in $TMPDIR/ddmbridge-$UID, which is used only if this user owns it
// and its mode is 0700 (issue 12: another user creating it first could
// plant a socket and capture vms/list).
func TestFallbackRuntimeDirChecked(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", t.TempDir())
	dir := fallbackRuntimeDir()
	addr := DefaultRPCAddr()
	if want := "unix:" + filepath.Join(dir, "ddmbridge.sock"); addr != want {
		t.Fatalf("DefaultRPCAddr = %s, want %s", addr, want)
	}

	// Created by the monitor: 0700, accepted.
	ln, err := ListenRPC(addr, false)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("runtime dir: %v %v, want 0700", fi.Mode(), err)
	}
	ln.Close()

	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ListenRPC(addr, false); err == nil || !strings.Contains(err.Error(), "mode") {
		t.Errorf("listen in a 0755 runtime dir: %v, want a refusal naming the mode", err)
	}
	if _, err := DialRPCConn(t.Context(), addr); err == nil || !strings.Contains(err.Error(), "mode") {
		t.Errorf("dial in a 0755 runtime dir: %v, want a refusal naming the mode", err)
	}
	os.Chmod(dir, 0o700)

	if os.Getuid() == 0 {
		if err := os.Chown(dir, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		if _, err := ListenRPC(addr, false); err == nil || !strings.Contains(err.Error(), "belongs to uid") {
			t.Errorf("listen in another user's runtime dir: %v, want a refusal naming the owner", err)
		}
		if _, err := DialRPCConn(t.Context(), addr); err == nil || !strings.Contains(err.Error(), "belongs to uid") {
			t.Errorf("dial into another user's runtime dir: %v, want a refusal naming the owner", err)
		}
		os.Chown(dir, 0, 0)
	}

	os.RemoveAll(dir)
	if err := os.Symlink(t.TempDir(), dir); err != nil {
		t.Fatal(err)
	}
	if _, err := ListenRPC(addr, false); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("listen through a symlinked runtime dir: %v, want a refusal", err)
	}
}

// TestCleanStaleSockets: a socket left by a killed monitor is removed, a
// live one and other files stay.
func TestCleanStaleSockets(t *testing.T) {
	dir := t.TempDir()
	live, err := net.Listen("unix", filepath.Join(dir, "dap-1.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	dead, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "dap-2.sock"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	dead.SetUnlinkOnClose(false) // as after SIGKILL
	dead.Close()
	os.WriteFile(filepath.Join(dir, "dap-3.sock"), nil, 0o600)

	removed := CleanStaleSockets(dir, "dap-*.sock")
	if want := []string{filepath.Join(dir, "dap-2.sock")}; fmt.Sprint(removed) != fmt.Sprint(want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, name := range []string{"dap-1.sock", "dap-3.sock"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v, want it kept", name, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "dap-2.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dap-2.sock: %v, want it removed", err)
	}
}
