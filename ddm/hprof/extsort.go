package hprof

import (
	"fmt"
	"os"
	"slices"
	"unsafe"
)

// runSorter sorts records of a pointer-free type T in bounded memory: it
// holds up to limit records, and past that sorts them and writes them as a
// run to a temporary file of its own (mode 0600, nameless on Linux:
// createTemp), to be merged with the other runs when the records are read
// back in order. With no run written the records are sorted in memory.
type runSorter[T any] struct {
	cmp   func(a, b T) int
	limit int // records held before a run is written
	dir   string
	what  string // what the records are for, in errors
	buf   []T
	f     *os.File
	runs  []sortRun // written, in order
	ended int64     // the file's length
	total int64     // records added
	done  bool      // finished: buf is sorted (and empty if runs were written)
}

// sortRun is a run in the file: where, and how many records.
type sortRun struct {
	off int64
	n   int64
}

// newRunSorter is a sorter holding at most about budget bytes of records
// (at least one record).
func newRunSorter[T any](budget int64, dir, what string, cmp func(a, b T) int) *runSorter[T] {
	var zero T
	return &runSorter[T]{cmp: cmp, limit: int(max(1, budget/int64(unsafe.Sizeof(zero)))), dir: dir, what: what}
}

// recBytes is the memory of a as bytes (T holds no pointers).
func recBytes[T any](a []T) []byte {
	if len(a) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a))), len(a)*int(unsafe.Sizeof(zero)))
}

// room makes room for k more records: if they would pass the limit, the
// records held are written as a run first. The k records added next are
// then held, so that truncate can drop them.
func (s *runSorter[T]) room(k int) error {
	if len(s.buf) > 0 && len(s.buf)+k > s.limit {
		return s.spill()
	}
	return nil
}

// add appends a record (room makes the room first).
func (s *runSorter[T]) add(r T) {
	if len(s.buf) == cap(s.buf) {
		// The limit at once, no copies as it grows (memory the system
		// gives is touched only as the records fill it); past the limit
		// (one String's references) as append grows it.
		b := make([]T, len(s.buf), max(s.limit, 2*len(s.buf)))
		copy(b, s.buf)
		s.buf = b
	}
	s.buf = append(s.buf, r)
	s.total++
}

// truncate drops the records added after the first n (still held: room
// was made for them after the n-th was added).
func (s *runSorter[T]) truncate(n int64) {
	if n >= s.total {
		return
	}
	s.buf = s.buf[:len(s.buf)-int(s.total-n)]
	s.total = n
}

// spill sorts the records held and writes them as a run.
func (s *runSorter[T]) spill() error {
	if s.f == nil {
		f, named, err := createTemp(s.dir)
		if err != nil {
			return fmt.Errorf("hprof: a temporary file for %s: %w", s.what, err)
		}
		if named {
			os.Remove(f.Name()) // the open file lives on, nameless
		}
		s.f = f
	}
	slices.SortFunc(s.buf, s.cmp)
	b := recBytes(s.buf)
	if _, err := s.f.WriteAt(b, s.ended); err != nil {
		return fmt.Errorf("hprof: writing the temporary file for %s: %w (free some disk space)", s.what, err)
	}
	s.runs = append(s.runs, sortRun{s.ended, int64(len(s.buf))})
	s.ended += int64(len(b))
	s.buf = s.buf[:0] // the same memory for the next run
	return nil
}

// finish ends the adding: the records are sorted in memory, or (runs
// written) the last of them written as a run and the memory released.
func (s *runSorter[T]) finish() error {
	if s.done {
		return nil
	}
	s.done = true
	if s.f == nil {
		slices.SortFunc(s.buf, s.cmp)
		return nil
	}
	if len(s.buf) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	s.buf = nil
	return nil
}

// close releases the file (its blocks go with it) and the records.
func (s *runSorter[T]) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	s.buf, s.runs = nil, nil
}

// iter reads the records back in order, finishing the sorter first; the
// merge of the runs reads each through a buffer of its share of readBudget
// bytes (at least one record, at most 64 KiB). The sorter can be read again.
func (s *runSorter[T]) iter(readBudget int64) (*sortIter[T], error) {
	if err := s.finish(); err != nil {
		return nil, err
	}
	it := &sortIter[T]{s: s, mem: s.buf}
	if len(s.runs) == 0 {
		return it, nil
	}
	var zero T
	per := max(1, min(64<<10, readBudget/int64(len(s.runs)))/int64(unsafe.Sizeof(zero)))
	for _, r := range s.runs {
		c := &runCursor[T]{run: r, buf: make([]T, 0, min(per, r.n))}
		if !it.fill(c) {
			return nil, it.err
		}
		it.heap = append(it.heap, c)
	}
	for i := len(it.heap)/2 - 1; i >= 0; i-- {
		it.down(i)
	}
	return it, nil
}

// sortIter hands out a sorter's records in order: from memory, or the
// least of the runs' heads (a heap of the runs).
type sortIter[T any] struct {
	s    *runSorter[T]
	mem  []T
	heap []*runCursor[T]
	err  error
}

// runCursor is a run being read: its records not yet read from the file,
// and those read and not yet handed out.
type runCursor[T any] struct {
	run sortRun
	buf []T
	at  int
}

// fill reads c's next records (false on an error; c left empty at the
// run's end).
func (it *sortIter[T]) fill(c *runCursor[T]) bool {
	c.at = 0
	n := min(int64(cap(c.buf)), c.run.n)
	c.buf = c.buf[:n]
	if n == 0 {
		return true
	}
	if _, err := it.s.f.ReadAt(recBytes(c.buf), c.run.off); err != nil {
		it.err = fmt.Errorf("hprof: reading back the temporary file for %s: %w", it.s.what, err)
		return false
	}
	var zero T
	c.run.off += n * int64(unsafe.Sizeof(zero))
	c.run.n -= n
	return true
}

// next is the next record in order (false at the end or on an error: see
// err).
func (it *sortIter[T]) next() (T, bool) {
	var zero T
	if it.heap == nil {
		if len(it.mem) == 0 {
			return zero, false
		}
		r := it.mem[0]
		it.mem = it.mem[1:]
		return r, true
	}
	if len(it.heap) == 0 || it.err != nil {
		return zero, false
	}
	c := it.heap[0]
	r := c.buf[c.at]
	c.at++
	if c.at == len(c.buf) {
		if !it.fill(c) {
			return zero, false
		}
		if len(c.buf) == 0 {
			last := len(it.heap) - 1
			it.heap[0] = it.heap[last]
			it.heap = it.heap[:last]
		}
	}
	if len(it.heap) > 0 {
		it.down(0)
	}
	return r, true
}

// down restores the heap below i.
func (it *sortIter[T]) down(i int) {
	h := it.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && it.s.cmp(h[r].buf[h[r].at], h[l].buf[h[l].at]) < 0 {
			m = r
		}
		if it.s.cmp(h[m].buf[h[m].at], h[i].buf[h[i].at]) >= 0 {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
