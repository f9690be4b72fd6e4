package debugger

import (
	"context"
	"fmt"
	"strings"

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
// for its stack; their context is read.
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
	// walk reads the queue's jobs level by level, each level's jobs at once.
	walk := func() {
		type read struct {
			job, owner, last jdwp.ObjectID
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
				nodes, state := t.jobNodes(ctx, n, it.job)
				r.state = state
				if isCo, _ := t.VM.Subtype(ctx, sig, coroutine); isCo {
					if isScope, _ := t.VM.Subtype(ctx, sig, scope); !isScope {
						r.owner = it.job // a scope's children and waiter are its coroutine's
						r.listed = state != "" && !run[it.job]
					}
				}
				// at is written only between levels.
				i0, ownerListed := at[r.owner]
				wantWaiter := r.listed && r.owner == it.job || ownerListed && out[i0].last == 0
				// The nodes at once: a child's handle, the waiter.
				children := make([]jdwp.ObjectID, len(nodes))
				waiters := make([]jdwp.ObjectID, len(nodes))
				_ = mirror.Parallel(len(nodes), func(k int) error {
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
						if w, ok, _ := t.VM.Field(ctx, nodes[k], n.WaiterField); ok && wantWaiter {
							waiters[k] = w.Object()
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
					out = append(out, Coroutine{ID: int64(r.job), State: r.state, job: r.job, last: r.last})
				} else if i, ok := at[r.owner]; ok && r.last != 0 && out[i].last == 0 {
					out[i].last = r.last
				}
				for _, c := range r.children {
					queue = append(queue, item{job: c, owner: r.owner})
				}
			}
		}
	}
	walk()
	fromThreads := len(out)
	for _, obj := range t.coroutineObjects(ctx, coroutine) {
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
	_ = mirror.Parallel(len(out), func(i int) error {
		t.readContext(ctx, s, out[i].job, &out[i])
		return nil
	})
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

// jobNodes reads a job's state: the nodes it holds (children's handles,
// waiters, handlers) and its coroutine state: "suspended", "created" (not
// started), "" when complete or finishing (its body over).
func (t *Target) jobNodes(ctx context.Context, n lang.Continuations, job jdwp.ObjectID) ([]jdwp.ObjectID, string) {
	v, ok := t.firstField(ctx, job, n.JobState)
	if !ok || v.IsNull() {
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
		return t.listNodes(ctx, n, st), "suspended"
	case n.InactiveList, n.Finishing:
		state := "created"
		if javalang.TypeName(sig) == n.Finishing {
			state = ""
		}
		l, ok, _ := t.VM.Field(ctx, st, n.ListField)
		if !ok || l.IsNull() {
			return nil, state
		}
		return t.listNodes(ctx, n, l.Object()), state
	}
	if inc, _ := t.VM.Subtype(ctx, sig, javalang.Signature(n.Incomplete)); !inc {
		return nil, "" // its result: complete
	}
	return []jdwp.ObjectID{st}, "suspended" // one node
}

// listNodes reads a job's list of nodes from its head, removed nodes left
// out: one command a node (the link read by its field's id: every node's
// class extends the head's base class, which declares it).
func (t *Target) listNodes(ctx context.Context, n lang.Continuations, head jdwp.ObjectID) []jdwp.ObjectID {
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
		vals, err := t.Conn.FieldValues(ctx, node, []jdwp.FieldID{link})
		if err != nil || len(vals) != 1 {
			return 0, fmt.Errorf("a job's list: %v", err)
		}
		return vals[0].Object(), nil
	}
	var out []jdwp.ObjectID
	cur, err := read(head)
	for err == nil && cur != 0 && cur != head && len(out) < maxNodes {
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
