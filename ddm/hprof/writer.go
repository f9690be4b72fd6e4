package hprof

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"time"
)

// Writer writes a well-formed HPROF file: strings and class loads as
// top-level records, heap records gathered into HEAP_DUMP_SEGMENTs. Android
// records (HeapInfo, the extra root kinds) may be mixed in; the header then
// still says "JAVA PROFILE 1.0.3", as ART's does.
type Writer struct {
	w      *bufio.Writer
	idSize int
	seg    []byte
	err    error
	serial uint32
}

// segLimit is the size at which a heap dump segment is flushed.
const segLimit = 1 << 20

// NewWriter writes the header (format "JAVA PROFILE 1.0.2" for 8-byte ids
// on HotSpot; use NewWriterFormat for others).
func NewWriter(w io.Writer, idSize int, ts time.Time) *Writer {
	return NewWriterFormat(w, "JAVA PROFILE 1.0.2", idSize, ts)
}

// NewWriterFormat is NewWriter with a format name.
func NewWriterFormat(w io.Writer, format string, idSize int, ts time.Time) *Writer {
	wr := &Writer{w: bufio.NewWriterSize(w, 1<<16), idSize: idSize}
	if idSize != 4 && idSize != 8 {
		wr.err = errors.New("hprof: identifier size must be 4 or 8")
		return wr
	}
	wr.w.WriteString(format)
	wr.w.WriteByte(0)
	var b [12]byte
	binary.BigEndian.PutUint32(b[:], uint32(idSize))
	ms := uint64(ts.UnixMilli())
	binary.BigEndian.PutUint32(b[4:], uint32(ms>>32))
	binary.BigEndian.PutUint32(b[8:], uint32(ms))
	wr.w.Write(b[:])
	return wr
}

func (w *Writer) id(b []byte, v uint64) []byte {
	if w.idSize == 8 {
		return binary.BigEndian.AppendUint64(b, v)
	}
	return binary.BigEndian.AppendUint32(b, uint32(v))
}

func (w *Writer) record(tag byte, body []byte) {
	if w.err != nil {
		return
	}
	var h [9]byte
	h[0] = tag
	binary.BigEndian.PutUint32(h[5:], uint32(len(body)))
	w.w.Write(h[:])
	if _, err := w.w.Write(body); err != nil {
		w.err = err
	}
}

func (w *Writer) flushSegment() {
	if len(w.seg) > 0 {
		w.record(tagHeapDumpSeg, w.seg)
		w.seg = w.seg[:0]
	}
}

func (w *Writer) sub(b []byte) {
	w.seg = append(w.seg, b...)
	if len(w.seg) >= segLimit {
		w.flushSegment()
	}
}

// String writes a UTF8 record: id names s.
func (w *Writer) String(id uint64, s string) {
	w.flushSegment()
	w.record(tagUTF8, append(w.id(nil, id), s...))
}

// LoadClass writes a LOAD_CLASS record: class classID is named by the
// string nameID (internal form, "java/lang/String").
func (w *Writer) LoadClass(classID, nameID uint64) {
	w.flushSegment()
	w.serial++
	b := binary.BigEndian.AppendUint32(nil, w.serial)
	b = w.id(b, classID)
	b = binary.BigEndian.AppendUint32(b, 0)
	w.record(tagLoadClass, w.id(b, nameID))
}

// Root writes a GC root record of kind k for object id (thread and frame
// fields zero).
func (w *Writer) Root(k RootKind, id uint64) {
	b := w.id([]byte{byte(k)}, id)
	switch k {
	case RootJNIGlobal:
		b = w.id(b, 0)
	case RootJNILocal, RootJavaFrame, RootThreadObject, RootJNIMonitor:
		b = append(b, 0, 0, 0, 0, 0, 0, 0, 0)
	case RootNativeStack, RootThreadBlock:
		b = append(b, 0, 0, 0, 0)
	}
	w.sub(b)
}

// HeapInfo writes Android's HEAP_DUMP_INFO: the following objects live in
// heap typ, named by the string nameID.
func (w *Writer) HeapInfo(typ uint32, nameID uint64) {
	w.sub(w.id(binary.BigEndian.AppendUint32([]byte{subHeapDumpInfo}, typ), nameID))
}

// FieldDecl declares a field by the string id of its name.
type FieldDecl struct {
	NameID uint64
	Type   Type
}

// StaticValue is a static field and its value (an id for TypeObject, else
// the value's bits, big-endian in the type's size).
type StaticValue struct {
	FieldDecl
	Value uint64
}

// ClassDump writes a CLASS_DUMP of class id with superclass super (0 for
// none), the given static values and instance fields.
func (w *Writer) ClassDump(id, super uint64, instanceSize uint32, statics []StaticValue, fields []FieldDecl) {
	b := w.id([]byte{subClassDump}, id)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = w.id(b, super)
	for range 5 { // loader, signers, protection domain, reserved ×2
		b = w.id(b, 0)
	}
	b = binary.BigEndian.AppendUint32(b, instanceSize)
	b = binary.BigEndian.AppendUint16(b, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(len(statics)))
	for _, s := range statics {
		b = w.id(b, s.NameID)
		b = append(b, byte(s.Type))
		if s.Type == TypeObject {
			b = w.id(b, s.Value)
		} else {
			n := typeSize[s.Type]
			for k := int(n) - 1; k >= 0; k-- {
				b = append(b, byte(s.Value>>(8*k)))
			}
		}
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(fields)))
	for _, f := range fields {
		b = append(w.id(b, f.NameID), byte(f.Type))
	}
	w.sub(b)
}

// Instance writes an INSTANCE_DUMP; data holds the field values, the class's
// own fields first, then its superclass's, references in idSize bytes.
func (w *Writer) Instance(id, classID uint64, data []byte) {
	b := w.id([]byte{subInstanceDump}, id)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = w.id(b, classID)
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	w.sub(append(b, data...))
}

// ObjectArray writes an OBJECT_ARRAY_DUMP of array class classID.
func (w *Writer) ObjectArray(id, classID uint64, elems []uint64) {
	b := w.id([]byte{subObjArrayDump}, id)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(len(elems)))
	b = w.id(b, classID)
	for _, e := range elems {
		b = w.id(b, e)
	}
	w.sub(b)
}

// PrimitiveArray writes a PRIMITIVE_ARRAY_DUMP; data is the elements,
// big-endian, len(data) a multiple of t's size.
func (w *Writer) PrimitiveArray(id uint64, t Type, data []byte) {
	b := w.id([]byte{subPrimArrayDump}, id)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)/int(typeSize[t])))
	b = append(b, byte(t))
	w.sub(append(b, data...))
}

// Close ends the heap dump and flushes; it does not close the underlying
// writer.
func (w *Writer) Close() error {
	w.flushSegment()
	w.record(tagHeapDumpEnd, nil)
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}

// Err is the first error the writer met.
func (w *Writer) Err() error { return w.err }

// IDSize is the writer's identifier size.
func (w *Writer) IDSize() int { return w.idSize }
