package access

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nobody is the uid a test client runs as to be another local user.
const nobody = 65534

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
		uid, err := PeerUID(c)
		if err != nil || uid != os.Getuid() {
			t.Errorf("%s: PeerUID = %d, %v; want %d", addr, uid, err, os.Getuid())
		}
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
