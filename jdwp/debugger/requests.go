package debugger

import (
	"context"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/rs/zerolog"
)

// Requests is the registry of the event requests a session set: every one
// is cleared when the session detaches, so no breakpoint, step or watch of
// a debugger that left can suspend a thread afterwards.
type Requests struct {
	conn *jdwp.Conn
	log  zerolog.Logger
	mu   sync.Mutex
	set  map[request]bool
}

type request struct {
	kind jdwp.EventKind
	id   int32
}

// NewRequests returns an empty registry over conn.
func NewRequests(conn *jdwp.Conn, log zerolog.Logger) *Requests {
	return &Requests{conn: conn, log: log, set: map[request]bool{}}
}

// Set sets an event request and remembers it.
func (r *Requests) Set(ctx context.Context, kind jdwp.EventKind, policy jdwp.SuspendPolicy, mods ...jdwp.Modifier) (int32, error) {
	id, err := r.conn.SetRequest(ctx, kind, policy, mods...)
	if err != nil {
		return 0, err
	}
	r.mu.Lock()
	r.set[request{kind, id}] = true
	r.mu.Unlock()
	return id, nil
}

// Clear clears a request; one that already expired (a count filter) or
// vanished is not an error.
func (r *Requests) Clear(ctx context.Context, kind jdwp.EventKind, id int32) {
	r.mu.Lock()
	delete(r.set, request{kind, id})
	r.mu.Unlock()
	if err := r.conn.ClearRequest(ctx, kind, id); err != nil && r.conn.Err() == nil {
		r.log.Debug().Err(err).Stringer("kind", kind).Int32("id", id).Msg("clear request")
	}
}

// ClearNoWait is Clear without waiting for the VM's answer (see
// jdwp.Conn.ClearRequestNoWait): for a one-shot request that fired, whose
// clearing nothing waits on.
func (r *Requests) ClearNoWait(kind jdwp.EventKind, id int32) {
	r.mu.Lock()
	delete(r.set, request{kind, id})
	r.mu.Unlock()
	err := r.conn.ClearRequestNoWait(kind, id, func(err error) {
		if err != nil && r.conn.Err() == nil {
			r.log.Debug().Err(err).Stringer("kind", kind).Int32("id", id).Msg("clear request")
		}
	})
	if err != nil && r.conn.Err() == nil {
		r.log.Debug().Err(err).Stringer("kind", kind).Int32("id", id).Msg("clear request")
	}
}

// ClearAll clears every request set; it reports the first failure other
// than a request already gone (a JDWP error: an expired count filter).
func (r *Requests) ClearAll(ctx context.Context) error {
	r.mu.Lock()
	all := r.set
	r.set = map[request]bool{}
	r.mu.Unlock()
	var first error
	for q := range all {
		if err := r.conn.ClearRequest(ctx, q.kind, q.id); err != nil && jdwp.Code(err) == jdwp.ErrNone && first == nil {
			first = err
		}
	}
	return first
}
