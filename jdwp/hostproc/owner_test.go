//go:build linux

package hostproc

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCheckLaunched: a connection from a process is the launched one's
// when that process or its parent was launched, and not when another
// process of the same user (here: this test's sibling shell) was.
func TestCheckLaunched(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	// The shell's child (a subshell) connects and waits.
	client := exec.CommandContext(ctx, "bash", "-c", fmt.Sprintf(`(exec 3<>/dev/tcp/127.0.0.1/%d; read -t 120 x <&3) & wait`, port))
	client.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	other := exec.CommandContext(ctx, "sleep", "120")
	for _, c := range []*exec.Cmd{client, other} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); c.Process.Kill(); c.Wait() }()
	}
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for _, pid := range []int{client.Process.Pid, os.Getpid(), 0} {
		if err := CheckLaunched(nc, pid); err != nil {
			t.Errorf("pid %d (or a child) connected, yet: %v", pid, err)
		}
	}
	err = CheckLaunched(nc, other.Process.Pid)
	if err == nil || !strings.Contains(err.Error(), "is not the launched process") {
		t.Errorf("another process of this user passed as the launched pid %d: %v", other.Process.Pid, err)
	}
}
