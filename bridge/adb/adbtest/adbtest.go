package adbtest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// RequireADB returns the adb executable, skipping the test when it is
// missing, except under CI (CI=true), where that is a failure.
func RequireADB(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("adb")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("adb is missing; install it (apt-get install -y adb): %v", err)
		}
		t.Skipf("adb is missing (apt-get install -y adb): %v", err)
	}
	return p
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Server is a private adb server.
type Server struct {
	ADB    string // the adb executable
	Port   int
	Home   string      // $HOME of the server (its ~/.android)
	Client *adb.Client // a client of this server that never starts one
}

// Env is the environment for adb (or ddmlib) commands aimed at this server.
func (s *Server) Env() []string {
	env := []string{"ANDROID_ADB_SERVER_PORT=" + strconv.Itoa(s.Port), "HOME=" + s.Home}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ANDROID_ADB_SERVER_PORT=") && !strings.HasPrefix(kv, "ADB_SERVER_SOCKET=") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return env
}

// ADBCommand runs adb -P PORT args… against this server and returns its
// combined output, failing the test on error.
func (s *Server) ADBCommand(t testing.TB, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.ADB, append([]string{"-P", strconv.Itoa(s.Port)}, args...)...)
	cmd.Env = s.Env()
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("adb %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// StartServer starts an adb server on a free port with a fresh $HOME and
// kills it when the test ends. The server runs in the foreground (adb
// nodaemon server) as this test's own child, so its pid is known and it is
// killed for sure, even if it hangs on the way out.
func StartServer(t testing.TB) *Server {
	t.Helper()
	s := &Server{ADB: RequireADB(t), Home: t.TempDir()}
	for try := 1; ; try++ {
		s.Port = FreePort(t)
		cmd := exec.Command(s.ADB, "-P", strconv.Itoa(s.Port), "nodaemon", "server")
		cmd.Env = s.Env()
		var out lockedbuf.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatalf("adb nodaemon server: %v", err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
		if waitListening(addr, exited, time.Minute) {
			t.Cleanup(func() { stopServer(s.ADB, s.Port, s.Home, cmd.Process.Pid, exited) })
			break
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		if try == 3 { // the port was taken between FreePort and the bind, three times
			t.Fatalf("adb server on a private port did not start:\n%s", out.String())
		}
	}
	s.Client = &adb.Client{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)), NoStart: true}
	return s
}

// waitListening waits until addr accepts a connection, the process ends, or
// the timeout passes.
func waitListening(addr string, exited <-chan struct{}, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return true
		}
		select {
		case <-exited:
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return false
}

// stopServer asks the server on port to exit (adb kill-server, bounded in
// time), then kills whatever is left: the process group of pid if pid is not
// 0, and every process still listening on the port.
func stopServer(adbPath string, port int, home string, pid int, exited <-chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, adbPath, "-P", strconv.Itoa(port), "kill-server")
	cmd.Env = append(os.Environ(), "HOME="+home)
	cmd.WaitDelay = time.Second
	cmd.Run()
	if pid != 0 {
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
		}
		syscall.Kill(-pid, syscall.SIGKILL)
		<-exited
	}
	for _, p := range ListenerPIDs(port) {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// KillServerAtCleanup stops the server on port when the test ends: for a
// server this test did not start itself (one forked by adb start-server),
// found by the socket it listens on.
func KillServerAtCleanup(t testing.TB, adbPath string, port int, home string) {
	t.Cleanup(func() { stopServer(adbPath, port, home, 0, nil) })
}

// ListenerPIDs returns the pids of the processes holding a TCP socket that
// listens on port (Linux: /proc/net/tcp{,6} and /proc/PID/fd), nil elsewhere.
func ListenerPIDs(port int) []int {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			// local_address is HEX_IP:HEX_PORT; state 0A is LISTEN; inode is field 9.
			if len(fs) < 10 || fs[3] != "0A" {
				continue
			}
			i := strings.LastIndexByte(fs[1], ':')
			if p, err := strconv.ParseUint(fs[1][i+1:], 16, 16); err == nil && int(p) == port {
				inodes["socket:["+fs[9]+"]"] = true
			}
		}
	}
	if len(inodes) == 0 {
		return nil
	}
	var pids []int
	procs, _ := os.ReadDir("/proc")
	for _, d := range procs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		fds, _ := os.ReadDir("/proc/" + d.Name() + "/fd")
		for _, fd := range fds {
			if l, err := os.Readlink("/proc/" + d.Name() + "/fd/" + fd.Name()); err == nil && inodes[l] {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// Connect starts dev on a loopback port, `adb connect`s the server to it and
// waits until it is online. It returns the device's serial; the device is
// closed when the test ends.
func (s *Server) Connect(t testing.TB, dev *simdevice.Device) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go dev.Serve(ln)
	t.Cleanup(func() { dev.Close() })
	serial := ln.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := s.Client.Connect(ctx, serial); err != nil {
		t.Fatal(err)
	}
	WaitFor(t, ctx, "device "+serial+" online", func() bool {
		devs, err := s.Client.Devices(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range devs {
			if d.Serial == serial && d.State.Online() {
				return true
			}
		}
		return false
	})
	return serial
}

// WaitFor polls cond every 20 ms until it holds, failing when ctx ends.
func WaitFor(t testing.TB, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Next waits for the next tracker update satisfying cond and returns it.
func Next[T any](t testing.TB, ctx context.Context, tr *adb.Tracker[T], what string, cond func(T) bool) T {
	t.Helper()
	for {
		select {
		case v, ok := <-tr.Updates():
			if !ok {
				t.Fatalf("waiting for %s: tracking ended: %v", what, tr.Err())
			}
			if cond(v) {
				return v
			}
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// DdmlibJars are Debian's libandroid-ddms-java and what its
// AndroidDebugBridge loads.
var DdmlibJars = []string{
	"/usr/share/java/com.android.tools.ddms.ddmlib.jar",
	"/usr/share/java/com.android.tools.common.jar",
	"/usr/share/java/guava.jar",
	"/usr/share/java/kxml2.jar",
	"/usr/share/java/com.android.tools.annotations.jar",
}

// RunDeviceProbe compiles the ddmlib probe at src (bridge/adb/testdata/ddmlib/
// DeviceProbe.java) against DdmlibJars and runs it against this server until
// it sees want named clients of serial; it returns the probe's output. The
// test is skipped when Java or ddmlib is missing, except under CI (CI=true),
// where that is a failure.
func (s *Server) RunDeviceProbe(t testing.TB, ctx context.Context, src, serial string, want int) string {
	t.Helper()
	jvmtest.RequireJava(t)
	for _, j := range DdmlibJars {
		if _, err := os.Stat(j); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing; install libandroid-ddms-java", j)
			}
			t.Skipf("%s is missing (apt-get install -y libandroid-ddms-java)", j)
		}
	}
	javac, _ := jvmtest.FindTool("javac")
	java, _ := jvmtest.FindTool("java")
	dir := t.TempDir()
	cp := strings.Join(DdmlibJars, ":")
	if out, err := exec.CommandContext(ctx, javac, "-d", dir, "-cp", cp, src).CombinedOutput(); err != nil {
		t.Fatalf("javac %s: %v\n%s", src, err, out)
	}
	cmd := exec.CommandContext(ctx, java, "-cp", dir+":"+cp, "DeviceProbe", serial, strconv.Itoa(want), strconv.Itoa(FreePort(t)), strconv.Itoa(FreePort(t)))
	cmd.Env = s.Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ddmlib probe: %v\n%s", err, out)
	}
	return string(out)
}
