package hprof

import "slices"

// Dominators is the dominator tree of a heap: a virtual root above every GC
// root and class object, and for each object reachable from it the object
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

// Dominators computes the dominator tree with the Lengauer–Tarjan algorithm
// (path compression, iterative, O(E log N)) on int32 arrays in DFS order.
func (h *Heap) Dominators() *Dominators {
	n := int32(len(h.ids))
	N := n + 1 // node 0 is the virtual root, object i is node i+1
	var rootSucc []int32
	seen := make([]bool, n)
	for _, r := range h.roots {
		if !seen[r] {
			seen[r] = true
			rootSucc = append(rootSucc, r+1)
		}
	}
	for i := range h.Classes {
		if o := h.Classes[i].Object; o >= 0 && !seen[o] {
			seen[o] = true
			rootSucc = append(rootSucc, o+1)
		}
	}
	seen = nil
	succ := func(v int32) []int32 {
		if v == 0 {
			return rootSucc
		}
		return h.refs[h.refStart[v-1]:h.refStart[v]]
	}
	off := func(v int32) int32 { // successors of object nodes are object indices: +1
		if v == 0 {
			return 0
		}
		return 1
	}

	// Depth-first numbering: num[v] is v's DFS number + 1 (0 = unreached).
	num := make([]int32, N)
	vert := make([]int32, 0, N)
	parent := make([]int32, 0, N) // by DFS number
	type frame struct{ v, next int32 }
	stack := []frame{{0, 0}}
	num[0] = 1
	vert = append(vert, 0)
	parent = append(parent, -1)
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		s := succ(f.v)
		if int(f.next) == len(s) {
			stack = stack[:len(stack)-1]
			continue
		}
		w := s[f.next] + off(f.v)
		f.next++
		if num[w] == 0 {
			num[w] = int32(len(vert)) + 1
			parent = append(parent, num[f.v]-1)
			vert = append(vert, w)
			stack = append(stack, frame{w, 0})
		}
	}
	stack = nil
	R := int32(len(vert)) // reachable nodes, root included

	// Predecessors of reachable nodes, by DFS number, as CSR.
	predStart := make([]int32, R+1)
	for k := range R {
		v := vert[k]
		for _, w := range succ(v) {
			if d := num[w+off(v)]; d > 0 {
				predStart[d]++ // d-1+1
			}
		}
	}
	for k := range R {
		predStart[k+1] += predStart[k]
	}
	pred := make([]int32, predStart[R])
	fill := slices.Clone(predStart[:R])
	for k := range R {
		v := vert[k]
		for _, w := range succ(v) {
			if d := num[w+off(v)] - 1; d >= 0 {
				pred[fill[d]] = k
				fill[d]++
			}
		}
	}
	fill = nil

	semi := make([]int32, R)
	label := make([]int32, R)
	ancestor := make([]int32, R)
	idom := make([]int32, R)
	bucketHead := make([]int32, R)
	bucketNext := make([]int32, R)
	for k := range R {
		semi[k], label[k], ancestor[k], bucketHead[k] = k, k, -1, -1
	}
	var cstack []int32
	eval := func(v int32) int32 {
		if ancestor[v] < 0 {
			return v
		}
		// Compress the ancestor chain iteratively.
		cstack = cstack[:0]
		for x := v; ancestor[ancestor[x]] >= 0; x = ancestor[x] {
			cstack = append(cstack, x)
		}
		for i := len(cstack) - 1; i >= 0; i-- {
			x := cstack[i]
			a := ancestor[x]
			if semi[label[a]] < semi[label[x]] {
				label[x] = label[a]
			}
			ancestor[x] = ancestor[a]
		}
		return label[v]
	}
	for w := R - 1; w > 0; w-- {
		for _, v := range pred[predStart[w]:predStart[w+1]] {
			if u := eval(v); semi[u] < semi[w] {
				semi[w] = semi[u]
			}
		}
		s := semi[w]
		bucketNext[w] = bucketHead[s]
		bucketHead[s] = w
		p := parent[w]
		ancestor[w] = p
		for v := bucketHead[p]; v >= 0; v = bucketNext[v] {
			if u := eval(v); semi[u] < semi[v] {
				idom[v] = u
			} else {
				idom[v] = p
			}
		}
		bucketHead[p] = -1
	}
	for w := int32(1); w < R; w++ {
		if idom[w] != semi[w] {
			idom[w] = idom[idom[w]]
		}
	}
	pred, predStart, label, ancestor, bucketHead, bucketNext, semi = nil, nil, nil, nil, nil, nil, nil

	// Retained sizes: children come after their dominator in DFS order.
	retained := make([]uint64, n)
	for w := R - 1; w > 0; w-- {
		o := vert[w] - 1
		retained[o] += uint64(h.size[o])
		if d := idom[w]; d > 0 {
			retained[vert[d]-1] += retained[o]
		}
	}
	out := make([]int32, n)
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
