package rpc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// fuzzStream is a client that sends its input and then hangs up; what the
// server writes is dropped.
type fuzzStream struct{ io.Reader }

func (fuzzStream) Write(p []byte) (int, error) { return len(p), nil }
func (fuzzStream) Close() error                { return nil }

// FuzzRPCInput feeds arbitrary bytes to a control connection of a monitor
// without VMs: framing, JSON, requests and every method's params are parsed
// from them. The connection ends when the input does; nothing panics and
// nothing hangs.
func FuzzRPCInput(f *testing.F) {
	msg := func(body string) []byte { return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)) }
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"vms/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"vms/select","params":{"id":"1"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"vm/heapMap","params":{"id":"1","width":-5}}`,
		`{"jsonrpc":"2.0","id":4,"method":"vm/stack","params":{"id":"1","thread":"x"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"vm/dumpHeap","params":{"id":"1","path":"relative"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"vm/setThreadUpdates","params":[1,2]}`,
		`{"jsonrpc":"2.0","method":"monitor/status"}`,
		`[1,2,3]`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":7}`,
		`not json`,
	} {
		f.Add(msg(body))
	}
	f.Add([]byte("Content-Length: 5\r\n\r\n{}"))
	f.Add([]byte("X: y\r\n\r\n"))
	// The monitor logs from its own goroutines, which may run after Fuzz
	// began, when a testing.F must not be written to (a race, and a
	// failure): its start-up sweep of partial dumps warns when another
	// process on the machine removes one at the same moment.
	opts := testOptions(f, 0, 0)
	opts.Logger = zerolog.Nop()
	m := startMonitor(f, opts)
	srv := NewServer(m, ServerOptions{Logger: testLogger(f).Level(5), RequestTimeout: 10 * time.Second})
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		srv.ServeConn(ctx, fuzzStream{bytes.NewReader(data)})
		if ctx.Err() != nil {
			t.Fatalf("the connection did not end with its input")
		}
	})
}
