package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/ddmbridge/ddmbridge/internal/framing"
)

// TestRPCHeaderLineBounded: a header line without an end (issue 12: 256 MiB
// took 545 MB) is answered with a parse error naming the limit, and the
// connection is closed, however much more the client sends.
func TestRPCHeaderLineBounded(t *testing.T) {
	t.Parallel()
	m := startMonitor(t, testOptions(t, 0, 0))
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	nc, err := net.Dial("unix", strings.TrimPrefix(addr, "unix:"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	go func() {
		line := []byte("Content-Length: " + strings.Repeat("1", 64<<10))
		for i := 0; i < 1<<12; i++ { // 256 MiB if nothing stopped it
			if _, err := nc.Write(line); err != nil {
				return
			}
		}
	}()
	nc.SetReadDeadline(time.Now().Add(60 * time.Second))
	body, err := framing.ReadMessage(bufio.NewReader(nc), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Error jsonrpc2.Error `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || resp.Error.Code != CodeParseError ||
		!strings.Contains(resp.Error.Message, "header line longer than 4096 bytes") {
		t.Fatalf("answer %s (%v), want a parse error about the header line", body, err)
	}
	if _, err := nc.Read(make([]byte, 1)); err == nil {
		t.Fatal("the connection stays open after broken framing")
	}
}

// TestBoundedInFlight: past the limit of requests in flight, a request is
// answered CodeBusy at once; once answers are taken, requests are served
// again (issue 12: 20k requests not read took the monitor to 1 GB).
func TestBoundedInFlight(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(2)
	slow := jsonrpc2.HandlerWithError(func(ctx context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		if req.Method == "block" {
			started.Done()
			<-release
		}
		return req.Method, nil
	})
	a, b := net.Pipe()
	ctx := t.Context()
	srv := jsonrpc2.NewConn(ctx, newTolerantStream(a), boundedAsync(slow, 2))
	defer srv.Close()
	cli := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(b, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.HandlerWithError(
		func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) { return nil, nil }))
	defer cli.Close()
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	blocked := make(chan error, 2)
	for i := 0; i < 2; i++ {
		go func() { blocked <- cli.Call(cctx, "block", nil, nil) }()
	}
	started.Wait()
	err := cli.Call(cctx, "third", nil, nil)
	if je, ok := err.(*jsonrpc2.Error); !ok || je.Code != CodeBusy || !strings.Contains(je.Message, "2 requests are already in flight") {
		t.Fatalf("third request with 2 in flight: %v, want CodeBusy", err)
	}
	close(release)
	for i := 0; i < 2; i++ {
		if err := <-blocked; err != nil {
			t.Fatal(err)
		}
	}
	var got string
	if err := cli.Call(cctx, "fourth", nil, &got); err != nil || got != "fourth" {
		t.Fatalf("after the answers: %q, %v", got, err)
	}
}
