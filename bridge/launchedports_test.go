package bridge

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/bridge/demoapp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// handshakesAs connects n times to each of ports from a shell running as
// uid, offering the JDWP handshake each time, and returns how many times
// the other end answered it. The shell is killed after five minutes.
func handshakesAs(t *testing.T, uid, n int, ports ...int) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	var ps []string
	for _, p := range ports {
		ps = append(ps, strconv.Itoa(p))
	}
	script := fmt.Sprintf(`won=0
for i in $(seq %d); do for p in %s; do
  if exec 3<>/dev/tcp/127.0.0.1/$p 2>/dev/null; then
    printf 'JDWP-Handshake' >&3 2>/dev/null
    if IFS= read -r -t 10 -N 14 got <&3 2>/dev/null && [ "$got" = JDWP-Handshake ]; then won=$((won+1)); fi
    exec 3<&- 3>&-
  fi
done; done
echo $won`, n, strings.Join(ps, " "))
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	cmd.Dir = "/"
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the client as uid %d: %v (%s)", uid, err, stderr.String())
	}
	won, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("the client as uid %d said %q (%s)", uid, out.String(), stderr.String())
	}
	return won
}

// launchAdopted starts the demo app with its agent connecting out to a
// listener of the test (as a DAP launch does) and hands the connection to
// the monitor (AdoptLaunched with keepPort).
func launchAdopted(t *testing.T, m *Monitor, keepPort bool) (string, *jvmtest.JVM) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- c
		}
	}()
	vm, err := demoapp.Start(t.Context(), jvmtest.Options{AttachToDebugger: true, Address: ln.Addr().String(), Suspend: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vm.Close() })
	var nc net.Conn
	select {
	case nc = <-accepted:
	case <-time.After(2 * time.Minute):
		t.Fatal("the launched JVM never connected")
	}
	id, err := m.AdoptLaunched(t.Context(), nc, vm.Pid, keepPort)
	if err != nil {
		t.Fatal(err)
	}
	return id, vm
}

// TestLaunchedVMPortsRefuseOtherUsers (issue 42.2): a launched JVM's
// per-VM port and the current-VM port leading to it refuse every
// connection of another local user (uid 65534: 100 handshakes each, none
// answered) while this user's debugger gets through; the per-VM port
// closes when the launcher's session ends, unless the launch kept it.
func TestLaunchedVMPortsRefuseOtherUsers(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	jvmtest.RequireJava(t)
	logs := &bridgetest.LogLines{T: t}
	o := testOptions(t, 0, 0)
	o.Logger = zerolog.New(logs).Level(zerolog.InfoLevel)
	m := startMonitor(t, o)
	id, _ := launchAdopted(t, m, false)
	if _, err := m.Select(id); err != nil {
		t.Fatal(err)
	}
	v, err := m.VM(id)
	if err != nil {
		t.Fatal(err)
	}
	port := v.Info().DebugPort
	_, cur, _ := net.SplitHostPort(m.CurrentAddr())
	curPort, _ := strconv.Atoi(cur)
	if port == 0 || curPort == 0 {
		t.Fatalf("per-VM port %d, current-VM port %d", port, curPort)
	}
	// The launcher's session.
	dc, err := m.OpenDebugger(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if won := handshakesAs(t, nobody, 100, port, curPort); won != 0 {
		t.Fatalf("another user's debugger got through %d times", won)
	}
	if !logs.Has("connection refused", "uid 65534", strconv.Itoa(port)) || !logs.Has("connection refused", "uid 65534", cur) {
		t.Error("no refusal of uid 65534 logged for both ports")
	}
	if won := handshakesAs(t, os.Getuid(), 1, port); won != 1 {
		t.Fatalf("this user's debugger was refused at the per-VM port")
	}

	// The session ends with the JVM left running: the port closes.
	dc.Close()
	waitFor(t, time.Minute, "the launched VM's port to close with its session", func() bool { return v.Info().DebugPort == 0 })
	if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 10*time.Second); err == nil {
		c.Close()
		t.Fatalf("port %d still accepts connections after the launcher's session ended", port)
	}
	if !logs.Has("closed the launched VM's debugger port", id) {
		t.Error("the port's closing was not logged")
	}
	if _, err := m.VM(id); err != nil {
		t.Fatalf("the VM left the monitor with its session: %v", err)
	}

	// keepDebugPort: it stays, and still refuses the other user.
	kept, _ := launchAdopted(t, m, true)
	kv, err := m.VM(kept)
	if err != nil {
		t.Fatal(err)
	}
	dc, err = m.OpenDebugger(t.Context(), kept)
	if err != nil {
		t.Fatal(err)
	}
	dc.Close()
	keptPort := kv.Info().DebugPort
	waitFor(t, time.Minute, "the kept VM's session to end", func() bool { return kv.mux.Attached() == 0 })
	if keptPort == 0 || kv.Info().DebugPort != keptPort {
		t.Fatalf("the kept port: %d, then %d", keptPort, kv.Info().DebugPort)
	}
	if won := handshakesAs(t, nobody, 20, keptPort); won != 0 {
		t.Fatalf("another user's debugger got through the kept port %d times", won)
	}
	if won := handshakesAs(t, os.Getuid(), 1, keptPort); won != 1 {
		t.Fatalf("this user's debugger was refused at the kept port")
	}
}
