package dap

import "sync"

// handles hands out small integer references (frame ids, variablesReference)
// for values of type T. References start at 1000, so a stale or made-up
// small number never resolves, and are invalidated together by reset when the
// VM resumes.
type handles[T any] struct {
	mu   sync.Mutex
	next int
	m    map[int]T
}

const firstHandle = 1000

// firstAsyncFrame numbers the frames of async stacks apart from the VM's
// frames (a frame id is either).
const firstAsyncFrame = 1 << 30

func newHandles[T any]() *handles[T] { return &handles[T]{next: firstHandle, m: map[int]T{}} }

// add stores v and returns its reference.
func (h *handles[T]) add(v T) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	id := h.next
	h.next++
	h.m[id] = v
	return id
}

// get returns the value of a reference.
func (h *handles[T]) get(id int) (T, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.m[id]
	return v, ok
}

// reset forgets every reference; numbering goes on, so old references stay invalid.
func (h *handles[T]) reset() {
	h.mu.Lock()
	h.m = map[int]T{}
	h.mu.Unlock()
}

// idMap gives the VM's 64-bit ids stable small DAP ids (thread ids), both ways.
type idMap[K comparable] struct {
	mu   sync.Mutex
	next int
	fwd  map[K]int
	back map[int]K
}

func newIDMap[K comparable]() *idMap[K] {
	return &idMap[K]{next: 1, fwd: map[K]int{}, back: map[int]K{}}
}

func (m *idMap[K]) id(k K) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id, ok := m.fwd[k]; ok {
		return id
	}
	id := m.next
	m.next++
	m.fwd[k], m.back[id] = id, k
	return id
}

func (m *idMap[K]) key(id int) (K, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.back[id]
	return k, ok
}
