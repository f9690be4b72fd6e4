package hprof

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The one JSON schema of HPROF results, as ddm/view.go is for DDM: the
// monitor's hprof/* results (docs/rpc.md), `ddmbridge hprof FILE --json` and
// the editor's strict decoder (vscode-extension/src/heap/hprof.ts, whose
// fixtures TestExtensionFixtures writes from these types) all carry these
// objects. [ClassStat], [Object], [DupString] and [Path] are part of it.

// SummaryJSON is a dump's facts and its class histogram: the hprof/summary
// result and `ddmbridge hprof FILE --json`'s "summary".
type SummaryJSON struct {
	Path       string      `json:"path"`
	Format     string      `json:"format"` // "JAVA PROFILE 1.0.2" (HotSpot), "JAVA PROFILE 1.0.3" (Android)
	IDSize     int         `json:"idSize"`
	Timestamp  time.Time   `json:"timestamp"`
	Android    bool        `json:"android"`
	Heaps      []string    `json:"heaps"`
	Objects    int         `json:"objects"`
	Roots      int         `json:"roots"`      // GC root records that name an object of the dump
	Unresolved int         `json:"unresolved"` // references to ids without an object
	Oops       string      `json:"oops"`       // the reference width sizes assume: "compressed", "wide"; "auto" where it does not apply
	Partial    bool        `json:"partial"`    // the dump is cut short: the figures cover its complete records
	Warnings   []string    `json:"warnings"`   // what the parser accepted but a reader should know
	Classes    []ClassStat `json:"classes"`    // biggest total first
	Totals     TotalsJSON  `json:"totals"`
	// Streamed marks a summary from one pass over the file without a
	// model ([StreamedSummary]): roots counts the dump's root records as
	// listed, and unresolved is not known (0).
	Streamed bool `json:"streamed,omitempty"`
}

// TotalsJSON sums a histogram up.
type TotalsJSON struct {
	Classes   int   `json:"classes"`
	Instances int64 `json:"instances"`
	Bytes     int64 `json:"bytes"`
}

// DomNodeJSON is one object in the dominator tree.
type DomNodeJSON struct {
	Object
	Children int `json:"children"` // objects it immediately dominates
}

// DominatorsJSON is one level of the dominator tree: the children of Object
// (the virtual root above the GC roots when absent), largest retained size
// first. The hprof/dominators result and the CLI's "dominators".
type DominatorsJSON struct {
	Path      string        `json:"path"`
	Object    *DomNodeJSON  `json:"object,omitempty"`
	Children  []DomNodeJSON `json:"children"`
	More      int           `json:"more"`      // children left out by the limit
	Reachable int           `json:"reachable"` // objects reachable from a GC root
	Total     uint64        `json:"total"`     // retained bytes of the whole tree (the reachable heap)
}

// ClassDeltaJSON is one class's change between two dumps.
type ClassDeltaJSON struct {
	Class        string `json:"class"`
	Instances    int64  `json:"instances"` // new − old
	Bytes        int64  `json:"bytes"`     // new − old
	OldInstances int64  `json:"oldInstances"`
	OldBytes     int64  `json:"oldBytes"`
	NewInstances int64  `json:"newInstances"`
	NewBytes     int64  `json:"newBytes"`
}

// DiffJSON is the classes that changed from Base (the earlier dump) to
// Path, largest byte change first: the hprof/diff result and the CLI's
// "diff".
type DiffJSON struct {
	Path    string           `json:"path"`
	Base    string           `json:"base"`
	Classes []ClassDeltaJSON `json:"classes"`
	More    int              `json:"more,omitempty"` // changed classes left out by a limit
	Totals  struct {
		Old TotalsJSON `json:"old"`
		New TotalsJSON `json:"new"`
	} `json:"totals"`
}

// PathsJSON is the shortest paths from the GC roots to a set of objects
// (a class's instances, or one object), merged into a tree as Eclipse MAT's
// "merge shortest paths to GC roots": the hprof/paths result. Paths do not
// pass through the referent of a weak, soft or phantom reference.
type PathsJSON struct {
	Path    string         `json:"path"`
	Target  string         `json:"target"`  // what the paths lead to: a class name, or an object's label and id
	Objects int            `json:"objects"` // target objects
	Reached int            `json:"reached"` // of them, those a GC root reaches (the others have no path)
	Roots   []PathNodeJSON `json:"roots"`   // the GC roots of the paths, most targets first
	More    int            `json:"more"`    // roots left out by the tree's bound
}

// PathNodeJSON is one object of a merged path tree; its Field names the
// field or element of the node above that holds it.
type PathNodeJSON struct {
	PathStep
	Targets  int            `json:"targets"`          // target objects whose path runs through it, itself included
	Target   bool           `json:"target,omitempty"` // it is one of them
	Elided   *ChainGap      `json:"elided,omitempty"` // a chain of objects left out between it and Children
	Children []PathNodeJSON `json:"children"`         // most targets first
	More     int            `json:"more"`             // children left out by the tree's bound
}

// ChainGap is the elided middle of a long chain in a path tree.
type ChainGap struct {
	Count   int          `json:"count"`   // objects left out
	Classes []ClassCount `json:"classes"` // what they are, most frequent first (at most 5 classes)
}

// IncomingJSON is the objects that refer to one object, a page of them:
// the hprof/incoming result. Referrers hold it by a field or an element
// (Via empty; Field names it where the dump was read back for it) or, for
// a class, as the loader that defined it (Via "<defined class>"); the
// instances that hold a class as their class are counted, not listed.
type IncomingJSON struct {
	Path      string     `json:"path"`
	Object    PathStep   `json:"object"`    // the object; Root and RootDetail where it is a GC root itself
	Total     int        `json:"total"`     // referrers in all
	Offset    int        `json:"offset"`    // the first listed
	Referrers []PathStep `json:"referrers"` // in object order; Root where a referrer is a GC root
	Instances int        `json:"instances"` // for a class object: the instances it is the class of
}

// InstancesJSON is a page of a class's instances (classes of one name from
// several loaders together): the hprof/instances result.
type InstancesJSON struct {
	Path    string   `json:"path"`
	Class   string   `json:"class"`
	Total   int      `json:"total"`
	Offset  int      `json:"offset"`
	Objects []Object `json:"objects"` // largest retained size first where the dominator tree is known, else in address order
}

// ClassRetainedJSON is a class's retained size: the bytes its instances
// (classes of one name together) keep alive as a set — what would be freed
// if they all went, each object counted once.
type ClassRetainedJSON struct {
	Class    string `json:"class"`
	Retained uint64 `json:"retained"`
}

// RetainedJSON is the histogram's retained-size column: the hprof/retained
// result, largest first.
type RetainedJSON struct {
	Path    string              `json:"path"`
	Classes []ClassRetainedJSON `json:"classes"`
}

// DumpJSON is a heap dump just written: its file, its facts and the top of
// its class histogram. The DAP dumpHeap response body.
type DumpJSON struct {
	Path     string      `json:"path"`
	Bytes    int64       `json:"bytes"`
	Format   string      `json:"format"` // the HPROF header: "JAVA PROFILE 1.0.2"…
	Objects  int         `json:"objects"`
	Oops     string      `json:"oops"`     // as SummaryJSON's
	Partial  bool        `json:"partial"`  // as SummaryJSON's
	Warnings []string    `json:"warnings"` // as SummaryJSON's
	Top      []ClassStat `json:"top"`      // biggest classes first
}

// DumpOf describes the dump at path (bytes long) parsed as h, with the top
// classes of its histogram hist.
func DumpOf(path string, bytes int64, h *Heap, hist []ClassStat, top int) DumpJSON {
	return DumpJSON{Path: path, Bytes: bytes, Format: h.Format, Objects: h.NumObjects(), Oops: h.Oops.String(),
		Partial: h.Partial, Warnings: nonNil(h.Warnings), Top: nonNil(hist[:min(top, len(hist))])}
}

// TotalsOf sums a histogram up.
func TotalsOf(hist []ClassStat) TotalsJSON {
	t := TotalsJSON{Classes: len(hist)}
	for _, c := range hist {
		t.Instances += c.Instances
		t.Bytes += c.Bytes
	}
	return t
}

// SummaryOf describes h, whose histogram is hist, read from path.
func SummaryOf(path string, h *Heap, hist []ClassStat) SummaryJSON {
	roots, _ := h.Roots()
	ts := h.Timestamp
	if y := ts.Year(); y < 0 || y > 9999 {
		ts = time.Time{} // a header's clock past what JSON's RFC 3339 can say: not known
	}
	return SummaryJSON{Path: path, Format: h.Format, IDSize: h.IDSize, Timestamp: ts, Android: h.Android,
		Heaps: nonNil(h.HeapNames), Objects: h.NumObjects(), Roots: len(roots), Unresolved: h.Unresolved,
		Oops: h.Oops.String(), Partial: h.Partial, Warnings: nonNil(h.Warnings), Classes: nonNil(hist), Totals: TotalsOf(hist)}
}

// StreamedSummary is the summary of a dump from [StreamHistogram]'s one
// pass: the same histogram and facts as [SummaryOf]'s but for the roots
// (the dump's root records, as listed) and the references to ids without an
// object (not known without a model: 0), marked Streamed.
func StreamedSummary(path string, s *Streamed) SummaryJSON {
	ts := s.Timestamp
	if y := ts.Year(); y < 0 || y > 9999 {
		ts = time.Time{}
	}
	return SummaryJSON{Path: path, Format: s.Format, IDSize: s.IDSize, Timestamp: ts, Android: s.Android,
		Heaps: nonNil(s.HeapNames), Objects: int(s.Objects), Roots: s.Roots, Oops: s.Oops.String(), Partial: s.Partial,
		Warnings: nonNil(s.Warnings), Classes: nonNil(s.Histogram), Totals: TotalsOf(s.Histogram), Streamed: true}
}

// DiffOf compares the histograms of base (older) and path (newer), keeping
// the limit largest changes (0: all).
func DiffOf(path, base string, older, newer []ClassStat, limit int) DiffJSON {
	out := DiffJSON{Path: path, Base: base, Classes: []ClassDeltaJSON{}}
	for k, c := range Diff(older, newer) {
		if limit > 0 && k >= limit {
			out.More++
			continue
		}
		out.Classes = append(out.Classes, ClassDeltaJSON{Class: c.Class, Instances: c.Instances, Bytes: c.Bytes,
			OldInstances: c.Old.Instances, OldBytes: c.Old.Bytes, NewInstances: c.New.Instances, NewBytes: c.New.Bytes})
	}
	out.Totals.Old, out.Totals.New = TotalsOf(older), TotalsOf(newer)
	return out
}

// DomTree is a dominator tree with what its listings show besides: how many
// objects each object immediately dominates, how many are reachable and
// their retained total.
type DomTree struct {
	*Dominators
	Kids      []int32 // per object: the objects it immediately dominates
	Reachable int
	Total     uint64
}

// Tree counts what the listings of d show.
func (d *Dominators) Tree() *DomTree {
	t := &DomTree{Dominators: d, Kids: make([]int32, len(d.Idom))}
	for i, p := range d.Idom {
		switch {
		case p >= 0:
			t.Kids[p]++
		case p == Root:
			t.Total += d.Retained[i]
		}
		if p != NotReachable {
			t.Reachable++
		}
	}
	return t
}

// Level lists the objects of immediately dominates (Root: the top level),
// at most limit (0: all), for the dump at path.
func (t *DomTree) Level(path string, of int32, limit int) DominatorsJSON {
	out := DominatorsJSON{Path: path, Children: []DomNodeJSON{}, Reachable: t.Reachable, Total: t.Total}
	if of >= 0 {
		o := t.h.describe(of)
		o.Retained = t.Retained[of]
		out.Object = &DomNodeJSON{Object: o, Children: int(t.Kids[of])}
	}
	// Only the children listed are described: the top level of a big heap
	// has millions.
	n := 0
	for _, p := range t.Idom {
		if p == of {
			n++
		}
	}
	for _, o := range t.Children(of, limit) {
		out.Children = append(out.Children, DomNodeJSON{Object: o, Children: int(t.Kids[o.Index])})
	}
	out.More = n - len(out.Children)
	return out
}

// Level is [DomTree.Level] without the tree's child count per object: one
// pass over Idom counts the children of the objects listed only. For one
// listing of a big heap (the command line's), where Tree's array of counts
// would be the largest thing left in memory.
func (d *Dominators) Level(path string, of int32, limit int) DominatorsJSON {
	listed := d.Children(of, limit)
	mark := make([]uint64, (len(d.Idom)+63)/64)
	count := map[int32]int{}
	for _, o := range listed {
		mark[o.Index>>6] |= 1 << (o.Index & 63)
		count[o.Index] = 0
	}
	if of >= 0 {
		mark[of>>6] |= 1 << (of & 63)
		count[of] = 0
	}
	out := DominatorsJSON{Path: path, Children: []DomNodeJSON{}}
	n := 0
	for i, p := range d.Idom {
		switch {
		case p >= 0:
			if mark[p>>6]&(1<<(p&63)) != 0 {
				count[p]++
			}
		case p == Root:
			out.Total += d.Retained[i]
		}
		if p != NotReachable {
			out.Reachable++
		}
		if p == of {
			n++
		}
	}
	if of >= 0 {
		o := d.h.describe(of)
		o.Retained = d.Retained[of]
		out.Object = &DomNodeJSON{Object: o, Children: count[of]}
	}
	for _, o := range listed {
		out.Children = append(out.Children, DomNodeJSON{Object: o, Children: count[o.Index]})
	}
	out.More = n - len(out.Children)
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ErrSchema reports JSON that does not follow this schema.
var ErrSchema = errors.New("hprof: not the HPROF result schema")

func schemaErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrSchema}, args...)...)
}

// decodeStrict unmarshals data into v, refusing unknown fields and trailing
// data.
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

// DecodeSummaryJSON reads a summary strictly: unknown fields, a missing
// histogram and totals that are not the histogram's are errors.
func DecodeSummaryJSON(data []byte) (SummaryJSON, error) {
	var v SummaryJSON
	if err := decodeStrict(data, &v); err != nil {
		return v, err
	}
	if v.Classes == nil || v.Heaps == nil || v.Warnings == nil {
		return v, schemaErr("summary: classes, heaps and warnings are required")
	}
	if v.Oops != "auto" && v.Oops != "compressed" && v.Oops != "wide" {
		return v, schemaErr("summary: oops %q is not auto, compressed or wide", v.Oops)
	}
	if TotalsOf(v.Classes) != v.Totals {
		return v, schemaErr("summary: totals %+v are not the histogram's %+v", v.Totals, TotalsOf(v.Classes))
	}
	return v, nil
}

// DecodeDominatorsJSON reads one level of the dominator tree strictly:
// children largest retained size first, none retaining less than itself.
func DecodeDominatorsJSON(data []byte) (DominatorsJSON, error) {
	var v DominatorsJSON
	if err := decodeStrict(data, &v); err != nil {
		return v, err
	}
	if v.Children == nil {
		return v, schemaErr("dominators: children is required")
	}
	for i, c := range v.Children {
		if c.Retained < uint64(c.Size) {
			return v, schemaErr("dominators: children[%d] retains %d bytes, less than its own %d", i, c.Retained, c.Size)
		}
		if i > 0 && c.Retained > v.Children[i-1].Retained {
			return v, schemaErr("dominators: children[%d] retains more than children[%d]", i, i-1)
		}
	}
	return v, nil
}

// DecodeDiffJSON reads a diff strictly: each delta is new − old.
func DecodeDiffJSON(data []byte) (DiffJSON, error) {
	var v DiffJSON
	if err := decodeStrict(data, &v); err != nil {
		return v, err
	}
	if v.Classes == nil {
		return v, schemaErr("diff: classes is required")
	}
	for i, c := range v.Classes {
		if c.Instances != c.NewInstances-c.OldInstances || c.Bytes != c.NewBytes-c.OldBytes {
			return v, schemaErr("diff: classes[%d] (%s): the deltas are not new − old", i, c.Class)
		}
	}
	return v, nil
}

// DecodePathJSON reads a path strictly: the steps and the gap add up to
// its length.
func DecodePathJSON(data []byte) (Path, error) {
	var v Path
	if err := decodeStrict(data, &v); err != nil {
		return v, err
	}
	if v.Steps == nil {
		return v, schemaErr("path: steps is required")
	}
	n := len(v.Steps)
	if g := v.Elided; g != nil {
		if g.After < 0 || g.After > len(v.Steps) || g.Count <= 0 || g.Classes == nil {
			return v, schemaErr("path: elided %+v does not fit %d steps", *g, len(v.Steps))
		}
		n += g.Count
	}
	if n != v.Length {
		return v, schemaErr("path: %d objects in steps and gap, length says %d", n, v.Length)
	}
	return v, nil
}

// DecodePathsJSON reads a merged path tree strictly: no object has more
// targets below it than above, and the roots' targets are at most those
// reached.
func DecodePathsJSON(data []byte) (PathsJSON, error) {
	var v PathsJSON
	if err := decodeStrict(data, &v); err != nil {
		return v, err
	}
	if v.Roots == nil {
		return v, schemaErr("paths: roots is required")
	}
	if v.Reached > v.Objects {
		return v, schemaErr("paths: %d of %d objects reached", v.Reached, v.Objects)
	}
	var check func(ns []PathNodeJSON, above int, where string) (int, error)
	check = func(ns []PathNodeJSON, above int, where string) (int, error) {
		sum := 0
		for i, n := range ns {
			w := fmt.Sprintf("%s[%d]", where, i)
			if n.Children == nil {
				return 0, schemaErr("paths: %s: children is required", w)
			}
			if n.Targets <= 0 || n.Targets > above {
				return 0, schemaErr("paths: %s has %d targets below it, %d above", w, n.Targets, above)
			}
			if n.Elided != nil && (n.Elided.Count <= 0 || n.Elided.Classes == nil) {
				return 0, schemaErr("paths: %s: elided %+v", w, *n.Elided)
			}
			below, err := check(n.Children, n.Targets, w+".children")
			if err != nil {
				return 0, err
			}
			self := 0
			if n.Target {
				self = 1
			}
			if below+self > n.Targets || n.More == 0 && below+self != n.Targets {
				return 0, schemaErr("paths: %s has %d targets, its children %d and itself %d", w, n.Targets, below, self)
			}
			sum += n.Targets
		}
		return sum, nil
	}
	sum, err := check(v.Roots, v.Reached, "roots")
	if err != nil {
		return v, err
	}
	if sum > v.Reached || v.More == 0 && sum != v.Reached {
		return v, schemaErr("paths: the roots lead to %d targets, %d reached", sum, v.Reached)
	}
	return v, nil
}

// DecodeIncomingJSON reads a page of incoming references strictly.
func DecodeIncomingJSON(data []byte) (IncomingJSON, error) {
	var v IncomingJSON
	if err := decodeStrict(data, &v); err != nil {
		return v, err
	}
	if v.Referrers == nil || v.Offset < 0 || v.Offset+len(v.Referrers) > v.Total && len(v.Referrers) > 0 {
		return v, schemaErr("incoming: %d referrers from %d of %d", len(v.Referrers), v.Offset, v.Total)
	}
	return v, nil
}

// DecodeInstancesJSON reads a page of instances strictly.
func DecodeInstancesJSON(data []byte) (InstancesJSON, error) {
	var v InstancesJSON
	if err := decodeStrict(data, &v); err != nil {
		return v, err
	}
	if v.Objects == nil || v.Offset < 0 || v.Offset+len(v.Objects) > v.Total && len(v.Objects) > 0 {
		return v, schemaErr("instances: %d objects from %d of %d", len(v.Objects), v.Offset, v.Total)
	}
	return v, nil
}

// DecodeRetainedJSON reads the retained-size column strictly: largest
// first.
func DecodeRetainedJSON(data []byte) (RetainedJSON, error) {
	var v RetainedJSON
	if err := decodeStrict(data, &v); err != nil {
		return v, err
	}
	if v.Classes == nil {
		return v, schemaErr("retained: classes is required")
	}
	for i := 1; i < len(v.Classes); i++ {
		if v.Classes[i].Retained > v.Classes[i-1].Retained {
			return v, schemaErr("retained: classes[%d] retains more than classes[%d]", i, i-1)
		}
	}
	return v, nil
}

// DecodeDumpJSON reads a dump's description strictly.
func DecodeDumpJSON(data []byte) (DumpJSON, error) {
	var v DumpJSON
	if err := decodeStrict(data, &v); err != nil {
		return v, err
	}
	if v.Top == nil || v.Warnings == nil {
		return v, schemaErr("dump: top and warnings are required")
	}
	if v.Oops != "auto" && v.Oops != "compressed" && v.Oops != "wide" {
		return v, schemaErr("dump: oops %q is not auto, compressed or wide", v.Oops)
	}
	return v, nil
}
