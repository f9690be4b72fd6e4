package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// serve --adb ADDR follows a device: `vms --json` carries its VMs with the
// usual keys plus serial and device, and `devices` lists it.
func TestServeADB(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	dev := simdevice.New(simdevice.Options{Model: "CLI", VM: simvm.Options{Tick: time.Hour, GCInterval: time.Hour}})
	pid, err := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.device"})
	if err != nil {
		t.Fatal(err)
	}
	serial := srv.Connect(t, dev)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	rpcAddr := "unix:" + filepath.Join(t.TempDir(), "s.sock")
	cmd := child(ctx, "serve", "--rpc", rpcAddr, "--adb", "tcp:"+strconv.Itoa(srv.Port), "--scan", "",
		"--current-port", "0", "--debug-port-base", "0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("serve's log:\n%s", stderr.String())
		}
	})

	var vms []map[string]any
	deadline := time.Now().Add(10 * time.Second)
	for {
		var out, errb bytes.Buffer
		if run([]string{"vms", "--json", "--rpc", rpcAddr}, &out, &errb) == 0 {
			vms = nil
			if err := json.Unmarshal(out.Bytes(), &vms); err != nil {
				t.Fatalf("vms --json: %v\n%s", err, out.String())
			}
			if len(vms) == 1 && vms[0]["name"] == "com.example.device" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no device VM in `vms --json`: %v %s", vms, errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, k := range []string{"id", "address", "pid", "name", "vm", "ddm", "waiting", "debugger", "debugPort", "serial", "device"} {
		if _, ok := vms[0][k]; !ok {
			t.Errorf("vms --json lacks %q: %v", k, vms[0])
		}
	}
	if vms[0]["address"] != bridge.DeviceAddr(serial, pid) || vms[0]["serial"] != serial || vms[0]["pid"] != float64(pid) || vms[0]["device"] != "CLI" {
		t.Errorf("vms --json: %v", vms[0])
	}
	var devs []bridge.DeviceInfo
	if err := json.Unmarshal([]byte(runCLI(t, "devices", "--json", "--rpc", rpcAddr)), &devs); err != nil || len(devs) != 1 || devs[0].Serial != serial || !devs[0].Online {
		t.Errorf("devices --json: %+v %v", devs, err)
	}
	if out := runCLI(t, "devices", "--rpc", rpcAddr); !strings.Contains(out, serial) || !strings.Contains(out, "CLI") {
		t.Errorf("devices:\n%s", out)
	}
	if out := runCLI(t, "vms", "--rpc", rpcAddr); !strings.Contains(out, bridge.DeviceAddr(serial, pid)) {
		t.Errorf("vms:\n%s", out)
	}
}
