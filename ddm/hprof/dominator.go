package hprof

import "slices"

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
// semi-dominators and then the result's Idom; the path-compression arrays
// (label and ancestor packed in one uint64 per node) become Retained. While
// it runs: 4 × 4 + 8 bytes per object and 4 per edge (a reference, an
// object's edge to its class, a loader's to a class), plus the DFS stack.
func (h *Heap) Dominators() *Dominators {
	n := int32(h.ids.len())
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

	vert := make([]int32, 0, N)
	// parent, by DFS number, shares its array with idom: LT sets idom[v]
	// only after the last use of parent[v].
	parent := make([]int32, 0, N)
	// The DFS counts every node's predecessors as it meets each edge (the
	// target's number is known right after): predStart, by DFS number.
	predStart := make([]int32, N+1)
	// Node v's successors: for an object its references, then its class
	// object, then (a class loader) the classes it defined; for the
	// virtual root the GC roots, each the start of a search. A frame
	// holds v's DFS number and its place in refs (pos past end: the
	// extras taken so far), so an edge costs no lookups but its target's.
	type frame struct{ v, d, pos, end int32 }
	var stack []frame
	num[0] = 1
	vert = append(vert, 0)
	parent = append(parent, -1)
	for _, r := range rootSucc {
		if num[r] != 0 {
			if d := num[r] - 1; parent[d] != 0 {
				predStart[d]++
			}
			continue
		}
		d := int32(len(vert))
		num[r] = d + 1
		parent = append(parent, 0)
		vert = append(vert, r)
		stack = append(stack, frame{r, d, int32(refStart[r-1]), int32(refStart[r])})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			var w int32
			if f.pos < f.end {
				w = refs[f.pos] + 1
				f.pos++
			} else {
				w = -1
				if o := f.v - 1; extra[o>>6]&(1<<(o&63)) != 0 {
					k := f.pos - f.end
					c := cls[o]
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
			from := f.d
			if num[w] == 0 {
				d := int32(len(vert))
				num[w] = d + 1
				parent = append(parent, from)
				vert = append(vert, w)
				stack = append(stack, frame{w, d, int32(refStart[w-1]), int32(refStart[w])})
				continue
			}
			// Edges from a node's DFS parent are not listed: the parent
			// is where its semi-dominator starts (most objects have no
			// other predecessor).
			if d := num[w] - 1; parent[d] != from {
				predStart[d]++
			}
		}
	}
	stack = nil
	R := int32(len(vert)) // reachable nodes, root included

	// Predecessors of reachable nodes, by DFS number, as CSR: the counts
	// (above) turned into range ends, then each range filled downwards,
	// which leaves predStart[d] at its start (no second array). The
	// successors are written out (a callback per edge costs a fifth of the
	// tree's time) as the DFS took them: references, the class object, a
	// loader's classes. The objects are taken in index order, not DFS order,
	// so that refStart, refs and cls are read in sequence; the order of a
	// node's predecessors does not matter.
	predStart = predStart[:R+1]
	for k := int32(1); k <= R; k++ {
		predStart[k] += predStart[k-1]
	}
	pred := make([]int32, predStart[R])
	for _, w := range rootSucc {
		if d := num[w] - 1; d >= 0 && parent[d] != 0 {
			predStart[d]--
			pred[predStart[d]] = 0
		}
	}
	for o := range n {
		k := num[o+1] - 1
		if k < 0 {
			continue
		}
		for _, w := range refs[refStart[o]:refStart[o+1]] {
			if d := num[w+1] - 1; d >= 0 && parent[d] != k {
				predStart[d]--
				pred[predStart[d]] = k
			}
		}
		if extra[o>>6]&(1<<(o&63)) == 0 {
			continue
		}
		c := cls[o]
		if cn := classNode[c]; cn >= 0 {
			if d := num[cn+1] - 1; d >= 0 && parent[d] != k {
				predStart[d]--
				pred[predStart[d]] = k
			}
		}
		if loaderCls[c] {
			for _, w := range h.loaded[o] {
				if d := num[w+1] - 1; d >= 0 && parent[d] != k {
					predStart[d]--
					pred[predStart[d]] = k
				}
			}
		}
	}
	// From here on everything is by DFS number; num's array holds the
	// semi-dominators.
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
	var cstack []int32
	eval := func(v int32) int32 {
		if la[v]>>32 == 0 {
			return v
		}
		// Compress the ancestor chain iteratively.
		cstack = cstack[:0]
		for x := v; la[anc(x)]>>32 != 0; x = anc(x) {
			cstack = append(cstack, x)
		}
		for i := len(cstack) - 1; i >= 0; i-- {
			x := cstack[i]
			a := anc(x)
			l, ax := lab(x), la[a]
			if al := int32(uint32(ax)); semi[al] < semi[l] {
				l = al
			}
			la[x] = ax&^(1<<32-1) | uint64(uint32(l))
		}
		return lab(v)
	}
	for w := R - 1; w > 0; w-- {
		sw := parent[w] // the DFS parent: a predecessor not listed
		for _, v := range pred[predStart[w]:predStart[w+1]] {
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
	pred, predStart = nil, nil
	for w := int32(1); w < R; w++ {
		for idom[w] > semi[w] {
			idom[w] = idom[idom[w]]
		}
	}

	// Retained sizes, in la's array: children come after their dominator
	// in DFS order.
	retained := la[:n]
	clear(retained)
	for w := R - 1; w > 0; w-- {
		o := vert[w] - 1
		retained[o] += uint64(h.size[o])
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
	return &Dominators{h: h, Idom: out, Retained: retained}
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
