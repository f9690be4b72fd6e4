package hprof

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Type is an HPROF basic type.
type Type uint8

// The basic types of field, static and array records.
const (
	TypeObject  Type = 2
	TypeBoolean Type = 4
	TypeChar    Type = 5
	TypeFloat   Type = 6
	TypeDouble  Type = 7
	TypeByte    Type = 8
	TypeShort   Type = 9
	TypeInt     Type = 10
	TypeLong    Type = 11
)

var typeSize = [12]uint8{TypeBoolean: 1, TypeChar: 2, TypeFloat: 4, TypeDouble: 8, TypeByte: 1, TypeShort: 2, TypeInt: 4, TypeLong: 8}

var typeName = [12]string{TypeObject: "Object", TypeBoolean: "boolean", TypeChar: "char", TypeFloat: "float", TypeDouble: "double", TypeByte: "byte", TypeShort: "short", TypeInt: "int", TypeLong: "long"}

func (t Type) String() string {
	if int(t) < len(typeName) && typeName[t] != "" {
		return typeName[t]
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// valid reports whether t is a basic type of the format.
func (t Type) valid() bool { return t == TypeObject || (t >= TypeBoolean && t <= TypeLong) }

// size is t's size on the wire; object references take idSize bytes.
func (t Type) size(idSize int) int {
	if t == TypeObject {
		return idSize
	}
	return int(typeSize[t])
}

// RootKind is the kind of a GC root record.
type RootKind uint8

// GC root kinds: the sub-record tags, HotSpot's and Android's.
const (
	RootUnknown          RootKind = 0xFF
	RootJNIGlobal        RootKind = 0x01
	RootJNILocal         RootKind = 0x02
	RootJavaFrame        RootKind = 0x03
	RootNativeStack      RootKind = 0x04
	RootStickyClass      RootKind = 0x05
	RootThreadBlock      RootKind = 0x06
	RootMonitorUsed      RootKind = 0x07
	RootThreadObject     RootKind = 0x08
	RootInternedString   RootKind = 0x89 // Android
	RootFinalizing       RootKind = 0x8A // Android
	RootDebugger         RootKind = 0x8B // Android
	RootReferenceCleanup RootKind = 0x8C // Android
	RootVMInternal       RootKind = 0x8D // Android
	RootJNIMonitor       RootKind = 0x8E // Android
	RootUnreachable      RootKind = 0x90 // Android: not a root, listed so tools can show it
)

var rootNames = map[RootKind]string{
	RootUnknown: "unknown", RootJNIGlobal: "JNI global", RootJNILocal: "JNI local", RootJavaFrame: "Java frame",
	RootNativeStack: "native stack", RootStickyClass: "sticky class", RootThreadBlock: "thread block",
	RootMonitorUsed: "busy monitor", RootThreadObject: "thread", RootInternedString: "interned string",
	RootFinalizing: "finalizing", RootDebugger: "debugger", RootReferenceCleanup: "reference cleanup",
	RootVMInternal: "VM internal", RootJNIMonitor: "JNI monitor", RootUnreachable: "unreachable",
}

// rootBody is the size of a root record of kind sub after its tag, for
// ids of id bytes; 0 when sub is not a root record's tag.
func rootBody(sub byte, id int) int {
	switch RootKind(sub) {
	case RootUnknown, RootStickyClass, RootMonitorUsed, RootInternedString, RootFinalizing, RootDebugger,
		RootReferenceCleanup, RootVMInternal, RootUnreachable:
		return id
	case RootJNIGlobal:
		return 2 * id
	case RootJNILocal, RootJavaFrame, RootThreadObject, RootJNIMonitor:
		return id + 8
	case RootNativeStack, RootThreadBlock:
		return id + 4
	}
	return 0
}

func (k RootKind) String() string {
	if s, ok := rootNames[k]; ok {
		return s
	}
	return fmt.Sprintf("root(0x%02X)", uint8(k))
}

// Field is a declared instance field.
type Field struct {
	Name string
	Type Type
}

// Class is one class of the dump, or the pseudo-class of a primitive array
// type (ID 0, no class object).
type Class struct {
	Name         string // Java source form: java.lang.String, int[], java.lang.Object[][]
	ID           uint64 // the class object's id; 0 for primitive-array pseudo-classes
	Object       int32  // the class object's index, -1 if the dump has no CLASS_DUMP for it
	Super        int32  // superclass index, -1 for none
	InstanceSize uint32 // as recorded in the class dump
	Fields       []Field
	Elem         Type // element type for array classes, 0 otherwise
	// Loader is the index of the defining class loader's object; -1 for
	// the boot loader (or a loader the dump does not hold).
	Loader int32

	loaderID   uint64
	statics    []Type   // the static fields in the mirror (not HotSpot's pseudo-statics)
	staticRefs []string // the names of the static fields of object type, pseudo-statics too, in the dump's order
	refOffs    []uint32
	dataSize   uint32 // instance data bytes on the wire, own and inherited fields
	layoutDone bool
	pseudo     bool      // a primitive array pseudo-class; Object is the dumped array class's
	weakOff    uint32    // a weak, soft or phantom reference class: its referent's wire offset + 1; 0 otherwise
	nameOff    uint32    // java.lang.Thread or a subclass: the wire offset of Thread.name + 1; 0 otherwise
	shallowBy  [2]uint32 // instance shallow size with compressed and wide references
	shallow    uint32    // instance shallow size in the layout in use (instances only)
}

// IsArray reports whether c is an array class.
func (c *Class) IsArray() bool { return c.Elem != 0 }

// Heap is a parsed dump: every object in parallel arrays indexed by object
// index 0..NumObjects()-1, references as object indices.
type Heap struct {
	Format    string // "JAVA PROFILE 1.0.2", "JAVA PROFILE 1.0.3"
	IDSize    int
	Timestamp time.Time
	Android   bool     // the dump has Android's records (HEAP_DUMP_INFO, extra roots)
	HeapNames []string // Android heap names ("app", "zygote", "image", …) by heap index; "default" alone otherwise
	Classes   []Class

	ids         idList
	cls         []int32
	size        []uint32 // while parsing (and in heaps tests build): then sizes
	sizes       sizeTable
	heap        []uint8 // heap index per object; nil if the dump names no heaps
	refStart    []uint32
	refs        []int32
	roots       []int32
	rootKind    []RootKind
	classObj    int32 // class index of java.lang.Class, -1 if absent
	strs        []strArray
	index       idIndex
	indexOnce   sync.Once
	keptStrings bool
	Unresolved  int // references to ids the dump holds no object for (skipped)

	// Oops is the reference width the sizes assume (64-bit HotSpot dumps;
	// OopsAuto otherwise); OopsInferred says Parse inferred it, from
	// OopsVotes: how many neighbouring objects lay as far apart as the first
	// one's size with compressed and with wide references.
	Oops         Oops
	OopsInferred bool
	OopsVotes    [2]int
	// Partial is set when the dump ended early (a VM killed or a disk full
	// mid-dump): the model holds the records before the last complete one
	// and Warnings says where the dump stopped.
	Partial bool
	// Warnings are what Parse accepted but a reader should know: where a
	// partial dump stops, duplicate object ids, classes dumped twice.
	Warnings []string

	dumpRoots int         // roots[:dumpRoots] are the dump's, the rest boot classes it does not list
	rootAux   [][2]uint32 // per root: thread serial, frame number or stack trace serial
	frames    map[uint64]StackFrame
	traces    map[uint32][]uint64 // stack frame ids by thread serial
	classNode []int32             // class object per class index, -1 if none
	loaderCls []bool              // per class index: some instance is a class loader
	loaded    map[int32][]int32   // class loader object → the class objects it defined

	// weak lists the weak, soft and phantom references whose referent is
	// in the dump, by object index: paths from the GC roots do not pass
	// through a referent field (Eclipse MAT's "excluding weak/soft
	// references"). weakCls marks their classes.
	weak    []weakRef
	weakCls []bool
	// threadStr maps thread objects to their name String (Thread.name);
	// threadNames, once ReadThreadNames has read them, names the threads
	// by serial.
	threadStr   map[int32]int32
	threadNames map[uint32]string

	mirrorOnce sync.Once
	mirrorOf   map[int32]int32 // class object index → the class it is the object of (see Label)

	// marks locate the records of every markEvery-th object in the dump,
	// so that a record can be read back (fields.go) without an offset per
	// object.
	marks []recordMark

	// refsOut, when set, holds refs and refStart in its file until Refs
	// first needs them (a spilled dominator tree leaves them there).
	refsOut atomic.Pointer[spillFile]
	refsMu  sync.Mutex
	// refsPacked, when set, holds refs and refStart packed until Refs
	// first needs them (a compact dominator tree leaves them so).
	refsPacked atomic.Pointer[packedRefs]
}

// weakRef is a java.lang.ref.Reference that does not keep its referent
// alive: a weak, soft or phantom reference.
type weakRef struct {
	obj, referent int32
}

// StackFrame is one frame of a thread's stack trace in the dump.
type StackFrame struct {
	Class  string `json:"class"`
	Method string `json:"method"`
	Source string `json:"source,omitempty"`
	Line   int32  `json:"line,omitempty"` // > 0: a line; 0 none; -1 unknown; -2 compiled; -3 native
}

func (f StackFrame) String() string {
	loc := f.Source
	switch {
	case f.Line > 0:
		loc = fmt.Sprintf("%s:%d", f.Source, f.Line)
	case f.Line == -3:
		loc = "Native Method"
	case loc == "":
		loc = "Unknown Source"
	}
	return fmt.Sprintf("%s.%s(%s)", f.Class, f.Method, loc)
}

// strArray is a char[] or byte[] whose contents may back a String.
type strArray struct {
	obj  int32
	len  uint32 // bytes
	hash uint64
	off  int64 // stream offset of the contents
}

// NumObjects is the number of objects (instances, arrays, class objects).
func (h *Heap) NumObjects() int { return h.ids.len() }

// ID is object i's id (an address in HotSpot dumps).
func (h *Heap) ID(i int32) uint64 { return h.ids.at(i) }

// ClassOf is the class index of object i; class objects have java.lang.Class's.
func (h *Heap) ClassOf(i int32) int32 { return h.cls[i] }

// Size is object i's shallow size in bytes (see [Parse] for the layout model).
func (h *Heap) Size(i int32) uint32 {
	if h.size != nil {
		return h.size[i]
	}
	return h.sizes.at(i, h.cls[i])
}

// sizeOfClass is Size for object i of class c, without reading h.cls.
func (h *Heap) sizeOfClass(i, c int32) uint32 {
	if h.size != nil {
		return h.size[i]
	}
	return h.sizes.at(i, c)
}

// HeapOf is the name of the heap object i lives in.
func (h *Heap) HeapOf(i int32) string {
	if h.heap == nil {
		return h.HeapNames[0]
	}
	return h.HeapNames[h.heap[i]]
}

// Refs are the objects i references (fields, array elements, static fields
// and the superclass of class objects), nulls and dangling ids left out.
func (h *Heap) Refs(i int32) []int32 {
	if h.refsOut.Load() != nil || h.refsPacked.Load() != nil {
		h.loadRefs()
	}
	return h.refs[h.refStart[i]:h.refStart[i+1]]
}

// loadRefs reads back the references a spilled dominator tree left in its
// file ([DomOptions.Spill]), once, and closes the file; or unpacks those a
// compact one left packed ([DomOptions.Compact]).
func (h *Heap) loadRefs() {
	h.refsMu.Lock()
	defer h.refsMu.Unlock()
	if p := h.refsPacked.Load(); p != nil {
		refStart, refs, err := p.unpack()
		if err != nil {
			panic(err) // the process's own memory: nothing can go on
		}
		h.refStart, h.refs = refStart, refs
		h.refsPacked.Store(nil)
	}
	sp := h.refsOut.Load()
	if sp == nil {
		return
	}
	if err := sp.in(h, spillRefs, spillRefStart); err != nil {
		// The process's own temporary file unreadable: nothing can go on.
		panic(err)
	}
	sp.remove()
	h.refsOut.Store(nil)
}

// Roots are the dump's GC roots with their kinds (an object may be listed
// under several kinds). The analyses also take every class of the boot
// loader as a sticky-class root (the VM never unloads them; HotSpot lists
// only its instance classes): those the dump does not list are not among
// these.
func (h *Heap) Roots() ([]int32, []RootKind) {
	return h.roots[:h.dumpRoots], h.rootKind[:h.dumpRoots]
}

// Lookup is the index of the object with id, or -1. The first call after
// Parse builds an index (4–8 bytes per object).
func (h *Heap) Lookup(id uint64) int32 {
	h.indexOnce.Do(func() {
		if h.index.slots == nil {
			h.index.build(&h.ids)
		}
	})
	return h.index.get(&h.ids, id)
}

// IsClassObject reports whether object i is a class object.
func (h *Heap) IsClassObject(i int32) bool { return h.cls[i] == h.classObj && h.classObj >= 0 }

// ClassName is the class name of object i.
func (h *Heap) ClassName(i int32) string { return h.Classes[h.cls[i]].Name }

var primDesc = [12]byte{TypeBoolean: 'Z', TypeChar: 'C', TypeFloat: 'F', TypeDouble: 'D', TypeByte: 'B', TypeShort: 'S', TypeInt: 'I', TypeLong: 'J'}

// ErrFormat reports input that is not a well-formed HPROF file.
var ErrFormat = errors.New("hprof: malformed dump")

func formatErr(off int64, f string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", ErrFormat, off, fmt.Sprintf(f, args...))
}

// idIndex maps ids to object indices: open addressing over int32 slots,
// comparing through the ids array, so a slot costs 4 bytes. The slot of an
// id is its address in 8-byte units modulo the table size: HotSpot and ART
// ids are addresses and references mostly point near their source, so
// lookups walk the table and the ids array almost in order. Ids that crowd
// (not addresses, or a crafted file) switch it to a multiplicative hash.
type idIndex struct {
	slots  []int32 // object index + 1; 0 = empty
	mask   uint64
	shift  uint
	scramb bool
}

func (x *idIndex) slot(id uint64) uint64 {
	if x.scramb {
		return (id * 0x9E3779B97F4A7C15) >> x.shift
	}
	return (id >> 3) & x.mask
}

// build indexes ids and returns how many repeat an earlier id.
func (x *idIndex) build(ids *idList) (dups int) {
	n := uint64(16)
	bits := uint(4)
	for n < uint64(ids.len())*3/2 {
		n <<= 1
		bits++
	}
	x.slots = make([]int32, n)
	x.mask, x.shift = n-1, 64-bits
	probes := 0
	for i := range int32(ids.len()) {
		id := ids.at(i)
		s := x.slot(id)
		for x.slots[s] != 0 {
			if ids.at(x.slots[s]-1) == id {
				dups++
				break // duplicate id: the first object wins
			}
			s = (s + 1) & x.mask
			probes++
		}
		if x.slots[s] == 0 {
			x.slots[s] = i + 1
		}
		if !x.scramb && probes > 8*ids.len()+1024 {
			x.scramb = true
			return x.build(ids)
		}
	}
	return dups
}

func (x *idIndex) get(ids *idList, id uint64) int32 {
	if len(x.slots) == 0 {
		return -1
	}
	if !ids.wide {
		if id&7 != 0 || id>>35 != 0 {
			return -1 // every id is narrow: not one of them
		}
		nid := uint32(id >> 3)
		for s := x.slot(id); ; s = (s + 1) & x.mask {
			v := x.slots[s]
			if v == 0 {
				return -1
			}
			if ids.narrow[v-1] == nid {
				return v - 1
			}
		}
	}
	for s := x.slot(id); ; s = (s + 1) & x.mask {
		v := x.slots[s]
		if v == 0 {
			return -1
		}
		if ids.all[v-1] == id {
			return v - 1
		}
	}
}

// idSeq is a sequence of ids: narrow, as id/8 in 32 bits, while every id is
// 8-aligned below 32 GiB (HotSpot and ART addresses); wide otherwise. N is
// uint32 for the objects' ids (idList) and int32 for the referenced ids
// (refBuf), which are then resolved in place to object indices.
type idSeq[N int32 | uint32] struct {
	narrow []N
	all    []uint64
	wide   bool
}

// idList holds the objects' ids, indexed by object index.
type idList struct{ idSeq[uint32] }

func (l *idList) at(i int32) uint64 { return l.idSeq.at(int(i)) }

// refBuf holds the referenced ids until they can be resolved.
type refBuf = idSeq[int32]

func (l *idSeq[N]) len() int {
	if l.wide {
		return len(l.all)
	}
	return len(l.narrow)
}

func (l *idSeq[N]) cap() int {
	if l.wide {
		return cap(l.all)
	}
	return cap(l.narrow)
}

func (l *idSeq[N]) at(i int) uint64 {
	if l.wide {
		return l.all[i]
	}
	return uint64(uint32(l.narrow[i])) << 3
}

func (l *idSeq[N]) add(id uint64) {
	if !l.wide {
		if id&7 == 0 && id>>35 == 0 {
			l.narrow = append(l.narrow, N(uint32(id>>3)))
			return
		}
		l.all = make([]uint64, len(l.narrow), max(2*len(l.narrow), 1024))
		for k, v := range l.narrow {
			l.all[k] = uint64(uint32(v)) << 3
		}
		l.narrow, l.wide = nil, true
	}
	l.all = append(l.all, id)
}

func (l *idSeq[N]) truncate(n int) {
	if l.wide {
		l.all = l.all[:n]
	} else {
		l.narrow = l.narrow[:n]
	}
}
