package rpc

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
)

// DumpOptions are the options of a heap dump through the control API.
type DumpOptions struct {
	All   bool // HotSpot: unreachable objects too (no GC first)
	Force bool // replace an existing file at the path
}

// DumpHeapToPath has the monitor write a VM's HPROF heap dump to path
// (absolute, on the monitor's host) as a new 0600 file; the monitor
// refuses when this client is not of its user on its host (CodeNotAllowed:
// use StreamHeapDump), and an existing path unless o.Force.
func (c *Client) DumpHeapToPath(ctx context.Context, id, path string, o DumpOptions) (HeapDump, error) {
	var out HeapDump
	return out, c.Call(ctx, "vm/dumpHeap", dumpHeapParams{ID: id, Path: path, All: o.All, Force: o.Force}, &out)
}

// StreamHeapDump has the monitor dump a VM's heap into a private file and
// copies it to w, so neither side holds more than a buffer: raw over a
// second connection to the monitor (see rawdump.go), or, where that
// fails or chunk is not 0, in heapDump/read chunks of chunk bytes (0: the
// monitor's default and largest, 1 MiB). It returns the dump's size.
func (c *Client) StreamHeapDump(ctx context.Context, id string, all bool, chunk int, w io.Writer) (int64, error) {
	var d HeapDump
	if err := c.Call(ctx, "vm/dumpHeap", dumpHeapParams{ID: id, All: all, Stream: true}, &d); err != nil {
		return 0, err
	}
	if d.Stream == "" {
		return 0, fmt.Errorf("vm/dumpHeap: the monitor opened no stream (it predates \"stream\"): update it")
	}
	defer c.Call(context.WithoutCancel(ctx), "heapDump/close", dumpReadParams{Stream: d.Stream}, nil)
	var off int64
	if d.Token != "" && c.addr != "" && chunk == 0 {
		n, err := readRawDump(ctx, c.addr, d.Token, 0, w)
		if err == nil && n == int64(d.Bytes) {
			return n, nil
		}
		if ctx.Err() != nil {
			return n, err
		}
		off = n // the rest in chunks
	}
	return c.readDumpChunks(ctx, d, chunk, off, w)
}

// readDumpChunks copies the dump of stream d from off to w with
// heapDump/read, two chunks in flight.
func (c *Client) readDumpChunks(ctx context.Context, d HeapDump, chunk int, off int64, w io.Writer) (int64, error) {
	if chunk <= 0 {
		chunk = dumpChunk
	}
	// Two reads in flight: the monitor encodes one while this side decodes
	// the other (the monitor reads two at once at most anyway).
	type result struct {
		b   []byte
		eof bool
		err error
	}
	read := func(off int64) chan result {
		ch := make(chan result, 1)
		go func() {
			var r HeapDumpChunk
			if err := c.Call(ctx, "heapDump/read", dumpReadParams{Stream: d.Stream, Offset: off, Length: chunk}, &r); err != nil {
				ch <- result{err: err}
				return
			}
			b, err := base64.StdEncoding.DecodeString(r.Data)
			if err != nil {
				err = fmt.Errorf("heapDump/read at %d: %w", off, err)
			}
			ch <- result{b, r.EOF || len(b) == 0, err}
		}()
		return ch
	}
	next := read(off)
	for {
		ahead := read(off + int64(chunk)) // past the end it answers empty
		r := <-next
		if r.err != nil {
			<-ahead
			return off, r.err
		}
		if _, err := w.Write(r.b); err != nil {
			<-ahead
			return off, err
		}
		off += int64(len(r.b))
		if r.eof || len(r.b) < chunk {
			<-ahead
			break
		}
		next = ahead
	}
	if off != int64(d.Bytes) {
		return off, fmt.Errorf("heap dump: %d bytes read, %d announced", off, d.Bytes)
	}
	return off, nil
}
