package debugger

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// Coroutines no thread runs, found without a registry: the jobs of the
// coroutines the stopped threads run are walked up to their roots, then
// down through every child (a job's state holds its children's handles,
// and the cancellable continuation it suspended in). Fields only: no code
// runs, so it works on ART.

// maxJobs bounds the walk (jobs visited) and maxNodes one job's list.
const (
	maxJobs  = 100000
	maxNodes = 100000
)

// jobCoroutines lists the coroutines of the job trees of running (the jobs
// of the coroutines the threads run) that are not complete and that no
// thread runs: "suspended", or "created" when not started; then, where the
// VM can list a class's instances, those of the trees of the other
// coroutine objects (GlobalScope's, another runBlocking's): fromInstances
// says some were found so. Each carries its innermost continuation (last)
// for its stack; its context is read as its job is (one command for the
// job's state and context).
func (t *Target) jobCoroutines(ctx context.Context, s lang.Suspending, running []jdwp.ObjectID) (out []Coroutine, fromInstances bool) {
	n := s.Continuations()
	if n.Coroutine == "" {
		return nil, false
	}
	run := map[jdwp.ObjectID]bool{}
	var roots []jdwp.ObjectID
	rooted := map[jdwp.ObjectID]bool{}
	for _, j := range running {
		run[j] = true
		r := j
		for range 64 {
			p := t.jobParent(ctx, n, r)
			if p == 0 {
				break
			}
			r = p
		}
		if !rooted[r] {
			rooted[r] = true
			roots = append(roots, r)
		}
	}
	coroutine, scope := javalang.Signature(n.Coroutine), javalang.Signature(n.Scope)
	type item struct{ job, owner jdwp.ObjectID }
	queue := make([]item, 0, len(roots))
	for _, r := range roots {
		queue = append(queue, item{job: r})
	}
	visited := map[jdwp.ObjectID]bool{}
	at := map[jdwp.ObjectID]int{} // a listed coroutine → its index in out
	w := &jobWalk{t: t, n: n}
	// walk reads the queue's jobs level by level, each level's jobs at once.
	walk := func() {
		type read struct {
			job, owner, last jdwp.ObjectID
			co               Coroutine // a listed one's name, number, dispatcher
			state            string
			listed           bool
			children         []jdwp.ObjectID
		}
		for len(queue) > 0 && len(visited) < maxJobs {
			var level []item
			for _, it := range queue {
				if !visited[it.job] && len(visited) < maxJobs {
					visited[it.job] = true
					level = append(level, it)
				}
			}
			queue = queue[:0]
			reads := make([]read, len(level))
			_ = mirror.Parallel(len(level), func(i int) error {
				it, r := level[i], &reads[i]
				r.job, r.owner = it.job, it.owner
				_, sig, err := t.VM.ObjectType(ctx, it.job)
				if err != nil {
					return nil
				}
				// Its state and context in one command.
				vals, ok, err := t.fieldsOf(ctx, it.job, n.JobState, []string{n.JobContext})
				if err != nil {
					return nil
				}
				context := jdwp.ObjectID(0)
				if ok[1] {
					context = vals[1].Object()
				}
				var nodes []jdwp.ObjectID
				var state string
				if ok[0] {
					nodes, state = w.jobNodes(ctx, vals[0])
				}
				r.state = state
				if isCo, _ := t.VM.Subtype(ctx, sig, coroutine); isCo {
					if isScope, _ := t.VM.Subtype(ctx, sig, scope); !isScope {
						r.owner = it.job // a scope's children and waiter are its coroutine's
						r.listed = state != "" && !run[it.job]
					}
				}
				if r.listed {
					r.co = Coroutine{ID: int64(r.job), context: context}
					if context != 0 {
						t.readContext(ctx, s, r.job, &r.co)
					}
				}
				// at is written only between levels.
				i0, ownerListed := at[r.owner]
				wantWaiter := r.listed && r.owner == it.job || ownerListed && out[i0].last == 0
				// The nodes at once: a child's handle, the waiter.
				children := make([]jdwp.ObjectID, len(nodes))
				waiters := make([]jdwp.ObjectID, len(nodes))
				_ = mirror.Parallel(len(nodes), func(k int) error {
					if c, ok := w.child(nodes[k]); ok {
						children[k] = c
						return nil
					}
					_, nsig, err := t.VM.ObjectType(ctx, nodes[k])
					if err != nil {
						return nil
					}
					switch javalang.TypeName(nsig) {
					case n.ChildNode:
						if c, ok, _ := t.VM.Field(ctx, nodes[k], n.ChildField); ok {
							children[k] = c.Object()
						}
					case n.Waiter:
						if !wantWaiter {
							break
						}
						if wv, ok, _ := t.VM.Field(ctx, nodes[k], n.WaiterField); ok {
							waiters[k] = wv.Object()
						}
					}
					return nil
				})
				for k := range nodes {
					if children[k] != 0 {
						r.children = append(r.children, children[k])
					}
					if waiters[k] != 0 && r.last == 0 {
						r.last = t.waiterContinuation(ctx, n, waiters[k])
					}
				}
				return nil
			})
			for _, r := range reads {
				if r.listed {
					at[r.job] = len(out)
					c := r.co
					c.State, c.job, c.last = r.state, r.job, r.last
					out = append(out, c)
				} else if i, ok := at[r.owner]; ok && r.last != 0 && out[i].last == 0 {
					out[i].last = r.last
				}
				for _, c := range r.children {
					queue = append(queue, item{job: c, owner: r.owner})
				}
			}
		}
	}
	// The VM's coroutine objects are listed while the threads' trees are
	// walked (a walk of the heap in the VM, AllClasses here).
	objects := make(chan []jdwp.ObjectID, 1)
	go func() { objects <- t.coroutineObjects(ctx, coroutine) }()
	walk()
	fromThreads := len(out)
	for _, obj := range <-objects {
		if visited[obj] || run[obj] {
			continue
		}
		r := obj
		for range 64 {
			p := t.jobParent(ctx, n, r)
			if p == 0 || visited[p] {
				break
			}
			r = p
		}
		queue = append(queue, item{job: r})
		walk()
	}
	return out, len(out) > fromThreads
}

// coroutineObjects lists the VM's coroutine objects (instances of the
// loaded subclasses of coroutine, a signature, among kotlinx-coroutines'
// classes), where the VM says it can (CanGetInstanceInfo); else none.
func (t *Target) coroutineObjects(ctx context.Context, coroutine string) []jdwp.ObjectID {
	caps, err := t.Conn.Capabilities(ctx)
	if err != nil || !caps.CanGetInstanceInfo {
		return nil
	}
	all, err := t.VM.AllClasses(ctx)
	if err != nil {
		return nil
	}
	pkg := coroutine[:strings.LastIndexByte(coroutine, '/')+1] // "Lkotlinx/coroutines/"
	pkg = pkg[:strings.IndexByte(pkg[1:], '/')+2]              // "Lkotlinx/"
	var out []jdwp.ObjectID
	for _, c := range all {
		if !strings.HasPrefix(c.Signature, pkg) {
			continue
		}
		if ok, _ := t.VM.Subtype(ctx, c.Signature, coroutine); !ok {
			continue
		}
		objs, err := t.Conn.Instances(ctx, c.ID, 0)
		if err != nil {
			continue
		}
		for _, o := range objs {
			out = append(out, o.ID)
		}
	}
	return out
}

// firstField reads the first of names obj's class has.
func (t *Target) firstField(ctx context.Context, obj jdwp.ObjectID, names []string) (jdwp.Value, bool) {
	for _, name := range names {
		if v, ok, err := t.VM.Field(ctx, obj, name); err == nil && ok {
			return v, true
		}
	}
	return jdwp.Value{}, false
}

// jobParent is job's parent job (0: a root).
func (t *Target) jobParent(ctx context.Context, n lang.Continuations, job jdwp.ObjectID) jdwp.ObjectID {
	h, ok := t.firstField(ctx, job, n.JobParent)
	if !ok || h.IsNull() {
		return 0
	}
	if _, sig, err := t.VM.ObjectType(ctx, h.Object()); err != nil || javalang.TypeName(sig) != n.ChildNode {
		return 0
	}
	p, ok, err := t.VM.Field(ctx, h.Object(), n.NodeJob)
	if err != nil || !ok {
		return 0
	}
	return p.Object()
}

// jobWalk is one listing's walk of job trees: the nodes of the jobs' child
// lists read ahead of the walk where the VM can list a class's instances.
type jobWalk struct {
	t *Target
	n lang.Continuations

	mu      sync.Mutex
	fetched bool
	ahead   map[jdwp.ObjectID]aheadNode // a child's handle → its link and child
}

// aheadNode is a child's handle (ChildHandleNode) read ahead: the next
// node of its list and the child job.
type aheadNode struct{ next, child jdwp.ObjectID }

// readAheadAfter is how many nodes of one list are read one by one before
// every child handle of the VM is read at once.
const readAheadAfter = 32

// child is a node's child job when the node is a child handle read ahead.
func (w *jobWalk) child(node jdwp.ObjectID) (jdwp.ObjectID, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	a, ok := w.ahead[node]
	return a.child, ok && a.child != 0
}

// readAhead reads every child handle of the VM, its link (the field link)
// and its child, all at once, where the VM can list a class's instances: a
// list of N children then costs N commands at once rather than N in turn
// (each node's link is the next's id). Once a listing; a VM that cannot
// has its lists read a node at a time.
func (w *jobWalk) readAhead(ctx context.Context, link jdwp.FieldID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fetched {
		return
	}
	w.fetched = true
	t := w.t
	caps, err := t.Conn.Capabilities(ctx)
	if err != nil || !caps.CanGetInstanceInfo {
		return
	}
	classes, err := t.VM.ClassesBySignature(ctx, javalang.Signature(w.n.ChildNode))
	if err != nil {
		return
	}
	var objs []jdwp.ObjectID
	var fields [][]jdwp.FieldID
	for _, c := range classes {
		f, ok, err := t.VM.FindField(ctx, c.ID, w.n.ChildField)
		if err != nil || !ok || f.Static() {
			continue
		}
		in, err := t.Conn.Instances(ctx, c.ID, maxNodes)
		if err != nil {
			continue
		}
		for _, o := range in {
			objs = append(objs, o.ID)
			fields = append(fields, []jdwp.FieldID{link, f.ID})
		}
	}
	got := make([]aheadNode, len(objs))
	ok := make([]bool, len(objs))
	_ = mirror.Parallel(len(objs), func(i int) error {
		vals, err := t.VM.ReadFields(ctx, objs[i], fields[i])
		if err == nil && len(vals) == 2 {
			got[i], ok[i] = aheadNode{next: vals[0].Object(), child: vals[1].Object()}, true
		}
		return nil
	})
	w.ahead = make(map[jdwp.ObjectID]aheadNode, len(objs))
	for i, o := range objs {
		if ok[i] {
			w.ahead[o] = got[i]
		}
	}
}

// jobNodes reads a job's state v: the nodes it holds (children's handles,
// waiters, handlers) and its coroutine state: "suspended", "created" (not
// started), "" when complete or finishing (its body over).
func (w *jobWalk) jobNodes(ctx context.Context, v jdwp.Value) ([]jdwp.ObjectID, string) {
	t, n := w.t, w.n
	if v.IsNull() {
		return nil, ""
	}
	st := v.Object()
	_, sig, err := t.VM.ObjectType(ctx, st)
	if err != nil {
		return nil, ""
	}
	switch javalang.TypeName(sig) {
	case n.Empty:
		if a, ok, _ := t.VM.Field(ctx, st, n.EmptyActive); ok && !a.Bool() {
			return nil, "created"
		}
		return nil, "suspended"
	case n.NodeList:
		return w.listNodes(ctx, st), "suspended"
	case n.InactiveList, n.Finishing:
		state := "created"
		if javalang.TypeName(sig) == n.Finishing {
			state = ""
		}
		l, ok, _ := t.VM.Field(ctx, st, n.ListField)
		if !ok || l.IsNull() {
			return nil, state
		}
		return w.listNodes(ctx, l.Object()), state
	}
	if inc, _ := t.VM.Subtype(ctx, sig, javalang.Signature(n.Incomplete)); !inc {
		return nil, "" // its result: complete
	}
	return []jdwp.ObjectID{st}, "suspended" // one node
}

// listNodes reads a job's list of nodes from its head, removed nodes left
// out: one command a node (the link read by its field's id: every node's
// class extends the head's base class, which declares it), in turn, or
// none for the child handles read ahead (readAhead, once a list is
// longer than readAheadAfter).
func (w *jobWalk) listNodes(ctx context.Context, head jdwp.ObjectID) []jdwp.ObjectID {
	t, n := w.t, w.n
	ht, _, err := t.VM.ObjectType(ctx, head)
	if err != nil {
		return nil
	}
	var link jdwp.FieldID
	for _, name := range n.ListNext {
		if f, ok, err := t.VM.FindField(ctx, ht, name); err == nil && ok && !f.Static() {
			link = f.ID
			break
		}
	}
	if link == 0 {
		return nil
	}
	read := func(node jdwp.ObjectID) (jdwp.ObjectID, error) {
		w.mu.Lock()
		a, ok := w.ahead[node]
		w.mu.Unlock()
		if ok {
			return a.next, nil
		}
		vals, err := t.Conn.FieldValues(ctx, node, []jdwp.FieldID{link})
		if err != nil || len(vals) != 1 {
			return 0, fmt.Errorf("a job's list: %v", err)
		}
		return vals[0].Object(), nil
	}
	var out []jdwp.ObjectID
	cur, err := read(head)
	for err == nil && cur != 0 && cur != head && len(out) < maxNodes {
		if len(out) == readAheadAfter {
			w.readAhead(ctx, link)
		}
		nx, rerr := read(cur)
		if rerr != nil {
			// cur has no link: the Removed wrapper a removed node links to.
			if _, sig, err := t.VM.ObjectType(ctx, cur); err != nil || javalang.TypeName(sig) != n.Removed || len(out) == 0 {
				break
			}
			out = out[:len(out)-1]
			r, _, _ := t.VM.Field(ctx, cur, n.RemovedField)
			cur = r.Object()
			continue
		}
		out = append(out, cur)
		cur = nx
	}
	return out
}

// fieldsOf reads obj's instance fields named by slots (each the names
// one field has had across versions: the first its class has) in one
// command; a slot its class has not reads as not ok.
func (t *Target) fieldsOf(ctx context.Context, obj jdwp.ObjectID, slots ...[]string) ([]jdwp.Value, []bool, error) {
	typ, _, err := t.VM.ObjectType(ctx, obj)
	if err != nil {
		return nil, nil, err
	}
	chain, err := t.VM.FieldChain(ctx, typ)
	if err != nil {
		return nil, nil, err
	}
	vals, ok := make([]jdwp.Value, len(slots)), make([]bool, len(slots))
	var ids []jdwp.FieldID
	var at []int
	for i, names := range slots {
	find:
		for _, name := range names {
			for _, f := range chain {
				if f.Name == name && !f.Static() {
					ids, at = append(ids, f.ID), append(at, i)
					break find
				}
			}
		}
	}
	if len(ids) == 0 {
		return vals, ok, nil
	}
	got, err := t.VM.ReadFields(ctx, obj, ids)
	if err != nil || len(got) != len(ids) {
		return nil, nil, fmt.Errorf("fields of %d: %v", obj, err)
	}
	for k, i := range at {
		vals[i], ok[i] = got[k], true
	}
	return vals, ok, nil
}

// waiterContinuation is the innermost continuation of a coroutine
// suspended in the cancellable continuation w (0: none read).
func (t *Target) waiterContinuation(ctx context.Context, n lang.Continuations, w jdwp.ObjectID) jdwp.ObjectID {
	d, ok, err := t.VM.Field(ctx, w, n.WaiterDelegate)
	if err != nil || !ok || d.IsNull() {
		return 0
	}
	c := d.Object()
	if _, sig, err := t.VM.ObjectType(ctx, c); err == nil && javalang.TypeName(sig) == n.Dispatched {
		inner, ok, _ := t.VM.Field(ctx, c, n.DispatchedField)
		if !ok {
			return 0
		}
		c = inner.Object()
	}
	return c
}
