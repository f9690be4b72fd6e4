package hprof

// dominatorsBefore is the dominator tree as it was before the class-loader
// semantics (commit 84cc235's parent): references only, every class object
// a root. The benchmark runs it in the same process as [Heap.Dominators],
// as the reference its figures are a ratio to: the cost of the class edges
// (an object's edge to its class, a loader's to its classes), measured on
// the same machine at the same moment.
func dominatorsBefore(h *Heap) *Dominators {
	n := int32(h.ids.len())
	N := n + 1 // node 0 is the virtual root, object i is node i+1
	// Depth-first numbering: num[v] is v's DFS number + 1 (0 = unreached).
	num := make([]int32, max(N, 1))
	// The root's successors, each once: GC roots, then class objects
	// (num marks the ones taken, then is cleared).
	var rootSucc []int32
	for _, r := range h.roots {
		if num[r+1] == 0 {
			num[r+1] = -1
			rootSucc = append(rootSucc, r+1)
		}
	}
	for i := range h.Classes {
		if o := h.Classes[i].Object; o >= 0 && num[o+1] == 0 {
			num[o+1] = -1
			rootSucc = append(rootSucc, o+1)
		}
	}
	for _, w := range rootSucc {
		num[w] = 0
	}
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

	vert := make([]int32, 0, N)
	// parent, by DFS number, shares its array with idom: LT sets idom[v]
	// only after the last use of parent[v].
	parent := make([]int32, 0, N)
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

	// Predecessors of reachable nodes, by DFS number, as CSR: count into
	// predStart[d], turn the counts into range ends, then fill each range
	// downwards, which leaves predStart[d] at its start (no second array).
	predStart := make([]int32, R+1)
	for k := range R {
		v := vert[k]
		for _, w := range succ(v) {
			if d := num[w+off(v)] - 1; d >= 0 {
				predStart[d]++
			}
		}
	}
	for k := int32(1); k <= R; k++ {
		predStart[k] += predStart[k-1]
	}
	pred := make([]int32, predStart[R])
	for k := range R {
		v := vert[k]
		for _, w := range succ(v) {
			if d := num[w+off(v)] - 1; d >= 0 {
				predStart[d]--
				pred[predStart[d]] = k
			}
		}
	}
	// From here on everything is by DFS number; num's array holds the
	// semi-dominators.
	semi := num[:R]

	// Semi-dominators as in Lengauer–Tarjan (eval with path compression,
	// link right after), then immediate dominators as nearest common
	// ancestors (SEMI-NCA, Georgiadis): no buckets, two arrays fewer.
	// la[k] is ancestor<<32 | label; ancestor noAnc = not linked yet.
	const noAnc = 0xFFFFFFFF
	la := make([]uint64, max(R, n))
	for k := range R {
		semi[k] = k
		la[k] = noAnc<<32 | uint64(k)
	}
	idom := parent
	anc := func(x int32) int32 { return int32(la[x] >> 32) }
	lab := func(x int32) int32 { return int32(uint32(la[x])) }
	var cstack []int32
	eval := func(v int32) int32 {
		if la[v]>>32 == noAnc {
			return v
		}
		// Compress the ancestor chain iteratively.
		cstack = cstack[:0]
		for x := v; la[anc(x)]>>32 != noAnc; x = anc(x) {
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
		for _, v := range pred[predStart[w]:predStart[w+1]] {
			if u := eval(v); semi[u] < semi[w] {
				semi[w] = semi[u]
			}
		}
		la[w] = uint64(uint32(parent[w]))<<32 | uint64(uint32(lab(w)))
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
	return &Dominators{h: h, Idom: out, Retained: retained}
}
