package simvm

import (
	"bytes"
	"strconv"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/hprof"
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
