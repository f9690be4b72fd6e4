package hprof

import (
	"context"
	"fmt"
	"hash/maphash"
	"io"
	"time"
)

// StreamOptions tune [StreamHistogram].
type StreamOptions struct {
	// Oops is as [Options.Oops].
	Oops Oops
	// Progress, when set, is called with the bytes read so far as the
	// parse goes (about every megabyte), from the parsing goroutine.
	Progress func(read int64)
	// Strings keeps what [Streamed.DuplicateStrings] needs: the String
	// instances' references and a hash of every char[] and byte[] (about
	// 24 bytes a reference and 40 an array), up to StringsMemory and the
	// rest in sorted runs in a temporary file; the pass then runs on one
	// core.
	Strings bool
	// StringsMemory bounds what the pass and DuplicateStrings hold of the
	// strings, in bytes (0: DefaultStringsMemory, 64 MiB).
	StringsMemory int64
	// SpillDir is where the strings' temporary file is made (default
	// os.TempDir()): mode 0600 and nameless on Linux (O_TMPFILE), named
	// and removed at once elsewhere; it goes with the Streamed.
	SpillDir string
	// sequential counts on the parsing goroutine alone (for tests and
	// benchmarks: the parallel pass must give the same).
	sequential bool
}

// Streamed is what one pass over a dump gives without a model of its
// objects: the class histogram and what the dump says of itself.
type Streamed struct {
	Format    string
	IDSize    int
	Timestamp time.Time
	Android   bool
	HeapNames []string
	// Objects counts every object record (instances, arrays, class
	// objects), as [Heap.NumObjects] does; an int64, so a dump of more
	// than 2^31 objects is counted too.
	Objects int64
	// Roots counts the dump's GC root records (not checked against its
	// objects: [Heap.Roots] keeps those that name an object of the dump).
	Roots        int
	Histogram    []ClassStat // as [Heap.Histogram]: biggest total first
	Oops         Oops
	OopsInferred bool
	OopsVotes    [2]int
	Partial      bool
	Warnings     []string

	dups *streamDups // StreamOptions.Strings
}

// StreamHistogram reads a whole dump from r in one pass and returns its
// class histogram, identical to what [Parse] followed by [Heap.Histogram]
// gives (the same sizes, the same layout inference, the same handling of
// partial dumps and of classes dumped twice), but keeps nothing per object:
// its memory is bounded by the dump's classes and strings (class and field
// names), whatever the number of objects. It stops when ctx is done, as
// [ParseContext] does.
func StreamHistogram(ctx context.Context, r io.Reader, opt StreamOptions) (*Streamed, error) {
	return streamHistogram(ctx, r, opt, 0)
}

// streamHistogram is StreamHistogram counting from objects counted before
// (for the tests: a count past 2^31 without 30 GB of input).
func streamHistogram(ctx context.Context, r io.Reader, opt StreamOptions, before int64) (res *Streamed, err error) {
	// The input is read on a goroutine of its own, a few blocks ahead:
	// the reads' system time on one core, the parse on the other.
	ra := newReadAhead(r)
	defer ra.close()
	p := &parser{rd: newReader(ra), h: &Heap{classObj: -1}, classByID: map[uint64]int32{}, names: map[uint64]string{}, lastCls: -1,
		stream: &streamCounts{objects: before}, maxObjects: -1}
	p.rd.ctx = ctx
	p.rd.progress = opt.Progress
	defer func() {
		if p.rd.stopped != nil {
			res, err = nil, fmt.Errorf("hprof: parsing stopped at byte %d: %w", p.rd.offset(), p.rd.stopped)
		}
	}()
	p.oops = opt.Oops
	if opt.Strings {
		p.strings, p.seed = true, maphash.MakeSeed()
		p.stream.dups = newStreamDups(opt.StringsMemory, opt.SpillDir)
	}
	if err := p.header(); err != nil {
		return nil, err
	}
	if !opt.sequential && !opt.Strings {
		p.par = newParCount(p.idSize, p.lay, 1)
		p.rd.swap = p.par.swap
		defer func() { p.par.finish(nil) }()
	}
	err = p.records()
	if p.par != nil {
		p.par.finish(p.rd.buf)
	}
	if err != nil {
		if !p.rd.short || p.mark.objs == 0 {
			return nil, err
		}
		p.rollback()
		p.partial = true
		p.h.Partial = true
		p.h.Warnings = append(p.h.Warnings, fmt.Sprintf("the dump is cut short (%v): the result covers its first %d bytes, %d objects, and is partial", err, p.mark.at, p.mark.objs))
	}
	if err := p.finishStream(); err != nil {
		return nil, err
	}
	h, s := p.h, p.stream
	return &Streamed{Format: h.Format, IDSize: h.IDSize, Timestamp: h.Timestamp, Android: h.Android, HeapNames: h.HeapNames,
		Objects: s.objects - before, Roots: len(p.rootIDs), Histogram: s.histogram(h, p.mode), Oops: h.Oops, OopsInferred: h.OopsInferred, OopsVotes: h.OopsVotes,
		Partial: h.Partial, Warnings: h.Warnings, dups: s.dups.finish(h, p.mode)}, nil
}

// streamCounts is what the parser keeps per class instead of per object
// in a streamed pass: instances and their sizes in both candidate layouts
// (the layout is chosen at the end, as Parse chooses it).
type streamCounts struct {
	objects int64
	dups    *streamDups // kept for the duplicate strings (StreamOptions.Strings)
	n       []int64
	bytes   [][2]int64
	// last is what the latest object added, for a rollback.
	last struct {
		cls  int32
		c, w uint32
	}
}

// add counts one object of class cls (-1: a class object or an instance of
// a class not dumped yet, counted when the dump ends).
func (s *streamCounts) add(cls int32, c, w uint32) {
	s.objects++
	s.last.cls, s.last.c, s.last.w = cls, c, w
	if cls < 0 {
		return
	}
	if int(cls) >= len(s.n) {
		s.grow(int(cls) + 1)
	}
	s.n[cls]++
	b := &s.bytes[cls]
	b[0] += int64(c)
	b[1] += int64(w)
}

func (s *streamCounts) grow(n int) {
	n = max(n, 2*len(s.n), 64)
	s.n = append(s.n, make([]int64, n-len(s.n))...)
	s.bytes = append(s.bytes, make([][2]int64, n-len(s.bytes))...)
}

// rollback drops the object added after the mark, if any (a record adds
// one object at most).
func (s *streamCounts) rollback(objs int) {
	if s.objects <= int64(objs) {
		return
	}
	s.objects--
	if c := s.last.cls; c >= 0 {
		s.n[c]--
		s.bytes[c][0] -= int64(s.last.c)
		s.bytes[c][1] -= int64(s.last.w)
	}
}

// histogram is Heap.Histogram over the counts, in the layout mode.
func (s *streamCounts) histogram(h *Heap, mode int) []ClassStat {
	if len(s.n) < len(h.Classes) {
		s.grow(len(h.Classes))
	}
	byName := map[string]int{}
	var out []ClassStat
	for c := range h.Classes {
		n := s.n[c]
		if n == 0 {
			continue
		}
		b := s.bytes[c][mode]
		name := h.Classes[c].Name
		if k, ok := byName[name]; ok {
			out[k].Instances += n
			out[k].Bytes += b
			continue
		}
		byName[name] = len(out)
		out = append(out, ClassStat{name, n, b})
	}
	sortStats(out)
	return out
}

// finishStream is finish for a streamed pass: the pending instances and
// the class objects are counted, in both layouts.
func (p *parser) finishStream() error {
	h, s := p.h, p.stream
	if p.voting {
		p.decide()
	}
	unknown := 0
	if p.par != nil {
		var err error
		if unknown, err = p.mergeCounts(); err != nil {
			return err
		}
	}
	for _, pi := range p.pending {
		c, ok := p.classByID[pi.classID]
		if (!ok || !p.layout(c)) && p.partial {
			s.count(p.class(pi.classID), 0, 0)
			unknown++
			continue
		}
		if !ok || !p.layout(c) {
			return fmt.Errorf("%w: an instance of class 0x%x, which the dump does not describe", ErrFormat, pi.classID)
		}
		cl := &h.Classes[c]
		if uint32(len(pi.data)) != cl.dataSize {
			return fmt.Errorf("%w: an instance of %s has %d bytes of fields, its class says %d", ErrFormat, cl.Name, len(pi.data), cl.dataSize)
		}
		s.count(c, cl.shallowBy[0], cl.shallowBy[1])
		if s.dups != nil && cl.Name == "java.lang.String" {
			s.dups.addString(c, pi.data, cl.refOffs, p.idSize)
		}
	}
	p.pending = nil
	if unknown > 0 {
		h.Warnings = append(h.Warnings, fmt.Sprintf("%d objects are of classes the partial dump does not describe: their sizes and references are unknown", unknown))
	}
	for i := range h.Classes {
		if h.Classes[i].Name == "java.lang.Class" {
			h.classObj = int32(i)
			break
		}
	}
	if h.classObj < 0 {
		h.classObj = int32(len(h.Classes))
		h.Classes = append(h.Classes, Class{Name: "java.lang.Class", Object: -1, Super: -1, layoutDone: true})
	}
	// A class object's size is java.lang.Class's in the layout chosen plus
	// its statics: both layouts are counted, the mode picks one.
	var mirror [2]uint32
	if p.layout(h.classObj) {
		mirror = h.Classes[h.classObj].shallowBy
	}
	for m := range mirror {
		if mirror[m] == 0 {
			mirror[m] = align8(uint64(p.lay[m].hdr))
		}
	}
	for i := range h.Classes {
		if cl := &h.Classes[i]; cl.Object >= 0 {
			s.count(h.classObj, mirror[0]+staticSize(cl.statics, p.lay[0].ref), mirror[1]+staticSize(cl.statics, p.lay[1].ref))
		}
	}
	h.Oops = OopsAuto
	if p.idSize == 8 && !h.Android {
		h.Oops = [2]Oops{OopsCompressed, OopsWide}[p.mode]
		h.OopsInferred = p.oops == OopsAuto
	}
	return nil
}

// count adds an object counted already (objects) to class cls.
func (s *streamCounts) count(cls int32, c, w uint32) {
	s.objects--
	s.add(cls, c, w)
}

// readAhead reads its input on a goroutine of its own into a few blocks,
// ahead of Read.
type readAhead struct {
	blocks chan []byte // filled, in order; closed at the end of the input
	free   chan []byte // read, to fill again
	done   chan struct{}
	exited chan struct{} // the goroutine returned: it reads the input no more
	err    error         // the input's error (not EOF), set before blocks is closed
	cur    []byte        // what Read has not handed out of the block it holds
	held   []byte        // that block
}

const readAheadBlocks, readAheadBlock = 4, 1 << 20

func newReadAhead(r io.Reader) *readAhead {
	ra := &readAhead{blocks: make(chan []byte, readAheadBlocks), free: make(chan []byte, readAheadBlocks),
		done: make(chan struct{}), exited: make(chan struct{})}
	for range readAheadBlocks {
		ra.free <- make([]byte, readAheadBlock)
	}
	go func() {
		defer close(ra.exited)
		defer close(ra.blocks)
		for {
			var b []byte
			select {
			case b = <-ra.free:
			case <-ra.done:
				return
			}
			n, err := io.ReadFull(r, b[:cap(b)])
			if n > 0 {
				select {
				case ra.blocks <- b[:n]:
				case <-ra.done:
					return
				}
			}
			if err != nil {
				if err != io.EOF && err != io.ErrUnexpectedEOF {
					ra.err = err
				}
				return
			}
		}
	}()
	return ra
}

func (ra *readAhead) Read(p []byte) (int, error) {
	if len(ra.cur) == 0 {
		if ra.held != nil {
			ra.free <- ra.held[:cap(ra.held)] // never blocks: as many places as blocks
			ra.held = nil
		}
		b, ok := <-ra.blocks
		if !ok {
			if ra.err != nil {
				return 0, ra.err
			}
			return 0, io.EOF
		}
		ra.cur, ra.held = b, b
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

// close stops the goroutine and waits until it has: the caller's reader is
// its own again (a read in progress ends first).
func (ra *readAhead) close() {
	close(ra.done)
	<-ra.exited
}
