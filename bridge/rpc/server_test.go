package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/ddmbridge/ddmbridge/bridge/access"
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// startRPC serves m's control API on a unix socket and returns its address.
func startRPC(t testing.TB, m Monitor, opts ServerOptions) string {
	t.Helper()
	addr := "unix:" + filepath.Join(t.TempDir(), "rpc.sock")
	ln, err := access.ListenRPC(addr, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { NewServer(m, opts).Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return addr
}

func rpcCode(err error) int64 {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e.Code
	}
	var re *RPCError
	if errors.As(err, &re) {
		return re.Code
	}
	return 0
}

func TestRPC(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 2)
	serveSim(t, lo, simvm.Options{AppName: "com.example.sim", GCInterval: 200 * time.Millisecond, Tick: 50 * time.Millisecond})
	hot := startDemo(t, lo+1, false)
	m := startMonitor(t, testOptions(t, lo, 2))
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	if fi, err := os.Stat(strings.TrimPrefix(addr, "unix:")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("control socket mode: %v %v, want 0600", fi.Mode(), err)
	}
	simAddr := fmt.Sprintf("127.0.0.1:%d", lo)
	waitVM(t, m, simAddr, 5*time.Second)
	waitVM(t, m, hot.Addr, 5*time.Second)

	var mu sync.Mutex
	notes := map[string]int{}
	var lastMap json.RawMessage // the last vm/heapMap notification
	ctx := t.Context()
	c, err := DialRPC(ctx, addr, func(method string, params json.RawMessage) {
		mu.Lock()
		notes[method]++
		if method == "vm/heapMap" {
			lastMap = params
		}
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	vms, err := c.VMs(ctx)
	if err != nil || len(vms) != 2 {
		t.Fatalf("vms/list: %v %+v", err, vms)
	}
	var sim, plain VMInfo
	for _, v := range vms {
		if v.DDM {
			sim = v
		} else {
			plain = v
		}
	}
	if sim.Name != "com.example.sim" || plain.Name != "DemoApp" {
		t.Fatalf("vms: %+v", vms)
	}
	if info, err := c.Select(ctx, plain.ID); err != nil || !info.Current {
		t.Errorf("vms/select: %+v %v", info, err)
	}
	// Where a debugger reaches a VM: its own port, or the current-VM port.
	var da DebugAddress
	if err := c.Call(ctx, "vm/debugAddress", idParams{sim.ID}, &da); err != nil || da.ID != sim.ID || da.Port != sim.DebugPort || da.Current || da.HostName != "127.0.0.1" {
		t.Errorf("vm/debugAddress %s: %+v %v, want port %d", sim.ID, da, err, sim.DebugPort)
	}
	if err := c.Call(ctx, "vm/debugAddress", idParams{"current"}, &da); err != nil || da.ID != plain.ID || !da.Current ||
		fmt.Sprintf("%s:%d", da.HostName, da.Port) != m.CurrentAddr() {
		t.Errorf("vm/debugAddress current: %+v %v, want %s of VM %s", da, err, m.CurrentAddr(), plain.ID)
	}
	for _, v := range []VMInfo{sim, plain} {
		th, err := c.Threads(ctx, v.ID)
		if err != nil || len(th.Threads) == 0 {
			t.Errorf("vm/threads %s: %v %+v", v.Name, err, th)
		}
		if !v.DDM {
			names := ""
			for _, x := range th.Threads {
				names += x.Name + " "
			}
			if !strings.Contains(names, "cruncher") || !strings.Contains(names, "main") {
				t.Errorf("HotSpot threads: %s", names)
			}
		} else {
			var st VMStack
			if err := c.Call(ctx, "vm/stack", map[string]any{"id": v.ID, "thread": th.Threads[0].ID}, &st); err != nil || len(st.Frames) == 0 {
				t.Errorf("vm/stack: %v %+v", err, st)
			}
		}
	}
	if hi, err := c.HeapInfo(ctx, sim.ID); err != nil || len(hi.Heaps) == 0 || hi.Heaps[0].MaxBytes == 0 {
		t.Errorf("vm/heapInfo: %v %+v", err, hi)
	}
	hm, err := c.HeapMap(ctx, sim.ID, true, true)
	if err != nil || len(hm.Pieces) == 0 || hm.Totals.Bytes == 0 {
		t.Fatalf("vm/heapMap: %v %+v", err, hm)
	}
	if blocks, err := hm.Pieces[0].RunBlocks(); err != nil || len(blocks) == 0 {
		t.Errorf("heap map runs: %v", err)
	}
	// The results are the one schema, strictly (ddm/view.go).
	var rawMap, rawThreads json.RawMessage
	if err := c.Call(ctx, "vm/heapMap", heapMapParams{ID: sim.ID}, &rawMap); err != nil {
		t.Error(err)
	} else if _, err := ddm.DecodeHeapMapJSON(rawMap); err != nil {
		t.Errorf("vm/heapMap: %v", err)
	}
	for _, id := range []string{sim.ID, plain.ID} {
		if err := c.Call(ctx, "vm/threads", idParams{id}, &rawThreads); err != nil {
			t.Error(err)
		} else if _, err := ddm.DecodeThreadsJSON(rawThreads); err != nil {
			t.Errorf("vm/threads %s: %v", id, err)
		}
	}
	if b, err := base64.StdEncoding.DecodeString(hm.PNG); err != nil {
		t.Errorf("png: %v", err)
	} else if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("png: %v", err)
	}
	if err := c.Call(ctx, "vm/gc", idParams{sim.ID}, nil); err != nil {
		t.Errorf("vm/gc: %v", err)
	}
	// A plain HotSpot VM on this host: heap info and map from a heap dump
	// (attach), the map drawn from object addresses.
	if hi, err := c.HeapInfo(ctx, plain.ID); err != nil || len(hi.Heaps) != 1 || hi.Heaps[0].AllocatedObjects < 1000 || hi.Heaps[0].AllocatedBytes == 0 ||
		hi.Source != "dump" || hi.DumpedAt == "" {
		t.Errorf("vm/heapInfo on HotSpot: %+v, %v", hi, err)
	}
	if hm, err := c.HeapMap(ctx, plain.ID, true, false); err != nil || len(hm.Pieces) == 0 || hm.Totals.ByKind["class"] == 0 || hm.Totals.ByKind["object"] == 0 {
		t.Errorf("vm/heapMap on HotSpot: %+v, %v", hm.Totals, err)
	}
	// Updates and notifications.
	for _, m := range []string{"vm/setThreadUpdates", "vm/setHeapUpdates"} {
		if err := c.Call(ctx, m, updatesParams{sim.ID, true}, nil); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
	if err := c.Call(ctx, "vm/setThreadUpdates", updatesParams{plain.ID, true}, nil); err != nil {
		t.Error(err)
	}
	waitFor(t, 5*time.Second, "vm/threads and vm/heap notifications", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return notes["vm/threads"] >= 2 && notes["vm/heap"] >= 2 && notes["vms/changed"] >= 1
	})
	// The heap map itself is pushed, in the schema a DAP session's
	// ddmHeapMap event carries (the client never fetches it again).
	if err := c.Call(ctx, "vm/gc", idParams{sim.ID}, nil); err != nil {
		t.Error(err)
	}
	waitFor(t, time.Minute, "a vm/heapMap notification", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return notes["vm/heapMap"] >= 1
	})
	mu.Lock()
	pushed := lastMap
	mu.Unlock()
	if hm, err := ddm.DecodeHeapMapJSON(pushed); err != nil || hm.ID != sim.ID || len(hm.Pieces) == 0 || hm.PNG != "" {
		t.Errorf("vm/heapMap notification: %v (id %q, %d pieces, png %d bytes)", err, hm.ID, len(hm.Pieces), len(hm.PNG))
	}
	// Errors.
	for _, tc := range []struct {
		method string
		params any
		code   int64
	}{
		{"vm/exit", exitParams{sim.ID, 0}, CodeNotAllowed},
		{"vm/threads", idParams{"nope"}, CodeNoSuchVM},
		{"vm/threads", nil, CodeInvalidParams},
		{"vm/threads", []int{1}, CodeInvalidParams},
		{"no/such", nil, CodeMethodNotFound},
		{"vm/heapMap", heapMapParams{ID: sim.ID, Width: -1}, CodeInvalidParams},
	} {
		if err := c.Call(ctx, tc.method, tc.params, nil); rpcCode(err) != tc.code {
			t.Errorf("%s %v: %v, want code %d", tc.method, tc.params, err, tc.code)
		}
	}
	// Malformed messages get errors and the connection lives on.
	nc, err := access.DialRPCConn(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r := bufio.NewReader(nc)
	send := func(body string) map[string]any {
		fmt.Fprintf(nc, "Content-Length: %d\r\n\r\n%s", len(body), body)
		for {
			var msg map[string]any
			if err := (jsonrpc2.VSCodeObjectCodec{}).ReadObject(r, &msg); err != nil {
				t.Fatalf("after %q: %v", body, err)
			}
			if _, ok := msg["method"]; !ok { // skip notifications
				return msg
			}
		}
	}
	for body, code := range map[string]float64{
		`{"jsonrpc":"2.0","id":1,"method":`: CodeParseError,
		`{"jsonrpc":"2.0","id":2}`:          CodeInvalidRequest,
		`[]`:                                CodeInvalidRequest,
	} {
		msg := send(body)
		e, _ := msg["error"].(map[string]any)
		if e == nil || e["code"] != code {
			t.Errorf("%s => %v, want error %v", body, msg, code)
		}
	}
	if msg := send(`{"jsonrpc":"2.0","id":3,"method":"vms/list"}`); msg["result"] == nil {
		t.Errorf("vms/list after garbage: %v", msg)
	}
}

func TestRPCPanicBecomesError(t *testing.T) {
	c := &rpcConn{s: &Server{opts: ServerOptions{RequestTimeout: time.Second}}} // no monitor: handlers panic
	_, err := c.handle(context.Background(), nil, &jsonrpc2.Request{Method: "vms/list"})
	if rpcCode(err) != CodeInternalError {
		t.Fatalf("panic became %v, want an internal error", err)
	}
}

func TestParseRPCAddr(t *testing.T) {
	for in, want := range map[string]string{
		"unix:/tmp/x.sock":   "unix /tmp/x.sock",
		"tcp:127.0.0.1:9000": "tcp 127.0.0.1:9000",
		"/run/user/1/d.sock": "unix /run/user/1/d.sock",
		"localhost:7000":     "tcp localhost:7000",
		"tcp:nonsense":       "error",
		"unix:":              "error",
	} {
		n, a, err := access.ParseRPCAddr(in)
		got := n + " " + a
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("access.ParseRPCAddr(%q) = %q, want %q", in, got, want)
		}
	}
	if _, err := access.ListenRPC("tcp:0.0.0.0:0", false); err == nil {
		t.Error("non-loopback control address accepted without --allow-remote")
	}
	if !strings.HasPrefix(access.DefaultRPCAddr(), "unix:") {
		t.Error(access.DefaultRPCAddr())
	}
}
