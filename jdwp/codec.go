package jdwp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// IDSizes are the byte widths of the variably sized ids, as reported by
// VirtualMachine.IDSizes. Each is 1..8.
type IDSizes struct {
	FieldID         int
	MethodID        int
	ObjectID        int
	ReferenceTypeID int
	FrameID         int
}

// DefaultIDSizes are HotSpot's: every id is 8 bytes.
var DefaultIDSizes = IDSizes{8, 8, 8, 8, 8}

// Validate reports an error when a size is outside 1..8.
func (s IDSizes) Validate() error {
	for _, v := range []struct {
		name string
		n    int
	}{{"fieldID", s.FieldID}, {"methodID", s.MethodID}, {"objectID", s.ObjectID}, {"referenceTypeID", s.ReferenceTypeID}, {"frameID", s.FrameID}} {
		if v.n < 1 || v.n > 8 {
			return fmt.Errorf("jdwp: %s size %d outside 1..8", v.name, v.n)
		}
	}
	return nil
}

// Writer encodes command data. Its zero value uses DefaultIDSizes.
type Writer struct {
	Sizes *IDSizes
	Buf   []byte
}

// NewWriter returns a writer using sizes (nil means DefaultIDSizes).
func NewWriter(sizes *IDSizes) *Writer { return &Writer{Sizes: sizes} }

func (w *Writer) sizes() *IDSizes {
	if w.Sizes == nil {
		return &DefaultIDSizes
	}
	return w.Sizes
}

// Bytes returns the encoded data.
func (w *Writer) Bytes() []byte { return w.Buf }

func (w *Writer) Byte(v byte)     { w.Buf = append(w.Buf, v) }
func (w *Writer) Bool(v bool)     { w.Buf = append(w.Buf, b2u(v)) }
func (w *Writer) Uint16(v uint16) { w.Buf = binary.BigEndian.AppendUint16(w.Buf, v) }
func (w *Writer) Int32(v int32)   { w.Buf = binary.BigEndian.AppendUint32(w.Buf, uint32(v)) }
func (w *Writer) Uint32(v uint32) { w.Buf = binary.BigEndian.AppendUint32(w.Buf, v) }
func (w *Writer) Int64(v int64)   { w.Buf = binary.BigEndian.AppendUint64(w.Buf, uint64(v)) }
func (w *Writer) Uint64(v uint64) { w.Buf = binary.BigEndian.AppendUint64(w.Buf, v) }

// String writes a JDWP string: u4 byte length and modified-UTF-8 bytes.
func (w *Writer) String(s string) {
	w.Int32(int32(len(s)))
	w.Buf = append(w.Buf, s...)
}

// Sized writes v in n big-endian bytes.
func (w *Writer) Sized(v uint64, n int) {
	for i := n - 1; i >= 0; i-- {
		w.Buf = append(w.Buf, byte(v>>(8*uint(i))))
	}
}

func (w *Writer) ObjectID(v ObjectID)               { w.Sized(uint64(v), w.sizes().ObjectID) }
func (w *Writer) ReferenceTypeID(v ReferenceTypeID) { w.Sized(uint64(v), w.sizes().ReferenceTypeID) }
func (w *Writer) MethodID(v MethodID)               { w.Sized(uint64(v), w.sizes().MethodID) }
func (w *Writer) FieldID(v FieldID)                 { w.Sized(uint64(v), w.sizes().FieldID) }
func (w *Writer) FrameID(v FrameID)                 { w.Sized(uint64(v), w.sizes().FrameID) }

// Location writes a location: type tag, class, method, u8 index.
func (w *Writer) Location(l Location) {
	w.Byte(byte(l.TypeTag))
	w.ReferenceTypeID(l.Class)
	w.MethodID(l.Method)
	w.Uint64(l.Index)
}

// Value writes a tagged value.
func (w *Writer) Value(v Value) {
	w.Byte(byte(v.Tag))
	w.UntaggedValue(v)
}

// UntaggedValue writes v's bits without its tag, sized by its tag.
func (w *Writer) UntaggedValue(v Value) {
	switch n := v.Tag.size(w.sizes()); n {
	case 0:
	default:
		w.Sized(v.Bits, n)
	}
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// ErrShortData is returned (wrapped) when data ends before a decoder is done.
var ErrShortData = errors.New("jdwp: data too short")

// Reader decodes reply and event data. It is sticky: after the first error every
// read returns zero values and Err reports that error, so decoders read straight
// through and check once.
type Reader struct {
	Sizes *IDSizes
	b     []byte
	off   int
	err   error

	// strs counts the strings read; from the second on, plain ones are cut
	// from one copy of the whole data (str) instead of a copy each: replies
	// such as Methods or AllClasses are mostly strings.
	strs int
	str  string
}

// NewReader returns a reader over b using sizes (nil means DefaultIDSizes).
func NewReader(b []byte, sizes *IDSizes) *Reader {
	if sizes == nil {
		sizes = &DefaultIDSizes
	}
	return &Reader{Sizes: sizes, b: b}
}

// Err returns the first decoding error.
func (r *Reader) Err() error { return r.err }

// Remaining returns the number of unread bytes.
func (r *Reader) Remaining() int { return len(r.b) - r.off }

// Rest returns the unread bytes and consumes them.
func (r *Reader) Rest() []byte { b := r.b[r.off:]; r.off = len(r.b); return b }

// Fail records err as the reader's error if none is recorded yet.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.b)-r.off < n {
		r.err = fmt.Errorf("%w: need %d bytes at offset %d, have %d", ErrShortData, n, r.off, len(r.b)-r.off)
		return nil
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b
}

func (r *Reader) Byte() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}
func (r *Reader) Bool() bool { return r.Byte() != 0 }
func (r *Reader) Uint16() uint16 {
	if b := r.take(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}
func (r *Reader) Uint32() uint32 {
	if b := r.take(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}
func (r *Reader) Int32() int32 { return int32(r.Uint32()) }
func (r *Reader) Uint64() uint64 {
	if b := r.take(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}
func (r *Reader) Int64() int64 { return int64(r.Uint64()) }

// Count reads an s4 element count and checks it against the bytes left, assuming
// each element needs at least minElem bytes, so a corrupt count cannot make a
// decoder allocate or loop without bound.
func (r *Reader) Count(minElem int) int {
	n := r.Int32()
	if r.err != nil {
		return 0
	}
	if n < 0 {
		r.Fail(fmt.Errorf("jdwp: negative count %d at offset %d", n, r.off-4))
		return 0
	}
	if minElem < 1 {
		minElem = 1
	}
	if int64(n)*int64(minElem) > int64(r.Remaining()) {
		r.Fail(fmt.Errorf("%w: count %d of %d-byte elements at offset %d, %d bytes left", ErrShortData, n, minElem, r.off-4, r.Remaining()))
		return 0
	}
	return int(n)
}

// String reads a JDWP string. Invalid UTF-8 is kept as is.
func (r *Reader) String() string {
	n := r.Int32()
	if n < 0 {
		r.Fail(fmt.Errorf("jdwp: negative string length %d", n))
		return ""
	}
	b := r.take(int(n))
	if r.err != nil || !plainUTF8(b) {
		return decodeModifiedUTF8(b)
	}
	if r.strs++; r.strs == 1 || len(b) == 0 {
		return string(b)
	}
	if r.str == "" {
		r.str = string(r.b)
	}
	return r.str[r.off-len(b) : r.off]
}

// Sized reads an n-byte big-endian unsigned integer.
func (r *Reader) Sized(n int) uint64 {
	b := r.take(n)
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

func (r *Reader) ObjectID() ObjectID { return ObjectID(r.Sized(r.Sizes.ObjectID)) }
func (r *Reader) ReferenceTypeID() ReferenceTypeID {
	return ReferenceTypeID(r.Sized(r.Sizes.ReferenceTypeID))
}
func (r *Reader) MethodID() MethodID { return MethodID(r.Sized(r.Sizes.MethodID)) }
func (r *Reader) FieldID() FieldID   { return FieldID(r.Sized(r.Sizes.FieldID)) }
func (r *Reader) FrameID() FrameID   { return FrameID(r.Sized(r.Sizes.FrameID)) }

// TaggedObjectID reads a tag byte and an object id.
func (r *Reader) TaggedObjectID() TaggedObjectID {
	t := Tag(r.Byte())
	return TaggedObjectID{Tag: t, ID: r.ObjectID()}
}

// Location reads a location.
func (r *Reader) Location() Location {
	return Location{TypeTag: TypeTag(r.Byte()), Class: r.ReferenceTypeID(), Method: r.MethodID(), Index: r.Uint64()}
}

// Value reads a tagged value.
func (r *Reader) Value() Value { return r.UntaggedValue(Tag(r.Byte())) }

// UntaggedValue reads a value of a known tag.
func (r *Reader) UntaggedValue(t Tag) Value {
	n := t.size(r.Sizes)
	if n < 0 {
		r.Fail(fmt.Errorf("jdwp: unknown value tag %d (%q) at offset %d", byte(t), rune(t), r.off))
		return Value{}
	}
	return Value{Tag: t, Bits: r.Sized(n)}
}

// plainUTF8 reports whether modified UTF-8 bytes read as they are: no NUL
// (C0 80) and no surrogate pair (ED ...).
func plainUTF8(b []byte) bool {
	for _, c := range b {
		if c == 0xC0 || c == 0xED {
			return false
		}
	}
	return true
}

// decodeModifiedUTF8 turns JDWP's modified UTF-8 (NUL as C0 80, supplementary
// characters as surrogate pairs) into a Go string. Plain UTF-8 passes unchanged.
func decodeModifiedUTF8(b []byte) string {
	if plainUTF8(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0xC0 && i+1 < len(b) && b[i+1] == 0x80:
			out = append(out, 0)
			i += 2
		case c == 0xED && i+5 < len(b) && b[i+1]&0xF0 == 0xA0 && b[i+2]&0xC0 == 0x80 &&
			b[i+3] == 0xED && b[i+4]&0xF0 == 0xB0 && b[i+5]&0xC0 == 0x80:
			hi := rune(0xD800) | rune(b[i+1]&0x0F)<<6 | rune(b[i+2]&0x3F)
			lo := rune(0xDC00) | rune(b[i+4]&0x0F)<<6 | rune(b[i+5]&0x3F)
			out = utf8.AppendRune(out, (hi-0xD800)<<10+(lo-0xDC00)+0x10000)
			i += 6
		default:
			// Valid UTF-8 is copied, and so is an invalid byte: kept as is.
			_, n := utf8.DecodeRune(b[i:])
			out = append(out, b[i:i+n]...)
			i += n
		}
	}
	return string(out)
}

// Float returns the value as float32 (tag 'F').
func (v Value) Float() float32 { return math.Float32frombits(uint32(v.Bits)) }

// Double returns the value as float64 (tag 'D').
func (v Value) Double() float64 { return math.Float64frombits(v.Bits) }

func errUnknownTag(t Tag) error {
	return fmt.Errorf("jdwp: unknown value tag %d (%q)", byte(t), rune(t))
}
