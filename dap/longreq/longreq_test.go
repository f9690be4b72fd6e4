package longreq

import (
	"context"
	"sync"
	"testing"
	"time"

	godap "github.com/google/go-dap"
)

type sink struct {
	mu  sync.Mutex
	got []godap.Message
}

func (s *sink) send(m godap.Message) {
	s.mu.Lock()
	s.got = append(s.got, m)
	s.mu.Unlock()
}

func (s *sink) events() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, m := range s.got {
		out = append(out, m.(godap.EventMessage).GetEvent().Event)
	}
	return out
}

// TestCancel: a cancel reaches a request being handled, one not started
// yet, and the request behind a progress; Forget ends what is known.
func TestCancel(t *testing.T) {
	var s sink
	tr := New(s.send)
	tr.ShowProgress(true)
	ctx, done := tr.Context(context.Background(), time.Minute, 7)
	defer done()
	tr.Cancel(&godap.CancelArguments{RequestId: 7})
	if ctx.Err() == nil || !tr.Cancelled(7) {
		t.Fatal("a request being handled was not cancelled")
	}
	tr.Cancel(&godap.CancelArguments{RequestId: 8})
	ctx8, done8 := tr.Context(context.Background(), time.Minute, 8)
	defer done8()
	if ctx8.Err() == nil {
		t.Error("a request cancelled before it started runs")
	}
	p := tr.Start(9, "Loading", "")
	ctx9, done9 := tr.Context(context.Background(), time.Minute, 9)
	defer done9()
	tr.Cancel(&godap.CancelArguments{ProgressId: p.id})
	if ctx9.Err() == nil {
		t.Error("cancelling a progress did not cancel its request")
	}
	p.Update("half", 50)
	p.End("")
	p.End("twice")
	if got := s.events(); len(got) != 3 || got[0] != "progressStart" || got[1] != "progressUpdate" || got[2] != "progressEnd" {
		t.Errorf("progress events %v", got)
	}
	tr.Forget(7)
	if tr.Cancelled(7) {
		t.Error("Forget kept the cancellation")
	}
	tr.Cancel(nil) // a cancel without arguments cancels nothing
}

// TestNoProgressWhenNotShown: a client that does not show progress gets
// no progress events, and After stays silent.
func TestNoProgressWhenNotShown(t *testing.T) {
	var s sink
	tr := New(s.send)
	p := tr.Start(1, "x", "")
	p.Update("y", 1)
	p.End("")
	tr.After(context.Background(), 2, "z", time.Nanosecond)()
	if got := s.events(); len(got) != 0 {
		t.Errorf("events to a client that shows no progress: %v", got)
	}
}
