package hprof

import (
	"cmp"
	"io"
	"slices"
)

// Paths from the GC roots, as Eclipse MAT shows why an object is alive:
// shortest paths over the graph of [Heap.Succ] that do not pass through the
// referent of a weak, soft or phantom reference (MAT's "excluding
// weak/soft references"); a path of one object ([Heap.PathTo]) or the
// shortest paths of a set of objects merged into a tree ([Heap.MergedPaths],
// MAT's "merge shortest paths to GC roots"). What they keep is bounded by
// what they print, whatever the paths' length.

const (
	unseen int32 = -2 // not reached (yet)
	isRoot int32 = -1 // a GC root: reached from the virtual root
)

// reach is a breadth-first search from the GC roots.
type reach struct {
	parent []int32 // per object: the object it was first reached from; isRoot; unseen
	order  []int32 // the objects reached, in order
	rootOf map[int32]int
}

// shortest searches from the GC roots until want (called once per object
// reached) has said true `total` times, or everything reachable is reached.
// It follows references and the object → class edges first; a class
// loader's edges to the classes it defined only where no path of
// references reaches (a loader's classes are normally also in its `classes`
// list, which shows the chain in full).
func (h *Heap) shortest(want func(int32) bool, total int) *reach {
	n := int32(h.ids.len())
	r := &reach{parent: make([]int32, n), order: make([]int32, 0, n), rootOf: map[int32]int{}}
	parent := r.parent
	for i := range parent {
		parent[i] = unseen
	}
	found := 0
	visit := func(w, from int32) {
		parent[w] = from
		r.order = append(r.order, w)
		if want(w) {
			found++
		}
	}
	for k, o := range h.roots {
		if parent[o] == unseen {
			r.rootOf[o] = k
			visit(o, isRoot)
		}
	}
	var loaders []int32 // loaders met, whose class edges wait
	bfs := func(q int) {
		for ; q < len(r.order) && found < total; q++ {
			v := r.order[q]
			c := h.cls[v]
			skip := int32(-1)
			if h.weak != nil && h.weakCls[c] {
				skip = h.referent(v)
			}
			for _, w := range h.Refs(v) {
				if w == skip {
					skip = -1
					continue
				}
				if parent[w] == unseen {
					visit(w, v)
				}
			}
			if w := h.classNode[c]; w >= 0 && parent[w] == unseen {
				visit(w, v)
			}
			if h.loaderCls[c] {
				loaders = append(loaders, v)
			}
		}
	}
	bfs(0)
	for done := 0; found < total && done < len(loaders); {
		// Every loader reached so far opens its classes at once.
		q := len(r.order)
		for ; done < len(loaders); done++ {
			l := loaders[done]
			for _, w := range h.loaded[l] {
				if parent[w] == unseen {
					visit(w, l)
				}
			}
		}
		bfs(q)
	}
	return r
}

// referent is the object weak reference v refers to, -1 if none.
func (h *Heap) referent(v int32) int32 {
	k, ok := slices.BinarySearchFunc(h.weak, v, func(w weakRef, v int32) int { return cmp.Compare(w.obj, v) })
	if !ok {
		return -1
	}
	return h.weak[k].referent
}

// step describes object v reached from parent (isRoot: a GC root), with
// the field it is held by where fields names it.
func (h *Heap) step(r *reach, v int32, fields *fieldNamer) PathStep {
	s := PathStep{Object: h.describe(v)}
	from := r.parent[v]
	if from == isRoot {
		k := r.rootOf[v]
		s.Root = h.rootKind[k].String()
		s.RootDetail = h.rootDetail(k)
		return s
	}
	if s.Via = h.via(from, v); s.Via == "" {
		fields.name(&s, from, v)
	}
	return s
}

// via says how from holds to where not by a field or element: "<class>"
// (its class object), "<defined class>" (a loader's class); "" otherwise.
func (h *Heap) via(from, to int32) string {
	if slices.Contains(h.Refs(from), to) {
		return ""
	}
	if h.classNode[h.cls[from]] == to {
		return "<class>"
	}
	return "<defined class>"
}

// PathTo is a shortest path from a GC root to obj: every step when it has
// at most keep (keep ≤ 0: every step), else the first keep/2 and the last
// keep−keep/2 with the middle counted by class, as Eclipse MAT folds a long
// chain. The steps are picked while walking the path back from obj, so
// what it allocates beyond the search's two int32 per object is bounded by
// keep, whatever the path's length. Length 0: obj is unreachable. With src
// (the bytes Parse read; nil: none) each step names the field or element
// that holds it ([PathStep.Field]).
func (h *Heap) PathTo(obj int32, keep int, src io.ReaderAt) Path {
	out := Path{Steps: []PathStep{}}
	if obj < 0 || int(obj) >= h.ids.len() {
		return out
	}
	out.Object = h.ids.at(obj)
	r := h.shortest(func(v int32) bool { return v == obj }, 1)
	if r.parent[obj] == unseen {
		return out
	}
	length := 0
	for v := obj; v != isRoot; v = r.parent[v] {
		length++
	}
	out.Length = length
	head, tail := length, 0
	if keep > 0 && length > keep {
		head, tail = keep/2, keep-keep/2
	}
	var near, far []int32 // the steps next to obj, to the root; each from obj back
	var mid map[int32]int // elided objects by class index
	k := 0
	for v := obj; v != isRoot; v = r.parent[v] {
		switch {
		case k < tail:
			near = append(near, v)
		case k >= length-head:
			far = append(far, v)
		default:
			if mid == nil {
				mid = map[int32]int{}
			}
			mid[h.cls[v]]++
		}
		k++
	}
	fields := h.namer(src)
	for _, v := range slices.Backward(far) {
		out.Steps = append(out.Steps, h.step(r, v, fields))
	}
	for _, v := range slices.Backward(near) {
		out.Steps = append(out.Steps, h.step(r, v, fields))
	}
	if tail > 0 {
		out.Elided = &PathGap{After: head, Count: length - head - tail, Classes: h.classCounts(mid)}
	}
	return out
}

// classCounts names counts by class index, summing classes of one name,
// most frequent first, at most 5.
func (h *Heap) classCounts(byClass map[int32]int) []ClassCount {
	byName := map[string]int{}
	for c, n := range byClass {
		byName[h.Classes[c].Name] += n
	}
	out := []ClassCount{}
	for c, n := range byName {
		out = append(out, ClassCount{c, n})
	}
	slices.SortFunc(out, func(a, b ClassCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Class, b.Class)
	})
	return out[:min(len(out), 5)]
}

// PathOptions bound a merged path tree.
type PathOptions struct {
	Nodes int // objects shown at most (0: 200)
	Fan   int // children shown per object at most (0: 25)
	Chain int // a chain of single children longer than this has its middle elided (0: 16)
	// Source reads the bytes Parse read, to name the field or element that
	// holds each object shown ([PathStep.Field]); nil: no field names.
	Source io.ReaderAt
}

// MergedPaths merges the shortest paths from the GC roots to every object
// isTarget accepts (total of them) into a tree, as Eclipse MAT's "merge
// shortest paths to GC roots": each object on a path once, with the number
// of targets whose path runs through it; the roots and every object's
// children with the most targets first. target names the set in the
// result. The tree is bounded by opt: past it, objects are counted in More,
// and a long chain's middle is elided and counted by class.
func (h *Heap) MergedPaths(path, target string, isTarget func(int32) bool, total int, opt PathOptions) PathsJSON {
	if opt.Nodes <= 0 {
		opt.Nodes = 200
	}
	if opt.Fan <= 0 {
		opt.Fan = 25
	}
	if opt.Chain <= 0 {
		opt.Chain = 16
	}
	out := PathsJSON{Path: path, Target: target, Objects: total, Roots: []PathNodeJSON{}}
	if total == 0 {
		return out
	}
	r := h.shortest(isTarget, total)
	// Targets per object, summed up from the last reached to the first
	// (a parent is reached before its children).
	cnt := make([]int32, len(r.parent))
	var sub []int32 // the objects on some path
	for _, v := range slices.Backward(r.order) {
		if isTarget(v) {
			cnt[v]++
			out.Reached++
		}
		if cnt[v] > 0 {
			sub = append(sub, v)
			if p := r.parent[v]; p >= 0 {
				cnt[p] += cnt[v]
			}
		}
	}
	// By parent, then most targets first: an object's children are a run.
	slices.SortFunc(sub, func(a, b int32) int {
		if c := cmp.Compare(r.parent[a], r.parent[b]); c != 0 {
			return c
		}
		if c := cmp.Compare(cnt[b], cnt[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	t := &pathTree{h: h, r: r, cnt: cnt, sub: sub, isTarget: isTarget, opt: opt, budget: opt.Nodes}
	out.Roots, out.More = t.level(isRoot)
	// The fields of the tree's steps, once it is built: an object's
	// children (an array's elements) from one read of its record.
	if fields := h.namer(opt.Source); fields != nil {
		var edges []namedEdge
		var walk func(ns []PathNodeJSON)
		walk = func(ns []PathNodeJSON) {
			for k := range ns {
				s := &ns[k].PathStep
				if from := r.parent[s.Index]; from >= 0 && s.Via == "" {
					edges = append(edges, namedEdge{s, from, s.Index})
				}
				walk(ns[k].Children)
			}
		}
		walk(out.Roots)
		fields.nameAll(edges)
	}
	return out
}

type pathTree struct {
	h        *Heap
	r        *reach
	cnt      []int32
	sub      []int32
	isTarget func(int32) bool
	opt      PathOptions
	budget   int
}

// children are v's children on some path (isRoot: the roots).
func (t *pathTree) children(v int32) []int32 {
	key := func(x int32) int32 { return t.r.parent[x] }
	lo, _ := slices.BinarySearchFunc(t.sub, v, func(x, v int32) int { return cmp.Compare(key(x), v) })
	hi := lo
	for hi < len(t.sub) && key(t.sub[hi]) == v {
		hi++
	}
	return t.sub[lo:hi]
}

// level lists v's children (as far as the budget goes) and how many are
// left out.
func (t *pathTree) level(v int32) ([]PathNodeJSON, int) {
	kids := t.children(v)
	out := []PathNodeJSON{}
	for k, w := range kids {
		if t.budget <= 0 || k >= t.opt.Fan {
			return out, len(kids) - k
		}
		out = append(out, t.emit(w))
	}
	return out, 0
}

func (t *pathTree) node(v int32) PathNodeJSON {
	t.budget--
	return PathNodeJSON{PathStep: t.h.step(t.r, v, nil), Targets: int(t.cnt[v]), Target: t.isTarget(v), Children: []PathNodeJSON{}}
}

// only is v's one child when it has exactly one and that is not a target
// (a link of a chain); -1 otherwise.
func (t *pathTree) only(v int32) int32 {
	kids := t.children(v)
	if len(kids) != 1 || t.isTarget(kids[0]) {
		return -1
	}
	return kids[0]
}

// emit is v with what lies below it on the paths.
func (t *pathTree) emit(v int32) PathNodeJSON {
	n := t.node(v)
	// A chain below v: links with one child each, then the node that ends
	// it (a target, a fork or a leaf).
	links := 0
	for w := t.only(v); w >= 0 && t.only(w) >= 0; w = t.only(w) {
		links++
	}
	if links <= t.opt.Chain {
		n.Children, n.More = t.level(v)
		return n
	}
	// The first Chain/2 links shown, the middle elided, the rest (and
	// what follows) from the next emit.
	cur := &n
	w := t.only(v)
	for range t.opt.Chain / 2 {
		cur.Children = []PathNodeJSON{t.node(w)}
		cur = &cur.Children[0]
		w = t.only(w)
	}
	gap := links - t.opt.Chain
	mid := map[int32]int{}
	for range gap {
		mid[t.h.cls[w]]++
		w = t.only(w)
	}
	cur.Elided = &ChainGap{Count: gap, Classes: t.h.classCounts(mid)}
	cur.Children = []PathNodeJSON{t.emit(w)}
	return n
}
