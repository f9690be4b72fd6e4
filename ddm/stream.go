package ddm

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// A ChunkSink takes the data of a large chunk as it arrives (see
// [Client.StreamChunks]): an HPDS heap dump of hundreds of megabytes goes
// to a file piece by piece, never whole in memory.
type ChunkSink interface {
	// Write is given the chunk's data in order, in pieces of at most the
	// connection's read buffer (64 KiB). It runs on the connection's
	// reader goroutine: the VM's other packets wait meanwhile. An error
	// drops the rest of the chunk.
	io.Writer
	// End is called once: err is nil when the whole chunk was written,
	// else Write's error or why the connection failed.
	End(err error)
}

// StreamChunks has every chunk of type t that comes alone in a
// VM-initiated packet of jdwp.StreamMin bytes or more go to the sink
// open(size) returns, as it arrives, instead of whole to the handlers; a
// nil sink drops the chunk (read and discarded, with a log line). Smaller
// chunks, or one sharing its packet, are dispatched whole as before. The
// connection must pass such packets to [Client.HandleLargePacket]
// ([Attach] registers it). An HPDS chunk (a whole heap dump) is the one
// to stream; nothing then bounds its size but JDWP's 2 GiB.
func (c *Client) StreamChunks(t Type, open func(size int64) ChunkSink) {
	c.mu.Lock()
	if c.streams == nil {
		c.streams = map[Type]func(int64) ChunkSink{}
	}
	c.streams[t] = open
	c.mu.Unlock()
}

// HandleLargePacket is a jdwp.LargeCommandHandler for command set 0xC7: a
// packet holding one chunk of a type given to StreamChunks goes to its
// sink in parts; anything else is read whole (nil).
func (c *Client) HandleLargePacket(_ *jdwp.Conn, hdr *jdwp.Packet, size int, head []byte) jdwp.CommandReceiver {
	if hdr.Cmd != Command || len(head) < ChunkHeaderSize {
		return nil
	}
	t := Type(binary.BigEndian.Uint32(head))
	n := int64(binary.BigEndian.Uint32(head[4:]))
	if n+ChunkHeaderSize != int64(size) {
		return nil // not alone in its packet
	}
	c.mu.RLock()
	open := c.streams[t]
	c.mu.RUnlock()
	if open == nil {
		return nil
	}
	c.markReady()
	if c.opt.TraceChunks {
		c.log.Trace().Str("kind", "ddm.chunk").Str("dir", "in").Str("type", t.String()).Int64("len", n).Bool("streamed", true).Uint32("id", hdr.ID).Msg("chunk")
	}
	s := open(n)
	if s == nil {
		c.log.Warn().Str("type", t.String()).Int64("bytes", n).Msg("a large DDM chunk nobody asked for; dropped")
	}
	return &chunkParts{sink: s}
}

// errDropped ends the parts of a chunk that has no sink.
var errDropped = errors.New("ddm: chunk dropped")

// chunkParts passes a streamed chunk's data, after its header, to a sink.
type chunkParts struct {
	sink ChunkSink // nil: drop it
}

func (p *chunkParts) CommandPart(off int, part []byte) error {
	if p.sink == nil {
		return errDropped
	}
	if off < ChunkHeaderSize {
		skip := min(ChunkHeaderSize-off, len(part))
		part = part[skip:]
	}
	if len(part) == 0 {
		return nil
	}
	_, err := p.sink.Write(part)
	return err
}

func (p *chunkParts) CommandEnd(err error) {
	if p.sink != nil {
		p.sink.End(err)
	}
}
