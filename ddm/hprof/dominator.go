package hprof

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"unsafe"
)

// Dominators is the dominator tree of a heap: a virtual root above every GC
// root, and for each object reachable from it (through the edges of
// [Heap.Succ]: references, classes and class loaders) the object
// that dominates it immediately and the bytes it retains (its own and those
// of every object it dominates). Unreachable objects have Idom NotReachable
// and retain nothing.
type Dominators struct {
	h        *Heap
	Idom     []int32  // per object: its immediate dominator, Root or NotReachable
	Retained []uint64 // per object
}

// Idom values that are not object indices.
const (
	Root         int32 = -1 // dominated by the virtual root only
	NotReachable int32 = -2
)

// Dominators computes the dominator tree with SEMI-NCA (Lengauer–Tarjan's
// semi-dominators with path compression, then nearest common ancestors;
// iterative, O(E log N) in practice) on int32 arrays in DFS order. Arrays
// are reused from phase to phase instead of allocated anew, so the garbage
// of one phase is not in the next one's peak: the DFS numbers become the
// result's Idom; the path-compression array (label and ancestor packed in
// one uint64 per node, compressed without a stack) holds the DFS order for
// a while, then becomes Retained; the predecessor starts give way to a bit
// per node (see semiNCA). While it runs: 2 × 4 + 8 bytes per object and 4
// per edge that is not a DFS tree edge (a reference, an object's edge to
// its class, a loader's to a class), plus the DFS stack (8 bytes a level,
// in blocks) and, while the predecessors are built, their starts (4 bytes
// an object). With [DomOptions.Spill] most of that and of the model waits
// in a file.
func (h *Heap) Dominators() *Dominators {
	d, err := h.DominatorsWith(DomOptions{})
	if err != nil {
		panic(err) // without a spill file nothing fails
	}
	return d
}

// DomOptions tune [Heap.DominatorsWith] and [Heap.DominatorsContext].
type DomOptions struct {
	// Spill computes the tree with the model's arrays that a phase does
	// not need in a temporary file instead of in memory: the ids and
	// sizes for the whole computation, the references and classes once
	// the depth-first search has numbered the objects (the predecessors
	// are then built from the file, read in sequence), the DFS order and
	// the predecessors while the semi-dominators are computed (read
	// backwards). The file is made mode 0600 in Dir (default
	// os.TempDir()) and its name removed at once, so it goes however the
	// process ends. When DominatorsWith returns the model is back but for
	// the references, which [Heap.Refs] reads back when first asked. On a
	// 1.49 GB HotSpot dump the peak goes from 1.02× the dump to 0.55×, for
	// about 1.7× the CPU time.
	Spill bool
	// Lean is the cheap part of Spill: the file holds the model's arrays
	// only while the computation does not read them, each written whole
	// once — the ids throughout, the classes once the DFS has numbered
	// the objects (read back in sequence where the predecessors and the
	// own sizes need them), the references once the predecessors are
	// built — while the graph is searched and the predecessors built and
	// walked in memory. The parse needs no Options.Spill for it. On a
	// 1.49 GB HotSpot dump 0.59× the dump (in memory then 0.96×) for
	// about 1.3× the CPU time (the writes into the page cache), measured
	// before Compact, which takes as little memory with no file. Spill,
	// when set too, is the one that counts.
	Lean bool
	// Compact holds the model's arrays packed in memory while the tree
	// does not read them whole, with no file: the ids throughout (varint
	// deltas), the classes throughout in 16 bits where there are at most
	// 65,536 (read in sequence once the search is done), and the
	// references once the depth-first search has numbered the objects
	// (the predecessors are built from them unpacked in sequence; they
	// stay packed until [Heap.Refs] first needs them). On a 1.49 GB
	// HotSpot dump 0.58× the dump (in memory 0.80×) for the CPU time of
	// the tree in memory. As with Lean, nothing else may use h while it
	// runs. Spill or Lean, when set too, is the one that counts.
	Compact bool
	Dir     string
}

// DominatorsWith is [Heap.Dominators] with options; it fails only where
// the spill file cannot be written or read back (a full disk: the model is
// then kept in memory as it was, and nothing is lost, except where reading
// it back failed, which the error says). With Spill, nothing else may use
// h while it runs (the model's arrays come and go).
func (h *Heap) DominatorsWith(opt DomOptions) (*Dominators, error) {
	return h.DominatorsContext(context.Background(), opt)
}

// DominatorsContext is [Heap.DominatorsWith] that stops when ctx is done:
// its long loops look at ctx once every 64 Ki objects (a few milliseconds;
// the depth-first search as it reaches them, the others by index), and the
// error then wraps ctx.Err(). The model is left whole and the spill file
// removed, as on any error.
func (h *Heap) DominatorsContext(ctx context.Context, opt DomOptions) (dom *Dominators, err error) {
	if h.refsOut.Load() != nil || h.refsPacked.Load() != nil {
		h.loadRefs() // a spill or a compact tree before left them out
	}
	var sp *spillFile
	if opt.Spill || opt.Lean {
		if sp, err = newSpillFile(opt.Dir); err != nil {
			return nil, err
		}
		// The ids and sizes wait on disk until the end. Their memory, and
		// what the parse left (its id index), goes back to the system.
		if err := sp.out(h, spillIDs, spillSize); err != nil {
			sp.remove()
			return nil, err
		}
		sp.keep = !opt.Spill
		defer func() {
			// Done: everything back but the references, which stay in
			// the file until Refs first needs them (a listing of the
			// tree does not). On an error everything comes back.
			sp.release() // the computation's arrays, before the model's come back
			var e error
			if err == nil {
				e = sp.in(h, spillIDs, spillSize, spillCls)
			}
			if err == nil && e == nil && sp.holds(spillRefs) {
				h.refsOut.Store(sp)
				return
			}
			if e2 := sp.in(h); e == nil {
				e = e2
			}
			sp.remove()
			if e != nil && err == nil {
				dom, err = nil, e
			}
		}()
	}
	n := int32(len(h.cls))
	// Compact: the ids packed, the classes in 16 bits, the references
	// packed once searched; all back at the end but the references, which
	// Refs unpacks when first asked.
	var cls16 []uint16
	var packed *packedRefs
	if opt.Compact && sp == nil {
		// What the parse left (its id index) back to the system first:
		// kept, the packed arrays and the search's do not all take its
		// place (0.64× the dump instead of 0.58× on the 1.49 GB one).
		debug.FreeOSMemory()
		ids := packIDs(&h.ids)
		h.ids = idList{}
		if len(h.Classes) <= packClassesMax {
			cls16 = make([]uint16, n)
			inBlocks(packBlocks(int(n)), func(b int) {
				s, e := blockRange(b, int(n))
				for o, c := range h.cls[s:e] {
					cls16[s+o] = uint16(c)
				}
			})
			h.cls = nil
		}
		runtime.GC() // their memory for the search's arrays
		defer func() {
			// The computation's garbage back to the system first, then
			// one array back at a time, its packed form returned before
			// the next (the smaller first): the result and the model are
			// all that is left.
			debug.FreeOSMemory()
			var e error
			if h.ids, e = ids.unpack(); e != nil {
				panic(e) // the process's own memory: nothing can go on
			}
			ids = nil
			if cls16 != nil {
				debug.FreeOSMemory()
				h.cls = make([]int32, n)
				inBlocks(packBlocks(int(n)), func(b int) {
					s, e := blockRange(b, int(n))
					for o, c := range cls16[s:e] {
						h.cls[s+o] = int32(c)
					}
				})
				cls16 = nil
			}
			debug.FreeOSMemory()
			if packed != nil {
				h.refsPacked.Store(packed)
			}
		}()
	}
	N := n + 1 // node 0 is the virtual root, object i is node i+1
	// Depth-first numbering: num[v] is v's DFS number + 1 (0 = unreached).
	num := make([]int32, max(N, 1))
	// The root's successors, each once: the GC roots (num marks the ones
	// taken, then is cleared).
	var rootSucc []int32
	for _, r := range h.roots {
		if num[r+1] == 0 {
			num[r+1] = -1
			rootSucc = append(rootSucc, r+1)
		}
	}
	// An object's edge to its class object is left out where the class
	// object is a root (the boot loader's classes): the virtual root is its
	// immediate dominator whatever else refers to it. This spares most of
	// the one edge per object.
	classNode := slices.Clone(h.classNode)
	for c, cn := range classNode {
		if cn >= 0 && num[cn+1] == -1 {
			classNode[c] = -1
		}
	}
	for _, w := range rootSucc {
		num[w] = 0
	}
	refStart, refs, cls, loaderCls := h.refStart, h.refs, h.cls, h.loaderCls
	// extra has a bit per object with successors beyond its references (a
	// class edge kept, a loader's classes): the DFS reads it, 1/32 of cls,
	// instead of cls in DFS order.
	extra := make([]uint64, (n+63)/64)
	hasExtra := make([]bool, len(classNode))
	for c, cn := range classNode {
		hasExtra[c] = cn >= 0 || loaderCls[c]
	}
	for o, c := range cls {
		if hasExtra[c] {
			extra[o>>6] |= 1 << (o & 63)
		}
	}
	for o, c := range cls16 {
		if hasExtra[c] {
			extra[o>>6] |= 1 << (o & 63)
		}
	}

	// vert (DFS number → node) is num's inverse, built after the search
	// (when a spill has made room for it).
	next := int32(0)
	// parent, by DFS number, shares its array with idom: LT sets idom[v]
	// only after the last use of parent[v].
	parent := make([]int32, 0, N)
	// Node v's successors: for an object its references, then its class
	// object, then (a class loader) the classes it defined; for the
	// virtual root the GC roots, each the start of a search. A frame
	// holds v and its place in refs (pos past v's end: the extras taken
	// so far): 8 bytes, for a search as deep as a list is long.
	type frame struct {
		v   int32
		pos uint32
	}
	// The stack grows in blocks, not by copying: a search as deep as a
	// list of millions of nodes leaves no copies behind.
	const block = 1 << 15
	stack := make([]frame, 0, block)
	var blocks [][]frame // full blocks below stack
	num[0] = 1
	next++
	parent = append(parent, -1)
	for _, r := range rootSucc {
		if num[r] != 0 {
			continue
		}
		d := next
		next++
		num[r] = d + 1
		parent = append(parent, 0)
		stack = append(stack, frame{r, refStart[r-1]})
		for len(stack) > 0 || len(blocks) > 0 {
			if len(stack) == 0 {
				stack, blocks = blocks[len(blocks)-1], blocks[:len(blocks)-1]
			}
			f := &stack[len(stack)-1]
			var w int32
			if end := refStart[f.v]; f.pos < end {
				w = refs[f.pos] + 1
				f.pos++
			} else {
				w = -1
				if o := f.v - 1; extra[o>>6]&(1<<(o&63)) != 0 {
					k := int32(f.pos - end)
					var c int32
					if cls16 != nil {
						c = int32(cls16[o])
					} else {
						c = cls[o]
					}
					if cn := classNode[c]; cn >= 0 {
						if k == 0 {
							w = cn + 1
						}
						k--
					}
					if w < 0 && loaderCls[c] {
						if l := h.loaded[o]; k >= 0 && int(k) < len(l) {
							w = l[k] + 1
						}
					}
				}
				if w < 0 {
					stack = stack[:len(stack)-1]
					continue
				}
				f.pos++
			}
			from := num[f.v] - 1
			if num[w] == 0 {
				d := next
				next++
				if next&(domCheckEvery-1) == 0 {
					if err := domStop(ctx); err != nil {
						return nil, err
					}
				}
				num[w] = d + 1
				parent = append(parent, from)
				if len(stack) == cap(stack) {
					blocks = append(blocks, stack)
					stack = make([]frame, 0, block)
				}
				stack = append(stack, frame{w, refStart[w-1]})
			}
		}
	}
	stack, blocks = nil, nil
	R := next // reachable nodes, root included
	// With a spill the references and classes go to the file: the
	// predecessors are built from it in index order.
	refs, refStart, cls = nil, nil, nil
	edges := func() *objectEdges { return &objectEdges{refStart: h.refStart, refs: h.refs, cls: h.cls, cls16: cls16} }
	if opt.Compact && sp == nil {
		debug.FreeOSMemory() // the search's stack, before the packed array
		packed = packRefs(h.refStart, h.refs)
		h.refStart, h.refs = nil, nil
		debug.FreeOSMemory() // their memory: the predecessors' are not of their sizes
		edges = func() *objectEdges {
			return &objectEdges{packed: &refsReader{p: packed}, cls: h.cls, cls16: cls16}
		}
	}
	full := sp != nil && opt.Spill // not Lean
	if full {
		if err := sp.out(h, spillRefs, spillRefStart, spillCls); err != nil {
			return nil, err
		}
		edges = func() *objectEdges { return &objectEdges{sp: sp} }
	}
	// vert (DFS number → node) is not read before the retained sizes. In
	// memory it is built then, from num, in the array of the predecessor
	// starts; with a spill num's array holds the semi-dominators, so it is
	// built now and waits in the file.
	var vert []int32
	var vertSeg spillSeg
	if full {
		vert = make([]int32, R)
		for v, d := range num {
			if d > 0 {
				vert[d-1] = int32(v)
			}
		}
		var err error
		if vertSeg, err = sp.put(asBytes(vert), len(vert)); err != nil {
			return nil, err
		}
		vert = nil
		debug.FreeOSMemory()
	}

	// Predecessors of reachable nodes, by DFS number, as CSR: a first pass
	// counts them, the counts become range ends, a second pass fills each
	// range downwards, which leaves predStart[d] at its start (no second
	// array). Edges from a node's DFS parent are not listed: the parent is
	// where its semi-dominator starts (most objects have no other
	// predecessor). The successors are as the DFS took them: references,
	// the class object, a loader's classes. The objects are taken in index
	// order, not DFS order, so that refStart, refs and cls are read in
	// sequence; the order of a node's predecessors does not matter.
	if sp != nil && !full {
		// Lean: the predecessors are built from the references in memory,
		// the classes read in sequence from the file.
		if err := sp.out(h, spillCls); err != nil {
			return nil, err
		}
		edges = func() *objectEdges {
			return &objectEdges{refStart: h.refStart, refs: h.refs, clsW: &window[int32]{s: sp, seg: sp.held[spillCls]}}
		}
	}
	pb := predBuilder{num: num, parent: parent, predStart: make([]int32, R+1)}
	var objs *objectEdges
	for pass := range 2 {
		if pass == 1 {
			predStart := pb.predStart
			for k := int32(1); k <= R; k++ {
				predStart[k] += predStart[k-1]
			}
			pb.pred, pb.fill = make([]int32, predStart[R]), true
		}
		for _, w := range rootSucc {
			pb.edge(w, 0)
		}
		objs = edges()
		pos := 0 // Compact: the place in packed.b
		for o := range n {
			if o&(domCheckEvery-1) == 0 {
				if err := domStop(ctx); err != nil {
					return nil, err
				}
			}
			k := num[o+1] - 1
			if packed != nil {
				// The packed references read here, not through objs: a
				// byte a value mostly, no copy.
				b := packed.b
				c, next := uvarintAt(b, pos)
				pos = next
				if k < 0 {
					for ; c > 0; pos++ {
						if b[pos] < 0x80 {
							c--
						}
					}
					continue
				}
				for ; c > 0; c-- {
					u, next := uvarintAt(b, pos)
					pos = next
					pb.edge(int32(int64(o)+unzigzag(u))+1, k)
				}
			} else if oRefs := objs.next(); k >= 0 {
				for _, w := range oRefs {
					pb.edge(w+1, k)
				}
			}
			if k < 0 || extra[o>>6]&(1<<(o&63)) == 0 {
				continue
			}
			c := objs.class(o)
			if cn := classNode[c]; cn >= 0 {
				pb.edge(cn+1, k)
			}
			if loaderCls[c] {
				for _, w := range h.loaded[o] {
					pb.edge(w+1, k)
				}
			}
		}
		if packed != nil && pos != len(packed.b) {
			return nil, errors.New("hprof: packed references broken")
		}
		if err := objs.err(); err != nil {
			return nil, err
		}
	}
	pred, predStart := pb.pred, pb.predStart
	pb = predBuilder{}
	objs = nil
	if sp != nil && !full {
		// Lean: the references are not read again. Their memory goes
		// back to the system: the path-compression array that comes next
		// is bigger than either piece.
		sp.keep = false
		if err := sp.out(h, spillRefs, spillRefStart); err != nil {
			return nil, err
		}
		sp.keep = true
	}
	if !full {
		return h.semiNCA(ctx, sp, cls16, n, R, num, parent, pred, predStart)
	}
	// With a spill the predecessors wait in the file too: the semi-
	// dominators read them in sequence, from the last node to the first.
	var predW *window[int32]
	var startW *window[int32]
	{
		ps, err := sp.put(asBytes(predStart), len(predStart))
		if err != nil {
			return nil, err
		}
		pp, err := sp.put(asBytes(pred), len(pred))
		if err != nil {
			return nil, err
		}
		pred, predStart = nil, nil
		debug.FreeOSMemory()
		startW = &window[int32]{s: sp, seg: ps, down: true}
		predW = &window[int32]{s: sp, seg: pp, down: true}
	}
	// From here on everything is by DFS number. num's array holds the
	// semi-dominators (vert waits in the file).
	semi := num[:R]

	// Semi-dominators as in Lengauer–Tarjan (eval with path compression,
	// link right after), then immediate dominators as nearest common
	// ancestors (SEMI-NCA, Georgiadis): no buckets, two arrays fewer.
	// la[k] is (ancestor+1)<<32 | label, 0 while k is not linked (its
	// label is then itself): the array starts as it is allocated, zero.
	// semi[k] is read only once k is processed, so it needs no start
	// value either.
	la := make([]uint64, max(R, n))
	idom := parent
	anc := func(x int32) int32 { return int32(la[x]>>32) - 1 }
	lab := func(x int32) int32 { return int32(uint32(la[x])) }
	eval := func(v int32) int32 {
		if la[v]>>32 == 0 {
			return v
		}
		// Compress the ancestor chain iteratively, with no stack (a chain
		// can be as long as a list): going up, each node's ancestor field
		// points back to the node below it; coming down, each takes its
		// ancestor's ancestor and the lesser label.
		x, below := v, int32(-1)
		for a := anc(x); la[a]>>32 != 0; a = anc(x) {
			la[x] = uint64(uint32(below+1))<<32 | la[x]&(1<<32-1)
			below, x = x, a
		}
		for a, cur := x, below; cur >= 0; {
			next := int32(la[cur]>>32) - 1
			l, ax := lab(cur), la[a]
			if al := int32(uint32(ax)); semi[al] < semi[l] {
				l = al
			}
			la[cur] = ax&^(1<<32-1) | uint64(uint32(l))
			a, cur = cur, next
		}
		return lab(v)
	}
	for w := R - 1; w > 0; w-- {
		if w&(domCheckEvery-1) == 0 {
			if err := domStop(ctx); err != nil {
				return nil, err
			}
		}
		sw := parent[w] // the DFS parent: a predecessor not listed
		preds := predW.span(int(startW.at(int(w))), int(startW.at(int(w+1))))
		for _, v := range preds {
			if v <= w {
				// Not processed yet, so not linked: eval(v) is v and
				// semi[v] would be v — no need to read either (most
				// edges are DFS tree and forward edges). v == w: a
				// reference to itself, which dominates nothing.
				sw = min(sw, v)
			} else if u := eval(v); semi[u] < sw {
				sw = semi[u]
			}
		}
		semi[w] = sw
		la[w] = uint64(uint32(parent[w]+1))<<32 | uint64(uint32(w)) // not linked before: its label is itself
	}
	if predW.err != nil || startW.err != nil {
		return nil, errors.Join(predW.err, startW.err)
	}
	predW, startW = nil, nil
	for w := int32(1); w < R; w++ {
		if w&(domCheckEvery-1) == 0 {
			if err := domStop(ctx); err != nil {
				return nil, err
			}
		}
		for idom[w] > semi[w] {
			idom[w] = idom[idom[w]]
		}
	}

	// Retained sizes, in la's array: children come after their dominator
	// in DFS order.
	retained := la[:n]
	clear(retained)
	sp.release() // the predecessors
	// Size reads the classes.
	if err := sp.in(h, spillSize, spillCls); err != nil {
		return nil, err
	}
	if vert, err = readSeg[int32](sp, vertSeg); err != nil {
		return nil, err
	}
	for w := R - 1; w > 0; w-- {
		if w&(domCheckEvery-1) == 0 {
			if err := domStop(ctx); err != nil {
				return nil, err
			}
		}
		o := vert[w] - 1
		retained[o] += uint64(h.Size(o))
		if d := idom[w]; d > 0 {
			retained[vert[d]-1] += retained[o]
		}
	}
	// Idom by object, in num's array (semi is no longer needed).
	out := num[:n]
	for i := range out {
		out[i] = NotReachable
	}
	for w := int32(1); w < R; w++ {
		if d := idom[w]; d > 0 {
			out[vert[w]-1] = vert[d] - 1
		} else {
			out[vert[w]-1] = Root
		}
	}
	return &Dominators{h: h, Idom: out, Retained: retained}, nil
}

// packClassesMax is how many classes Compact packs in 16 bits at most (a
// variable for the tests).
var packClassesMax = 1 << 16

// domCheckEvery is how many objects the dominator tree's long loops take
// between two looks at its context. A look per step of the depth-first
// search (per edge) cost 15% of the tree's CPU time; per object reached, and
// by index in the other loops, nothing measurable.
const domCheckEvery = 1 << 16

// domStop is the error to stop with once ctx is done.
func domStop(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("hprof: the dominator tree stopped: %w", err)
	}
	return nil
}

// Children lists the objects d immediately dominates (Root for the top
// level), largest retained size first, at most n (0 = all).
func (d *Dominators) Children(of int32, n int) []Object {
	var kids []int32
	for i, p := range d.Idom {
		if p == of {
			kids = append(kids, int32(i))
		}
	}
	slices.SortFunc(kids, func(a, b int32) int {
		switch {
		case d.Retained[a] > d.Retained[b]:
			return -1
		case d.Retained[a] < d.Retained[b]:
			return 1
		}
		return int(a - b)
	})
	if n > 0 && len(kids) > n {
		kids = kids[:n]
	}
	out := make([]Object, len(kids))
	for k, i := range kids {
		out[k] = d.h.describe(i)
		out[k].Retained = d.Retained[i]
	}
	return out
}

// Biggest lists the n objects with the largest retained size.
func (d *Dominators) Biggest(n int) []Object {
	top := topN(len(d.Retained), n, func(i int32) uint64 { return d.Retained[i] })
	out := make([]Object, len(top))
	for k, i := range top {
		out[k] = d.h.describe(i)
		out[k].Retained = d.Retained[i]
	}
	return out
}

// predBuilder counts (fill false) or lists (fill true) the predecessors of
// the reachable nodes, by DFS number, but their DFS parents.
type predBuilder struct {
	num, parent, predStart, pred []int32
	fill                         bool
}

// edge is an edge from the node of DFS number k to node w.
func (b *predBuilder) edge(w, k int32) {
	if d := b.num[w] - 1; d >= 0 && b.parent[d] != k {
		if b.fill {
			b.predStart[d]--
			b.pred[b.predStart[d]] = k
		} else {
			b.predStart[d]++
		}
	}
}

// semiNCA is the tree's computation once the predecessors are built, in
// memory (with or without Lean's file): the semi-dominators, the immediate
// dominators, the retained sizes and the result by object, in the arrays
// it is given and one more (la, 8 bytes a node) plus two bit sets. num is
// by node (DFS number + 1, 0 unreached), parent by DFS number (with room
// for a node each: it becomes the result's Idom), predStart and pred the
// predecessors by DFS number as CSR, n the objects and R the nodes reached.
//
// What a node costs at the peak (the semi-dominator loop): its parent, DFS
// number and la (16 bytes), a bit, and its predecessors but the parent (4
// bytes each). The predecessor starts are not kept: a bit per node says
// whether it has a range, and the first entry of a range is stored
// complemented (negative: DFS numbers are not), so that the loop, from the
// last node down, and the immediate dominators, from the first up, find
// each range by walking pred in order. The semi-dominator of a node with a
// range replaces the range's first entry once the range is read (the
// immediate dominators read it there); a node without one has its parent
// as semi-dominator, and its immediate dominator is its parent. The
// path-compression labels are semi-dominators (the least on the path),
// not the nodes holding them: SEMI-NCA compares nothing else, so no array
// of semi-dominators by node is read in the loop.
func (h *Heap) semiNCA(ctx context.Context, sp *spillFile, cls16 []uint16, n, R int32, num, parent, pred, predStart []int32) (*Dominators, error) {
	multi := make([]uint64, (R+63)/64)
	for w := int32(1); w < R; w++ {
		if s := predStart[w]; s < predStart[w+1] {
			multi[w>>6] |= 1 << (w & 63)
			pred[s] = ^pred[s]
		}
	}
	predStart = nil
	if sp != nil {
		sp.release()
	} else {
		debug.FreeOSMemory() // the starts, before la takes their place and more
	}

	// la[k] is (ancestor+1)<<32 | label, 0 while k is not linked; the
	// label is the least semi-dominator on k's compressed path.
	la := make([]uint64, max(R, n))
	eval := func(v int32) int32 {
		// Compress the ancestor chain iteratively, with no stack (a chain
		// can be as long as a list): going up, each node's ancestor field
		// points back to the node below it; coming down, each takes its
		// ancestor's ancestor and the lesser label.
		x, below := v, int32(-1)
		for a := int32(la[x]>>32) - 1; la[a]>>32 != 0; a = int32(la[x]>>32) - 1 {
			la[x] = uint64(uint32(below+1))<<32 | la[x]&(1<<32-1)
			below, x = x, a
		}
		for a, cur := x, below; cur >= 0; {
			next := int32(la[cur]>>32) - 1
			l, ax := uint32(la[cur]), la[a]
			l = min(l, uint32(ax))
			la[cur] = ax&^(1<<32-1) | uint64(l)
			a, cur = cur, next
		}
		return int32(uint32(la[v]))
	}
	c := len(pred)
	for w := R - 1; w > 0; w-- {
		if w&(domCheckEvery-1) == 0 {
			if err := domStop(ctx); err != nil {
				return nil, err
			}
		}
		sw := parent[w] // the DFS parent: a predecessor not listed
		if multi[w>>6]&(1<<(w&63)) != 0 {
			s := c - 1
			for pred[s] >= 0 {
				s--
			}
			pred[s] = ^pred[s]
			for _, v := range pred[s:c] {
				if v <= w {
					// Not processed yet, so not linked: its semi-dominator
					// would be itself (most edges are DFS tree and forward
					// edges). v == w: a reference to itself, which
					// dominates nothing.
					sw = min(sw, v)
				} else if u := eval(v); u < sw {
					sw = u
				}
			}
			pred[s], c = ^sw, s
		}
		la[w] = uint64(uint32(parent[w]+1))<<32 | uint64(uint32(sw))
	}
	// Immediate dominators as nearest common ancestors: idom shares
	// parent's array (idom[w] is set after the last use of parent[w]).
	idom := parent
	c = 0
	for w := int32(1); w < R; w++ {
		if w&(domCheckEvery-1) == 0 {
			if err := domStop(ctx); err != nil {
				return nil, err
			}
		}
		if multi[w>>6]&(1<<(w&63)) == 0 {
			continue // semi-dominator and immediate dominator: its parent
		}
		sw := ^pred[c]
		for c++; c < len(pred) && pred[c] >= 0; c++ {
		}
		for idom[w] > sw {
			idom[w] = idom[idom[w]]
		}
	}
	pred, multi = nil, nil
	if sp != nil {
		sp.release()
	} else {
		runtime.GC() // the predecessors
	}
	// The result by object, with no array more: vert (DFS number → node,
	// num's inverse) is built in la's memory, which is free until the
	// retained sizes; the immediate dominators become objects (or Root),
	// then are placed by object in num's array (out[o] is written after
	// num[o+1] is read); vert moves into idom's array, and la's takes the
	// retained sizes.
	vert := int32s(la)[:R]
	for v, d := range num {
		if d > 0 {
			vert[d-1] = int32(v)
		}
	}
	for w := int32(1); w < R; w++ {
		if d := idom[w]; d > 0 {
			idom[w] = vert[d] - 1
		} else {
			idom[w] = Root
		}
	}
	out := num[:n]
	for o := range n {
		if d := num[o+1]; d > 0 {
			out[o] = idom[d-1]
		} else {
			out[o] = NotReachable
		}
	}
	vert = idom[:copy(idom, vert)]

	// Retained sizes, in la's array: children come after their dominator
	// in DFS order.
	retained := la[:n]
	clear(retained)
	sizeRead := false
	if sp != nil {
		// Lean: the objects' own sizes first, in index order, the classes
		// read in sequence from the file (Size reads them), so that they
		// need not come back before the tree is done.
		clsW := &window[int32]{s: sp, seg: sp.held[spillCls]}
		for o := range n {
			if o&(domCheckEvery-1) == 0 {
				if err := domStop(ctx); err != nil {
					return nil, err
				}
			}
			if out[o] != NotReachable {
				retained[o] = uint64(h.sizeOfClass(o, clsW.at(int(o))))
			}
		}
		if clsW.err != nil {
			return nil, clsW.err
		}
		sizeRead = true
	}
	if cls16 != nil {
		// Compact: the own sizes first too, the classes read in sequence.
		for o := range n {
			if o&(domCheckEvery-1) == 0 {
				if err := domStop(ctx); err != nil {
					return nil, err
				}
			}
			if out[o] != NotReachable {
				retained[o] = uint64(h.sizeOfClass(o, int32(cls16[o])))
			}
		}
		sizeRead = true
	}
	for w := R - 1; w > 0; w-- {
		if w&(domCheckEvery-1) == 0 {
			if err := domStop(ctx); err != nil {
				return nil, err
			}
		}
		o := vert[w] - 1
		if !sizeRead {
			retained[o] += uint64(h.Size(o))
		}
		if p := out[o]; p >= 0 {
			retained[p] += retained[o]
		}
	}
	return &Dominators{h: h, Idom: out, Retained: retained}, nil
}

// int32s is a's memory as int32s (twice as many).
func int32s(a []uint64) []int32 {
	if len(a) == 0 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(a))), 2*len(a))
}
