package rpc

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/access"
	"github.com/sourcegraph/jsonrpc2"
)

// Client is a control API client (the CLI uses it).
type Client struct {
	conn *jsonrpc2.Conn
	addr string // the monitor's control address, for raw dump reads
}

// DialRPC connects to a monitor's control address (see ParseRPCAddr).
// notify, if not nil, receives the notifications, in order, on the
// connection's reader goroutine.
func DialRPC(ctx context.Context, addr string, notify func(method string, params json.RawMessage)) (*Client, error) {
	nc, err := access.DialRPCConn(ctx, addr)
	if err != nil {
		return nil, err
	}
	h := jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		if notify != nil && req.Notif && req.Params != nil {
			notify(req.Method, *req.Params)
		}
		return nil, nil
	})
	return &Client{conn: jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(nc, jsonrpc2.VSCodeObjectCodec{}), h), addr: addr}, nil
}

// Call calls a method; result may be nil. Errors the monitor returns are
// *RPCError.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	err := c.conn.Call(ctx, method, params, result)
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		return &RPCError{Code: je.Code, Message: je.Message}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// RPCError is an error response of the control API (codes in docs/rpc.md).
type RPCError struct {
	Code    int64
	Message string
}

func (e *RPCError) Error() string { return e.Message }

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Done is closed when the connection is gone.
func (c *Client) Done() <-chan struct{} { return c.conn.DisconnectNotify() }

// VMs lists the monitored VMs.
func (c *Client) VMs(ctx context.Context) ([]bridge.VMInfo, error) {
	var out []bridge.VMInfo
	return out, c.Call(ctx, "vms/list", nil, &out)
}

// Devices lists the adb devices the monitor follows.
func (c *Client) Devices(ctx context.Context) ([]bridge.DeviceInfo, error) {
	var out []bridge.DeviceInfo
	return out, c.Call(ctx, "devices/list", nil, &out)
}

// Select makes a VM current.
func (c *Client) Select(ctx context.Context, id string) (bridge.VMInfo, error) {
	var out bridge.VMInfo
	return out, c.Call(ctx, "vms/select", idParams{ID: id}, &out)
}

// SelectAuto makes the current VM automatic again (the oldest VM) and
// returns it, or nil when there is no VM.
func (c *Client) SelectAuto(ctx context.Context) (*bridge.VMInfo, error) {
	var out *bridge.VMInfo
	return out, c.Call(ctx, "vms/select", selectParams{Auto: true}, &out)
}

// Threads returns a VM's threads.
func (c *Client) Threads(ctx context.Context, id string) (VMThreads, error) {
	var out VMThreads
	return out, c.Call(ctx, "vm/threads", idParams{ID: id}, &out)
}

// ThreadDump returns a local HotSpot JDK 21+ VM's JSON thread dump,
// virtual threads grouped by stack.
func (c *Client) ThreadDump(ctx context.Context, id string) (bridge.VMThreadDump, error) {
	var out bridge.VMThreadDump
	return out, c.Call(ctx, "vm/threadDump", idParams{ID: id}, &out)
}

// HeapInfo returns a DDM VM's heap statistics.
func (c *Client) HeapInfo(ctx context.Context, id string) (VMHeapInfo, error) {
	var out VMHeapInfo
	return out, c.Call(ctx, "vm/heapInfo", idParams{ID: id}, &out)
}

// HeapMap returns a DDM VM's heap map (gc: collect first for a fresh one).
func (c *Client) HeapMap(ctx context.Context, id string, gc, png bool) (bridge.HeapMapJSON, error) {
	var out bridge.HeapMapJSON
	return out, c.Call(ctx, "vm/heapMap", heapMapParams{ID: id, GC: gc, PNG: png}, &out)
}

// DumpHeap asks a VM for an HPROF heap dump (HotSpot through attach, DDM VMs
// through HPDS). With path (absolute, on the monitor's host) the monitor
// writes the file; without, the result carries the file as base64 Data (see
// [HeapDump.Decode]).
func (c *Client) DumpHeap(ctx context.Context, id, path string) (HeapDump, error) {
	return c.DumpHeapAll(ctx, id, path, false)
}

// DumpHeapAll is DumpHeap; with all a HotSpot VM dumps unreachable objects
// too (no GC first).
func (c *Client) DumpHeapAll(ctx context.Context, id, path string, all bool) (HeapDump, error) {
	var out HeapDump
	return out, c.Call(ctx, "vm/dumpHeap", dumpHeapParams{ID: id, Path: path, All: all}, &out)
}

// Decode returns the dump's bytes (only when the monitor wrote no file).
func (h HeapDump) Decode() ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(h.Data)
	if err == nil && len(b) != h.Bytes {
		err = fmt.Errorf("heap dump: %d bytes of data, %d announced", len(b), h.Bytes)
	}
	return b, err
}
