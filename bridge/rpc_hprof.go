package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/ddmbridge/ddmbridge/ddm/hprof"
)

// The hprof/* methods analyse HPROF files on the monitor's host for the
// editor's heap views (docs/rpc.md): the class histogram, the dominator tree,
// the address heap map and the diff of two dumps. Each file is parsed once
// and kept in a small cache (the last hprofCacheSize dumps used), so that
// switching between the views of one dump, or diffing two, parses nothing
// again.

// hprofCacheSize bounds the parsed dumps kept: a dump and the one it is
// compared with.
const hprofCacheSize = 2

// HprofSummary is the hprof/summary result.
type HprofSummary struct {
	Path       string            `json:"path"`
	Format     string            `json:"format"`
	IDSize     int               `json:"idSize"`
	Timestamp  time.Time         `json:"timestamp"`
	Android    bool              `json:"android"`
	Heaps      []string          `json:"heaps"`
	Objects    int               `json:"objects"`
	Unresolved int               `json:"unresolved"` // references to ids without an object
	Classes    []hprof.ClassStat `json:"classes"`    // biggest total first
	Totals     HprofTotals       `json:"totals"`
}

// HprofTotals sums a histogram up.
type HprofTotals struct {
	Classes   int   `json:"classes"`
	Instances int64 `json:"instances"`
	Bytes     int64 `json:"bytes"`
}

// HprofDomNode is one object in the dominator tree.
type HprofDomNode struct {
	hprof.Object
	Children int `json:"children"` // objects it immediately dominates
}

// HprofDominators is the hprof/dominators result: the children of object
// (the virtual root when absent), largest retained size first.
type HprofDominators struct {
	Path      string         `json:"path"`
	Object    *HprofDomNode  `json:"object,omitempty"`
	Children  []HprofDomNode `json:"children"`
	More      int            `json:"more"`      // children left out by limit
	Reachable int            `json:"reachable"` // objects reachable from a GC root
	Total     uint64         `json:"total"`     // retained bytes of the whole tree (the reachable heap)
}

// HprofClassDelta is one line of hprof/diff.
type HprofClassDelta struct {
	Class        string `json:"class"`
	Instances    int64  `json:"instances"` // path − base
	Bytes        int64  `json:"bytes"`     // path − base
	OldInstances int64  `json:"oldInstances"`
	OldBytes     int64  `json:"oldBytes"`
	NewInstances int64  `json:"newInstances"`
	NewBytes     int64  `json:"newBytes"`
}

// HprofDiff is the hprof/diff result: the classes that changed, largest
// byte change first.
type HprofDiff struct {
	Path    string            `json:"path"`
	Base    string            `json:"base"`
	Classes []HprofClassDelta `json:"classes"`
	Totals  struct {
		Old HprofTotals `json:"old"`
		New HprofTotals `json:"new"`
	} `json:"totals"`
}

type hprofParams struct {
	Path   string  `json:"path"`
	Base   string  `json:"base"`   // hprof/diff: the earlier dump
	Object *uint64 `json:"object"` // hprof/dominators: drill into this object id
	Limit  int     `json:"limit"`  // hprof/dominators: children at most (default 100)
	PNG    bool    `json:"png"`    // hprof/heapMap
	Width  int     `json:"width"`  // hprof/heapMap
}

// hprofMethods are the methods on HPROF files, as a table.
var hprofMethods = map[string]func(ctx context.Context, p hprofParams) (any, error){
	"hprof/summary": func(ctx context.Context, p hprofParams) (any, error) {
		d, err := hprofDumps.get(ctx, p.Path)
		if err != nil {
			return nil, err
		}
		h := d.heap
		out := HprofSummary{Path: p.Path, Format: h.Format, IDSize: h.IDSize, Timestamp: h.Timestamp, Android: h.Android,
			Heaps: nonNil(h.HeapNames), Objects: h.NumObjects(), Unresolved: h.Unresolved, Classes: nonNil(d.histogram)}
		out.Totals = totals(d.histogram)
		return out, nil
	},
	"hprof/dominators": func(ctx context.Context, p hprofParams) (any, error) {
		if p.Limit < 0 || p.Limit > 10000 {
			return nil, rpcError(CodeInvalidParams, "hprof/dominators: limit %d outside 0..10000", p.Limit)
		}
		if p.Limit == 0 {
			p.Limit = 100
		}
		d, err := hprofDumps.get(ctx, p.Path)
		if err != nil {
			return nil, err
		}
		dom, kids := d.dominators()
		of := hprof.Root
		out := HprofDominators{Path: p.Path, Children: []HprofDomNode{}, Reachable: d.reachable, Total: d.total}
		if p.Object != nil {
			of = d.heap.Lookup(*p.Object)
			if of < 0 {
				return nil, rpcError(CodeInvalidParams, "hprof/dominators: the dump has no object 0x%x", *p.Object)
			}
			for _, o := range dom.Children(dom.Idom[of], 0) { // its siblings, to describe it with its retained size
				if o.Index == of {
					out.Object = &HprofDomNode{Object: o, Children: int(kids[of])}
				}
			}
		}
		all := dom.Children(of, 0)
		for k, o := range all {
			if k == p.Limit {
				out.More = len(all) - k
				break
			}
			out.Children = append(out.Children, HprofDomNode{Object: o, Children: int(kids[o.Index])})
		}
		return out, nil
	},
	"hprof/heapMap": func(ctx context.Context, p hprofParams) (any, error) {
		if p.Width < 0 || p.Width > 4096 {
			return nil, rpcError(CodeInvalidParams, "hprof/heapMap: width %d outside 0..4096", p.Width)
		}
		d, err := hprofDumps.get(ctx, p.Path)
		if err != nil {
			return nil, err
		}
		return EncodeHeapMap(p.Path, d.heap.Map(hprof.MapOptions{}), p.PNG, p.Width)
	},
	"hprof/diff": func(ctx context.Context, p hprofParams) (any, error) {
		if p.Base == "" {
			return nil, rpcError(CodeInvalidParams, "hprof/diff: params need \"base\", the earlier dump's path")
		}
		newer, err := hprofDumps.get(ctx, p.Path)
		if err != nil {
			return nil, err
		}
		older, err := hprofDumps.get(ctx, p.Base)
		if err != nil {
			return nil, err
		}
		out := HprofDiff{Path: p.Path, Base: p.Base, Classes: []HprofClassDelta{}}
		for _, c := range hprof.Diff(older.histogram, newer.histogram) {
			out.Classes = append(out.Classes, HprofClassDelta{Class: c.Class, Instances: c.Instances, Bytes: c.Bytes,
				OldInstances: c.Old.Instances, OldBytes: c.Old.Bytes, NewInstances: c.New.Instances, NewBytes: c.New.Bytes})
		}
		out.Totals.Old, out.Totals.New = totals(older.histogram), totals(newer.histogram)
		return out, nil
	},
}

func totals(h []hprof.ClassStat) HprofTotals {
	t := HprofTotals{Classes: len(h)}
	for _, c := range h {
		t.Instances += c.Instances
		t.Bytes += c.Bytes
	}
	return t
}

// dispatchHprof runs an hprof/* method; ok is false for other methods.
func dispatchHprof(ctx context.Context, req *jsonrpc2.Request) (res any, ok bool, err error) {
	method, ok := hprofMethods[req.Method]
	if !ok {
		return nil, false, nil
	}
	var p hprofParams
	if req.Params == nil {
		return nil, true, rpcError(CodeInvalidParams, "%s: missing params (want {\"path\": an absolute .hprof path})", req.Method)
	}
	if err := json.Unmarshal(*req.Params, &p); err != nil {
		return nil, true, rpcError(CodeInvalidParams, "%s: bad params: %v", req.Method, err)
	}
	for _, f := range []string{p.Path, p.Base} {
		if f != "" && !filepath.IsAbs(f) {
			return nil, true, rpcError(CodeInvalidParams, "%s: path %q is not absolute", req.Method, f)
		}
	}
	if p.Path == "" {
		return nil, true, rpcError(CodeInvalidParams, "%s: params need \"path\", an absolute .hprof path", req.Method)
	}
	res, err = method(ctx, p)
	return res, true, err
}

// hprofDump is one parsed file and what was computed from it.
type hprofDump struct {
	key   hprofKey
	ready chan struct{} // closed when heap or err is set
	heap  *hprof.Heap
	err   error

	histogram []hprof.ClassStat

	domOnce   sync.Once
	dom       *hprof.Dominators
	kids      []int32 // per object: how many objects it immediately dominates
	reachable int     // objects reachable from a GC root
	total     uint64  // their retained size
}

func (d *hprofDump) dominators() (*hprof.Dominators, []int32) {
	d.domOnce.Do(func() {
		d.dom = d.heap.Dominators()
		d.kids = make([]int32, len(d.dom.Idom))
		for i, p := range d.dom.Idom {
			switch {
			case p >= 0:
				d.kids[p]++
			case p == hprof.Root:
				d.total += d.dom.Retained[i]
			}
			if p != hprof.NotReachable {
				d.reachable++
			}
		}
	})
	return d.dom, d.kids
}

// hprofKey names one version of a file: a rewritten file is parsed again.
type hprofKey struct {
	path  string
	size  int64
	mtime time.Time
}

// hprofCache keeps the last dumps used, most recent first.
type hprofCache struct {
	mu    sync.Mutex
	dumps []*hprofDump
}

var hprofDumps = &hprofCache{}

func (c *hprofCache) get(ctx context.Context, path string) (*hprofDump, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, rpcError(CodeInvalidParams, "hprof: %v", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, rpcError(CodeInvalidParams, "hprof: %s is not a regular file", path)
	}
	key := hprofKey{path, fi.Size(), fi.ModTime()}
	c.mu.Lock()
	var d *hprofDump
	for k, e := range c.dumps {
		if e.key == key {
			d = e
			c.dumps = append(append([]*hprofDump{e}, c.dumps[:k]...), c.dumps[k+1:]...)
			break
		}
	}
	if d == nil {
		d = &hprofDump{key: key, ready: make(chan struct{})}
		c.dumps = append([]*hprofDump{d}, c.dumps...)
		if len(c.dumps) > hprofCacheSize {
			c.dumps = c.dumps[:hprofCacheSize]
		}
		go d.parse() // not bound to this request: a later one may wait for it
	}
	c.mu.Unlock()
	select {
	case <-d.ready:
	case <-ctx.Done():
		return nil, fmt.Errorf("parsing %s: %w", path, ctx.Err())
	}
	if d.err != nil {
		c.mu.Lock()
		for k, e := range c.dumps {
			if e == d {
				c.dumps = append(c.dumps[:k], c.dumps[k+1:]...)
				break
			}
		}
		c.mu.Unlock()
		return nil, rpcError(CodeInvalidParams, "hprof: %s: %v", path, d.err)
	}
	return d, nil
}

// parsing bounds the parses running at once: a client asking for many files
// in a row evicts them from the cache but cannot make them all parse at once.
var parsing = make(chan struct{}, hprofCacheSize)

func (d *hprofDump) parse() {
	defer close(d.ready)
	parsing <- struct{}{}
	defer func() { <-parsing }()
	f, err := os.Open(d.key.path)
	if err != nil {
		d.err = err
		return
	}
	defer f.Close()
	d.heap, d.err = hprof.Parse(f, hprof.Options{}) // it buffers; the file gives it the size
	if d.err == nil {
		d.histogram = d.heap.Histogram()
	}
}
