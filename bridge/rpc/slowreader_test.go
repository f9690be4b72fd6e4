package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/access"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// TestRawDumpSlowReader (issue 42.6): a raw dump reader slower than a
// write deadline's worth of a piece keeps its stream while it takes bytes
// (the deadline is extended as they move) and gets the whole dump; the
// monitor still drops a reader that takes nothing for the deadline (see
// rawDumpWriteTimeout). The deadline is 1 s here, the reader takes
// 64 KiB every 40 ms: an 8 MiB piece takes it seconds.
func TestRawDumpSlowReader(t *testing.T) {
	saved := rawDumpWriteTimeout
	rawDumpWriteTimeout = time.Second
	defer func() { rawDumpWriteTimeout = saved }()
	const size = 12 << 20
	lo := freePorts(t, 1)
	serveSim(t, lo, simvm.Options{AppName: "com.example.slow", Tick: 50 * time.Millisecond, HprofSize: size})
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
	nc, err := access.DialRPCConn(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fmt.Fprintf(nc, rawDumpRequest+"%s %d\n", d.Token, 0)
	r := bufio.NewReaderSize(nc, 64<<10)
	n, err := rawDumpHeader(r)
	if err != nil || n != size {
		t.Fatalf("the answer: %d bytes, %v", n, err)
	}
	var got bytes.Buffer
	start := time.Now()
	buf := make([]byte, 64<<10)
	for int64(got.Len()) < n {
		k, err := r.Read(buf)
		got.Write(buf[:k])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(40 * time.Millisecond) // the slow reader's pace
	}
	took := time.Since(start)
	t.Logf("a reader at %.0f KB/s got %d of %d bytes in %v (write deadline %v)", float64(got.Len())/took.Seconds()/1000, got.Len(), size, took.Round(time.Millisecond), rawDumpWriteTimeout)
	if got.Len() != size {
		t.Fatalf("the slow reader got %d of %d bytes", got.Len(), size)
	}
	for _, off := range []int64{0, 5 << 20, size - 4096} {
		var ch HeapDumpChunk
		if err := c.Call(ctx, "heapDump/read", dumpReadParams{Stream: d.Stream, Offset: off, Length: 4096}, &ch); err != nil {
			t.Fatal(err)
		}
		if b, _ := base64.StdEncoding.DecodeString(ch.Data); !bytes.Equal(b, got.Bytes()[off:off+4096]) {
			t.Fatalf("the slow reader's bytes at %d differ from heapDump/read's", off)
		}
	}
}

// TestDumpStreamsPerUser (issue 42.6): the open dump streams a user may
// hold (two: each is a file of the dump's size) are counted across the
// user's connections, not per connection (three connections held 3.1 GB
// of disk): a third, on another connection, is refused with what to do,
// and closing one (or its connection) lets the next in.
func TestDumpStreamsPerUser(t *testing.T) {
	t.Parallel()
	lo := freePorts(t, 1)
	serveSim(t, lo, simvm.Options{AppName: "com.example.streams", Tick: 50 * time.Millisecond, HprofSize: 64 << 10})
	m := startMonitor(t, testOptions(t, lo, 1))
	sim := waitVM(t, m, fmt.Sprintf("127.0.0.1:%d", lo), 5*time.Second)
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	var conns []*Client
	for range 3 {
		c, err := DialRPC(ctx, addr, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	open := func(c *Client) (HeapDump, error) {
		var d HeapDump
		err := c.Call(ctx, "vm/dumpHeap", map[string]any{"id": sim.ID, "stream": true}, &d)
		return d, err
	}
	first, err := open(conns[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := open(conns[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := open(conns[2]); err == nil || !strings.Contains(err.Error(), "dumps are open for your user") {
		t.Fatalf("a third stream on a third connection: %v; want it refused", err)
	}
	if err := conns[0].Call(ctx, "heapDump/close", dumpReadParams{Stream: first.Stream}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := open(conns[2]); err != nil {
		t.Fatalf("after a close: %v", err)
	}
	conns[1].Close()
	waitFor(t, time.Minute, "the closed connection's stream to be released", func() bool {
		_, err := open(conns[0])
		return err == nil
	})
}
