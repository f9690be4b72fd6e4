package ddm

import (
	"errors"
	"fmt"
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
	if len(runs)%2 != 0 {
		return nil, 0, fmt.Errorf("%w: run list of odd length %d", ErrBadSegment, len(runs))
	}
	out := make([]Block, 0, len(runs)/2) // one allocation per run list, not per run
	var total uint64
	for i := 0; i < len(runs); {
		state := runs[i]
		units := uint64(runs[i+1]) + 1
		i += 2
		for state&statePartial != 0 {
			if i >= len(runs) {
				return nil, 0, fmt.Errorf("%w: partial run (state 0x%02X) at the end of the run list", ErrBadSegment, state)
			}
			next := runs[i]
			if next&^statePartial != state&^statePartial {
				return nil, 0, fmt.Errorf("%w: partial run 0x%02X continued by 0x%02X at byte %d", ErrBadSegment, state, next, i)
			}
			state = next
			units += uint64(runs[i+1]) + 1
			i += 2
		}
		if state&stateUnused != 0 {
			return nil, 0, fmt.Errorf("%w: unused bit set in state 0x%02X at byte %d", ErrBadSegment, state, i-2)
		}
		if units > 1<<32-1 {
			return nil, 0, fmt.Errorf("%w: a block of %d units", ErrBadSegment, units)
		}
		out = append(out, Block{Kind: Kind(state >> 3 & 7), Solidity: Solidity(state & 7), Units: uint32(units)})
		total += units
	}
	return out, total, nil
}

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
	blocks, total, err := DecodeRuns(s.Runs)
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
		c.Pieces[i] = p
	}
	c.Rejected = append([]error(nil), m.Rejected...)
	return &c
}

func (m *HeapMap) add(s *HeapSegment) error {
	blocks, err := s.Blocks()
	if err != nil {
		m.Rejected = append(m.Rejected, err)
		return err
	}
	if s.Type == HPSO {
		m.PerObject = true
	}
	m.Pieces = append(m.Pieces, Piece{
		Start:    uint64(s.Start) + uint64(s.Offset),
		UnitSize: uint32(s.UnitSize),
		Units:    uint64(s.UnitCount),
		Blocks:   blocks,
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
			if blocks[st] == 0 {
				continue
			}
			c := Count{Blocks: blocks[st], Bytes: units[st] * uint64(p.UnitSize)}
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
	open map[heapKey]*HeapMap
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
		a.open[heapKey{m.HeapID, m.Native}] = &HeapMap{HeapID: m.HeapID, Native: m.Native}
	case *HeapSegment:
		k := heapKey{m.HeapID, m.Type == NHSG}
		hm := a.open[k]
		if hm == nil {
			// A segment without a start marker: begin a map anyway, as ddmlib does.
			hm = &HeapMap{HeapID: k.id, Native: k.native}
			a.open[k] = hm
		}
		return nil, hm.add(m)
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
