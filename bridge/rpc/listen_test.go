package rpc

import (
	"bytes"
	"context"
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

	"github.com/ddmbridge/ddmbridge/bridge/access"
)

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
	serve := func(lo access.ListenOptions) int {
		lo.Logger = testLogger(t)
		ln, err := access.Listen("tcp:127.0.0.1:0", lo)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { NewServer(m, ServerOptions{Logger: testLogger(t)}).Serve(ctx, ln); close(done) }()
		t.Cleanup(func() { cancel(); <-done })
		return ln.Addr().(*net.TCPAddr).Port
	}
	port := serve(access.ListenOptions{})

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

	open := serve(access.ListenOptions{AllowOtherUsers: true})
	out, err = runAs(t, nobody, open)
	if err != nil || !strings.HasPrefix(out, "Content-Length:") {
		t.Fatalf("with AllowOtherUsers another user got %q, want the vms/list answer's header", out)
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
