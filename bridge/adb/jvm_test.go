package adb_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestHotSpotThroughDevice exposes a real HotSpot JVM as a device process:
// jdb attaches through `adb forward tcp:N jdwp:PID` and lists its threads,
// then our JDWP client asks the version over the same forward: the device's
// VM names itself as ART does (that is how a client knows it may send DDM),
// while every other command reaches HotSpot.
func TestHotSpotThroughDevice(t *testing.T) {
	t.Parallel()
	jdbPath, err := jvmtest.FindTool("jdb")
	if err != nil {
		jvmtest.RequireJava(t)
		t.Skip(err)
	}
	srv := adbtest.StartServer(t)
	jvm := jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: []string{"-Dthreads=2"}})
	ctx := testCtx(t)
	dev := simdevice.New(simdevice.Options{VM: quietVM})
	pid, _ := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.hotspot", JVM: jvm.Addr})
	serial := srv.Connect(t, dev)
	port, err := srv.Client.ForwardJDWP(ctx, serial, 0, pid)
	if err != nil {
		t.Fatal(err)
	}
	addr := "localhost:" + strconv.Itoa(port)

	j := startExpect(t, ctx, jdbPath, "-attach", addr)
	j.expect(`Initializing jdb \.\.\.\s*\n?> `)
	j.send("threads")
	out := j.expect(`(?s)Reference Handler.*\n> `)
	if !strings.Contains(out, "main") {
		t.Errorf("jdb threads through the device:\n%s", out)
	}
	j.send("quit")
	j.wait()

	// The JVM listens again a moment after jdb detaches; until then the
	// device's VM closes the stream, so retry.
	var v jdwp.VersionInfo
	adbtest.WaitFor(t, ctx, "JDWP Version over the forward", func() bool {
		conn, err := jdwp.Dial(ctx, addr, nil)
		if err != nil {
			return false
		}
		defer conn.Close()
		v, err = conn.Version(ctx)
		return err == nil
	})
	if !v.Android() || !strings.Contains(v.Description, "simulated") {
		t.Errorf("Version over adb is not the simulated ART VM's: %+v", v)
	}
}

// expectProc drives an interactive command over its stdin and output.
type expectProc struct {
	t     *testing.T
	ctx   context.Context
	cmd   *exec.Cmd
	stdin io.WriteCloser
	mu    sync.Mutex
	out   bytes.Buffer
	seen  int // output consumed by expect
}

func startExpect(t *testing.T, ctx context.Context, name string, args ...string) *expectProc {
	p := &expectProc{t: t, ctx: ctx, cmd: exec.CommandContext(ctx, name, args...)}
	p.cmd.Stdout, p.cmd.Stderr = p, p
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	return p
}

func (p *expectProc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

// expect waits for pattern in the output not yet consumed and returns that
// output up to the match's end.
func (p *expectProc) expect(pattern string) string {
	p.t.Helper()
	re := regexp.MustCompile(pattern)
	for {
		p.mu.Lock()
		rest := p.out.String()[p.seen:]
		if loc := re.FindStringIndex(rest); loc != nil {
			p.seen += loc[1]
			p.mu.Unlock()
			return rest[:loc[1]]
		}
		p.mu.Unlock()
		select {
		case <-p.ctx.Done():
			p.t.Fatalf("%s: no %q in output:\n%s", filepath.Base(p.cmd.Path), pattern, rest)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (p *expectProc) send(line string) {
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("%s: %v", line, err)
	}
}

func (p *expectProc) wait() {
	p.t.Helper()
	if err := p.cmd.Wait(); err != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.t.Fatalf("%s: %v\n%s", filepath.Base(p.cmd.Path), err, p.out.String())
	}
}

// TestDdmlibSeesDevice is the interoperability check: Debian's ddmlib,
// through the same private adb server, finds the simulated device, reads a
// property with getprop, opens jdwp:PID to each VM and learns their names
// from HELO.
func TestDdmlibSeesDevice(t *testing.T) {
	t.Parallel()
	jvmtest.RequireJava(t)
	srv, ctx, _, serial, pids := onDevice(t, simdevice.Options{Model: "DdmlibSim"}, "com.example.first", "com.example.second")
	p1, p2 := pids[0], pids[1]
	out := srv.RunDeviceProbe(t, ctx, filepath.Join("testdata", "ddmlib", "DeviceProbe.java"), serial, 2)
	for _, want := range []string{
		fmt.Sprintf("device=%s ONLINE DdmlibSim", serial),
		fmt.Sprintf("client=%s %d com.example.first", serial, p1),
		fmt.Sprintf("client=%s %d com.example.second", serial, p2),
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("ddmlib did not see %q", want)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("probe output:\n%s", out)
	}
}
