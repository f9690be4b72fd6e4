package mirror

import (
	"context"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Facts of a held VM. While its owner holds every thread of the VM
// suspended and no method runs for the debugger (Hold), what only a running
// thread can change — the list of threads, their names — is read once and
// answered again from that reading; Release drops it the moment anything
// may run (a resume, a method run for the debugger). A read asked while the
// same read is on its way waits for it rather than asking again: a stop's
// prefetch and the front end's request share one round trip on a slow link.
// When and whether the VM is held is the owner's word: the mirror knows no
// suspension policy.
//
// Some facts never change for an object id at all, held or not: a string's
// characters, an array's length (and its type, objType). HotSpot and ART
// never give an id to another object while the debugger may still use it,
// so those are kept across stops (strings up to maxKeptString, at most
// maxKept of each, then forgotten all at once).

// held is the facts of a held VM (guarded by mu).
type held struct {
	mu sync.Mutex
	on bool
	m  map[heldKey]*flight
}

type heldKey struct {
	kind   byte // 't': the thread list, 'n': a thread's name
	thread jdwp.ThreadID
}

// flight is one read: done is closed when v and err are set.
type flight struct {
	done chan struct{}
	v    any
	err  error
}

// Hold says no thread of the VM runs until Release: its threads and their
// names may be read once.
func (m *VM) Hold() {
	m.held.mu.Lock()
	if !m.held.on {
		m.held.on, m.held.m = true, map[heldKey]*flight{}
	}
	m.held.mu.Unlock()
}

// Release says a thread may run (a resume, a method run for the debugger,
// a thread started or ended): what was read while held is dropped.
func (m *VM) Release() {
	m.held.mu.Lock()
	if m.held.on {
		m.held.on, m.held.m = false, nil
	}
	m.held.mu.Unlock()
}

// Held reports whether the owner said the VM is held (Hold).
func (m *VM) Held() bool {
	m.held.mu.Lock()
	defer m.held.mu.Unlock()
	return m.held.on
}

// whileHeld answers k from the held VM's facts, or reads it with fetch
// (kept while the VM is held; an error is not kept).
func (m *VM) whileHeld(ctx context.Context, k heldKey, fetch func() (any, error)) (any, error) {
	h := &m.held
	h.mu.Lock()
	if !h.on {
		h.mu.Unlock()
		return fetch()
	}
	if f := h.m[k]; f != nil {
		h.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if f.err == nil {
			return f.v, nil
		}
		return fetch()
	}
	f := &flight{done: make(chan struct{})}
	h.m[k] = f
	h.mu.Unlock()
	f.v, f.err = fetch()
	close(f.done)
	if f.err != nil {
		h.mu.Lock()
		if h.m[k] == f {
			delete(h.m, k)
		}
		h.mu.Unlock()
	}
	return f.v, f.err
}

// Threads lists the VM's live threads (read once while the VM is held).
func (m *VM) Threads(ctx context.Context) ([]jdwp.ThreadID, error) {
	v, err := m.whileHeld(ctx, heldKey{kind: 't'}, func() (any, error) { return m.conn.AllThreads(ctx) })
	if err != nil {
		return nil, err
	}
	return v.([]jdwp.ThreadID), nil
}

// ThreadName returns a thread's name (read once while the VM is held).
func (m *VM) ThreadName(ctx context.Context, t jdwp.ThreadID) (string, error) {
	v, err := m.whileHeld(ctx, heldKey{kind: 'n', thread: t}, func() (any, error) { return m.conn.ThreadName(ctx, t) })
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// ThreadNames reads the names of threads at once (Parallel), each as
// ThreadName does; a thread that ended meanwhile gets its error in errs.
func (m *VM) ThreadNames(ctx context.Context, threads []jdwp.ThreadID) (names []string, errs []error) {
	names, errs = make([]string, len(threads)), make([]error, len(threads))
	Parallel(len(threads), func(i int) error {
		names[i], errs[i] = m.ThreadName(ctx, threads[i])
		return nil
	})
	return names, errs
}

// Limits of what is kept of objects by id across stops.
const (
	maxKeptString = 4 << 10
	maxKept       = 100000
)

// kept is a cache by object id of facts that never change for an id.
type kept[V any] struct {
	mu sync.Mutex
	m  map[jdwp.ObjectID]V
}

func (k *kept[V]) get(id jdwp.ObjectID) (V, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.m[id]
	return v, ok
}

func (k *kept[V]) put(id jdwp.ObjectID, v V) {
	k.mu.Lock()
	if k.m == nil || len(k.m) >= maxKept {
		k.m = map[jdwp.ObjectID]V{}
	}
	k.m[id] = v
	k.mu.Unlock()
}

// String reads a java.lang.String; its characters never change, so each
// string is read once.
func (m *VM) String(ctx context.Context, s jdwp.ObjectID) (string, error) {
	if v, ok := m.strs.get(s); ok {
		return v, nil
	}
	v, err := m.conn.StringValue(ctx, s)
	if err == nil && len(v) <= maxKeptString {
		m.strs.put(s, v)
	}
	return v, err
}

// ArrayLength returns an array's length, which never changes: read once.
func (m *VM) ArrayLength(ctx context.Context, arr jdwp.ObjectID) (int, error) {
	if n, ok := m.arrLens.get(arr); ok {
		return n, nil
	}
	n, err := m.conn.ArrayLength(ctx, arr)
	if err == nil {
		m.arrLens.put(arr, int(n))
	}
	return int(n), err
}
