package ddm

import (
	"errors"
	"fmt"
	"slices"
	"sort"
)

// Kind is the K field of a heap-segment state byte (§6).
type Kind uint8

const (
	KindObject  Kind = iota // plain object, also used for free space
	KindClass               // class object
	KindArray1              // byte[] / boolean[]
	KindArray2              // char[] / short[]
	KindArray4              // int[] / float[] / Object[]
	KindArray8              // long[] / double[]
	KindUnknown             // unknown or corrupt
	KindNative              // native (non-VM) block
)

var kindNames = [...]string{"object", "class", "1-byte array", "2-byte array", "4-byte array", "8-byte array", "unknown", "native"}

func (k Kind) String() string { return kindNames[k&7] }

// Solidity is the S field of a heap-segment state byte (§6).
type Solidity uint8

const (
	SolidFree     Solidity = iota // free space
	SolidHard                     // hard-reachable (what VMs send for live objects)
	SolidSoft                     // soft-reachable
	SolidWeak                     // weak-reachable
	SolidPhantom                  // phantom-reachable
	SolidFinalize                 // pending finalization
	SolidSweep                    // marked, about to be swept
	solidReserved
)

var solidityNames = [...]string{"free", "hard", "soft", "weak", "phantom", "finalizable", "sweep", "solidity(7)"}

func (s Solidity) String() string { return solidityNames[s&7] }

// Block is one decoded element of a run list: a run of units of one state,
// with partial runs (P bit) already joined.
type Block struct {
	Kind     Kind
	Solidity Solidity
	Units    uint32
}

// Free reports whether b is free space.
func (b Block) Free() bool { return b.Solidity == SolidFree }

const (
	statePartial = 0x80
	stateUnused  = 0x40
	maxRunUnits  = 256
)

// ErrBadSegment reports a heap-segment run list that breaks §6: odd length,
// the unused bit set, a partial run not continued with the same state, or
// runs that disagree with the piece's unit count (which the seed requires
// rejecting).
var ErrBadSegment = errors.New("ddm: bad heap segment")

// DecodeRuns decodes a run list (§6) into blocks.
func DecodeRuns(runs []byte) ([]Block, uint64, error) {
	return decodeRunsAppend(make([]Block, 0, len(runs)/2), runs) // one allocation per run list, not per run
}

// decodeRunsAppend decodes runs onto out. Blocks are written into out's
// spare capacity (grown once to len(runs)/2, the most a run list can hold):
// nothing is allocated per run.
func decodeRunsAppend(out []Block, runs []byte) ([]Block, uint64, error) {
	var c stateCounts
	return c.decode(out, runs)
}

// stateCounts counts blocks and units by state byte (kind<<3 | solidity)
// while a run list is decoded, so totals need no second pass over the blocks.
type stateCounts struct {
	blocks, units [64]uint64
}

// decode is decodeRunsAppend counting into c. The loop reads the run list
// once: a plain run (no partial or unused bit, nearly all of them) costs a
// two-byte load, one block store and one counter update (blocks and units
// of a state packed in one word, flushed into c every countWindow bytes,
// before either half can overflow).
func (c *stateCounts) decode(out []Block, runs []byte) ([]Block, uint64, error) {
	if len(runs)%2 != 0 {
		return nil, 0, fmt.Errorf("%w: run list of odd length %d", ErrBadSegment, len(runs))
	}
	out = slices.Grow(out, len(runs)/2)
	start := len(out)
	buf := out[start : start+len(runs)/2]
	n := 0
	var total uint64
	var acc [64]uint64 // blocks<<countShift | units, per state
	for i := 0; i < len(runs); {
		// A window's blocks start in its first countWindow bytes: fewer than
		// 1<<23 of them, and fewer than 128 units per byte read.
		stop := min(len(runs), i+countWindow)
		for i+1 < stop {
			state, units := runs[i], uint64(runs[i+1])+1
			i += 2
			if state >= stateUnused { // partial or unused: join, check
				for state&statePartial != 0 {
					if i+1 >= len(runs) {
						return nil, 0, fmt.Errorf("%w: partial run (state 0x%02X) at the end of the run list", ErrBadSegment, state)
					}
					if next := runs[i]; next&^statePartial != state&^statePartial {
						return nil, 0, fmt.Errorf("%w: partial run 0x%02X continued by 0x%02X at byte %d", ErrBadSegment, state, next, i)
					}
					state = runs[i]
					units += uint64(runs[i+1]) + 1
					i += 2
				}
				if state&stateUnused != 0 {
					return nil, 0, fmt.Errorf("%w: unused bit set in state 0x%02X at byte %d", ErrBadSegment, state, i-2)
				}
				if units > 1<<32-1 {
					return nil, 0, fmt.Errorf("%w: a block of %d units", ErrBadSegment, units)
				}
			}
			buf[n] = Block{Kind: Kind(state >> 3), Solidity: Solidity(state & 7), Units: uint32(units)}
			n++
			acc[state&63] += 1<<countShift | units
		}
		// The total too is summed here, not per run.
		for st, v := range acc {
			if v != 0 {
				u := v & (1<<countShift - 1)
				c.blocks[st] += v >> countShift
				c.units[st] += u
				total += u
				acc[st] = 0
			}
		}
	}
	return out[:start+n], total, nil
}

const countShift = 40 // units below, blocks above

// countWindow is the run-list bytes per flush of the packed counters (a
// variable for tests).
var countWindow = 1 << 24

// AppendRuns encodes blocks as a run list, splitting blocks longer than 256
// units into partial runs as ART does.
func AppendRuns(b []byte, blocks []Block) []byte {
	for _, bl := range blocks {
		state := byte(bl.Kind&7)<<3 | byte(bl.Solidity&7)
		for n := bl.Units; n > 0; {
			if n > maxRunUnits {
				b = append(b, state|statePartial, maxRunUnits-1)
				n -= maxRunUnits
				continue
			}
			b = append(b, state, byte(n-1))
			n = 0
		}
	}
	return b
}

// Blocks decodes s.Runs and checks them against s.UnitCount.
func (s *HeapSegment) Blocks() ([]Block, error) {
	return s.blocksOnto(nil)
}

// blocksOnto is Blocks decoding onto arena when it has room for every run
// (the result then shares arena's array), else into a slice of its own.
func (s *HeapSegment) blocksOnto(arena []Block) ([]Block, error) {
	var c stateCounts
	return s.blocksCounted(arena, &c)
}

// blocksCounted is blocksOnto counting blocks and units by state into c.
func (s *HeapSegment) blocksCounted(arena []Block, c *stateCounts) ([]Block, error) {
	if cap(arena)-len(arena) < len(s.Runs)/2 {
		arena = make([]Block, 0, len(s.Runs)/2)
	}
	start := len(arena)
	arena, total, err := c.decode(arena, s.Runs)
	var blocks []Block
	if err == nil {
		blocks = arena[start:]
	}
	if err != nil {
		return nil, fmt.Errorf("%s heap %d at 0x%X: %w", s.Type, s.HeapID, s.Start, err)
	}
	if total != uint64(s.UnitCount) {
		return nil, fmt.Errorf("%w: %s heap %d at 0x%X: runs cover %d units, header says %d", ErrBadSegment, s.Type, s.HeapID, s.Start, total, s.UnitCount)
	}
	return blocks, nil
}

// Piece is a contiguous stretch of a heap map.
type Piece struct {
	Start    uint64 // startAddress + offset (both in bytes, per ddmlib)
	UnitSize uint32
	Units    uint64
	Blocks   []Block

	inArena bool // Blocks is HeapMap.arena[at:at+len(Blocks)]
	at      int
}

// End is the address just past p.
func (p *Piece) End() uint64 { return p.Start + p.Units*uint64(p.UnitSize) }

// HeapMap is one assembled heap dump (HPST…HPEN or NHST…NHEN).
type HeapMap struct {
	HeapID    uint32
	Native    bool
	PerObject bool    // built from HPSO: blocks end at object boundaries
	Pieces    []Piece // sorted by address; touching pieces merged
	Complete  bool    // the end marker arrived
	Rejected  []error // pieces dropped because their run list was invalid

	arena []Block // blocks of all pieces back to back, when reserved (HeapAssembler.Reserve)

	// Blocks and bytes by state byte of the pieces add accepted: the
	// totals as Totals computes them, without a pass over the blocks.
	stBlocks, stBytes [64]uint64
}

// Clone returns a deep copy of m.
func (m *HeapMap) Clone() *HeapMap {
	if m == nil {
		return nil
	}
	c := *m
	c.Pieces = make([]Piece, len(m.Pieces))
	for i, p := range m.Pieces {
		p.Blocks = append([]Block(nil), p.Blocks...)
		p.inArena = false
		c.Pieces[i] = p
	}
	c.arena = nil
	c.Rejected = append([]error(nil), m.Rejected...)
	return &c
}

// Bounds on what a VM's heap segments make the monitor hold: the blocks of
// one heap map (16M blocks, 128 MiB; a real VM's map has a block per object
// at most), the maps assembled at once (a VM has a few heaps), and the
// errors a map keeps.
const (
	MaxHeapMapBlocks = 1 << 24
	maxOpenHeapMaps  = 16
	maxRejected      = 64
)

// reject records a piece dropped, keeping the first maxRejected errors.
func (m *HeapMap) reject(err error) {
	if len(m.Rejected) < maxRejected {
		m.Rejected = append(m.Rejected, err)
	}
}

func (m *HeapMap) add(s *HeapSegment) error {
	at, inArena := len(m.arena), cap(m.arena)-len(m.arena) >= len(s.Runs)/2
	var blocks []Block
	var err error
	var c stateCounts
	if inArena {
		blocks, err = s.blocksCounted(m.arena, &c)
	} else {
		blocks, err = s.blocksCounted(nil, &c)
	}
	if err != nil {
		m.reject(err)
		return err
	}
	var total uint64
	for _, n := range m.stBlocks {
		total += n
	}
	if total+uint64(len(blocks)) > MaxHeapMapBlocks {
		err := fmt.Errorf("%w: heap %d would have more than %d blocks", ErrTooLong, m.HeapID, MaxHeapMapBlocks)
		m.reject(err)
		return err
	}
	for st := range 64 {
		m.stBlocks[st] += c.blocks[st]
		m.stBytes[st] += c.units[st] * uint64(s.UnitSize)
	}
	if inArena {
		m.arena = m.arena[:at+len(blocks)]
		blocks = blocks[:len(blocks):len(blocks)] // appends to a piece never reach the next
	}
	if s.Type == HPSO {
		m.PerObject = true
	}
	m.Pieces = append(m.Pieces, Piece{
		Start:    uint64(s.Start) + uint64(s.Offset),
		UnitSize: uint32(s.UnitSize),
		Units:    uint64(s.UnitCount),
		Blocks:   blocks,
		inArena:  inArena,
		at:       at,
	})
	return nil
}

// finish sorts pieces by address and joins each piece onto the previous one
// when they have the same unit size and touch, as ddmlib does.
func (m *HeapMap) finish() {
	sort.SliceStable(m.Pieces, func(i, j int) bool { return m.Pieces[i].Start < m.Pieces[j].Start })
	// Group touching pieces first, then copy each group's blocks once.
	var out []Piece
	var first []int // index in m.Pieces of each group's first piece
	nblocks := []int{}
	for i, p := range m.Pieces {
		if n := len(out); n > 0 && out[n-1].UnitSize == p.UnitSize && out[n-1].End() == p.Start {
			out[n-1].Units += p.Units
			nblocks[n-1] += len(p.Blocks)
			continue
		}
		out = append(out, Piece{Start: p.Start, UnitSize: p.UnitSize, Units: p.Units})
		first = append(first, i)
		nblocks = append(nblocks, len(p.Blocks))
	}
	for g := range out {
		end := len(m.Pieces)
		if g+1 < len(first) {
			end = first[g+1]
		}
		if end-first[g] == 1 {
			out[g].Blocks = m.Pieces[first[g]].Blocks
			continue
		}
		// Pieces decoded back to back into the arena join without a copy.
		group, next := m.Pieces[first[g]:end], m.Pieces[first[g]].at
		for _, p := range group {
			if !p.inArena || p.at != next {
				next = -1
				break
			}
			next += len(p.Blocks)
		}
		if next >= 0 {
			out[g].Blocks = m.arena[group[0].at:next:next]
			continue
		}
		blocks := make([]Block, 0, nblocks[g])
		for _, p := range m.Pieces[first[g]:end] {
			blocks = append(blocks, p.Blocks...)
		}
		out[g].Blocks = blocks
	}
	m.Pieces = out
}

// Count is a number of blocks and the bytes they cover.
type Count struct {
	Blocks uint64
	Bytes  uint64
}

// Totals summarises a heap map.
type Totals struct {
	Bytes      uint64   // everything the map covers
	Free       Count    // solidity 0
	ByKind     [8]Count // allocated (non-free) blocks by kind
	BySolidity [8]Count // all blocks by solidity
}

// Totals counts m's blocks. For HPSO maps a block is an object; for HPSG maps
// a block is a run and may hold several objects.
func (m *HeapMap) Totals() Totals {
	// Count units by state first (a tight loop), then fold into the totals.
	var t Totals
	for _, p := range m.Pieces {
		var blocks, units [64]uint64
		for _, b := range p.Blocks {
			st := (b.Kind&7)<<3 | Kind(b.Solidity&7)
			blocks[st]++
			units[st] += uint64(b.Units)
		}
		for st := range 64 {
			t.addState(st, blocks[st], units[st]*uint64(p.UnitSize))
		}
	}
	return t
}

// addState adds blocks of state byte st covering bytes.
func (t *Totals) addState(st int, blocks, bytes uint64) {
	if blocks == 0 {
		return
	}
	c := Count{Blocks: blocks, Bytes: bytes}
	k, sol := st>>3, st&7
	t.Bytes += c.Bytes
	t.BySolidity[sol].Blocks += c.Blocks
	t.BySolidity[sol].Bytes += c.Bytes
	if Solidity(sol) == SolidFree {
		t.Free.Blocks += c.Blocks
		t.Free.Bytes += c.Bytes
	} else {
		t.ByKind[k].Blocks += c.Blocks
		t.ByKind[k].Bytes += c.Bytes
	}
}

// addedTotals are the totals of the pieces m.add accepted, counted while
// decoding; the same as m.Totals() for a map only HeapAssembler built.
func (m *HeapMap) addedTotals() Totals {
	var t Totals
	for st := range 64 {
		t.addState(st, m.stBlocks[st], m.stBytes[st])
	}
	return t
}

func (c *Count) add(bytes uint64) { c.Blocks++; c.Bytes += bytes }

type heapKey struct {
	id     uint32
	native bool
}

// HeapAssembler turns HPST/HPSG/HPSO/HPEN and NHST/NHSG/NHEN messages into
// heap maps, one in progress per (heap id, native). It is not safe for
// concurrent use; [ClientData] wraps one.
type HeapAssembler struct {
	open    map[heapKey]*HeapMap
	reserve int
	reuse   []Block // an array Reserve may hand to the next map instead of allocating
}

// Reserve makes the next map begun (HPST/NHST) decode its pieces back to
// back into one array of room for n blocks, so touching pieces join without
// copying; n is at most the run lists' total length / 2.
func (a *HeapAssembler) Reserve(n int) { a.reserve = n }

// addSegment feeds one heap segment.
func (a *HeapAssembler) addSegment(m *HeapSegment) error {
	if a.open == nil {
		a.open = map[heapKey]*HeapMap{}
	}
	k := heapKey{m.HeapID, m.Type == NHSG}
	hm := a.open[k]
	if hm == nil && len(a.open) >= maxOpenHeapMaps {
		return fmt.Errorf("%w: more than %d heap maps assembled at once", ErrTooLong, maxOpenHeapMaps)
	}
	if hm == nil {
		// A segment without a start marker: begin a map anyway, as ddmlib does.
		hm = &HeapMap{HeapID: k.id, Native: k.native}
		a.open[k] = hm
	}
	return hm.add(m)
}

// Add feeds one message. It returns the finished map when m is an end marker,
// and an error for a piece rejected by validation (the map keeps assembling
// and records the error in Rejected). Other message types are ignored.
func (a *HeapAssembler) Add(m Message) (*HeapMap, error) {
	if a.open == nil {
		a.open = map[heapKey]*HeapMap{}
	}
	switch m := m.(type) {
	case *HeapDumpStart:
		if a.open[heapKey{m.HeapID, m.Native}] == nil && len(a.open) >= maxOpenHeapMaps {
			return nil, fmt.Errorf("%w: more than %d heap maps assembled at once", ErrTooLong, maxOpenHeapMaps)
		}
		hm := &HeapMap{HeapID: m.HeapID, Native: m.Native}
		if a.reserve > 0 {
			if cap(a.reuse) >= a.reserve {
				hm.arena = a.reuse[:0]
			} else {
				hm.arena = make([]Block, 0, a.reserve)
			}
			a.reserve, a.reuse = 0, nil
		}
		a.open[heapKey{m.HeapID, m.Native}] = hm
	case *HeapSegment:
		return nil, a.addSegment(m)
	case *HeapDumpEnd:
		k := heapKey{m.HeapID, m.Native}
		hm := a.open[k]
		if hm == nil {
			hm = &HeapMap{HeapID: k.id, Native: k.native}
		}
		delete(a.open, k)
		hm.finish()
		hm.Complete = true
		return hm, nil
	}
	return nil, nil
}
