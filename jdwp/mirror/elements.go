package mirror

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Elements of the JDK's common collections and maps read from their fields,
// page by page, in the order the program iterates them, without running
// any code (issue 35: values independent of each other's speed; a method
// run for one value waits for the thread and holds up the others). The
// layouts are those of JDK 9 and later (17, 21 and 25 alike for these
// classes); a collection of another class, or of a layout not met here,
// reports false and its elements are gathered by running toArray().

// Element is one element of a collection, or one entry of a map.
type Element struct {
	// Value is the element, or the entry's value.
	Value jdwp.Value
	// Key is the entry's key (maps only).
	Key jdwp.Value
}

// ElementList is a collection's elements, or a map's entries, read from
// its fields. Pages are read when asked; pages asked in order (as editors
// ask them) cost the elements read, not the elements before them.
type ElementList struct {
	// Len is the number of elements (of entries, for a map).
	Len int
	// Map says the elements are entries (Key and Value).
	Map bool

	mu   sync.Mutex
	page func(ctx context.Context, start, count int) ([]Element, error)
}

// Page returns up to count elements from start.
func (l *ElementList) Page(ctx context.Context, start, count int) ([]Element, error) {
	if start < 0 || start > l.Len {
		return nil, fmt.Errorf("start %d is outside the %d elements", start, l.Len)
	}
	count = min(count, l.Len-start)
	if count <= 0 {
		return nil, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.page(ctx, start, count)
}

// maxWrapped bounds the wrappers (unmodifiable, synchronized…) looked through.
const maxWrapped = 4

// FieldElements returns the elements of obj, a collection or map of type
// sig, read from its fields, or false when its class is not one whose
// layout is known here (or the layout is not the one expected).
func (p *Presenter) FieldElements(ctx context.Context, obj jdwp.ObjectID, sig string) (*ElementList, bool, error) {
	return p.fieldElements(ctx, obj, sig, false, maxWrapped)
}

// fieldElements is FieldElements; keys lists a map's keys as a set's
// elements (HashSet's map, TreeSet's m).
func (p *Presenter) fieldElements(ctx context.Context, obj jdwp.ObjectID, sig string, keys bool, depth int) (*ElementList, bool, error) {
	f, err := p.fieldsOf(ctx, obj)
	if err != nil {
		return nil, false, err
	}
	arrayList := func(arr string, size int) (*ElementList, bool, error) {
		a := f[arr]
		if a.IsNull() || !a.Tag.IsObject() {
			return &ElementList{Len: 0, page: nil}, size == 0, nil
		}
		if size < 0 {
			n, err := p.vm.ArrayLength(ctx, a.Object())
			if err != nil {
				return nil, false, err
			}
			size = n
		}
		return p.arrayElements(a.Object(), 0, size, 0), true, nil
	}
	intField := func(name string) (int, bool) {
		v, ok := f[name]
		return int(int32(v.Bits)), ok && v.Tag == jdwp.TagInt
	}
	switch sig {
	case "Ljava/util/ArrayList;":
		if n, ok := intField("size"); ok {
			return arrayList("elementData", n)
		}
	case "Ljava/util/Vector;", "Ljava/util/Stack;":
		if n, ok := intField("elementCount"); ok {
			return arrayList("elementData", n)
		}
	case "Ljava/util/Arrays$ArrayList;":
		return arrayList("a", -1)
	case "Ljava/util/concurrent/CopyOnWriteArrayList;":
		return arrayList("array", -1)
	case "Ljava/util/ImmutableCollections$ListN;":
		return arrayList("elements", -1)
	case "Ljava/util/ArrayDeque;":
		head, ok1 := intField("head")
		tail, ok2 := intField("tail")
		a := f["elements"]
		if !ok1 || !ok2 || a.IsNull() {
			break
		}
		capacity, err := p.vm.ArrayLength(ctx, a.Object())
		if err != nil || capacity == 0 {
			return nil, false, err
		}
		n := ((tail-head)%capacity + capacity) % capacity
		return p.arrayElements(a.Object(), head, n, capacity), true, nil
	case "Ljava/util/ImmutableCollections$List12;", "Ljava/util/ImmutableCollections$Set12;":
		empty, _, err := p.vm.Static(ctx, "Ljava/util/ImmutableCollections;", "EMPTY")
		if err != nil {
			return nil, false, err
		}
		e0, e1 := f["e0"], f["e1"]
		vals := []jdwp.Value{e0}
		if e1.Bits != empty.Bits {
			vals = append(vals, e1)
			if sig == "Ljava/util/ImmutableCollections$Set12;" {
				rev, _, err := p.vm.Static(ctx, "Ljava/util/ImmutableCollections;", "REVERSE")
				if err != nil {
					return nil, false, err
				}
				if rev.Bool() {
					vals = []jdwp.Value{e1, e0}
				}
			}
		}
		return fixedElements(vals, nil), true, nil
	case "Ljava/util/ImmutableCollections$SetN;", "Ljava/util/ImmutableCollections$MapN;":
		return p.saltedElements(ctx, f, sig == "Ljava/util/ImmutableCollections$MapN;", keys)
	case "Ljava/util/ImmutableCollections$Map1;":
		if keys {
			return fixedElements([]jdwp.Value{f["k0"]}, nil), true, nil
		}
		return fixedElements([]jdwp.Value{f["v0"]}, []jdwp.Value{f["k0"]}), true, nil
	case "Ljava/util/LinkedList;":
		if n, ok := intField("size"); ok {
			return p.linkedElements(f["first"], n, "item", "", "next"), true, nil
		}
	case "Ljava/util/HashMap;", "Ljava/util/LinkedHashMap;":
		n, ok := intField("size")
		if !ok {
			break
		}
		if sig == "Ljava/util/LinkedHashMap;" {
			l := p.linkedElements(f["head"], n, "value", "key", "after")
			return asKeys(l, keys), true, nil
		}
		return asKeys(p.hashElements(f["table"], n, "value"), keys), true, nil
	case "Ljava/util/HashSet;", "Ljava/util/LinkedHashSet;":
		return p.inner(ctx, f["map"], true, depth)
	case "Ljava/util/TreeMap;":
		if n, ok := intField("size"); ok {
			return asKeys(p.treeElements(f["root"], n), keys), true, nil
		}
	case "Ljava/util/TreeSet;":
		return p.inner(ctx, f["m"], true, depth)
	case "Ljava/util/concurrent/ConcurrentHashMap;":
		return p.concurrentElements(ctx, f, keys)
	case "Ljava/util/HashMap$KeySet;", "Ljava/util/HashMap$Values;", "Ljava/util/HashMap$EntrySet;",
		"Ljava/util/LinkedHashMap$LinkedKeySet;", "Ljava/util/LinkedHashMap$LinkedValues;", "Ljava/util/LinkedHashMap$LinkedEntrySet;",
		"Ljava/util/TreeMap$Values;", "Ljava/util/TreeMap$EntrySet;":
		// A map's view: its outer map (this$0); a reversed view (JDK 21's
		// sequenced collections) is left to toArray.
		if rev, ok := f["reversed"]; ok && rev.Bool() {
			return nil, false, nil
		}
		outer, ok, err := p.vm.Field(ctx, obj, "this$0")
		if err != nil || !ok {
			return nil, false, err
		}
		switch {
		case strings.Contains(sig, "KeySet"):
			return p.inner(ctx, outer, true, depth)
		case strings.Contains(sig, "EntrySet"):
			return p.inner(ctx, outer, false, depth)
		}
		l, ok, err := p.inner(ctx, outer, false, depth)
		if err != nil || !ok {
			return l, ok, err
		}
		return asValues(l), true, nil
	case "Ljava/util/Collections$EmptyList;", "Ljava/util/Collections$EmptySet;",
		"Lkotlin/collections/EmptyList;", "Lkotlin/collections/EmptySet;":
		// Empty by definition: Collections.emptyList()'s and Kotlin's
		// emptyList()/emptySet()/listOf() objects (the stdlib's
		// singletons; Kotlin's collections are Java's).
		return fixedElements(nil, nil), true, nil
	case "Ljava/util/Collections$EmptyMap;", "Lkotlin/collections/EmptyMap;":
		return fixedElements(nil, []jdwp.Value{}), true, nil
	case "Ljava/util/TreeMap$KeySet;":
		return p.inner(ctx, f["m"], true, depth)
	case "Ljava/util/concurrent/ConcurrentHashMap$KeySetView;":
		return p.inner(ctx, f["map"], true, depth)
	case "Ljava/util/concurrent/CopyOnWriteArraySet;":
		return p.inner(ctx, f["al"], keys, depth)
	case "Ljava/util/Collections$SetFromMap;":
		return p.inner(ctx, f["m"], true, depth)
	}
	if strings.HasPrefix(sig, "Ljava/util/Collections$Unmodifiable") || strings.HasPrefix(sig, "Ljava/util/Collections$Synchronized") {
		for _, name := range []string{"m", "c"} {
			if v, ok := f[name]; ok {
				return p.inner(ctx, v, keys, depth)
			}
		}
	}
	return nil, false, nil
}

// inner is the elements of a collection or map another holds.
func (p *Presenter) inner(ctx context.Context, v jdwp.Value, keys bool, depth int) (*ElementList, bool, error) {
	if depth <= 0 || !v.Tag.IsObject() || v.IsNull() {
		return nil, false, nil
	}
	sig, err := p.vm.TypeOf(ctx, v.Object())
	if err != nil {
		return nil, false, err
	}
	return p.fieldElements(ctx, v.Object(), sig, keys, depth-1)
}

// asKeys makes a map's entries a set of its keys when keys is set.
func asKeys(l *ElementList, keys bool) *ElementList {
	if !keys {
		l.Map = true
		return l
	}
	read := l.page
	l.page = func(ctx context.Context, start, count int) ([]Element, error) {
		es, err := read(ctx, start, count)
		for i := range es {
			es[i] = Element{Value: es[i].Key}
		}
		return es, err
	}
	return l
}

// asValues makes a map's entries the collection of its values.
func asValues(l *ElementList) *ElementList {
	read := l.page
	l.Map = false
	l.page = func(ctx context.Context, start, count int) ([]Element, error) {
		es, err := read(ctx, start, count)
		for i := range es {
			es[i] = Element{Value: es[i].Value}
		}
		return es, err
	}
	return l
}

// fieldsOf reads obj's instance fields by name (a subclass's first).
func (p *Presenter) fieldsOf(ctx context.Context, obj jdwp.ObjectID) (map[string]jdwp.Value, error) {
	fs, err := p.vm.Fields(ctx, obj)
	if err != nil {
		return nil, err
	}
	m := make(map[string]jdwp.Value, len(fs))
	for _, f := range fs {
		if _, dup := m[f.Name]; !dup {
			m[f.Name] = f.Value
		}
	}
	return m, nil
}

// fixedElements lists values (with keys, a map's entries).
func fixedElements(vals, keys []jdwp.Value) *ElementList {
	return &ElementList{Len: len(vals), Map: keys != nil, page: func(_ context.Context, start, count int) ([]Element, error) {
		out := make([]Element, count)
		for i := range out {
			out[i].Value = vals[start+i]
			if keys != nil {
				out[i].Key = keys[start+i]
			}
		}
		return out, nil
	}}
}

// arrayElements lists n elements of arr from off; with capacity set, the
// array is circular (ArrayDeque).
func (p *Presenter) arrayElements(arr jdwp.ObjectID, off, n, capacity int) *ElementList {
	return &ElementList{Len: n, page: func(ctx context.Context, start, count int) ([]Element, error) {
		from := off + start
		var vals []jdwp.Value
		for count > 0 {
			if capacity > 0 {
				from %= capacity
			}
			k := count
			if capacity > 0 {
				k = min(k, capacity-from)
			}
			vs, err := p.vm.ArrayValues(ctx, arr, from, k)
			if err != nil {
				return nil, err
			}
			vals = append(vals, vs...)
			from += k
			count -= k
		}
		out := make([]Element, len(vals))
		for i, v := range vals {
			out[i].Value = v
		}
		return out, nil
	}}
}

// walker lists elements one after the other from a cursor: pages asked in
// order continue where the last ended; a page before it starts again.
type walker struct {
	n      int
	index  int // of the element the cursor is at
	cursor any
	first  func(ctx context.Context) (any, error)
	// next returns the element at cur and the cursor of the one after.
	next func(ctx context.Context, cur any) (Element, any, error)
}

func (w *walker) list() *ElementList {
	return &ElementList{Len: w.n, page: w.page}
}

func (w *walker) page(ctx context.Context, start, count int) ([]Element, error) {
	if w.cursor == nil || start < w.index {
		c, err := w.first(ctx)
		if err != nil {
			return nil, err
		}
		w.cursor, w.index = c, 0
	}
	var out []Element
	for w.index < start+count {
		if w.cursor == nil {
			return nil, fmt.Errorf("the collection has fewer elements than its size (%d of %d): it changed, or its layout is not the one expected", w.index, w.n)
		}
		e, next, err := w.next(ctx, w.cursor)
		if err != nil {
			w.cursor = nil
			return nil, err
		}
		if w.index >= start {
			out = append(out, e)
		}
		w.cursor, w.index = next, w.index+1
	}
	return out, nil
}

// linkedElements walks nodes from head by their link field (LinkedList's
// next, LinkedHashMap's after), reading val (and key, when set).
func (p *Presenter) linkedElements(head jdwp.Value, n int, val, key, link string) *ElementList {
	w := &walker{n: n}
	w.first = func(context.Context) (any, error) {
		if head.IsNull() {
			return nil, nil
		}
		return head.Object(), nil
	}
	w.next = func(ctx context.Context, cur any) (Element, any, error) {
		f, err := p.fieldsOf(ctx, cur.(jdwp.ObjectID))
		if err != nil {
			return Element{}, nil, err
		}
		e := Element{Value: f[val]}
		if key != "" {
			e.Key = f[key]
		}
		nx := f[link]
		if nx.IsNull() {
			return e, nil, nil
		}
		return e, nx.Object(), nil
	}
	return w.list()
}

// tableSlots is how many slots of a hash table are read at once.
const tableSlots = 1024

// hashCursor is a place in a hash table: the slot and the node in its bin.
type hashCursor struct {
	table jdwp.ObjectID
	slots []jdwp.Value // slots from base
	base  int
	slot  int
	node  jdwp.ObjectID // 0: the bin of slot not entered yet
}

// hashElements walks a hash table (HashMap's) in slot order, each bin by
// its nodes' next (tree bins keep that chain too), reading key and val.
func (p *Presenter) hashElements(table jdwp.Value, n int, val string) *ElementList {
	return p.hashWalk(table, n, func(ctx context.Context, node jdwp.ObjectID) (Element, jdwp.Value, bool, error) {
		f, err := p.fieldsOf(ctx, node)
		if err != nil {
			return Element{}, jdwp.Value{}, false, err
		}
		return Element{Key: f["key"], Value: f[val]}, f["next"], true, nil
	})
}

// hashWalk walks a hash table; read reads a node: its element, the next
// node of the bin, and whether it is an element at all.
func (p *Presenter) hashWalk(table jdwp.Value, n int, read func(ctx context.Context, node jdwp.ObjectID) (Element, jdwp.Value, bool, error)) *ElementList {
	w := &walker{n: n}
	var length int
	w.first = func(ctx context.Context) (any, error) {
		if table.IsNull() {
			return nil, nil
		}
		l, err := p.vm.ArrayLength(ctx, table.Object())
		if err != nil {
			return nil, err
		}
		length = l
		c, err := p.advance(ctx, &hashCursor{table: table.Object(), slot: -1}, length)
		if err != nil || c == nil {
			return nil, err
		}
		return c, nil
	}
	w.next = func(ctx context.Context, cur any) (Element, any, error) {
		c := cur.(*hashCursor)
		for {
			e, nx, ok, err := read(ctx, c.node)
			if err != nil {
				return Element{}, nil, err
			}
			if nx.IsNull() {
				c.node = 0
			} else {
				c.node = nx.Object()
			}
			if ok {
				if c.node == 0 {
					nc, err := p.advance(ctx, c, length)
					if err != nil {
						return Element{}, nil, err
					}
					if nc == nil {
						return e, nil, nil
					}
				}
				return e, c, nil
			}
			if c.node == 0 {
				nc, err := p.advance(ctx, c, length)
				if err != nil {
					return Element{}, nil, err
				}
				if nc == nil {
					return Element{}, nil, fmt.Errorf("the table holds fewer elements than its size: it changed, or its layout is not the one expected")
				}
			}
		}
	}
	return w.list()
}

// advance moves c to the first node of the next non-empty slot; nil at
// the table's end.
func (p *Presenter) advance(ctx context.Context, c *hashCursor, length int) (*hashCursor, error) {
	for c.slot++; c.slot < length; c.slot++ {
		if c.slot < c.base || c.slot >= c.base+len(c.slots) {
			k := min(tableSlots, length-c.slot)
			vs, err := p.vm.ArrayValues(ctx, c.table, c.slot, k)
			if err != nil {
				return nil, err
			}
			c.slots, c.base = vs, c.slot
		}
		if v := c.slots[c.slot-c.base]; !v.IsNull() {
			c.node = v.Object()
			return c, nil
		}
	}
	return nil, nil
}

// treeElements walks a TreeMap in key order (each entry's successor, by
// its right, left and parent links).
func (p *Presenter) treeElements(root jdwp.Value, n int) *ElementList {
	type node struct {
		id jdwp.ObjectID
		f  map[string]jdwp.Value
	}
	read := func(ctx context.Context, v jdwp.Value) (*node, error) {
		if v.IsNull() {
			return nil, nil
		}
		f, err := p.fieldsOf(ctx, v.Object())
		if err != nil {
			return nil, err
		}
		return &node{v.Object(), f}, nil
	}
	leftmost := func(ctx context.Context, e *node) (*node, error) {
		for e != nil && !e.f["left"].IsNull() {
			l, err := read(ctx, e.f["left"])
			if err != nil {
				return nil, err
			}
			e = l
		}
		return e, nil
	}
	w := &walker{n: n}
	w.first = func(ctx context.Context) (any, error) {
		r, err := read(ctx, root)
		if err != nil || r == nil {
			return nil, err
		}
		return leftmost(ctx, r)
	}
	w.next = func(ctx context.Context, cur any) (Element, any, error) {
		e := cur.(*node)
		el := Element{Key: e.f["key"], Value: e.f["value"]}
		var succ *node
		var err error
		if !e.f["right"].IsNull() {
			r, err := read(ctx, e.f["right"])
			if err != nil {
				return el, nil, err
			}
			succ, err = leftmost(ctx, r)
			if err != nil {
				return el, nil, err
			}
		} else {
			ch := e
			par, err := read(ctx, e.f["parent"])
			for err == nil && par != nil && par.f["right"].Bits == uint64(ch.id) {
				ch = par
				par, err = read(ctx, par.f["parent"])
			}
			succ = par
		}
		if err != nil {
			return el, nil, err
		}
		if succ == nil {
			return el, nil, nil
		}
		return el, succ, nil
	}
	return w.list()
}

// saltedElements lists an immutable SetN or MapN in its iteration order,
// which starts at a place chosen by the VM's SALT32L and goes up or down
// by REVERSE (ImmutableCollections' SetNIterator and MapNIterator).
func (p *Presenter) saltedElements(ctx context.Context, f map[string]jdwp.Value, isMap, keys bool) (*ElementList, bool, error) {
	arrName, step := "elements", 1
	if isMap {
		arrName, step = "table", 2
	}
	arr, size := f[arrName], f["size"]
	if arr.IsNull() || size.Tag != jdwp.TagInt {
		return nil, false, nil
	}
	const ic = "Ljava/util/ImmutableCollections;"
	salt, ok1, err := p.vm.Static(ctx, ic, "SALT32L")
	if err != nil {
		return nil, false, err
	}
	rev, ok2, err := p.vm.Static(ctx, ic, "REVERSE")
	if err != nil || !ok1 || !ok2 {
		return nil, false, err
	}
	length, err := p.vm.ArrayLength(ctx, arr.Object())
	if err != nil || length == 0 {
		return nil, false, err
	}
	all, err := p.vm.ArrayValues(ctx, arr.Object(), 0, length)
	if err != nil {
		return nil, false, err
	}
	slots := length / step
	idx := int((salt.Bits*uint64(slots))>>32) * step
	var vals, ks []jdwp.Value
	for range int(int32(size.Bits)) {
		for tries := 0; ; tries++ {
			if tries > slots {
				return nil, false, nil // fewer elements than its size: not the layout expected
			}
			if rev.Bool() {
				if idx += step; idx >= length {
					idx = 0
				}
			} else {
				if idx -= step; idx < 0 {
					idx = length - step
				}
			}
			if !all[idx].IsNull() {
				break
			}
		}
		if isMap && !keys {
			ks, vals = append(ks, all[idx]), append(vals, all[idx+1])
		} else {
			vals = append(vals, all[idx])
		}
	}
	if isMap && !keys {
		return fixedElements(vals, ks), true, nil
	}
	return fixedElements(vals, nil), true, nil
}

// concurrentElements lists a ConcurrentHashMap in its iteration order:
// slot by slot, a bin by its nodes' next, a tree bin by its first's; a
// table being resized (a forwarding node met) is left to toArray().
func (p *Presenter) concurrentElements(ctx context.Context, f map[string]jdwp.Value, keys bool) (*ElementList, bool, error) {
	base := f["baseCount"]
	if base.Tag != jdwp.TagLong {
		return nil, false, nil
	}
	n := int64(base.Bits)
	if cells := f["counterCells"]; !cells.IsNull() {
		k, err := p.vm.ArrayLength(ctx, cells.Object())
		if err != nil {
			return nil, false, err
		}
		cs, err := p.vm.ArrayValues(ctx, cells.Object(), 0, k)
		if err != nil {
			return nil, false, err
		}
		for _, c := range cs {
			if c.IsNull() {
				continue
			}
			v, ok, err := p.vm.Field(ctx, c.Object(), "value")
			if err != nil || !ok {
				return nil, false, err
			}
			n += int64(v.Bits)
		}
	}
	if !f["nextTable"].IsNull() {
		return nil, false, nil // resizing
	}
	l := p.hashWalk(f["table"], int(max(n, 0)), func(ctx context.Context, node jdwp.ObjectID) (Element, jdwp.Value, bool, error) {
		nf, err := p.fieldsOf(ctx, node)
		if err != nil {
			return Element{}, jdwp.Value{}, false, err
		}
		switch h := int32(nf["hash"].Bits); {
		case h == -2: // TreeBin: its nodes from first
			return Element{}, nf["first"], false, nil
		case h == -1: // a forwarding node: moved on
			return Element{}, jdwp.Value{}, false, fmt.Errorf("the map is being resized")
		case h < 0: // a reservation: no element
			return Element{}, nf["next"], false, nil
		}
		return Element{Key: nf["key"], Value: nf["val"]}, nf["next"], true, nil
	})
	return asKeys(l, keys), true, nil
}
