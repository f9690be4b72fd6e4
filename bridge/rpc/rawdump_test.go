package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/bridgetest"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// TestDumpHeapRPCRaw: a dump opened with "stream": true is read raw over a
// second connection with its token — the same bytes heapDump/read gives,
// each token once, from any offset — and StreamHeapDump reads it so. (The
// chunks alone ran at 2.5–12 MB/s: `bench dump` prints both.)
func TestDumpHeapRPCRaw(t *testing.T) {
	t.Parallel()
	const size = 8 << 20
	lo := freePorts(t, 1)
	serveSim(t, lo, simvm.Options{AppName: "com.example.raw", Tick: 50 * time.Millisecond, HprofSize: size})
	m := startMonitor(t, testOptions(t, lo, 1))
	sim := waitVM(t, m, fmt.Sprintf("127.0.0.1:%d", lo), 5*time.Second)
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	c, err := DialRPC(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	var d HeapDump
	if err := c.Call(ctx, "vm/dumpHeap", map[string]any{"id": sim.ID, "stream": true}, &d); err != nil {
		t.Fatal(err)
	}
	if d.Token == "" || d.Bytes != size {
		t.Fatalf("vm/dumpHeap stream: %+v; want a token and %d bytes", d, size)
	}
	var raw bytes.Buffer
	if n, err := readRawDump(ctx, addr, d.Token, 0, &raw); err != nil || n != size || raw.Len() != size {
		t.Fatalf("raw read: %d bytes (%d written), %v", n, raw.Len(), err)
	}
	var ch HeapDumpChunk
	if err := c.Call(ctx, "heapDump/read", dumpReadParams{Stream: d.Stream, Offset: 5000, Length: 4096}, &ch); err != nil {
		t.Fatal(err)
	}
	if b, _ := base64.StdEncoding.DecodeString(ch.Data); !bytes.Equal(b, raw.Bytes()[5000:5000+4096]) {
		t.Fatal("the raw bytes differ from heapDump/read's")
	}
	// A token reads once; an unknown one not at all.
	for _, tok := range []string{d.Token, "00112233445566778899aabbccddeeff"} {
		if _, err := readRawDump(ctx, addr, tok, 0, &raw); err == nil || !strings.Contains(err.Error(), "no open heap dump has this token") {
			t.Errorf("raw read with a used or unknown token: %v", err)
		}
	}
	if err := c.Call(ctx, "heapDump/close", dumpReadParams{Stream: d.Stream}, nil); err != nil {
		t.Fatal(err)
	}
	// From an offset; and heapDump/close drops the token.
	var d2 HeapDump
	if err := c.Call(ctx, "vm/dumpHeap", map[string]any{"id": sim.ID, "stream": true}, &d2); err != nil {
		t.Fatal(err)
	}
	var tail bytes.Buffer
	if n, err := readRawDump(ctx, addr, d2.Token, size-100, &tail); err != nil || n != 100 {
		t.Fatalf("raw read from %d: %d bytes, %v", size-100, n, err)
	}
	if err := c.Call(ctx, "heapDump/close", dumpReadParams{Stream: d2.Stream}, nil); err != nil {
		t.Fatal(err)
	}
	var d3 HeapDump
	if err := c.Call(ctx, "vm/dumpHeap", map[string]any{"id": sim.ID, "stream": true}, &d3); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "heapDump/close", dumpReadParams{Stream: d3.Stream}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := readRawDump(ctx, addr, d3.Token, 0, &tail); err == nil {
		t.Error("a raw read of a closed stream succeeded")
	}

	// StreamHeapDump reads raw, and the connection is still a JSON-RPC one.
	var buf bytes.Buffer
	from := time.Now()
	if n, err := c.StreamHeapDump(ctx, sim.ID, false, 0, &buf); err != nil || n != size || buf.Len() != size {
		t.Fatalf("StreamHeapDump: %d bytes (%d written), %v", n, buf.Len(), err)
	}
	bridgetest.CheckSimHprof(t, buf.Bytes(), from, time.Now())
	if _, err := c.VMs(ctx); err != nil {
		t.Fatalf("vms/list after the dumps: %v", err)
	}
}

// TestRawDumpHeaderSkipsNotifications: what the monitor sent the raw
// connection before it read the request is skipped.
func TestRawDumpHeaderSkipsNotifications(t *testing.T) {
	note := `{"jsonrpc":"2.0","method":"vms/added","params":{"id":"1"}}`
	in := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(note), note) +
		fmt.Sprintf("content-length: %d\r\nContent-Type: application/json\r\n\r\n%s", len(note), note) +
		"DDMBRIDGE-HEAPDUMP 5\nHPROF"
	r := bufio.NewReader(strings.NewReader(in))
	n, err := rawDumpHeader(r)
	if err != nil || n != 5 {
		t.Fatalf("rawDumpHeader: %d, %v", n, err)
	}
	if rest, _ := r.Peek(5); string(rest) != "HPROF" {
		t.Fatalf("after the header: %q", rest)
	}
	for _, bad := range []string{"garbage\n", "DDMBRIDGE-HEAPDUMP-ERROR no such token\n", "DDMBRIDGE-HEAPDUMP -1\n", "Content-Length: 99999999999\r\n\r\n"} {
		if _, err := rawDumpHeader(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzRawDumpHeader: whatever a monitor (or something in its place) sends
// before a raw dump, the client returns a length ≥ 0 or an error, and
// reads no more than it was sent.
func FuzzRawDumpHeader(f *testing.F) {
	f.Add([]byte("DDMBRIDGE-HEAPDUMP 5\nHPROF"))
	f.Add([]byte("Content-Length: 2\r\n\r\n{}DDMBRIDGE-HEAPDUMP 0\n"))
	f.Add([]byte("DDMBRIDGE-HEAPDUMP-ERROR no open heap dump has this token\n"))
	f.Add([]byte("Content-Length: 99\r\n\r\n{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(b), 64<<10)
		n, err := rawDumpHeader(r)
		if err == nil && n < 0 {
			t.Fatalf("length %d without an error", n)
		}
	})
}
