package queue

import "sync"

// Queue delivers values in order on C and never blocks the producer: values
// wait in memory until read. The zero value is not usable; call New.
type Queue[T any] struct {
	// C delivers the values. It is closed by Close and by Finish.
	C <-chan T

	c      chan T
	mu     sync.Mutex
	items  []T
	costs  []int         // with PushCost: each item's cost, parallel to items
	total  int           // the costs of the items queued
	closed bool          // no more Push; the pump ends once items is empty
	wake   chan struct{} // a Push or Finish happened
	stop   chan struct{} // closed by Close: drop everything now
	once   sync.Once
}

// New returns an empty queue and starts the goroutine that feeds C.
func New[T any]() *Queue[T] {
	q := &Queue[T]{c: make(chan T), wake: make(chan struct{}, 1), stop: make(chan struct{})}
	q.C = q.c
	go q.pump()
	return q
}

// Push appends v. It never blocks; after Close or Finish it does nothing.
func (q *Queue[T]) Push(v T) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.signal()
}

// PushCost is Push for a queue whose consumer may fall behind: v counts
// cost (its size, say) until it is taken from C. It returns how many values
// and how much cost wait, v included, so that the producer can bound them.
// Use it for every value of a queue, or for none.
func (q *Queue[T]) PushCost(v T, cost int) (n, total int) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return 0, 0
	}
	q.items = append(q.items, v)
	q.costs = append(q.costs, cost)
	q.total += cost
	n, total = len(q.items), q.total
	q.mu.Unlock()
	q.signal()
	return n, total
}

// Finish appends last values, if any, then ends the queue: what is queued is
// still delivered, then C is closed. Later calls and Pushes do nothing.
func (q *Queue[T]) Finish(last ...T) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, last...)
		if q.costs != nil {
			q.costs = append(q.costs, make([]int, len(last))...)
		}
		q.closed = true
	}
	q.mu.Unlock()
	q.signal()
}

// Close drops what is queued and closes C (once the goroutine feeding it sees
// the stop; a value it was offering is dropped too). It may be called more
// than once, and after Finish.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.items, q.costs, q.total = nil, nil, 0
	q.mu.Unlock()
	q.once.Do(func() { close(q.stop) })
}

func (q *Queue[T]) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *Queue[T]) pump() {
	defer close(q.c)
	for {
		q.mu.Lock()
		if len(q.items) == 0 {
			closed := q.closed
			q.mu.Unlock()
			if closed {
				return
			}
			select {
			case <-q.wake:
			case <-q.stop:
				return
			}
			continue
		}
		v := q.items[0]
		var zero T
		q.items[0] = zero
		q.items = q.items[1:]
		if len(q.costs) > 0 {
			q.total -= q.costs[0]
			q.costs = q.costs[1:]
		}
		q.mu.Unlock()
		select {
		case q.c <- v:
		case <-q.stop:
			return
		}
	}
}

// Lanes runs a function on values in order per key: values pushed under one
// key are handled one at a time, in order, by one goroutine that exists only
// while the key has work; different keys run concurrently. The zero value is
// not usable; call NewLanes.
type Lanes[K comparable, T any] struct {
	run   func(K, T)
	spawn func(func())
	mu    sync.Mutex
	lanes map[K][]T
}

// NewLanes returns lanes that call run for each value. spawn starts a lane's
// goroutine (so the caller can count it in a WaitGroup); nil means go f().
func NewLanes[K comparable, T any](run func(K, T), spawn func(f func())) *Lanes[K, T] {
	if spawn == nil {
		spawn = func(f func()) { go f() }
	}
	return &Lanes[K, T]{run: run, spawn: spawn, lanes: map[K][]T{}}
}

// Push queues v on key's lane, starting the lane's goroutine if it is idle.
// It never blocks.
func (l *Lanes[K, T]) Push(key K, v T) {
	l.mu.Lock()
	q, busy := l.lanes[key]
	l.lanes[key] = append(q, v)
	l.mu.Unlock()
	if busy {
		return
	}
	l.spawn(func() {
		for {
			l.mu.Lock()
			q := l.lanes[key]
			if len(q) == 0 {
				delete(l.lanes, key)
				l.mu.Unlock()
				return
			}
			v := q[0]
			var zero T
			q[0] = zero
			l.lanes[key] = q[1:]
			l.mu.Unlock()
			l.run(key, v)
		}
	})
}

// Busy reports whether key's lane has work queued or running.
func (l *Lanes[K, T]) Busy(key K) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.lanes[key]
	return ok
}
