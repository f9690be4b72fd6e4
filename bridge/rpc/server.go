package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/access"
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/internal/framing"
	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
)

// JSON-RPC error codes: the standard ones and the monitor's.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeNoSuchVM       = -32001 // no VM with that id (it may have died)
	CodeNotDDM         = -32002 // the method needs a DDM-aware VM
	CodeNotAllowed     = -32003 // vm/exit without serve --allow-exit
	CodeVMError        = -32004 // the VM failed or did not answer the request
	CodeBusy           = -32005 // too many requests in flight on the connection
)

// maxInFlight bounds the requests a connection may have in flight: a client
// that sends without reading answers cannot make the monitor hold more.
const maxInFlight = 128

// ServerOptions configure the control API.
type ServerOptions struct {
	// AllowExit enables vm/exit.
	AllowExit bool
	// Logger receives the server's logs (component "bridge").
	Logger zerolog.Logger
	// TraceMessages logs every JSON-RPC message (kind "rpc.msg").
	TraceMessages bool
	// RequestTimeout bounds each method; 0 means 30 s.
	RequestTimeout time.Duration
	// DAPAddr is where the process accepts DAP sessions that debug through
	// this monitor ("unix:PATH" or "tcp:HOST:PORT"); dap/address reports it.
	DAPAddr string
	// CheckDebugConfig validates a launch or attach configuration as the
	// DAP adapter will (dap/checkConfig); nil when the process has none.
	CheckDebugConfig func(request string, config json.RawMessage) error
}

// checkConfigParams are the params of dap/checkConfig.
type checkConfigParams struct {
	Request string          `json:"request"`
	Config  json.RawMessage `json:"config"`
}

// DAPAddress is the result of dap/address.
type DAPAddress struct {
	// Address is "unix:PATH" or "tcp:HOST:PORT".
	Address string `json:"address"`
}

// Monitor is what the control API asks of the monitor (*bridge.Monitor):
// the VM list and its events, selection, devices, where debuggers reach a
// VM, an app's log. Of a VM it uses the exported methods of *bridge.VM;
// the monitor's internals are out of its reach.
type Monitor interface {
	Subscribe() (events <-chan bridge.Event, cancel func())
	VMs() []bridge.VMInfo
	VM(target string) (*bridge.VM, error)
	Select(target string) (bridge.VMInfo, error)
	SelectAuto() *bridge.VMInfo
	Devices() []bridge.DeviceInfo
	ADBStatus() (bridge.ADBStatus, bool)
	CurrentAddr() string
	Options() bridge.Options
	DebugAddress(v *bridge.VM, current bool) (bridge.DebugAddress, error)
	Logcat(ctx context.Context, target string, f bridge.LogFilter, deliver func(bridge.LogBatch), ended func()) (bridge.LogBatch, error)
	LogcatID(target string) (string, error)
}

var _ Monitor = (*bridge.Monitor)(nil)

// Server serves the monitor's JSON-RPC 2.0 control API (docs/rpc.md),
// language-server style: Content-Length framed messages, on any number of
// connections (stdio, unix socket, loopback TCP).
type Server struct {
	m    Monitor
	opts ServerOptions
	log  zerolog.Logger

	mu      sync.Mutex
	threads map[string]int // VM id → connections that turned thread updates on
	heap    map[string]int
	raw     rawDumps // tokens of dumps read raw (rawdump.go)

	dumpsMu   sync.Mutex
	openDumps map[int]int // open dump streams by the client's uid (dump.go)
}

// NewServer returns a control server for m.
func NewServer(m Monitor, opts ServerOptions) *Server {
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 30 * time.Second
	}
	return &Server{m: m, opts: opts, log: opts.Logger.With().Str("component", "bridge").Logger(),
		threads: map[string]int{}, heap: map[string]int{}}
}

// Serve accepts control connections on ln until ctx ends or ln is closed.
// A listener not from Listen is guarded with default ListenOptions: other
// local users are refused and temporary accept errors retried.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ln = access.Guard(ln, access.ListenOptions{Logger: s.opts.Logger})
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("control API: accept: %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.ServeConn(ctx, c)
		}()
	}
}

// ServeConn serves one connection (a socket, or stdin/stdout) until it
// closes or ctx ends.
func (s *Server) ServeConn(ctx context.Context, rwc io.ReadWriteCloser) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cs := &rpcConn{s: s, threads: map[string]bool{}, heap: map[string]bool{}, peer: rwc}
	cs.logs.ready = make(chan struct{})
	defer cs.closeDumps()
	var opts []jsonrpc2.ConnOpt
	opts = append(opts, jsonrpc2.SetLogger(zlogAdapter{s.log}))
	if s.opts.TraceMessages {
		opts = append(opts, jsonrpc2.LogMessages(zlogAdapter{s.log.With().Str("kind", "rpc.msg").Logger()}))
	}
	handler := orderedHandler{cs: cs, next: jsonrpc2.HandlerWithError(cs.handle).SuppressErrClosed()}
	ts := newTolerantStream(rwc)
	ts.raw = s.serveRawDump // a connection that reads a heap dump raw
	conn := jsonrpc2.NewConn(ctx, ts, boundedAsync(handler, maxInFlight), opts...)
	cs.logs.mu.Lock()
	cs.logs.ctx, cs.logs.conn = ctx, conn
	cs.logs.mu.Unlock()
	close(cs.logs.ready)
	events, unsub := s.m.Subscribe()
	defer unsub()
	go func() {
		for e := range events {
			for _, n := range cs.notifications(e) {
				cs.order.Lock()
				conn.Notify(ctx, n.method, n.params)
				cs.order.Unlock()
			}
		}
	}()
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	cs.logs.stopAll()
	cs.release()
}

// boundedAsync handles each request on its own goroutine, at most limit at a
// time; one more is answered with CodeBusy on the reader goroutine, which
// then waits for a client that does not read to take the answer, and so
// stops reading its requests.
func boundedAsync(next jsonrpc2.Handler, limit int) jsonrpc2.Handler {
	return &bounded{next: next, slots: make(chan struct{}, limit)}
}

type bounded struct {
	next  jsonrpc2.Handler
	slots chan struct{}
}

func (b *bounded) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	select {
	case b.slots <- struct{}{}:
	default:
		if !req.Notif {
			conn.ReplyWithError(ctx, req.ID, rpcError(CodeBusy,
				"%s: %d requests are already in flight on this connection: wait for their answers before sending more", req.Method, cap(b.slots)))
		}
		return
	}
	go func() {
		defer func() { <-b.slots }()
		b.next.Handle(ctx, conn, req)
	}()
}

type zlogAdapter struct{ l zerolog.Logger }

func (z zlogAdapter) Printf(format string, v ...any) { z.l.Debug().Msgf(format, v...) }

// rpcConn is one control connection: what it asked to be told about.
type rpcConn struct {
	s       *Server
	mu      sync.Mutex
	threads map[string]bool
	heap    map[string]bool
	// order is held while a notification is written, and while a list
	// method's result is computed and written, so a client never gets a list
	// older than a vms/added or devices/added it already received.
	order sync.Mutex
	peer  io.ReadWriteCloser // who asks: a path is written for the same user only (dump.go)
	dumps dumpStreams        // dumps read in chunks (dump.go)
	logs  rpcLogcats         // vm/logcat subscriptions (logcat.go)

	uidOnce sync.Once
	uid     int // the peer's user (peerUID)
}

// listMethods answer with a snapshot that notifications update.
var listMethods = map[string]bool{"vms/list": true, "devices/list": true}

// orderedHandler answers list methods in order with notifications (see
// rpcConn.order) and passes every other request on.
type orderedHandler struct {
	cs   *rpcConn
	next jsonrpc2.Handler
}

func (h orderedHandler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if !listMethods[req.Method] || req.Notif {
		h.next.Handle(ctx, conn, req)
		return
	}
	h.cs.order.Lock()
	defer h.cs.order.Unlock()
	result, err := h.cs.handle(ctx, conn, req)
	if err != nil {
		var je *jsonrpc2.Error
		if !errors.As(err, &je) {
			je = rpcError(CodeInternalError, "%v", err)
		}
		conn.ReplyWithError(ctx, req.ID, je)
		return
	}
	conn.Reply(ctx, req.ID, result)
}

// Notification parameters.
type (
	// VMThreads is the vm/threads result and notification (the one schema, ddm/view.go).
	VMThreads = ddm.ThreadsJSON
	// VMHeapInfo is the vm/heapInfo result and the vm/heap notification.
	VMHeapInfo = ddm.HeapInfoJSON
	// HeapStats is one heap of HPIF.
	HeapStats = ddm.HeapStatsJSON
	// VMStack is the vm/stack result.
	VMStack struct {
		ID     string      `json:"id"`
		Thread uint32      `json:"thread"`
		Frames []FrameJSON `json:"frames"`
	}
	// FrameJSON is one stack frame; line −2 is native, −1 unknown.
	FrameJSON struct {
		Class  string `json:"class"`
		Method string `json:"method"`
		File   string `json:"file,omitempty"`
		Line   int32  `json:"line"`
	}
	// HeapDump is the vm/dumpHeap result: Path when the server wrote the
	// file, Stream when the client reads it with heapDump/read, else Data,
	// the whole HPROF file in base64 (small dumps only).
	HeapDump struct {
		ID     string `json:"id"`
		Path   string `json:"path,omitempty"`
		Bytes  int    `json:"bytes"`
		Data   string `json:"data,omitempty"`
		Stream string `json:"stream,omitempty"`
		Token  string `json:"token,omitempty"` // with Stream: reads the dump raw on a connection of its own (rawdump.go)
	}
	// MonitorStatus is the monitor/status result.
	MonitorStatus struct {
		CurrentAddress string            `json:"currentAddress,omitempty"` // where the current-VM port listens
		Scan           []string          `json:"scan"`
		AllowExit      bool              `json:"allowExit"`
		VMs            int               `json:"vms"`
		ADB            *bridge.ADBStatus `json:"adb,omitempty"` // absent when devices are not followed (serve --no-adb)
	}
)

// rpcNotification is one notification to send.
type rpcNotification struct {
	method string
	params any
}

// notifications turns a monitor event into what this connection is sent.
// The DDM ones carry the objects a DAP session's events carry (ddm/view.go):
// vm/threads the whole thread list (ddmThreads), vm/heap the heap statistics
// (ddmHeapInfo), vm/heapMap each heap's complete map (ddmHeapMap), so a
// client renders what it is sent and never asks again.
func (c *rpcConn) notifications(e bridge.Event) []rpcNotification {
	one := func(params any) []rpcNotification { return []rpcNotification{{string(e.Kind), params}} }
	switch e.Kind {
	case bridge.EventAdded, bridge.EventRemoved, bridge.EventChanged:
		if e.Kind == bridge.EventRemoved {
			c.mu.Lock()
			delete(c.threads, e.VM.ID)
			delete(c.heap, e.VM.ID)
			c.mu.Unlock()
		}
		return one(e.VM)
	case bridge.EventDeviceAdded, bridge.EventDeviceRemoved, bridge.EventDeviceChanged:
		return one(e.Device)
	case bridge.EventThreads:
		c.mu.Lock()
		want := c.threads[e.VM.ID]
		c.mu.Unlock()
		if v, err := c.s.m.VM(e.VM.ID); want && err == nil {
			return one(v.Feed().Threads())
		}
	case bridge.EventHeap:
		c.mu.Lock()
		want := c.heap[e.VM.ID]
		c.mu.Unlock()
		if v, err := c.s.m.VM(e.VM.ID); want && err == nil && v.DDM() != nil {
			if v.DumpSource().Source != "" { // current Android: from a dump (bridge/deviceheap.go)
				info, _ := v.DumpHeapJSON()
				return one(info)
			}
			return one(v.Feed().HeapInfo())
		}
	case bridge.EventHeapMap:
		c.mu.Lock()
		want := c.heap[e.VM.ID]
		c.mu.Unlock()
		if v, err := c.s.m.VM(e.VM.ID); want && err == nil && v.DDM() != nil {
			var out []rpcNotification
			maps := v.Feed().HeapMaps()
			if v.DumpSource().Source != "" {
				_, maps = v.DumpHeapJSON()
			}
			for _, m := range maps {
				out = append(out, rpcNotification{string(e.Kind), m})
			}
			return out
		}
	}
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// release turns off the updates this connection turned on (when no other
// connection wants them).
func (c *rpcConn) release() {
	c.mu.Lock()
	threads, heap := c.threads, c.heap
	c.threads, c.heap = map[string]bool{}, map[string]bool{}
	c.mu.Unlock()
	for id := range threads {
		c.s.setUpdates(id, false, c.s.threads, func(v *bridge.VM, on bool) error { v.SetThreadUpdates(on); return nil })
	}
	for id := range heap {
		c.s.setUpdates(id, false, c.s.heap, (*bridge.VM).SetHeapUpdates)
	}
}

// setUpdates counts the connections wanting updates of a kind from a VM and
// switches them on for the first and off after the last.
func (s *Server) setUpdates(id string, on bool, refs map[string]int, set func(*bridge.VM, bool) error) error {
	v, err := s.m.VM(id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	n := refs[id]
	if on {
		refs[id] = n + 1
	} else if n > 0 {
		refs[id] = n - 1
	}
	flip := on && n == 0 || !on && n == 1
	if refs[id] == 0 {
		delete(refs, id)
	}
	s.mu.Unlock()
	if flip {
		return set(v, on)
	}
	return nil
}

// Method parameters.
type (
	idParams struct {
		ID string `json:"id"`
	}
	selectParams struct {
		ID   string `json:"id"`   // a VM id, name or address
		Auto bool   `json:"auto"` // back to automatic: the oldest VM is current
	}
	updatesParams struct {
		ID      string `json:"id"`
		Enabled bool   `json:"enabled"`
	}
	heapMapParams struct {
		ID    string `json:"id"`
		GC    bool   `json:"gc"`    // run a GC for a fresh map
		PNG   bool   `json:"png"`   // also render it
		Width int    `json:"width"` // PNG width, default 256
	}
	dumpHeapParams struct {
		ID     string `json:"id"`
		Path   string `json:"path,omitempty"`   // absolute; empty: return the data
		All    bool   `json:"all,omitempty"`    // HotSpot: unreachable objects too
		Force  bool   `json:"force,omitempty"`  // with path: replace an existing file
		Stream bool   `json:"stream,omitempty"` // read it with heapDump/read
	}
	exitParams struct {
		ID     string `json:"id"`
		Status int32  `json:"status"`
	}
)

func rpcError(code int64, format string, args ...any) *jsonrpc2.Error {
	return &jsonrpc2.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func decodeParams(req *jsonrpc2.Request, v any, needID bool) error {
	if req.Params == nil {
		if needID {
			return rpcError(CodeInvalidParams, "%s: missing params (want {\"id\": VM id})", req.Method)
		}
		return nil
	}
	if err := json.Unmarshal(*req.Params, v); err != nil {
		return rpcError(CodeInvalidParams, "%s: bad params: %v", req.Method, err)
	}
	return nil
}

// vmError maps errors to JSON-RPC errors.
func vmError(method string, err error) error {
	var re *jsonrpc2.Error
	switch {
	case errors.As(err, &re):
		return re
	case errors.Is(err, bridge.ErrNoVM):
		return rpcError(CodeNoSuchVM, "%s: %v", method, err)
	case errors.Is(err, bridge.ErrNotDDM):
		return rpcError(CodeNotDDM, "%s: %v", method, err)
	default:
		return rpcError(CodeVMError, "%s: %v", method, err)
	}
}

// handle runs one request; panics become internal errors.
func (c *rpcConn) handle(ctx context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.s.log.Error().Interface("panic", p).Str("method", req.Method).Bytes("stack", debug.Stack()).Msg("control API handler panicked")
			result, err = nil, rpcError(CodeInternalError, "%s: internal error: %v", req.Method, p)
		}
	}()
	timeout := c.s.opts.RequestTimeout
	if req.Method == "vm/dumpHeap" || strings.HasPrefix(req.Method, "hprof/") {
		timeout = max(timeout, bridge.HeapDumpTimeout) // large heaps take a while
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	result, err = c.dispatch(ctx, req)
	if err != nil {
		return nil, vmError(req.Method, err)
	}
	return result, nil
}

// vmParams holds the params of every vm/* method; each uses some fields.
type vmParams struct {
	ID      string `json:"id"`
	Thread  uint32 `json:"thread"`
	Enabled bool   `json:"enabled"`
	GC      bool   `json:"gc"`
	PNG     bool   `json:"png"`
	Width   int    `json:"width"`
	Status  int32  `json:"status"`
	Path    string `json:"path"`
	All     bool   `json:"all"`
	Force   bool   `json:"force"`  // vm/dumpHeap
	Stream  bool   `json:"stream"` // vm/dumpHeap
}

// vmMethods are the methods on one VM, as a table (docs/rpc.md).
var vmMethods = map[string]func(c *rpcConn, ctx context.Context, v *bridge.VM, p vmParams) (any, error){
	"vm/threads": func(_ *rpcConn, ctx context.Context, v *bridge.VM, _ vmParams) (any, error) {
		ts, err := v.Threads(ctx)
		return VMThreads{ID: v.ID(), Threads: nonNil(ts), Note: v.ThreadsNote()}, err
	},
	"vm/threadDump": func(_ *rpcConn, ctx context.Context, v *bridge.VM, _ vmParams) (any, error) {
		return v.ThreadDump(ctx) // bridge/threaddump.go
	},
	"vm/stack": func(_ *rpcConn, ctx context.Context, v *bridge.VM, p vmParams) (any, error) {
		frames, err := v.Stack(ctx, p.Thread)
		out := VMStack{ID: v.ID(), Thread: p.Thread, Frames: []FrameJSON{}}
		for _, f := range frames {
			out.Frames = append(out.Frames, FrameJSON{f.Class, f.Method, f.File, f.Line})
		}
		return out, err
	},
	"vm/heapInfo": func(_ *rpcConn, ctx context.Context, v *bridge.VM, _ vmParams) (any, error) {
		info, err := v.HeapInfo(ctx)
		return VMHeapInfo{ID: v.ID(), Heaps: ddm.HeapStatsOf(info), DumpSource: v.DumpSource()}, err
	},
	"vm/heapMap": func(_ *rpcConn, ctx context.Context, v *bridge.VM, p vmParams) (any, error) {
		if p.Width < 0 || p.Width > 4096 {
			return nil, rpcError(CodeInvalidParams, "vm/heapMap: width %d outside 0..4096", p.Width)
		}
		hm, err := v.HeapMap(ctx, p.GC)
		if err != nil {
			return nil, err
		}
		out, err := bridge.EncodeHeapMap(v.ID(), hm, p.PNG, p.Width)
		out.DumpSource = v.DumpSource()
		return out, err
	},
	"vm/dumpHeap": func(c *rpcConn, ctx context.Context, v *bridge.VM, p vmParams) (any, error) {
		return c.dumpHeap(ctx, v, p) // dump.go
	},
	"vm/gc": func(_ *rpcConn, ctx context.Context, v *bridge.VM, _ vmParams) (any, error) {
		return nil, v.GC(ctx)
	},
	"vm/setThreadUpdates": func(c *rpcConn, _ context.Context, v *bridge.VM, p vmParams) (any, error) {
		return nil, c.setUpdates(v, p.Enabled, c.threads, c.s.threads, func(v *bridge.VM, on bool) error { v.SetThreadUpdates(on); return nil })
	},
	"vm/setHeapUpdates": func(c *rpcConn, _ context.Context, v *bridge.VM, p vmParams) (any, error) {
		if v.DDM() == nil {
			return nil, bridge.ErrNotDDM
		}
		return nil, c.setUpdates(v, p.Enabled, c.heap, c.s.heap, (*bridge.VM).SetHeapUpdates)
	},
	"vm/debugAddress": func(c *rpcConn, _ context.Context, v *bridge.VM, p vmParams) (any, error) {
		a, err := c.s.m.DebugAddress(v, p.ID == "current")
		if err != nil {
			return nil, rpcError(CodeInvalidParams, "vm/debugAddress: %v", err)
		}
		return a, nil
	},
	"vm/exit": func(c *rpcConn, ctx context.Context, v *bridge.VM, p vmParams) (any, error) {
		if !c.s.opts.AllowExit {
			return nil, rpcError(CodeNotAllowed, "vm/exit is disabled: start the monitor with `ddmbridge serve --allow-exit` to allow ending VMs")
		}
		c.s.log.Warn().Str("vm", v.ID()).Int32("status", p.Status).Msg("exiting the VM on request")
		return nil, v.Exit(ctx, p.Status)
	},
}

// setUpdates records this connection's wish (mine) and counts it in refs.
func (c *rpcConn) setUpdates(v *bridge.VM, on bool, mine map[string]bool, refs map[string]int, set func(*bridge.VM, bool) error) error {
	c.mu.Lock()
	had := mine[v.ID()]
	if on {
		mine[v.ID()] = true
	} else {
		delete(mine, v.ID())
	}
	c.mu.Unlock()
	if had == on {
		return nil
	}
	return c.s.setUpdates(v.ID(), on, refs, set)
}

func (c *rpcConn) dispatch(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	s := c.s
	switch req.Method {
	case "monitor/status":
		st := MonitorStatus{CurrentAddress: s.m.CurrentAddr(), AllowExit: s.opts.AllowExit, VMs: len(s.m.VMs()), Scan: []string{}}
		for _, r := range s.m.Options().Scan {
			st.Scan = append(st.Scan, r.String())
		}
		if a, ok := s.m.ADBStatus(); ok {
			st.ADB = &a
		}
		return st, nil
	case "devices/list":
		return s.m.Devices(), nil
	case "dap/address":
		if s.opts.DAPAddr == "" {
			return nil, rpcError(CodeInvalidRequest, "this monitor accepts no DAP sessions (start it without --dap '')")
		}
		return DAPAddress{Address: s.opts.DAPAddr}, nil
	case "dap/checkConfig":
		if s.opts.CheckDebugConfig == nil {
			return nil, rpcError(CodeInvalidRequest, "this process has no DAP adapter to check configurations for")
		}
		var p checkConfigParams
		if err := decodeParams(req, &p, false); err != nil {
			return nil, err
		}
		if err := s.opts.CheckDebugConfig(p.Request, p.Config); err != nil {
			return nil, rpcError(CodeInvalidParams, "%v", err)
		}
		return struct {
			OK bool `json:"ok"`
		}{true}, nil
	case "vm/logcat":
		return c.logcat(req) // logcat.go
	case "vms/list":
		return nonNil(s.m.VMs()), nil
	case "jvms/list":
		// Local JVMs for an "attach to process" picker, attachable or not.
		ps, err := localjvm.List()
		if err != nil {
			return nil, rpcError(CodeInvalidRequest, "%v", err)
		}
		return nonNil(ps), nil
	case "jdks/list":
		// The JDKs of this host, newest first, for a launch's "javaHome".
		return nonNil(localjvm.InstalledJDKs()), nil
	case "vms/select":
		var p selectParams
		if err := decodeParams(req, &p, true); err != nil {
			return nil, err
		}
		switch {
		case p.Auto && p.ID != "":
			return nil, rpcError(CodeInvalidParams, "vms/select: give either \"id\" or \"auto\": true, not both")
		case p.Auto:
			return s.m.SelectAuto(), nil
		case p.ID == "":
			return nil, rpcError(CodeInvalidParams, "vms/select: want {\"id\": VM id, name or address} or {\"auto\": true}")
		}
		return s.m.Select(p.ID)
	}
	if res, ok, err := c.dispatchDumpStream(req); ok { // dump.go
		return res, err
	}
	if res, ok, err := dispatchHprof(ctx, c.notifier(), req); ok { // hprof.go
		return res, err
	}
	method, ok := vmMethods[req.Method]
	if !ok {
		return nil, rpcError(CodeMethodNotFound, "unknown method %q (see docs/rpc.md)", req.Method)
	}
	var p vmParams
	if err := decodeParams(req, &p, true); err != nil {
		return nil, err
	}
	if p.ID == "" {
		return nil, rpcError(CodeInvalidParams, "%s: params need \"id\", the VM id from vms/list", req.Method)
	}
	v, err := s.m.VM(p.ID)
	if err != nil {
		return nil, err
	}
	res, err := method(c, ctx, v, p)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// tolerantStream frames messages like a language server (Content-Length
// headers) and answers a message that is not valid JSON-RPC with a parse or
// invalid-request error instead of closing the connection.
type tolerantStream struct {
	rwc io.ReadWriteCloser
	r   *bufio.Reader
	wmu sync.Mutex

	raw     func(*tolerantStream) // serves a connection that starts with a raw dump request
	started bool                  // a message was read
	rawMode bool                  // the connection turned raw (wmu held)
}

func newTolerantStream(rwc io.ReadWriteCloser) *tolerantStream {
	return &tolerantStream{rwc: rwc, r: bufio.NewReaderSize(rwc, framing.MaxHeaderLine)}
}

func (t *tolerantStream) WriteObject(obj any) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if t.rawMode {
		return errRawMode
	}
	return jsonrpc2.VSCodeObjectCodec{}.WriteObject(t.rwc, obj)
}

// maxRPCMessage bounds one control message.
const maxRPCMessage = 64 << 20

func (t *tolerantStream) ReadObject(v any) error {
	if !t.started {
		t.started = true
		if t.raw != nil && t.isRawDump() {
			t.raw(t)
			return io.EOF
		}
	}
	for {
		body, err := t.readMessage()
		if err != nil {
			return err // framing broken or connection closed
		}
		if !json.Valid(body) {
			t.reject(CodeParseError, "parse error: the message is not valid JSON")
			continue
		}
		if err := json.Unmarshal(body, v); err != nil {
			t.reject(CodeInvalidRequest, "invalid request: "+err.Error())
			continue
		}
		return nil
	}
}

// readMessage reads one Content-Length framed message body. Bad framing is
// answered with a parse error before the connection closes: the stream
// cannot be resynchronized.
func (t *tolerantStream) readMessage() ([]byte, error) {
	body, err := framing.ReadMessage(t.r, maxRPCMessage)
	if errors.Is(err, framing.ErrFraming) {
		t.reject(CodeParseError, err.Error()+"; closing the connection")
	}
	return body, err
}

func (t *tolerantStream) reject(code int64, msg string) {
	t.WriteObject(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
}

func (t *tolerantStream) Close() error { return t.rwc.Close() }
