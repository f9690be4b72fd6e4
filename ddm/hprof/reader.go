package hprof

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// reader is a window over the input: need(n) makes n bytes readable at
// buf[pos:], refilling by moving the unread tail to the front. Records
// larger than the buffer are consumed in pieces by the caller.
type reader struct {
	r   io.Reader
	buf []byte
	pos int
	end int
	off int64 // stream offset of buf[0]
	eof bool
	// short is set once a read asked for bytes past the end of the input.
	short bool

	ctx     context.Context // nil: never stops
	stopped error           // ctx's error once a read was refused for it
	// progress, when set, is told the bytes read after each read.
	progress func(read int64)
	// swap, when set, takes the buffer a refill is about to leave and
	// gives the one to go on in (a streamed pass hands whole buffers to
	// its counting goroutines instead of reusing them).
	swap func(old []byte) []byte
}

const bufSize = 1 << 20

func newReader(r io.Reader) *reader { return &reader{r: r, buf: make([]byte, bufSize)} }

// offset is the stream offset of the next unread byte.
func (r *reader) offset() int64 { return r.off + int64(r.pos) }

// need makes n ≤ len(buf) bytes available at buf[pos:]; io.ErrUnexpectedEOF
// if the input ends first.
func (r *reader) need(n int) error {
	if r.end-r.pos >= n {
		return nil // inlined: the common case costs a compare
	}
	return r.refill(n)
}

// refill is need's slow path: move the unread tail to the front and read.
func (r *reader) refill(n int) error {
	if n > len(r.buf) {
		return fmt.Errorf("hprof: internal: need %d bytes", n)
	}
	if r.swap != nil {
		nb := r.swap(r.buf)
		copy(nb, r.buf[r.pos:r.end])
		r.buf = nb
	} else {
		copy(r.buf, r.buf[r.pos:r.end])
	}
	r.off += int64(r.pos)
	r.end -= r.pos
	r.pos = 0
	if r.ctx != nil {
		if err := r.ctx.Err(); err != nil {
			r.stopped = err
			return err
		}
	}
	for r.end < n {
		if r.eof {
			r.short = true
			return io.ErrUnexpectedEOF
		}
		m, err := r.r.Read(r.buf[r.end:])
		r.end += m
		if r.progress != nil {
			r.progress(r.off + int64(r.end))
		}
		if err == io.EOF {
			r.eof = true
		} else if err != nil {
			return err
		}
	}
	return nil
}

// atEOF reports whether the input has no more bytes.
func (r *reader) atEOF() (bool, error) {
	err := r.need(1)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return true, nil
	}
	return false, err
}

// chunk returns up to n available bytes (at least one), consuming them.
func (r *reader) chunk(n int64) ([]byte, error) {
	if r.pos == r.end {
		if err := r.need(1); err != nil {
			return nil, err
		}
	}
	avail := int64(r.end - r.pos)
	if n > avail {
		n = avail
	}
	b := r.buf[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

// skip consumes n bytes.
func (r *reader) skip(n int64) error {
	for n > 0 {
		b, err := r.chunk(n)
		if err != nil {
			return err
		}
		n -= int64(len(b))
	}
	return nil
}

func be32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }
func be16(b []byte) uint16 { return binary.BigEndian.Uint16(b) }

// idAt reads an id of size sz (4 or 8) from b.
func idAt(b []byte, sz int) uint64 {
	if sz == 8 {
		return binary.BigEndian.Uint64(b)
	}
	return uint64(binary.BigEndian.Uint32(b))
}
