package simvm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// hprofDump writes the simulated heap as an Android HPROF file (format
// "JAVA PROFILE 1.0.3", 4-byte ids, one "app" heap): every simulated object
// at its address with the size the heap map shows — plain objects as
// instances of com.example.simvm.Obj<N> (N = size in bytes), class objects as
// classes com.example.simvm.Cls<address>, arrays as byte[], char[], int[] and
// long[] filling their size. The simulated heap has no references, so every
// object is its own root (VM internal). vm.mu is held.
func (h *heap) hprofDump(now time.Time) []byte {
	var buf bytes.Buffer
	w := hprof.NewWriterFormat(&buf, "JAVA PROFILE 1.0.3", 4, now)
	nextID := uint64(1)
	str := func(s string) uint64 {
		id := nextID
		nextID++
		w.String(id, s)
		return id
	}
	// Class ids live outside the heap's addresses.
	const classBase = 0x1000
	objectCls := uint64(classBase)
	w.LoadClass(objectCls, str("java.lang.Object"))
	classCls := uint64(classBase + 8)
	w.LoadClass(classCls, str("java.lang.Class"))
	intField := str("f")
	sized := map[uint32]uint64{} // instance size → class id
	var sizes []uint32
	for _, o := range h.objs {
		if (o.kind == ddm.KindObject || o.kind > ddm.KindArray8) && sized[o.units*unitSize] == 0 {
			id := uint64(classBase + 16 + 8*len(sized))
			sized[o.units*unitSize] = id
			sizes = append(sizes, o.units*unitSize)
			w.LoadClass(id, str("com.example.simvm.Obj"+strconv.Itoa(int(o.units*unitSize))))
		}
	}
	for _, o := range h.objs {
		if o.kind == ddm.KindClass {
			w.LoadClass(addr(o), str("com.example.simvm.Cls"+strconv.Itoa(int(addr(o)))))
		}
	}
	w.HeapInfo('A', str("app"))
	w.ClassDump(objectCls, 0, 8, nil, nil)
	w.ClassDump(classCls, objectCls, 8, nil, nil)
	for _, size := range sizes {
		// ART object header: 8 bytes; the rest as int fields.
		fields := make([]hprof.FieldDecl, (size-8)/4)
		for i := range fields {
			fields[i] = hprof.FieldDecl{NameID: intField, Type: hprof.TypeInt}
		}
		w.ClassDump(sized[size], objectCls, size, nil, fields)
	}
	for _, o := range h.objs {
		a, size := addr(o), o.units*unitSize
		w.Root(hprof.RootVMInternal, a)
		switch o.kind {
		case ddm.KindClass:
			w.ClassDump(a, objectCls, 8, nil, nil)
		case ddm.KindArray1:
			w.PrimitiveArray(a, hprof.TypeByte, make([]byte, elems(size, 1)))
		case ddm.KindArray2:
			w.PrimitiveArray(a, hprof.TypeChar, make([]byte, 2*elems(size, 2)))
		case ddm.KindArray4:
			w.PrimitiveArray(a, hprof.TypeInt, make([]byte, 4*elems(size, 4)))
		case ddm.KindArray8:
			w.PrimitiveArray(a, hprof.TypeLong, make([]byte, 8*elems(size, 8)))
		default:
			w.Instance(a, sized[size], make([]byte, 4*((size-8)/4)))
		}
	}
	w.Close() // a bytes.Buffer does not fail
	return buf.Bytes()
}

func addr(o object) uint64 { return heapBase + uint64(o.addr)*unitSize }

// elems is the element count of an ART array of size bytes: a 12-byte
// header (16 for 8-byte elements).
func elems(size, es uint32) int {
	hdr := uint32(12)
	if es == 8 {
		hdr = 16
	}
	if size <= hdr {
		return 0
	}
	return int((size - hdr) / es)
}

// HprofDump returns the simulated heap as an Android HPROF file, the bytes
// an HPDS request streams back (the simulated device's `am dumpheap` writes
// the same file).
func (vm *VM) HprofDump() []byte {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.heap.hprofDump(time.Now())
}

// maxHPDS is the largest heap dump one HPDS packet carries: JDWP's length
// field is a signed 32-bit count of the packet's bytes, header included.
const maxHPDS = math.MaxInt32 - jdwp.HeaderSize - ddm.ChunkHeaderSize

// padSegment is the data of one padding array (Options.HprofSize).
const padSegment = 16 << 20

// paddedDump is a heap dump grown to a size (Options.HprofSize) by byte[]
// arrays of zeroes, each in its own HEAP_DUMP_SEGMENT with a VM-internal
// root, before the HEAP_DUMP_END record: a well-formed file of any size that
// is written from a fixed buffer, never held whole.
type paddedDump struct {
	head []byte // the dump without its HEAP_DUMP_END record
	segs []int64
	size int64
}

// padSegmentOverhead is a padding segment's bytes besides the array's data:
// the record header (9), the root (1+4), the array's header (1+4+4+4+1).
const padSegmentOverhead = 9 + 5 + 14

// padDump grows dump (a complete file with 4-byte ids) to size bytes, if it
// is smaller by enough for one segment.
func padDump(dump []byte, size int64) paddedDump {
	const end = 9 // HEAP_DUMP_END: tag, time, length 0
	d := paddedDump{head: dump[:len(dump)-end], size: int64(len(dump))}
	rest := size - int64(len(dump))
	for rest > padSegmentOverhead {
		n := min(rest-padSegmentOverhead, padSegment)
		d.segs = append(d.segs, n)
		rest -= n + padSegmentOverhead
		d.size += n + padSegmentOverhead
	}
	return d
}

// WriteTo writes the padded file.
func (d paddedDump) WriteTo(w io.Writer) (int64, error) {
	var n int64
	write := func(b []byte) error {
		k, err := w.Write(b)
		n += int64(k)
		return err
	}
	if err := write(d.head); err != nil {
		return n, err
	}
	zeroes := make([]byte, 256<<10)
	for i, data := range d.segs {
		id := uint32(0xF0000000 + i)
		h := []byte{0x1C, 0, 0, 0, 0}
		h = binary.BigEndian.AppendUint32(h, uint32(5+14+data))
		h = binary.BigEndian.AppendUint32(append(h, byte(hprof.RootVMInternal)), id)
		h = binary.BigEndian.AppendUint32(append(h, 0x23), id) // PRIMITIVE_ARRAY_DUMP
		h = binary.BigEndian.AppendUint32(h, 0)                // stack serial
		h = binary.BigEndian.AppendUint32(h, uint32(data))     // count
		h = append(h, byte(hprof.TypeByte))
		if err := write(h); err != nil {
			return n, err
		}
		for left := data; left > 0; {
			k := min(left, int64(len(zeroes)))
			if err := write(zeroes[:k]); err != nil {
				return n, err
			}
			left -= k
		}
	}
	return n, write([]byte{0x2C, 0, 0, 0, 0, 0, 0, 0, 0})
}

// WriteHprof writes the simulated heap as HprofDump does, grown to
// Options.HprofSize when that is larger: the bytes an HPDS request streams
// back.
func (vm *VM) WriteHprof(w io.Writer) (int64, error) {
	return padDump(vm.HprofDump(), vm.opt.HprofSize).WriteTo(w)
}

// sendHPDS sends the heap dump as the unsolicited HPDS chunk ART sends
// (shared/reference/ddm.md §5.4: one chunk whose data is the whole file, in
// a 0xC7 command packet), written as it is produced.
func (s *session) sendHPDS(d paddedDump) error {
	if d.size > maxHPDS {
		return fmt.Errorf("a heap dump of %d bytes does not fit one JDWP packet", d.size)
	}
	h := binary.BigEndian.AppendUint32(nil, uint32(jdwp.HeaderSize+ddm.ChunkHeaderSize+d.size))
	h = binary.BigEndian.AppendUint32(h, s.eventID.Add(1))
	h = append(h, 0, ddm.CommandSet, ddm.Command)
	h = binary.BigEndian.AppendUint32(h, uint32(ddm.HPDS))
	h = binary.BigEndian.AppendUint32(h, uint32(d.size))
	if s.vm.opt.TraceChunks {
		s.log.Trace().Str("kind", "ddm.chunk").Str("dir", "out").Str("type", "HPDS").Int64("len", d.size).Msg("chunk")
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var w io.Writer = deadlineWriter{s.nc}
	if _, err := w.Write(h); err != nil {
		return err
	}
	if g := s.vm.opt.HprofGate; g != nil {
		w = &gateWriter{w: w, at: d.size / 2, gate: g}
	}
	_, err := d.WriteTo(w)
	return err
}

// gateWriter waits at byte at until gate is closed.
type gateWriter struct {
	w    io.Writer
	n    int64
	at   int64
	gate <-chan struct{}
}

func (g *gateWriter) Write(b []byte) (int, error) {
	if g.n < g.at && g.n+int64(len(b)) >= g.at {
		k, err := g.w.Write(b[:g.at-g.n])
		g.n += int64(k)
		if err != nil {
			return k, err
		}
		<-g.gate
		m, err := g.w.Write(b[k:])
		g.n += int64(m)
		return k + m, err
	}
	n, err := g.w.Write(b)
	g.n += int64(n)
	return n, err
}

// deadlineWriter gives each write writeTimeout: a large packet may take
// longer than that in all.
type deadlineWriter struct{ nc net.Conn }

func (d deadlineWriter) Write(b []byte) (int, error) {
	d.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	return d.nc.Write(b)
}
