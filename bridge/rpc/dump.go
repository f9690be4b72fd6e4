package rpc

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/access"
	"github.com/ddmbridge/ddmbridge/internal/dumpfile"
)

// Heap dumps through the control API never travel whole in one reply: the
// monitor writes the file where a client of its own user on its own host
// asks (path, created as package dumpfile does: new, 0600, no symlink;
// force replaces an existing file), or keeps the dump in an unlinked
// private file that the client reads in bounded chunks (stream, then
// heapDump/read and heapDump/close). The old form, the whole file as base64
// in the reply, stays for small dumps only (maxInlineDump). Memory on
// either side is a chunk, whatever the dump's size.

const (
	// maxInlineDump bounds a dump returned as base64 in the reply itself.
	maxInlineDump = 16 << 20
	// dumpChunk and maxDumpChunk are heapDump/read's default and largest
	// lengths. A 1 MiB chunk costs the monitor about 20 MiB in flight (the
	// bytes, their base64, the reply's JSON, what the GC lets grow); 4 MiB
	// chunks took it 73 MiB over its baseline (bench dump, 256 MiB).
	dumpChunk    = 1 << 20
	maxDumpChunk = 1 << 20
	// maxDumpStreams bounds the dumps one user keeps open to read, across
	// all the user's connections (each is a file of the dump's size).
	maxDumpStreams = 2
)

// dumpHeap answers vm/dumpHeap.
func (c *rpcConn) dumpHeap(ctx context.Context, v *bridge.VM, p vmParams) (any, error) {
	switch {
	case p.Path != "" && p.Stream:
		return nil, rpcError(CodeInvalidParams, "vm/dumpHeap: give \"path\" or \"stream\", not both")
	case p.Path != "":
		return c.dumpHeapToPath(ctx, v, p)
	case p.Stream:
		return c.dumpHeapStream(ctx, v, p)
	}
	f, n, err := v.DumpPrivate(ctx, !p.All)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if n > maxInlineDump {
		return nil, rpcError(CodeInvalidParams, "vm/dumpHeap: the dump is %d MiB, more than the %d MiB one reply carries: pass \"path\" (the monitor writes the file) or \"stream\": true (read it with heapDump/read)", n>>20, maxInlineDump>>20)
	}
	b := make([]byte, n)
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, fmt.Errorf("reading the dump back: %w", err)
	}
	return HeapDump{ID: v.ID(), Bytes: int(n), Data: base64.StdEncoding.EncodeToString(b)}, nil
}

func (c *rpcConn) dumpHeapToPath(ctx context.Context, v *bridge.VM, p vmParams) (any, error) {
	if !filepath.IsAbs(p.Path) {
		return nil, rpcError(CodeInvalidParams, "vm/dumpHeap: path %q is not absolute", p.Path)
	}
	if err := c.sameUser(); err != nil {
		return nil, rpcError(CodeNotAllowed, "vm/dumpHeap: the monitor writes a \"path\" only for a client of its own user on its own host (%v): pass \"stream\": true and read the dump with heapDump/read", err)
	}
	// Fail before a long dump when the file cannot be created.
	if fi, err := os.Stat(filepath.Dir(p.Path)); err != nil || !fi.IsDir() {
		return nil, rpcError(CodeInvalidParams, "vm/dumpHeap: path %q: its directory does not exist", p.Path)
	}
	f, err := dumpfile.Create(p.Path, dumpfile.Options{Force: p.Force})
	if errors.Is(err, dumpfile.ErrExists) {
		return nil, rpcError(CodeInvalidParams, "vm/dumpHeap: %v; pass \"force\": true to replace it", err)
	}
	if err != nil {
		return nil, rpcError(CodeInvalidParams, "vm/dumpHeap: %v", err)
	}
	defer f.Abort() // a failed dump leaves nothing (with force: the old file)
	n, err := v.DumpTo(ctx, !p.All, f.File)
	if err != nil {
		return nil, err
	}
	if err := f.Commit(); err != nil {
		return nil, rpcError(CodeInvalidParams, "vm/dumpHeap: writing the heap dump: %v", err)
	}
	c.s.log.Info().Str("vm", v.ID()).Str("path", p.Path).Int64("bytes", n).Msg("heap dump written")
	return HeapDump{ID: v.ID(), Path: p.Path, Bytes: int(n)}, nil
}

// dumpReads bounds the heapDump/read chunks read and encoded at once.
var dumpReads = make(chan struct{}, 2)

// dumpStreams are the dumps a connection reads in chunks.
type dumpStreams struct {
	mu    sync.Mutex
	next  int
	files map[string]*os.File
}

func (c *rpcConn) dumpHeapStream(ctx context.Context, v *bridge.VM, p vmParams) (any, error) {
	uid := c.peerUID()
	if !c.s.reserveDump(uid) {
		return nil, rpcError(CodeInvalidParams, "vm/dumpHeap: %d dumps are open for your user (on this or other connections): heapDump/close one first, or close the connection that holds it", maxDumpStreams)
	}
	f, n, err := v.DumpPrivate(ctx, !p.All)
	if err != nil {
		c.s.releaseDump(uid)
		return nil, err
	}
	ds := &c.dumps
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.files == nil {
		ds.files = map[string]*os.File{}
	}
	token, err := c.s.raw.newToken(f)
	if err != nil {
		f.Close()
		c.s.releaseDump(uid)
		return nil, fmt.Errorf("vm/dumpHeap: a token for the dump: %w", err)
	}
	ds.next++
	h := strconv.Itoa(ds.next)
	ds.files[h] = f
	return HeapDump{ID: v.ID(), Bytes: int(n), Stream: h, Token: token}, nil
}

// HeapDumpChunk is the heapDump/read result.
type HeapDumpChunk struct {
	Offset int64  `json:"offset"`
	Data   string `json:"data"` // base64
	EOF    bool   `json:"eof"`  // the chunk ends the dump
}

type dumpReadParams struct {
	Stream string `json:"stream"`
	Offset int64  `json:"offset"`
	Length int    `json:"length"`
}

// dispatchDumpStream answers heapDump/read and heapDump/close; ok is false
// for other methods.
func (c *rpcConn) dispatchDumpStream(req *jsonrpc2.Request) (res any, ok bool, err error) {
	if req.Method != "heapDump/read" && req.Method != "heapDump/close" {
		return nil, false, nil
	}
	var p dumpReadParams
	if err := decodeParams(req, &p, false); err != nil {
		return nil, true, err
	}
	if p.Stream == "" {
		return nil, true, rpcError(CodeInvalidParams, "%s: params need \"stream\", from vm/dumpHeap with \"stream\": true", req.Method)
	}
	ds := &c.dumps
	ds.mu.Lock()
	f := ds.files[p.Stream]
	if f != nil && req.Method == "heapDump/close" {
		delete(ds.files, p.Stream)
	}
	ds.mu.Unlock()
	if f == nil {
		return nil, true, rpcError(CodeInvalidParams, "%s: no open dump %q on this connection (vm/dumpHeap with \"stream\": true opens one)", req.Method, p.Stream)
	}
	if req.Method == "heapDump/close" {
		c.s.raw.drop(f)
		c.s.releaseDump(c.peerUID())
		return nil, true, f.Close()
	}
	if p.Length == 0 {
		p.Length = dumpChunk
	}
	if p.Length < 0 || p.Length > maxDumpChunk || p.Offset < 0 {
		return nil, true, rpcError(CodeInvalidParams, "heapDump/read: offset %d, length %d: want offset ≥ 0 and length 1..%d", p.Offset, p.Length, maxDumpChunk)
	}
	// Chunks being read and encoded, across connections: a client sending
	// many reads at once waits instead of multiplying the monitor's memory.
	dumpReads <- struct{}{}
	defer func() { <-dumpReads }()
	b := make([]byte, p.Length)
	n, err := f.ReadAt(b, p.Offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, true, fmt.Errorf("heapDump/read: %w", err)
	}
	return HeapDumpChunk{Offset: p.Offset, Data: base64.StdEncoding.EncodeToString(b[:n]), EOF: err != nil}, true, nil
}

// closeDumps drops the connection's open dumps (their files are unlinked
// already).
func (c *rpcConn) closeDumps() {
	ds := &c.dumps
	ds.mu.Lock()
	defer ds.mu.Unlock()
	for h, f := range ds.files {
		c.s.raw.drop(f)
		f.Close()
		delete(ds.files, h)
		c.s.releaseDump(c.peerUID())
	}
}

// reserveDump counts one more open dump stream for user uid, unless the
// user has maxDumpStreams open already.
func (s *Server) reserveDump(uid int) bool {
	s.dumpsMu.Lock()
	defer s.dumpsMu.Unlock()
	if s.openDumps[uid] >= maxDumpStreams {
		return false
	}
	if s.openDumps == nil {
		s.openDumps = map[int]int{}
	}
	s.openDumps[uid]++
	return true
}

// releaseDump uncounts an open dump stream of uid.
func (s *Server) releaseDump(uid int) {
	s.dumpsMu.Lock()
	defer s.dumpsMu.Unlock()
	if s.openDumps[uid]--; s.openDumps[uid] <= 0 {
		delete(s.openDumps, uid)
	}
}

// peerUID is the user of the client (this process's when it cannot be
// told: stdin/stdout, a remote peer), computed once per connection.
func (c *rpcConn) peerUID() int {
	c.uidOnce.Do(func() {
		c.uid = os.Getuid()
		switch conn := c.peer.(type) {
		case *net.UnixConn:
			if u, err := access.UnixPeerUID(conn); err == nil {
				c.uid = u
			}
		case net.Conn:
			if ta, ok := conn.RemoteAddr().(*net.TCPAddr); ok && ta.IP.IsLoopback() {
				if u, err := access.PeerUID(conn); err == nil {
					c.uid = u
				}
			} else {
				c.uid = -2 // remote clients (--allow-remote) share one count
			}
		}
	})
	return c.uid
}

// sameUser says whether the client at the other end of this connection is
// a process of this user on this host: a Unix socket's peer credentials, a
// loopback TCP peer's socket owner; stdin/stdout are the parent's.
func (c *rpcConn) sameUser() error {
	switch conn := c.peer.(type) {
	case nil:
		return errors.New("no connection")
	case *net.UnixConn:
		uid, err := access.UnixPeerUID(conn)
		if err != nil {
			return err
		}
		if uid != os.Getuid() {
			return fmt.Errorf("the client runs as uid %d, the monitor as uid %d", uid, os.Getuid())
		}
		return nil
	case net.Conn:
		ta, ok := conn.RemoteAddr().(*net.TCPAddr)
		if !ok || !ta.IP.IsLoopback() {
			return fmt.Errorf("the client at %s is not on this host", conn.RemoteAddr())
		}
		uid, err := access.PeerUID(conn)
		if err != nil {
			return fmt.Errorf("cannot tell the client's user: %w", err)
		}
		if uid != os.Getuid() {
			return fmt.Errorf("the client runs as uid %d, the monitor as uid %d", uid, os.Getuid())
		}
		return nil
	}
	return nil // stdin/stdout: the process that started the monitor
}
