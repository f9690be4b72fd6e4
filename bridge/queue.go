package bridge

import "sync"

// queue delivers values in order on C without ever blocking the producer:
// values wait in memory until read. Close drops what is queued and closes C.
type queue[T any] struct {
	C <-chan T

	c      chan T
	mu     sync.Mutex
	items  []T
	closed bool
	wake   chan struct{}
	stop   chan struct{}
}

func newQueue[T any]() *queue[T] {
	q := &queue[T]{c: make(chan T), wake: make(chan struct{}, 1), stop: make(chan struct{})}
	q.C = q.c
	go q.pump()
	return q
}

func (q *queue[T]) push(v T) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.items = append(q.items, v)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *queue[T]) close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		q.items = nil
		close(q.stop)
	}
	q.mu.Unlock()
}

func (q *queue[T]) pump() {
	defer close(q.c)
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return
		}
		if len(q.items) == 0 {
			q.mu.Unlock()
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
		q.mu.Unlock()
		select {
		case q.c <- v:
		case <-q.stop:
			return
		}
	}
}
