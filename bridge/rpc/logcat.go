package rpc

import (
	"context"
	"sync"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/sourcegraph/jsonrpc2"
)

// vm/logcat: {"id", "subscribe": true, "level", "tags"} follows an Android
// app's log; the connection is sent a vm/logcat notification (LogBatch) per
// batch of lines until {"id", "subscribe": false}, the connection closes or
// the monitor stops. Subscribing again replaces the filter. The result is
// the subscription's first word: the VM id and the pid followed, no lines.

type logcatParams struct {
	ID        string   `json:"id"`
	Subscribe bool     `json:"subscribe"`
	Level     string   `json:"level"`
	Tags      []string `json:"tags"`
}

// LogcatSubscription is the vm/logcat result.
type LogcatSubscription struct {
	ID         string `json:"id"`
	PID        int    `json:"pid"`
	Subscribed bool   `json:"subscribed"`
}

// rpcLogcats are one connection's log subscriptions, by VM id.
type rpcLogcats struct {
	ready chan struct{}   // closed once ctx and conn are set
	ctx   context.Context // the connection's
	conn  *jsonrpc2.Conn

	mu   sync.Mutex
	subs map[string]context.CancelFunc
}

func (c *rpcConn) logcat(req *jsonrpc2.Request) (any, error) {
	var p logcatParams
	if err := decodeParams(req, &p, true); err != nil {
		return nil, err
	}
	l := &c.logs
	if !p.Subscribe {
		id := p.ID
		if lid, err := c.s.m.LogcatID(p.ID); err == nil {
			id = lid
		}
		l.mu.Lock()
		cancel := l.subs[id]
		delete(l.subs, id)
		l.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		return LogcatSubscription{ID: id}, nil
	}
	f := bridge.LogFilter{Level: p.Level, Tags: p.Tags}
	if err := f.Check(); err != nil {
		return nil, rpcError(CodeInvalidParams, "vm/logcat: %v", err)
	}
	// The connection reads requests as soon as it exists, before ServeConn
	// has stored it: a first request may be this one.
	if l.ready != nil {
		<-l.ready
	}
	l.mu.Lock()
	connCtx, conn := l.ctx, l.conn
	l.mu.Unlock()
	if connCtx == nil || conn == nil {
		return nil, rpcError(CodeInvalidRequest, "vm/logcat: this connection cannot be sent notifications")
	}
	ctx, cancel := context.WithCancel(connCtx)
	first, err := c.s.m.Logcat(ctx, p.ID, f, func(b bridge.LogBatch) {
		conn.Notify(ctx, "vm/logcat", b) // blocks on a client that does not read: lines queue, then drop
	}, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	l.mu.Lock()
	if l.subs == nil {
		l.subs = map[string]context.CancelFunc{}
	}
	old := l.subs[first.ID]
	l.subs[first.ID] = cancel
	l.mu.Unlock()
	if old != nil {
		old()
	}
	return LogcatSubscription{ID: first.ID, PID: first.PID, Subscribed: true}, nil
}

// stopAll ends the connection's subscriptions.
func (l *rpcLogcats) stopAll() {
	l.mu.Lock()
	subs := l.subs
	l.subs = nil
	l.mu.Unlock()
	for _, cancel := range subs {
		cancel()
	}
}
