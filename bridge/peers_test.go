package bridge

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// startJVMAs starts a real HotSpot JVM as another user (uid), its agent
// listening on 127.0.0.1:port and waiting for a debugger (suspend=y, so it
// runs no program at all). The JVM is killed when the test ends, and after
// five minutes at most.
func startJVMAs(t *testing.T, uid, port int) {
	t.Helper()
	jvmtest.RequireJava(t)
	java, err := jvmtest.FindTool("java")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	cmd := exec.CommandContext(ctx, java, "-XX:-UsePerfData", "-Xshare:auto",
		fmt.Sprintf("-agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=127.0.0.1:%d", port), "-version")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}, Setpgid: true}
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/"}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting java as uid %d: %v", uid, err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cancel()
		cmd.Wait()
	})
	listening := make(chan struct{})
	go func() {
		var once sync.Once
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			// printed again each time the agent listens anew
			if strings.Contains(sc.Text(), "Listening for transport dt_socket") {
				once.Do(func() { close(listening) })
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(2 * time.Minute):
		t.Fatalf("java as uid %d did not listen within 2 minutes: %s", uid, stderr.String())
	}
}

// TestScanSkipsOtherUsersVM: a VM another local user runs in the scan
// range is not adopted (issue 25: anyone can listen on 8000-8040 and feed
// the monitor anything), with a log line saying why and what to pass;
// naming its address is refused likewise. With AllowOtherUsers it is
// adopted. The other user is a real uid (nobody) running a real JVM.
func TestScanSkipsOtherUsersVM(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root to run a JVM as another user")
	}
	lo := freePorts(t, 1)
	startJVMAs(t, nobody, lo)
	addr := fmt.Sprintf("127.0.0.1:%d", lo)

	logs := &bridgetest.LogLines{T: t}
	o := testOptions(t, lo, 1)
	o.Logger = zerolog.New(logs).Level(zerolog.InfoLevel)
	m := startMonitor(t, o)
	waitFor(t, 30*time.Second, "the monitor to say it does not adopt the VM", func() bool {
		return logs.Has("VM not adopted", addr, "uid 65534", "--allow-other-users")
	})
	if len(m.VMs()) != 0 {
		t.Fatalf("the monitor lists %+v; want no VM", m.VMs())
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if _, err := m.OpenDebugger(ctx, addr); !errors.Is(err, errOtherUser) {
		t.Fatalf("OpenDebugger(%s) = %v; want it refused as another user's VM", addr, err)
	}
	m.Close()

	o = testOptions(t, lo, 1)
	o.AllowOtherUsers = true
	m = startMonitor(t, o)
	waitVM(t, m, addr, time.Minute)
}
