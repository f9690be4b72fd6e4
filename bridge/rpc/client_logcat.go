package rpc

import (
	"context"

	"github.com/ddmbridge/ddmbridge/bridge"
)

// Logcat subscribes this connection to an Android app's log (vm/logcat):
// the batches arrive as vm/logcat notifications (LogBatch) through
// DialRPC's notify, until StopLogcat or the connection closes.
func (c *Client) Logcat(ctx context.Context, id string, f bridge.LogFilter) (LogcatSubscription, error) {
	var out LogcatSubscription
	return out, c.Call(ctx, "vm/logcat", logcatParams{ID: id, Subscribe: true, Level: f.Level, Tags: f.Tags}, &out)
}

// StopLogcat ends the connection's subscription to a VM's log.
func (c *Client) StopLogcat(ctx context.Context, id string) error {
	return c.Call(ctx, "vm/logcat", logcatParams{ID: id}, nil)
}
