package hprof

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
)

// rootKinds maps the GC roots to their first root record.
func (h *Heap) rootRecords() map[int32]int {
	m := make(map[int32]int, len(h.roots))
	for k, o := range h.roots {
		if _, ok := m[o]; !ok {
			m[o] = k
		}
	}
	return m
}

// asStep describes o, with its root kind where it is a GC root.
func (h *Heap) asStep(o int32, roots map[int32]int) PathStep {
	s := PathStep{Object: h.describe(o)}
	if k, ok := roots[o]; ok {
		s.Root = h.rootKind[k].String()
		s.RootDetail = h.rootDetail(k)
	}
	return s
}

// Incoming lists the objects that refer to obj, limit of them (0: all)
// from the offset-th, for the dump at path, with their retained sizes where
// d is the dominator tree (nil: none). One pass over the references. With
// src (the bytes Parse read; nil: none) each referrer names the field or
// element that holds obj ([PathStep.Field]), read back for the page only.
func (h *Heap) Incoming(path string, obj int32, offset, limit int, d *Dominators, src io.ReaderAt) IncomingJSON {
	roots := h.rootRecords()
	step := func(o int32) PathStep {
		s := h.asStep(o, roots)
		if d != nil {
			s.Retained = d.Retained[o]
		}
		return s
	}
	out := IncomingJSON{Path: path, Object: step(obj), Offset: offset, Referrers: []PathStep{}}
	fields := h.namer(src)
	take := func(o int32, via string) {
		if out.Total >= offset && (limit <= 0 || len(out.Referrers) < limit) {
			s := step(o)
			s.Via = via
			if via == "" {
				fields.name(&s, o, obj)
			}
			out.Referrers = append(out.Referrers, s)
		}
		out.Total++
	}
	class := h.IsClassObject(obj)
	for o := range int32(h.ids.len()) {
		if slices.Contains(h.Refs(o), obj) {
			take(o, "")
		}
		if class && h.classNode[h.cls[o]] == obj {
			out.Instances++
		}
	}
	if class {
		for c := range h.Classes {
			if cl := &h.Classes[c]; cl.Object == obj && !cl.pseudo && cl.Loader >= 0 {
				take(cl.Loader, "<defined class>")
			}
		}
	}
	return out
}

// classesNamed marks the class indices named name (one name may have
// several loaders' classes) and counts their instances.
func (h *Heap) classesNamed(name string) (is []bool, n int) {
	is = make([]bool, len(h.Classes))
	found := false
	for c := range h.Classes {
		if h.Classes[c].Name == name {
			is[c], found = true, true
		}
	}
	if !found {
		return nil, 0
	}
	for _, c := range h.cls {
		if is[c] {
			n++
		}
	}
	return is, n
}

// PathsToClass merges the shortest paths from the GC roots to the
// instances of the class named name (see [Heap.MergedPaths]); false if the
// dump has no class of that name.
func (h *Heap) PathsToClass(path, name string, opt PathOptions) (PathsJSON, bool) {
	is, n := h.classesNamed(name)
	if is == nil {
		return PathsJSON{}, false
	}
	return h.MergedPaths(path, name, func(v int32) bool { return is[h.cls[v]] }, n, opt), true
}

// PathsToObject is the shortest path from a GC root to obj as a path tree
// of one target (see [Heap.MergedPaths]).
func (h *Heap) PathsToObject(path string, obj int32, opt PathOptions) PathsJSON {
	return h.MergedPaths(path, fmt.Sprintf("%s %#x", h.Label(obj), h.ids.at(obj)), func(v int32) bool { return v == obj }, 1, opt)
}

// Instances lists the instances of the class named name, limit of them (0:
// all) from the offset-th: largest retained size first with d (nil: in
// object order, which is address order in HotSpot dumps). False if the dump
// has no class of that name.
func (h *Heap) Instances(path, name string, offset, limit int, d *Dominators) (InstancesJSON, bool) {
	is, n := h.classesNamed(name)
	if is == nil {
		return InstancesJSON{}, false
	}
	out := InstancesJSON{Path: path, Class: name, Total: n, Offset: offset, Objects: []Object{}}
	objs := make([]int32, 0, n)
	for i, c := range h.cls {
		if is[c] {
			objs = append(objs, int32(i))
		}
	}
	if d != nil {
		slices.SortStableFunc(objs, func(a, b int32) int { return cmp.Compare(d.Retained[b], d.Retained[a]) })
	}
	if offset < len(objs) {
		objs = objs[offset:]
	} else {
		objs = nil
	}
	if limit > 0 && len(objs) > limit {
		objs = objs[:limit]
	}
	for _, o := range objs {
		ob := h.describe(o)
		if d != nil {
			ob.Retained = d.Retained[o]
		}
		out.Objects = append(out.Objects, ob)
	}
	return out, true
}

// ClassRetained is the retained size of each class's instances as a set
// (classes of one name together), largest first: the sum of the retained
// sizes of the instances no other instance of the class dominates. One
// walk down the dominator tree, keeping per class whether an instance is on
// the way down; 8 bytes per object while it runs.
func (d *Dominators) ClassRetained(path string) RetainedJSON {
	out, _ := d.ClassRetainedContext(context.Background(), path) // never done: no error
	return out
}

// ClassRetainedContext is [Dominators.ClassRetained] that stops when ctx is
// done: its loops over the objects (counting the children by dominator,
// listing them, the walk down the tree) look at ctx once every 64 Ki
// objects, as [Heap.DominatorsContext] does, and the error then wraps
// ctx.Err(). It takes about a quarter of the tree's time, after it.
func (d *Dominators) ClassRetainedContext(ctx context.Context, path string) (RetainedJSON, error) {
	h := d.h
	stop := func(i int) error {
		if i&(domCheckEvery-1) != 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("hprof: the classes' retained sizes stopped: %w", err)
		}
		return nil
	}
	group := make([]int32, len(h.Classes)) // class index → name group
	byName := map[string]int32{}
	var names []string
	for c := range h.Classes {
		g, ok := byName[h.Classes[c].Name]
		if !ok {
			g = int32(len(names))
			byName[h.Classes[c].Name] = g
			names = append(names, h.Classes[c].Name)
		}
		group[c] = g
	}
	n := int32(len(d.Idom))
	// Children by dominator as CSR; slot n holds the top level.
	start := make([]int32, n+2)
	for o, p := range d.Idom {
		if err := stop(o); err != nil {
			return RetainedJSON{}, err
		}
		switch {
		case p >= 0:
			start[p+1]++
		case p == Root:
			start[n+1]++
		}
	}
	for k := int32(1); k <= n+1; k++ {
		start[k] += start[k-1]
	}
	kids := make([]int32, start[n+1])
	fill := slices.Clone(start[:n+1])
	for o, p := range d.Idom {
		if err := stop(o); err != nil {
			return RetainedJSON{}, err
		}
		switch {
		case p >= 0:
			kids[fill[p]] = int32(o)
			fill[p]++
		case p == Root:
			kids[fill[n]] = int32(o)
			fill[n]++
		}
	}
	fill = nil
	active := make([]int32, len(names))
	ret := make([]uint64, len(names))
	type frame struct{ v, next int32 }
	stack := []frame{{n, start[n]}}
	pushed := 1 // objects reached, for the looks at ctx
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next == start[f.v+1] {
			if f.v < n {
				active[group[h.cls[f.v]]]--
			}
			stack = stack[:len(stack)-1]
			continue
		}
		w := kids[f.next]
		f.next++
		g := group[h.cls[w]]
		if active[g] == 0 {
			ret[g] += d.Retained[w]
		}
		active[g]++
		stack = append(stack, frame{w, start[w]})
		if err := stop(pushed); err != nil {
			return RetainedJSON{}, err
		}
		pushed++
	}
	out := RetainedJSON{Path: path, Classes: []ClassRetainedJSON{}}
	for g, r := range ret {
		if r > 0 {
			out.Classes = append(out.Classes, ClassRetainedJSON{names[g], r})
		}
	}
	slices.SortFunc(out.Classes, func(a, b ClassRetainedJSON) int {
		if c := cmp.Compare(b.Retained, a.Retained); c != 0 {
			return c
		}
		return cmp.Compare(a.Class, b.Class)
	})
	return out, nil
}
