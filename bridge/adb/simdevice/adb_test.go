package simdevice_test

import (
	"bytes"
	"crypto/rand"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// TestADBCommandLine drives the simulated device with the real adb command
// line, as a developer would: devices -l, jdwp, shell (v2, with exit codes),
// push and a read back, pm install, forward. The device asks for AUTH and
// uses a 1 KiB payload so that the server signs with its key and every
// transfer is cut into many WRTEs in both directions.
func TestADBCommandLine(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	dev := simdevice.New(simdevice.Options{Auth: true, MaxPayload: 1024, Model: "CLI_Sim", VM: simvm.Options{Tick: time.Hour, GCInterval: time.Hour}})
	p1, _ := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.cli"})
	p2, _ := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.cli2"})
	serial := srv.Connect(t, dev)
	adb := func(args ...string) string { return srv.ADBCommand(t, append([]string{"-s", serial}, args...)...) }

	if out := srv.ADBCommand(t, "devices", "-l"); !strings.Contains(out, serial) || !strings.Contains(out, "device product:sim model:CLI_Sim device:sim") {
		t.Errorf("adb devices -l:\n%s", out)
	}
	if out := adb("jdwp"); out != strconv.Itoa(p1)+"\n"+strconv.Itoa(p2)+"\n" {
		t.Errorf("adb jdwp = %q", out)
	}
	if out := adb("shell", "getprop", "ro.product.model"); out != "CLI_Sim\n" {
		t.Errorf("getprop = %q", out)
	}
	if out := adb("shell", "cat", "/proc/"+strconv.Itoa(p2)+"/cmdline"); out != "com.example.cli2\x00" {
		t.Errorf("cmdline = %q", out)
	}
	// shell v2 carries the exit status and stderr.
	cmd := exec.Command(srv.ADB, "-P", strconv.Itoa(srv.Port), "-s", serial, "shell", "frobnicate")
	cmd.Env = srv.Env()
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 127 || !strings.Contains(string(out), "frobnicate: inaccessible or not found") {
		t.Errorf("unknown command: %v %q", err, out)
	}

	big := make([]byte, 100<<10)
	rand.Read(big)
	local := filepath.Join(t.TempDir(), "com.example.big.apk")
	os.WriteFile(local, big, 0o644)
	adb("push", local, "/data/local/tmp/")
	if back := adb("shell", "cat", "/data/local/tmp/com.example.big.apk"); !bytes.Equal([]byte(back), big) {
		t.Errorf("read back %d bytes, pushed %d", len(back), len(big))
	}
	if out := adb("shell", "pm", "install", "-r", "/data/local/tmp/com.example.big.apk"); out != "Success\n" {
		t.Errorf("pm install = %q", out)
	}
	adb("shell", "am", "start", "-D", "-n", "com.example.big/.Main")
	if out := adb("shell", "pidof", "com.example.big"); strings.TrimSpace(out) == "" {
		t.Errorf("am start -D started nothing: %q", out)
	}

	port := strings.TrimSpace(adb("forward", "tcp:0", "jdwp:"+strconv.Itoa(p1)))
	nc, err := net.DialTimeout("tcp", "127.0.0.1:"+port, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(nc, "JDWP-Handshake")
	hs := make([]byte, 14)
	if _, err := io.ReadFull(nc, hs); err != nil || string(hs) != "JDWP-Handshake" {
		t.Fatalf("handshake over adb forward: %q, %v", hs, err)
	}
	if out := adb("forward", "--list"); !strings.Contains(out, serial+" tcp:"+port+" jdwp:"+strconv.Itoa(p1)) {
		t.Errorf("forward --list = %q", out)
	}
}
