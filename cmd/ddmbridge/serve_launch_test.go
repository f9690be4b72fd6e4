package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// TestServeLaunchMonitored: a JVM launched by a DAP session on serve's
// socket is handed to the monitor. It is listed (the editor's VM pickers
// show it), ddmVM names it, and the control API's vm/threads gives the
// states the program's threads are in (sleeper timed-wait, waiter wait,
// spinner running, by name) with CPU times from the host, the spinner's
// growing between two polls. Stopped at nothing, no thread is suspended;
// after disconnect the JVM is gone from the list.
func TestServeLaunchMonitored(t *testing.T) {
	jvmtest.RequireJava(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	src, err := os.ReadFile(filepath.Join("testdata", "ThreadStates.java"))
	if err != nil {
		t.Fatal(err)
	}
	classes, err := jvmtest.CompileFiles(ctx, map[string][]byte{"ThreadStates.java": src})
	if err != nil {
		t.Fatal(err)
	}
	s := startServeDAP(t, ctx, "--no-adb", "--scan=", "--current-port", "0", "--debug-port-base", "0")
	d := s.session()
	d.nc.SetDeadline(time.Now().Add(2 * time.Minute))
	args, _ := json.Marshal(map[string]any{"mainClass": "ThreadStates", "classPaths": []string{classes}})
	launched := time.Now()
	d.send(&godap.LaunchRequest{Request: d.req("launch"), Arguments: args})
	d.await("launch")
	t.Logf("launch through the monitor answered in %v", time.Since(launched).Round(time.Millisecond))
	d.send(&godap.ConfigurationDoneRequest{Request: d.req("configurationDone")})
	d.await("configurationDone")

	resp := d.custom("ddmVM", map[string]any{})
	body, _ := resp["body"].(map[string]any)
	id, _ := body["id"].(string)
	if resp["success"] != true || id == "" {
		t.Fatalf("ddmVM: %v\n%s", resp, s.stderr.String())
	}
	s.waitVMs("the launched JVM listed as VM "+id, func(l []map[string]any) bool {
		for _, v := range l {
			if v["id"] == id {
				return v["name"] == "ThreadStates" && v["debugger"] == true
			}
		}
		return false
	})

	threads := func() map[string]ddm.ThreadJSON {
		t.Helper()
		r := s.rpc("vm/threads", map[string]any{"id": id})
		raw, _ := json.Marshal(r["result"])
		th, err := ddm.DecodeThreadsJSON(raw)
		if err != nil {
			t.Fatalf("vm/threads %s: %v (%v)", id, err, r)
		}
		out := map[string]ddm.ThreadJSON{}
		for _, x := range th.Threads {
			out[x.Name] = x
		}
		return out
	}
	want := map[string]string{"sleeper": "timed-wait", "waiter": "wait", "spinner": "running", "main": "timed-wait"}
	var first map[string]ddm.ThreadJSON
	deadline := time.Now().Add(time.Minute)
	for {
		first = threads()
		ok := true
		for name, st := range want {
			if x := first[name]; x.State != st || x.Suspended {
				ok = false
			}
		}
		if ok && first["spinner"].TID != 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread states: want %v, have %+v", want, first)
		}
		time.Sleep(200 * time.Millisecond)
	}
	cpu := func(x ddm.ThreadJSON) uint32 { return x.UTime + x.STime }
	// The spinner's CPU time grows (the host's figures, per native thread).
	deadline = time.Now().Add(time.Minute)
	for {
		now := threads()
		if cpu(now["spinner"]) > cpu(first["spinner"]) {
			t.Logf("spinner: %d → %d ticks; sleeper %d, waiter %d", cpu(first["spinner"]), cpu(now["spinner"]), cpu(now["sleeper"]), cpu(now["waiter"]))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spinner's CPU time never grew: %+v then %+v", first["spinner"], now["spinner"])
		}
		time.Sleep(200 * time.Millisecond)
	}
	d.disconnect()
	s.waitVMs("the launched JVM gone after disconnect", func(l []map[string]any) bool {
		for _, v := range l {
			if v["id"] == id {
				return false
			}
		}
		return true
	})
}
