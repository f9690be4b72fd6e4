package ddm

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"maps"
	"slices"
	"sort"
)

// The one JSON schema the editor sees for a VM's threads and heaps: the
// monitor's JSON-RPC results and notifications (vm/threads, vm/heapInfo,
// vm/heap, vm/heapMap, hprof/heapMap) and the DAP session's custom events
// (ddmThreads, ddmHeapInfo, ddmHeapMap) carry these objects, documented in
// docs/rpc.md. A heap map carries what a view draws: blocks as indexes into
// a table of styles (kind, solidity, colour) and the legend, so no client
// decodes DDM run lists or keeps a palette of its own.

// ThreadJSON is one thread of a VM. For DDM VMs it comes from THCR/THST (ID is
// the VM's small thread id); for plain JDWP VMs from VirtualMachine.AllThreads,
// ThreadReference.Name and ThreadReference.Status (ID is the JDWP thread id).
type ThreadJSON struct {
	ID        uint64 `json:"id"`
	Name      string `json:"name"`
	State     string `json:"state"` // one of ThreadStateNames
	Suspended bool   `json:"suspended"`
	Daemon    bool   `json:"daemon,omitempty"`
	TID       uint32 `json:"tid,omitempty"`   // Linux thread id (DDM, or /proc for a JVM on this machine)
	UTime     uint32 `json:"utime,omitempty"` // user CPU time in clock ticks (1/100 s), likewise
	STime     uint32 `json:"stime,omitempty"` // system CPU time in clock ticks, likewise
}

// ThreadsJSON is a VM's thread list: the vm/threads result and notification
// and the ddmThreads event body.
type ThreadsJSON struct {
	ID      string       `json:"id"` // the monitor's VM id; a stand-alone session's VM address
	Threads []ThreadJSON `json:"threads"`
	Note    string       `json:"note,omitempty"` // what the list lacks and why (a VM without THST)
}

// StateUnknown is the state of a thread whose state the VM does not tell.
const StateUnknown = "unknown"

// ThreadStateNames are the values of ThreadJSON.State: the DDM states, then
// StateUnknown. JDWP statuses map onto the first five.
func ThreadStateNames() []string {
	return append(slices.Clone(threadStateNames[:]), StateUnknown)
}

// StateName is s's name in the schema: StateUnknown outside the DDM range.
func StateName(s ThreadState) string {
	if int(s) < len(threadStateNames) {
		return threadStateNames[s]
	}
	return StateUnknown
}

// ThreadsOf converts the model's threads, ordered by id.
func ThreadsOf(ts []Thread) []ThreadJSON {
	out := make([]ThreadJSON, 0, len(ts))
	for _, t := range ts {
		j := ThreadJSON{ID: uint64(t.ID), Name: t.Name, State: StateUnknown, Suspended: t.Suspended,
			Daemon: t.Daemon, TID: t.TID, UTime: t.UTime, STime: t.STime}
		if t.HaveStatus {
			j.State = StateName(t.Status)
		}
		out = append(out, j)
	}
	return out
}

// HeapStatsJSON is one heap of HPIF.
type HeapStatsJSON struct {
	HeapID           uint32 `json:"heapId"`
	TimestampMs      uint64 `json:"timestampMs"` // ms since the Unix epoch
	Reason           uint8  `json:"reason"`      // what triggered it: 1 request, 2 next GC, 3 every GC
	MaxBytes         uint32 `json:"maxBytes"`
	SizeBytes        uint32 `json:"sizeBytes"`
	AllocatedBytes   uint32 `json:"allocatedBytes"`
	AllocatedObjects uint32 `json:"allocatedObjects"`
}

// HeapInfoJSON is a VM's heap statistics: the vm/heapInfo result, the vm/heap
// notification and the ddmHeapInfo event body.
type HeapInfoJSON struct {
	ID    string          `json:"id"`
	Heaps []HeapStatsJSON `json:"heaps"` // by heap id
	// DumpSource is set when the statistics come from a heap dump rather
	// than the VM's reports (a local HotSpot VM; current Android, which
	// sends no HPIF): "dump", with the dump's time (RFC 3339) and why.
	DumpSource
}

// DumpSource says that heap data was read from a heap dump, and when.
type DumpSource struct {
	Source   string `json:"source,omitempty"`   // "dump", or empty for the VM's own reports
	DumpedAt string `json:"dumpedAt,omitempty"` // the dump's time, RFC 3339
	Note     string `json:"note,omitempty"`     // why, in words
}

// HeapStatsOf converts the model's heap statistics, ordered by heap id.
func HeapStatsOf(m map[uint32]HeapStats) []HeapStatsJSON {
	out := make([]HeapStatsJSON, 0, len(m))
	for _, h := range m {
		out = append(out, HeapStatsJSON{h.HeapID, h.TimestampMs, h.Reason, h.MaxBytes, h.SizeBytes, h.AllocatedBytes, h.AllocatedObjects})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].HeapID < out[j].HeapID })
	return out
}

// HeapMapJSON is a heap map as views draw it: the vm/heapMap and
// hprof/heapMap results and the ddmHeapMap event body.
//
// Each piece's Blocks are pairs (style, units): Styles[style] says the
// block's kind, solidity and colour. Runs, the same blocks in the DDM
// run-length encoding (base64; shared/reference/ddm.md §6), is kept for
// scripts written against it; views read Blocks.
type HeapMapJSON struct {
	ID        string          `json:"id"`
	HeapID    uint32          `json:"heapId"`
	PerObject bool            `json:"perObject"`
	Styles    []BlockStyle    `json:"styles"`
	Pieces    []HeapPieceJSON `json:"pieces"`
	Totals    HeapTotalsJSON  `json:"totals"`
	Legend    []LegendJSON    `json:"legend"`
	PNG       string          `json:"png,omitempty"` // base64 PNG in the DDMS colours, when asked for
	DumpSource
}

// BlockStyle is what a block looks like: its kind and solidity (names as
// [Kind.String] and [Solidity.String]) and its colour, "#rrggbb".
type BlockStyle struct {
	Kind     string `json:"kind"`
	Solidity string `json:"solidity"`
	Color    string `json:"color"`
}

// HeapPieceJSON is one contiguous stretch of the heap.
type HeapPieceJSON struct {
	Start    uint64   `json:"start"`    // address
	UnitSize uint32   `json:"unitSize"` // bytes per allocation unit
	Units    uint64   `json:"units"`
	Blocks   []uint32 `json:"blocks"` // pairs: index into Styles, length in units (> 0)
	Runs     string   `json:"runs"`   // base64 DDM run list of the same blocks
}

// HeapTotalsJSON sums a heap map up.
type HeapTotalsJSON struct {
	Bytes     uint64            `json:"bytes"`     // covered by the map
	FreeBytes uint64            `json:"freeBytes"` // free
	ByKind    map[string]uint64 `json:"byKind"`    // allocated bytes by kind name
}

// LegendJSON is one line of the heap map's legend: Key is "gap", "free" or a
// kind name; Color is "#rrggbb".
type LegendJSON struct {
	Key    string `json:"key"`
	Label  string `json:"label"`
	Detail string `json:"detail"`
	Color  string `json:"color"`
}

// LegendNote is the legend's last line: what the paler colours mean.
const LegendNote = "Paler: soft, weak, phantom, finalizable, about to be swept."

// LegendTable is the legend every heap-map renderer shows, in DDMS order:
// free space, the kinds, then the gap between pieces.
func LegendTable() []LegendJSON {
	rows := legendRows()
	out := make([]LegendJSON, len(rows))
	for i, r := range rows {
		out[i] = LegendJSON{r.key, r.label, r.detail, hexColor(r.c)}
	}
	return out
}

type legendRow struct {
	key, label, detail string
	c                  color.RGBA
}

// legendRows is the one legend: the colours of render.go with their meaning.
func legendRows() []legendRow {
	out := []legendRow{{"free", "free", "free space", colorFree}}
	for k := KindObject; k <= KindNative; k++ {
		out = append(out, legendRow{k.String(), k.String(), kindDetails[k], kindColor[k]})
	}
	return append(out, legendRow{"gap", "heap expansion area", "between and after pieces", colorGap})
}

// kindDetails say what each kind holds, as the DDMS legend does.
var kindDetails = [8]string{"data object", "class object", "byte[], boolean[]", "char[], short[]",
	"int[], float[], Object[]", "long[], double[]", "unknown object", "non-Java object"}

func hexColor(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// HeapMapOf converts a heap map (id names the VM or the dump); with withPNG
// it also renders it, width pixels wide (0: 256).
func HeapMapOf(id string, hm *HeapMap, withPNG bool, width int) (HeapMapJSON, error) {
	out := HeapMapJSON{ID: id, HeapID: hm.HeapID, PerObject: hm.PerObject, Styles: []BlockStyle{},
		Pieces: []HeapPieceJSON{}, Legend: LegendTable()}
	var style [64]int // state → index+1 in Styles
	for _, p := range hm.Pieces {
		jp := HeapPieceJSON{Start: p.Start, UnitSize: p.UnitSize, Units: p.Units, Blocks: make([]uint32, 0, 2*len(p.Blocks)),
			Runs: base64.StdEncoding.EncodeToString(AppendRuns(nil, p.Blocks))}
		for _, b := range p.Blocks {
			st := int(b.Kind&7)<<3 | int(b.Solidity&7)
			if style[st] == 0 {
				out.Styles = append(out.Styles, BlockStyle{Kind: (b.Kind & 7).String(), Solidity: (b.Solidity & 7).String(), Color: hexColor(BlockColor(b))})
				style[st] = len(out.Styles)
			}
			jp.Blocks = append(jp.Blocks, uint32(style[st]-1), b.Units)
		}
		out.Pieces = append(out.Pieces, jp)
	}
	t := hm.Totals()
	out.Totals = HeapTotalsJSON{Bytes: t.Bytes, FreeBytes: t.Free.Bytes, ByKind: map[string]uint64{}}
	for k, c := range t.ByKind {
		if c.Bytes > 0 {
			out.Totals.ByKind[Kind(k).String()] = c.Bytes
		}
	}
	if withPNG {
		var b bytes.Buffer
		if err := png.Encode(&b, hm.Image(RenderOptions{Width: width})); err != nil {
			return out, err
		}
		out.PNG = base64.StdEncoding.EncodeToString(b.Bytes())
	}
	return out, nil
}

// RunBlocks decodes the piece's runs back into blocks.
func (p HeapPieceJSON) RunBlocks() ([]Block, error) {
	b, err := base64.StdEncoding.DecodeString(p.Runs)
	if err != nil {
		return nil, err
	}
	blocks, _, err := DecodeRuns(b)
	return blocks, err
}

// ErrSchema marks JSON that does not follow the schema.
var ErrSchema = errors.New("not a valid ddmbridge DDM object")

func schemaErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrSchema}, args...)...)
}

// decodeStrict unmarshals data into v, refusing unknown fields and trailing data.
func decodeStrict(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return schemaErr("%v", err)
	}
	if d.More() {
		return schemaErr("data after the object")
	}
	return nil
}

// DecodeThreadsJSON reads a thread list strictly: unknown fields, missing
// lists and unknown states are errors.
func DecodeThreadsJSON(data []byte) (ThreadsJSON, error) {
	var v ThreadsJSON
	if err := decodeStrict(data, &v); err != nil {
		return v, err
	}
	return v, v.Validate()
}

// Validate checks what JSON types cannot.
func (v ThreadsJSON) Validate() error {
	if v.Threads == nil {
		return schemaErr("threads: missing")
	}
	names := ThreadStateNames()
	for i, t := range v.Threads {
		if !slices.Contains(names, t.State) {
			return schemaErr("threads[%d]: state %q is not one of %v", i, t.State, names)
		}
	}
	return nil
}

// DecodeHeapInfoJSON reads heap statistics strictly.
func DecodeHeapInfoJSON(data []byte) (HeapInfoJSON, error) {
	var v HeapInfoJSON
	if err := decodeStrict(data, &v); err != nil {
		return v, err
	}
	if v.Heaps == nil {
		return v, schemaErr("heaps: missing")
	}
	return v, nil
}

// DecodeHeapMapJSON reads a heap map strictly and checks it whole: styles
// name real kinds and solidities in their colours, every block points at a
// style and is at least one unit long, a piece's blocks cover exactly its
// units and agree with its runs, the totals are the blocks' and the legend is
// the legend.
func DecodeHeapMapJSON(data []byte) (HeapMapJSON, error) {
	var v HeapMapJSON
	if err := decodeStrict(data, &v); err != nil {
		return v, err
	}
	return v, v.Validate()
}

// Validate checks what JSON types cannot (see DecodeHeapMapJSON).
func (v HeapMapJSON) Validate() error {
	if v.Styles == nil || v.Pieces == nil || v.Legend == nil {
		return schemaErr("heap map: styles, pieces and legend are required")
	}
	if !slices.Equal(v.Legend, LegendTable()) {
		return schemaErr("heap map: the legend is not ddmbridge's")
	}
	blocks := make([]Block, len(v.Styles))
	for i, s := range v.Styles {
		k := slices.Index(kindNames[:], s.Kind)
		so := slices.Index(solidityNames[:], s.Solidity)
		if k < 0 || so < 0 {
			return schemaErr("styles[%d]: unknown kind %q or solidity %q", i, s.Kind, s.Solidity)
		}
		blocks[i] = Block{Kind: Kind(k), Solidity: Solidity(so)}
		if want := hexColor(BlockColor(blocks[i])); s.Color != want {
			return schemaErr("styles[%d]: colour %s, the map draws %s %s in %s", i, s.Color, s.Kind, s.Solidity, want)
		}
	}
	tot := HeapTotalsJSON{ByKind: map[string]uint64{}}
	for i, p := range v.Pieces {
		if p.UnitSize == 0 {
			return schemaErr("pieces[%d]: unit size 0", i)
		}
		if len(p.Blocks)%2 != 0 {
			return schemaErr("pieces[%d]: blocks hold %d numbers, not (style, units) pairs", i, len(p.Blocks))
		}
		var units uint64
		drawn := make([]Block, 0, len(p.Blocks)/2)
		for j := 0; j < len(p.Blocks); j += 2 {
			s, n := p.Blocks[j], p.Blocks[j+1]
			if int(s) >= len(v.Styles) || n == 0 {
				return schemaErr("pieces[%d].blocks[%d]: style %d of %d, %d units", i, j/2, s, len(v.Styles), n)
			}
			b := blocks[s]
			b.Units = n
			drawn = append(drawn, b)
			units += uint64(n)
			bytes := uint64(n) * uint64(p.UnitSize)
			tot.Bytes += bytes
			if b.Free() {
				tot.FreeBytes += bytes
			} else {
				tot.ByKind[b.Kind.String()] += bytes
			}
		}
		if units != p.Units {
			return schemaErr("pieces[%d]: blocks cover %d units, the piece %d", i, units, p.Units)
		}
		runs, err := p.RunBlocks()
		if err != nil {
			return schemaErr("pieces[%d].runs: %v", i, err)
		}
		if !slices.Equal(runs, drawn) {
			return schemaErr("pieces[%d]: runs and blocks differ", i)
		}
	}
	if v.Totals.Bytes != tot.Bytes || v.Totals.FreeBytes != tot.FreeBytes {
		return schemaErr("totals: %d bytes, %d free; the blocks cover %d, %d free", v.Totals.Bytes, v.Totals.FreeBytes, tot.Bytes, tot.FreeBytes)
	}
	if !maps.Equal(v.Totals.ByKind, tot.ByKind) {
		return schemaErr("totals.byKind: %v; the blocks hold %v", v.Totals.ByKind, tot.ByKind)
	}
	return nil
}
