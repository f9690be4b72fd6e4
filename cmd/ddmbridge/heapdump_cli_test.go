package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/access"
	"github.com/ddmbridge/ddmbridge/bridge/rpc"
)

// TestHeapHprofFile: `heap ID --hprof FILE` creates FILE new with mode
// 0600 (the monitor writes it), refuses an existing FILE naming --force,
// replaces it with --force, and never writes through a symlink, with or
// without --force; --stream writes the same way (issue 25, files 2).
func TestHeapHprofFile(t *testing.T) {
	simAddr := startSim(t)
	m, err := bridge.New(bridge.Options{CurrentPort: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	nc, err := net.Dial("tcp", simAddr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Connect(t.Context(), nc, simAddr); err != nil {
		t.Fatal(err)
	}
	rpcAddr := "unix:" + filepath.Join(t.TempDir(), "c.sock")
	ln, err := access.ListenRPC(rpcAddr, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go rpc.NewServer(m, rpc.ServerOptions{}).Serve(ctx, ln)
	var vms []map[string]any
	if err := json.Unmarshal([]byte(runCLI(t, "vms", "--json", "--rpc", rpcAddr)), &vms); err != nil || len(vms) != 1 {
		t.Fatalf("vms --json: %v %v", vms, err)
	}
	id := vms[0]["id"].(string)

	dir := t.TempDir()
	file := filepath.Join(dir, "sim.hprof")
	if out := runCLI(t, "heap", id, "--hprof", file, "--rpc", rpcAddr); !strings.Contains(out, "written to "+file) {
		t.Errorf("heap --hprof: %s", out)
	}
	fi, err := os.Lstat(file)
	if err != nil || fi.Mode() != 0o600 || fi.Size() < 1000 {
		t.Fatalf("%s: %v %v", file, fi, err)
	}
	fail := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if rc := run(append(args, "--rpc", rpcAddr), &out, &errb); rc == 0 {
			t.Errorf("ddmbridge %s succeeded: %s", strings.Join(args, " "), out.String())
		}
		return errb.String()
	}
	for _, stream := range []string{"", "--stream"} {
		args := []string{"heap", id, "--hprof", file}
		if stream != "" {
			args = append(args, stream)
		}
		if e := fail(args...); !strings.Contains(e, "exists") || !strings.Contains(e, "--force") {
			t.Errorf("%s: an existing file: %s", stream, e)
		}
		os.Chmod(file, 0o644)
		runCLI(t, append(args, "--force", "--rpc", rpcAddr)...)
		if fi, err := os.Lstat(file); err != nil || fi.Mode() != 0o600 || fi.Size() < 1000 {
			t.Errorf("%s --force: %v %v", stream, fi, err)
		}
	}
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("secret"), 0o600)
	link := filepath.Join(dir, "link.hprof")
	os.Symlink(secret, link)
	for _, args := range [][]string{{}, {"--force"}, {"--stream"}, {"--stream", "--force"}} {
		e := fail(append([]string{"heap", id, "--hprof", link}, args...)...)
		if b, _ := os.ReadFile(secret); string(b) != "secret" {
			t.Fatalf("%v: the symlink's target now holds %d bytes", args, len(b))
		}
		if e == "" {
			t.Errorf("%v: no error message", args)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		t.Errorf("%s holds %d entries, want the dump, the secret and the link: leftovers?", dir, len(ents))
	}
}
