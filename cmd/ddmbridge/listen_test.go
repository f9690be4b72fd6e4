package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/rpc"
	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
)

// firstLineAs sends msg, DAP-framed, to 127.0.0.1:port from a shell running
// as uid and returns the first line it reads back: "" if the server closed
// the connection first. The shell is killed after 60 s.
func firstLineAs(t *testing.T, uid int, port int, msg string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	script := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d || exit 9; printf '%%s' "$1" >&3; IFS= read -r -t 60 line <&3; printf '%%s' "$line"`, port)
	cmd := exec.CommandContext(ctx, "bash", "-c", script, "client", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg), msg))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	cmd.Dir = "/"
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.Run() // read fails, and the shell with it, when the server closes
	if ctx.Err() != nil {
		t.Fatalf("the client got no answer nor was disconnected within 60 s (%s)", stderr.String())
	}
	return out.String()
}

// TestDAPListenRefusesOtherUsers: `dap --listen` answers this user and
// closes another local user's connection unanswered (issue 12: another user
// could launch a program as the adapter's user); --allow-other-users lets
// them in.
func TestDAPListenRefusesOtherUsers(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	init := `{"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"x"}}`
	for _, tc := range []struct {
		flags []string
		other bool // the other user is answered
	}{{nil, false}, {[]string{"--allow-other-users"}, true}} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		ctx, cancel := context.WithCancel(t.Context())
		cmd := child(ctx, append([]string{"dap", "--listen", fmt.Sprintf("127.0.0.1:%d", port)}, tc.flags...)...)
		stderr := &lockedbuf.Buffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cancel(); cmd.Wait() })
		deadline := time.Now().Add(60 * time.Second)
		for !strings.Contains(stderr.String(), "listening") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		got := firstLineAs(t, 65534, port, init)
		if answered := strings.HasPrefix(got, "Content-Length:"); answered != tc.other {
			t.Errorf("dap --listen %v: another user read %q, answered=%v want %v\n%s", tc.flags, got, answered, tc.other, stderr.String())
		}
		if got := firstLineAs(t, os.Getuid(), port, init); !strings.HasPrefix(got, "Content-Length:") {
			t.Errorf("dap --listen %v: this user read %q, want an answer\n%s", tc.flags, got, stderr.String())
		}
		cancel()
		cmd.Wait()
	}
}

// TestServeDAPNeverRemote: serve --allow-remote --dap tcp:0.0.0.0:… is
// refused saying that DAP is never remote, not "pass --allow-remote".
func TestServeDAPNeverRemote(t *testing.T) {
	var stdout, stderr bytes.Buffer
	rc := run([]string{"serve", "--allow-remote", "--no-adb", "--scan", "", "--debug-port-base", "-1", "--current-port", "-1",
		"--rpc", "unix:" + filepath.Join(t.TempDir(), "rpc.sock"), "--dap", "tcp:0.0.0.0:0"}, &stdout, &stderr)
	if rc == 0 || !strings.Contains(stderr.String(), "DAP is never served remotely") || strings.Contains(stderr.String(), "pass --allow-remote") {
		t.Errorf("exit %d, stderr %q; want a refusal saying DAP is never remote", rc, stderr.String())
	}
}

// TestSimVMWarnsOnAllInterfaces: simvm --listen 0.0.0.0:P warns that it is
// reachable from other hosts (issue 12); on loopback it does not.
func TestSimVMWarnsOnAllInterfaces(t *testing.T) {
	for _, tc := range []struct {
		addr string
		warn bool
	}{{"0.0.0.0:0", true}, {"127.0.0.1:0", false}} {
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		cmd := child(ctx, "simvm", "--listen", tc.addr)
		stdout, stderr := &lockedbuf.Buffer{}, &lockedbuf.Buffer{}
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for !strings.Contains(stdout.String(), "listening on") && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
		cmd.Wait()
		if got := strings.Contains(stderr.String(), "non-loopback address"); got != tc.warn {
			t.Errorf("simvm --listen %s: warned=%v, want %v; stderr:\n%s", tc.addr, got, tc.warn, stderr.String())
		}
	}
}

// TestServeSurvivesEMFILE: serve under `prlimit --nofile` runs out of
// descriptors while clients pile up; accept fails with EMFILE, and once
// they leave the control API serves again (issue 12: it stopped for good,
// "control API stopped", while the process looked healthy). Other users are
// allowed here so that accepting is all a connection costs: the same-user
// check reads /proc, which fails first and refuses the connection instead.
func TestServeSurvivesEMFILE(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Fatalf("prlimit (util-linux) is needed: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, prlimit, "--nofile=40", "--", os.Args[0], "serve", "--no-adb", "--scan", "",
		"--debug-port-base", "-1", "--current-port", "-1", "--dap", "", "--rpc", "tcp:"+addr, "--allow-other-users")
	cmd.Env = append(os.Environ(), "DDMBRIDGE_TEST_MAIN=1")
	stderr := &lockedbuf.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitLog := func(what string) {
		t.Helper()
		for !strings.Contains(stderr.String(), what) {
			if strings.Contains(stderr.String(), "control API stopped") {
				t.Fatalf("the control API stopped:\n%s", stderr.String())
			}
			if ctx.Err() != nil {
				t.Fatalf("no %q in serve's log:\n%s", what, stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitLog("control API listening")

	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := 0; i < 100 && !strings.Contains(stderr.String(), "accept failed; retrying"); i++ {
		c, err := net.DialTimeout("tcp", addr, 60*time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		held = append(held, c)
	}
	waitLog("accept failed; retrying")
	for _, c := range held {
		c.Close()
	}
	held = nil

	cctx, ccancel := context.WithTimeout(ctx, 60*time.Second)
	defer ccancel()
	c, err := rpc.DialRPC(cctx, "tcp:"+addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.VMs(cctx); err != nil {
		t.Fatalf("vms/list after EMFILE: %v\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "control API stopped") {
		t.Errorf("serve reported its control API stopped:\n%s", stderr.String())
	}
}
