package dap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/internal/framing"
)

// fuzzStream is a client that sends its input and then hangs up; what the
// server writes is dropped.
type fuzzStream struct{ io.Reader }

func (fuzzStream) Write(p []byte) (int, error) { return len(p), nil }
func (fuzzStream) Close() error                { return nil }

// startsSomething says whether the input holds a request that would start
// or reach a program (launch, attach, restart): the fuzzer must not run
// what it makes up.
func startsSomething(data []byte) bool {
	r := bufio.NewReader(bytes.NewReader(data))
	for {
		body, err := framing.ReadMessage(r, maxMessage)
		if err != nil {
			return false
		}
		var m struct{ Command string }
		if json.Unmarshal(body, &m) == nil {
			switch m.Command {
			case "launch", "attach", "restart":
				return true
			}
		}
	}
}

// FuzzSessionInput feeds arbitrary bytes to a DAP session as its client's
// stream: framing, message decoding and every request's arguments, without
// a debuggee. The session ends when the input does; nothing panics and
// nothing hangs.
func FuzzSessionInput(f *testing.F) {
	msg := func(body string) []byte { return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)) }
	for _, body := range []string{
		`{"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"x","linesStartAt1":false}}`,
		`{"seq":2,"type":"request","command":"setBreakpoints","arguments":{"source":{"path":"/a/B.java"},"breakpoints":[{"line":3,"condition":"x >"}]}}`,
		`{"seq":3,"type":"request","command":"evaluate","arguments":{"expression":"1+","frameId":99}}`,
		`{"seq":4,"type":"request","command":"variables","arguments":{"variablesReference":-1}}`,
		`{"seq":5,"type":"request","command":"threads"}`,
		`{"seq":6,"type":"request","command":"stackTrace","arguments":{"threadId":1,"levels":-3}}`,
		`{"seq":7,"type":"request","command":"cancel","arguments":{"requestId":2}}`,
		`{"seq":8,"type":"response","request_seq":1,"success":true,"command":"runInTerminal"}`,
		`{"seq":9,"type":"request","command":"noSuchCommand"}`,
		`{"seq":10,"type":"request","command":"disconnect","arguments":{"terminateDebuggee":true}}`,
		`{"type":"event"}`,
		`[]`,
	} {
		f.Add(msg(body))
	}
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if startsSomething(data) {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		NewServer(Config{}).ServeConn(ctx, fuzzStream{bytes.NewReader(data)})
		if ctx.Err() != nil {
			t.Fatalf("the session did not end with its input")
		}
	})
}
