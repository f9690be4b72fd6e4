package dap

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/internal/framing"
	godap "github.com/google/go-dap"
)

// TestRoutesTakeWhatTheCodecDecodes: every command of the routes table
// decodes (go-dap's requests and the custom ones) to the type its handler
// takes, so dispatch never hands a handler the wrong request.
func TestRoutesTakeWhatTheCodecDecodes(t *testing.T) {
	codec := godap.NewCodec()
	registerCustom(codec)
	for cmd, rt := range routes {
		msg, err := codec.DecodeMessage([]byte(fmt.Sprintf(`{"seq":1,"type":"request","command":%q,"arguments":{}}`, cmd)))
		if err != nil {
			t.Errorf("%s: %v", cmd, err)
			continue
		}
		req, ok := msg.(godap.RequestMessage)
		if !ok || !rt.handle.takes(req) {
			t.Errorf("%s decodes to %T, which its handler does not take", cmd, msg)
		}
	}
	for _, cmd := range []string{"initialize", "launch", "attach", "disconnect"} {
		if routes[cmd].need != anyTime {
			t.Errorf("%s must be allowed at any time", cmd)
		}
	}
}

// TestReplyErrors: reply answers a handler's error with the route's id and
// the command prefix, a failWith error with its own id, an asIs error
// without the prefix, and a body as the response's body.
func TestReplyErrors(t *testing.T) {
	a, b := net.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := newSession(ctx, NewServer(Config{}), a)
	defer a.Close()
	out := make(chan godap.Message, 8)
	go func() {
		r := bufio.NewReader(b)
		codec := godap.NewCodec()
		for {
			raw, err := framing.ReadMessage(r, maxMessage)
			if err != nil {
				close(out)
				return
			}
			m, err := codec.DecodeMessage(raw)
			if err != nil {
				t.Errorf("undecodable response %s: %v", raw, err)
			}
			out <- m
		}
	}()
	next := func() godap.Message {
		select {
		case m := <-out:
			return m
		case <-ctx.Done():
			t.Fatal("no response before the deadline")
			return nil
		}
	}
	req := &godap.ThreadsRequest{Request: godap.Request{ProtocolMessage: godap.ProtocolMessage{Seq: 7, Type: "request"}, Command: "threads"}}
	for _, c := range []struct {
		err    error
		id     int
		prefix bool
	}{
		{errors.New("plain"), ErrUnableToListThreads, true},
		{failWith(ErrVMCannot, errors.New("own id")), ErrVMCannot, true},
		{asIs(errors.New("as is")), ErrUnableToListThreads, false},
		{fmt.Errorf("wrapped: %w", failWith(ErrNotStopped, errors.New("deep"))), ErrNotStopped, true},
	} {
		h := reply(ErrUnableToListThreads, func(*session, context.Context, *godap.ThreadsRequest) (godap.ThreadsResponseBody, error) {
			return godap.ThreadsResponseBody{}, c.err
		})
		go h.run(s, req)
		e, ok := next().(*godap.ErrorResponse)
		if !ok || e.Success || e.RequestSeq != 7 || e.Body.Error == nil {
			t.Fatalf("%v: got %#v, want an error response to seq 7", c.err, e)
		}
		if e.Body.Error.Id != c.id {
			t.Errorf("%v: id %d, want %d", c.err, e.Body.Error.Id, c.id)
		}
		if got := strings.Contains(e.Body.Error.Format, ": threads: "+c.err.Error()); got != c.prefix {
			t.Errorf("%v: message %q; command prefix present %v, want %v", c.err, e.Body.Error.Format, got, c.prefix)
		}
		if !strings.HasSuffix(e.Body.Error.Format, c.err.Error()) {
			t.Errorf("%v: message %q does not end with the error", c.err, e.Body.Error.Format)
		}
	}
	h := reply(ErrUnableToListThreads, func(*session, context.Context, *godap.ThreadsRequest) (godap.ThreadsResponseBody, error) {
		return godap.ThreadsResponseBody{Threads: []godap.Thread{{Id: 1, Name: "main"}}}, nil
	})
	go h.run(s, req)
	r, ok := next().(*godap.ThreadsResponse)
	if !ok || !r.Success || r.RequestSeq != 7 || len(r.Body.Threads) != 1 || r.Body.Threads[0].Name != "main" {
		t.Fatalf("got %#v, want the threads response with main", r)
	}
	none := reply(ErrUnableToTerminate, func(*session, context.Context, *godap.ThreadsRequest) (*struct{}, error) { return nil, nil })
	go none.run(s, req)
	if r, ok := next().(*godap.ThreadsResponse); !ok || !r.Success {
		t.Fatalf("got %#v, want a success response without a body", r)
	}
}
