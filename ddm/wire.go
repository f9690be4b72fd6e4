package ddm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
)

// ErrShort reports chunk data that ends before a field does; decoders wrap it
// with the chunk type and offset.
var ErrShort = errors.New("ddm: chunk data too short")

// ErrTooLong reports a string or list longer than the decoding bounds.
var ErrTooLong = errors.New("ddm: string or list beyond the decoding bound")

// Decoding bounds: what a VM sends is checked against them before anything
// is allocated, so that one packet (up to 64 MiB) cannot make the monitor
// hold many times its size. No name, path or message a real VM sends is
// longer than a JVM name may be (a class file's u2 length); no list a real
// VM sends (threads, frames, allocation records, heaps) comes near a
// million entries.
const (
	MaxStringUnits = 1<<16 - 1 // UTF-16 units of one string
	MaxListLen     = 1 << 20   // entries of one list
)

// byteOrder is big-endian for everything but NHGT.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// coder walks a message's fields in order, either appending them to b
// (encoding) or reading them from b (decoding). Every chunk layout is written
// once, as a walk, and serves both directions. Decoding never reads past b and
// never allocates more than the remaining bytes could describe.
type coder struct {
	enc   bool
	b     []byte
	off   int
	err   error
	order byteOrder
	tails int // encoding: optional tail fields written so far
}

func newEncoder() *coder         { return &coder{enc: true, order: binary.BigEndian} }
func newDecoder(b []byte) *coder { return &coder{b: b, order: binary.BigEndian} }
func (c *coder) remaining() int  { return len(c.b) - c.off }
func (c *coder) decoding() bool  { return !c.enc && c.err == nil }
func (c *coder) failf(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(format, args...)
	}
}

// take returns the next n bytes when decoding, or nil after recording ErrShort.
func (c *coder) take(n int) []byte {
	if c.err != nil {
		return nil
	}
	if n < 0 || n > c.remaining() {
		c.err = fmt.Errorf("%w: need %d bytes at offset %d, have %d", ErrShort, n, c.off, c.remaining())
		return nil
	}
	p := c.b[c.off : c.off+n]
	c.off += n
	return p
}

func (c *coder) u1(v *uint8) {
	if c.enc {
		c.b = append(c.b, *v)
	} else if p := c.take(1); p != nil {
		*v = p[0]
	}
}

func (c *coder) u2(v *uint16) {
	if c.enc {
		c.b = c.order.AppendUint16(c.b, *v)
	} else if p := c.take(2); p != nil {
		*v = c.order.Uint16(p)
	}
}

func (c *coder) u4(v *uint32) {
	if c.enc {
		c.b = c.order.AppendUint32(c.b, *v)
	} else if p := c.take(4); p != nil {
		*v = c.order.Uint32(p)
	}
}

func (c *coder) u8(v *uint64) {
	if c.enc {
		c.b = c.order.AppendUint64(c.b, *v)
	} else if p := c.take(8); p != nil {
		*v = c.order.Uint64(p)
	}
}

func (c *coder) s2(v *int16) { u := uint16(*v); c.u2(&u); *v = int16(u) }
func (c *coder) s4(v *int32) { u := uint32(*v); c.u4(&u); *v = int32(u) }
func (c *coder) typ(v *Type) { u := uint32(*v); c.u4(&u); *v = Type(u) }

// word reads or writes a native size_t of 4 or 8 bytes (NHGT).
func (c *coder) word(v *uint64, size int) {
	if size == 8 {
		c.u8(v)
		return
	}
	u := uint32(*v)
	c.u4(&u)
	*v = uint64(u)
}

func (c *coder) bool1(v *bool) {
	var u uint8
	if *v {
		u = 1
	}
	c.u1(&u)
	*v = u != 0
}

// utf16 reads or writes n UTF-16 code units without a length prefix.
func (c *coder) utf16(v *string, n uint32) {
	if c.enc {
		c.b = appendUTF16(c.b, *v)
		return
	}
	if uint64(n)*2 > uint64(c.remaining()) {
		c.failf("%w: string of %d UTF-16 units at offset %d, have %d bytes", ErrShort, n, c.off, c.remaining())
		return
	}
	if n > MaxStringUnits {
		c.failf("%w: string of %d UTF-16 units at offset %d (at most %d)", ErrTooLong, n, c.off, MaxStringUnits)
		return
	}
	if p := c.take(int(n) * 2); p != nil {
		*v = decodeUTF16(p)
	}
}

// str16 reads or writes a u4 unit count followed by that many UTF-16 units.
func (c *coder) str16(v *string) {
	n := uint32(utf16Len(*v))
	c.u4(&n)
	c.utf16(v, n)
}

// rest reads or writes all remaining bytes.
func (c *coder) rest(v *[]byte) {
	if c.enc {
		c.b = append(c.b, *v...)
	} else if p := c.take(c.remaining()); p != nil {
		*v = append([]byte(nil), p...)
	}
}

// tail reports whether the next optional trailing field is present: when
// decoding, whether bytes remain (counting it in *n); when encoding, whether
// fewer than *n tail fields have been written.
func (c *coder) tail(n *int) bool {
	if c.enc {
		c.tails++
		return c.tails <= *n
	}
	if c.err == nil && c.remaining() > 0 {
		*n++
		return true
	}
	return false
}

// list walks count elements of *v with f. Decoding first checks that count
// elements of at least minSize bytes fit in what remains.
func list[T any](c *coder, count int, v *[]T, minSize int, f func(*T)) {
	if !c.enc {
		if c.err != nil {
			return
		}
		if count < 0 || uint64(count)*uint64(max(minSize, 1)) > uint64(c.remaining()) {
			c.failf("%w: %d entries of at least %d bytes at offset %d, have %d bytes", ErrShort, count, minSize, c.off, c.remaining())
			return
		}
		if count > MaxListLen {
			c.failf("%w: list of %d entries at offset %d (at most %d)", ErrTooLong, count, c.off, MaxListLen)
			return
		}
		*v = nil
		if count > 0 {
			*v = make([]T, count)
		}
	}
	for i := range *v {
		if c.err != nil {
			return
		}
		f(&(*v)[i])
	}
}

// counted walks a u4 element count followed by the elements.
func counted[T any](c *coder, v *[]T, minSize int, f func(*T)) {
	n := uint32(len(*v))
	c.u4(&n)
	list(c, int(n), v, minSize, f)
}

// strs walks a u4 count followed by that many str16.
func (c *coder) strs(v *[]string) { counted(c, v, 4, c.str16) }

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

func appendUTF16(b []byte, s string) []byte {
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.BigEndian.AppendUint16(b, u)
	}
	return b
}

func decodeUTF16(p []byte) string {
	u := make([]uint16, len(p)/2)
	for i := range u {
		u[i] = binary.BigEndian.Uint16(p[2*i:])
	}
	return string(utf16.Decode(u))
}

// AppendStr16 appends s as a str16: a u4 count of UTF-16 units, then the units
// big-endian. Runes outside the BMP take two units.
func AppendStr16(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(utf16Len(s)))
	return appendUTF16(b, s)
}

// ReadStr16 decodes a str16 at the start of b and returns it with the number of
// bytes consumed. Unpaired surrogates decode as U+FFFD.
func ReadStr16(b []byte) (s string, n int, err error) {
	c := newDecoder(b)
	c.str16(&s)
	return s, c.off, c.err
}

// EncodeUTF16 returns s as big-endian UTF-16 without a length or terminator.
func EncodeUTF16(s string) []byte { return appendUTF16(nil, s) }

// DecodeUTF16 decodes big-endian UTF-16; an odd trailing byte is an error.
func DecodeUTF16(b []byte) (string, error) {
	if len(b)%2 != 0 {
		return "", fmt.Errorf("%w: UTF-16 text of odd length %d", ErrShort, len(b))
	}
	return decodeUTF16(b), nil
}
