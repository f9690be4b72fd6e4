package hprof

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"unsafe"
)

// A spill file holds arrays of the model while a computation does not need
// them (see [DomOptions.Spill]): written whole, read back whole or in
// sequence through a window.
type spillFile struct {
	f    *os.File
	end  int64
	held map[spillKind]spillSeg // what is on disk and not in the model
	// unlinked: the file's name is gone already (the open file lives on).
	unlinked bool
	// keep: the memory of arrays sent to the file stays the process's,
	// collected for the next arrays to reuse (Lean), instead of going back
	// to the system at once and faulting in again (Spill).
	keep bool
}

type spillKind int

const (
	spillIDs spillKind = iota
	spillSize
	spillRefs
	spillRefStart
	spillCls
)

// spillSeg is an array in the file: where, how many elements, and for the
// ids whether they were narrow.
type spillSeg struct {
	off  int64
	n    int
	wide bool
}

// newSpillFile makes the file, mode 0600, in dir or the system's temporary
// directory, without a name on Linux (createTemp: O_TMPFILE) and elsewhere
// with one removed at once where the system lets an open file be removed
// (Unix): its blocks are freed when it is closed, or when the process ends,
// however it ends.
func newSpillFile(dir string) (*spillFile, error) {
	f, named, err := createTemp(dir)
	if err != nil {
		return nil, fmt.Errorf("hprof: a temporary file for the dominator tree: %w", err)
	}
	s := &spillFile{f: f, held: map[spillKind]spillSeg{}}
	s.unlinked = !named || os.Remove(f.Name()) == nil
	return s, nil
}

// createNamed makes a named temporary file in dir, mode 0600
// (os.CreateTemp's), for the caller to remove.
func createNamed(dir string) (*os.File, bool, error) {
	f, err := os.CreateTemp(dir, "ddmbridge-hprof-*.spill")
	return f, true, err
}

// remove closes the file and removes it if it still has a name.
func (s *spillFile) remove() {
	s.f.Close()
	if !s.unlinked {
		os.Remove(s.f.Name())
	}
}

type spillable interface{ ~int32 | ~uint32 | ~uint64 }

func asBytes[T spillable](a []T) []byte {
	if len(a) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a))), len(a)*int(unsafe.Sizeof(a[0])))
}

func (s *spillFile) write(b []byte) (int64, error) {
	off := s.end
	if _, err := s.f.WriteAt(b, off); err != nil {
		return 0, fmt.Errorf("hprof: writing the dominator tree's temporary file %s: %w (free some disk space or analyse without --max-memory)", s.f.Name(), err)
	}
	s.end += int64(len(b))
	return off, nil
}

// holds reports whether the array k is in the file, not in the model.
func (s *spillFile) holds(k spillKind) bool {
	_, ok := s.held[k]
	return ok
}

// put writes an array of n elements, whose bytes are b.
func (s *spillFile) put(b []byte, n int) (spillSeg, error) {
	off, err := s.write(b)
	return spillSeg{off: off, n: n}, err
}

// out writes the arrays kinds of h to the file and drops them from h; on
// an error h keeps all of them.
func (s *spillFile) out(h *Heap, kinds ...spillKind) error {
	segs := map[spillKind]spillSeg{}
	for _, k := range kinds {
		var b []byte
		seg := spillSeg{}
		switch k {
		case spillIDs:
			if seg.wide = h.ids.wide; seg.wide {
				b, seg.n = asBytes(h.ids.all), len(h.ids.all)
			} else {
				b, seg.n = asBytes(h.ids.narrow), len(h.ids.narrow)
			}
		case spillSize:
			if h.size == nil {
				continue // compact (sizes): not worth a file
			}
			b, seg.n = asBytes(h.size), len(h.size)
		case spillRefs:
			b, seg.n = asBytes(h.refs), len(h.refs)
		case spillRefStart:
			b, seg.n = asBytes(h.refStart), len(h.refStart)
		case spillCls:
			b, seg.n = asBytes(h.cls), len(h.cls)
		}
		off, err := s.write(b)
		if err != nil {
			return err
		}
		seg.off = off
		segs[k] = seg
	}
	for k, seg := range segs {
		s.held[k] = seg
		switch k {
		case spillIDs:
			h.ids.all, h.ids.narrow = nil, nil
		case spillSize:
			h.size = nil
		case spillRefs:
			h.refs = nil
		case spillRefStart:
			h.refStart = nil
		case spillCls:
			h.cls = nil
		}
	}
	// The arrays' memory is free now, not when the heap next grows past
	// the collector's goal: the next phase's arrays take its place.
	s.release()
	return nil
}

// release collects what a phase dropped: back to the system, or (keep)
// for the next arrays.
func (s *spillFile) release() {
	if s.keep {
		runtime.GC()
		return
	}
	debug.FreeOSMemory()
}

func readSeg[T spillable](s *spillFile, seg spillSeg) ([]T, error) {
	a := make([]T, seg.n)
	if _, err := s.f.ReadAt(asBytes(a), seg.off); err != nil {
		return nil, fmt.Errorf("hprof: reading back the dominator tree's temporary file %s: %w", s.f.Name(), err)
	}
	return a, nil
}

// in reads the arrays kinds (none: all held) back into h.
func (s *spillFile) in(h *Heap, kinds ...spillKind) error {
	if len(kinds) == 0 {
		for _, k := range []spillKind{spillIDs, spillSize, spillRefs, spillRefStart, spillCls} {
			if _, ok := s.held[k]; ok {
				kinds = append(kinds, k)
			}
		}
	}
	for _, k := range kinds {
		seg, ok := s.held[k]
		if !ok {
			continue
		}
		var err error
		switch k {
		case spillIDs:
			if seg.wide {
				h.ids.all, err = readSeg[uint64](s, seg)
			} else {
				h.ids.narrow, err = readSeg[uint32](s, seg)
			}
		case spillSize:
			h.size, err = readSeg[uint32](s, seg)
		case spillRefs:
			h.refs, err = readSeg[int32](s, seg)
		case spillRefStart:
			h.refStart, err = readSeg[uint32](s, seg)
		case spillCls:
			h.cls, err = readSeg[int32](s, seg)
		}
		if err != nil {
			return err
		}
		delete(s.held, k)
	}
	return nil
}

// window reads an array of the file in sequence, a piece at a time,
// upwards or (down) downwards.
type window[T spillable] struct {
	s       *spillFile
	seg     spillSeg
	buf     []T
	from    int
	err     error
	down    bool
	scratch []T
}

// windowLen is a window's length in elements (a variable for the tests).
var windowLen = 1 << 16

func (w *window[T]) at(i int) T {
	if i < w.from || i >= w.from+len(w.buf) {
		from := i
		if w.down {
			from = max(0, i+1-windowLen)
		}
		if !w.load(from, min(windowLen, w.seg.n-from)) {
			return 0
		}
	}
	return w.buf[i-w.from]
}

// load reads n elements from from into the window.
func (w *window[T]) load(from, n int) bool {
	if w.err != nil {
		return false
	}
	if cap(w.buf) < n {
		w.buf = make([]T, max(n, windowLen))
	}
	w.buf = w.buf[:n]
	if !w.read(w.buf, from) {
		w.buf, w.from = w.buf[:0], 0
		return false
	}
	w.from = from
	return true
}

func (w *window[T]) read(b []T, from int) bool {
	var zero T
	if _, err := w.s.f.ReadAt(asBytes(b), w.seg.off+int64(from)*int64(unsafe.Sizeof(zero))); err != nil {
		w.err = fmt.Errorf("hprof: reading the dominator tree's temporary file %s: %w", w.s.f.Name(), err)
		return false
	}
	return true
}

// span is the elements [a, b): from the window, loaded to end at b (down)
// or start at a, or (longer than a window) read apart.
func (w *window[T]) span(a, b int) []T {
	if a >= b || w.err != nil {
		return nil
	}
	if a >= w.from && b <= w.from+len(w.buf) {
		return w.buf[a-w.from : b-w.from]
	}
	if b-a > windowLen {
		if cap(w.scratch) < b-a {
			w.scratch = make([]T, b-a)
		}
		s := w.scratch[:b-a]
		if !w.read(s, a) {
			return nil
		}
		return s
	}
	from := a
	if w.down {
		from = max(0, b-windowLen)
	}
	if !w.load(from, min(windowLen, w.seg.n-from)) {
		return nil
	}
	return w.buf[a-w.from : b-w.from]
}

// objectEdges hands out each object's references in index order, and the
// classes of some, from the model or from a spill file.
type objectEdges struct {
	o int32
	// clsW, where set, reads the classes from the file while the
	// references are in memory (Lean).
	clsW        *window[int32]
	refStart    []uint32
	refs, cls   []int32
	sp          *spillFile
	wStart      *window[uint32]
	wRefs, wCls *window[int32]
	scratch     []int32
	// packed and cls16, where set, are the references and the classes
	// packed in memory (Compact).
	packed *refsReader
	cls16  []uint16
}

// next is the references of the next object (the first call: object 0's).
func (e *objectEdges) next() []int32 {
	if e.packed != nil {
		return e.packed.next()
	}
	o := int(e.o)
	e.o++
	if e.sp == nil {
		return e.refs[e.refStart[o]:e.refStart[o+1]]
	}
	if e.wStart == nil {
		e.wStart = &window[uint32]{s: e.sp, seg: e.sp.held[spillRefStart]}
		e.wRefs = &window[int32]{s: e.sp, seg: e.sp.held[spillRefs]}
		e.wCls = &window[int32]{s: e.sp, seg: e.sp.held[spillCls]}
	}
	s, end := int(e.wStart.at(o)), int(e.wStart.at(o+1))
	e.scratch = e.scratch[:0]
	for k := s; k < end; k++ {
		e.scratch = append(e.scratch, e.wRefs.at(k))
	}
	return e.scratch
}

// class is object o's class; o only grows from call to call.
func (e *objectEdges) class(o int32) int32 {
	if e.clsW != nil {
		return e.clsW.at(int(o))
	}
	if e.cls16 != nil {
		return int32(e.cls16[o])
	}
	if e.sp == nil {
		return e.cls[o]
	}
	return e.wCls.at(int(o))
}

func (e *objectEdges) err() error {
	if e.clsW != nil {
		return e.clsW.err
	}
	if e.packed != nil && e.packed.bad {
		return fmt.Errorf("hprof: packed references broken")
	}
	if e.sp == nil || e.wStart == nil {
		return nil
	}
	for _, err := range []error{e.wStart.err, e.wRefs.err, e.wCls.err} {
		if err != nil {
			return err
		}
	}
	return nil
}
