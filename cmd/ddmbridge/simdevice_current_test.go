package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
)

// `simdevice --profile current` is accepted by the real adb server, and
// `serve` following it lists its apps from track-app: `vms --json` carries
// process, packages, debuggable, profileable, waitingForDebugger and frozen,
// and `vms` says in words why the frozen and the release app cannot be
// debugged, and what to do.
func TestSimDeviceProfileCurrent(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	sim := child(ctx, "simdevice", "--profile", "current", "--listen", "127.0.0.1:0", "--procs", "1", "--model", "Current", "--log-interval", "200ms")
	simOut, err := sim.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); sim.Wait() })
	lines := bufio.NewScanner(simOut)
	addr := ""
	var printed []string
	for lines.Scan() {
		l := lines.Text()
		printed = append(printed, l)
		if a, ok := strings.CutPrefix(l, "listening on "); ok {
			addr = a
		}
		if strings.Contains(l, "com.example.release") {
			break
		}
	}
	if addr == "" || !strings.Contains(strings.Join(printed, "\n"), "com.example.cached (frozen)") {
		t.Fatalf("simdevice printed:\n%s", strings.Join(printed, "\n"))
	}
	go func() { // keep draining the child's stdout
		for lines.Scan() {
		}
	}()
	srv.ADBCommand(t, "connect", addr)
	adbtest.WaitFor(t, ctx, "the simulated device online", func() bool {
		return strings.Contains(srv.ADBCommand(t, "devices"), addr+"\tdevice")
	})

	rpcAddr := "unix:" + filepath.Join(t.TempDir(), "s.sock")
	serve := child(ctx, "serve", "--rpc", rpcAddr, "--adb", "tcp:"+strconv.Itoa(srv.Port), "--scan", "",
		"--current-port", "0", "--debug-port-base", "0")
	var stderr bytes.Buffer
	serve.Stderr = &stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		serve.Wait()
		if t.Failed() {
			t.Logf("serve's log:\n%s", stderr.String())
		}
	})

	byName := map[string]map[string]any{}
	adbtest.WaitFor(t, ctx, "every app in `vms --json`, the frozen one found frozen", func() bool {
		var out, errb bytes.Buffer
		if run([]string{"vms", "--json", "--rpc", rpcAddr}, &out, &errb) != 0 {
			return false
		}
		var vms []map[string]any
		if err := json.Unmarshal(out.Bytes(), &vms); err != nil {
			t.Fatalf("vms --json: %v\n%s", err, out.String())
		}
		byName = map[string]map[string]any{}
		for _, v := range vms {
			byName[v["process"].(string)] = v
		}
		c := byName["com.example.cached"]
		return len(byName) == 4 && c != nil && c["frozen"] == true && byName["com.example.sim1"]["ddm"] == true
	})
	for name, v := range byName {
		for _, k := range []string{"process", "packages", "debuggable", "profileable", "waitingForDebugger", "serial"} {
			if _, ok := v[k]; !ok {
				t.Errorf("%s: vms --json lacks %q: %v", name, k, v)
			}
		}
	}
	if w := byName["com.example.waiting"]; w["waitingForDebugger"] != true || w["waiting"] != true {
		t.Errorf("waiting app: %v", w)
	}
	if r := byName["com.example.release"]; r["debuggable"] != false || r["profileable"] != true || r["listedOnly"] != true {
		t.Errorf("release app: %v", r)
	}
	if a := byName["com.example.sim1"]; a["frozen"] != false || a["address"] != bridge.DeviceAddr(a["serial"].(string), int(a["pid"].(float64))) {
		t.Errorf("monitored app: %v", a)
	}
	out := runCLI(t, "vms", "--rpc", rpcAddr)
	for _, want := range []string{"frozen (not debuggable now)", "not debuggable", "Bring the app to the foreground", "Install a debug build"} {
		if !strings.Contains(out, want) {
			t.Errorf("vms lacks %q:\n%s", want, out)
		}
	}
	t.Logf("vms:\n%s", out)
	// Current ART has no THST: `threads` lists names and says why states are missing.
	id := fmt.Sprint(byName["com.example.sim1"]["id"])
	if out := runCLI(t, "threads", id, "--rpc", rpcAddr); !strings.Contains(out, "unknown") || !strings.Contains(out, "does not answer THST") {
		t.Errorf("threads of a current-ART VM:\n%s", out)
	}
	// Nor heap chunks: `heap` reads the app's heap from an am dumpheap dump.
	if out := runCLI(t, "heap", id, "--rpc", rpcAddr); !strings.Contains(out, "from a heap dump taken at ") || !strings.Contains(out, "am dumpheap") ||
		!strings.Contains(out, "objects)") || !strings.Contains(out, "map: ") {
		t.Errorf("heap of a current-ART VM:\n%s", out)
	} else {
		t.Logf("heap:\n%s", out)
	}

	// `logcat ID --level W`: the app's warnings and errors, as adb's threadtime, until Ctrl-C.
	lc := child(ctx, "logcat", id, "--level", "W", "--rpc", rpcAddr)
	lcOut, err := lc.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var lcErr lockedbuf.Buffer
	lc.Stderr = &lcErr
	if err := lc.Start(); err != nil {
		t.Fatal(err)
	}
	pid := int(byName["com.example.sim1"]["pid"].(float64))
	logLines := bufio.NewScanner(lcOut)
	var levels []string
	var got []string
	for len(levels) < 4 && logLines.Scan() {
		got = append(got, logLines.Text())
		l, ok := adb.ParseThreadtime(logLines.Text())
		if !ok {
			continue
		}
		if l.PID != pid || (l.Level != "W" && l.Level != "E") || l.Tag != "SimApp" || !strings.Contains(l.Message, "com.example.sim1: tick") {
			t.Errorf("logcat --level W printed %q", logLines.Text())
		}
		levels = append(levels, l.Level)
	}
	if len(levels) < 4 || !slices.Contains(levels, "W") || !slices.Contains(levels, "E") {
		t.Errorf("logcat printed:\n%s", strings.Join(got, "\n"))
	}
	lc.Process.Signal(os.Interrupt)
	go func() {
		for logLines.Scan() {
		}
	}()
	if err := lc.Wait(); lc.ProcessState.ExitCode() != 130 {
		t.Errorf("logcat after Ctrl-C: %v, want exit status 130; its stderr: %s", err, lcErr.String())
	}
	t.Logf("logcat:\n%s", strings.Join(got, "\n"))
}
