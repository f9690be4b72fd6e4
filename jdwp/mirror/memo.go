package mirror

import "sync"

// Memo caches the answers of VM queries that never change for a key (a
// class's methods, a method's line table) behind a lock of its own, so
// caches never wait on each other. Errors are not cached. A Get while
// another Get of the same key is fetching waits for that answer rather
// than asking the VM again (two readers of a stop share a round trip on a
// slow link). The zero value is ready to use.
type Memo[K comparable, V any] struct {
	mu       sync.Mutex
	m        map[K]V
	fetching map[K]chan struct{} // closed when the fetch of a key is over
}

// Get returns the cached answer for k, or fetches and caches it.
func (c *Memo[K, V]) Get(k K, fetch func() (V, error)) (V, error) {
	c.mu.Lock()
	for {
		if v, ok := c.m[k]; ok {
			c.mu.Unlock()
			return v, nil
		}
		ch, busy := c.fetching[k]
		if !busy {
			break
		}
		c.mu.Unlock()
		<-ch
		c.mu.Lock()
		if _, ok := c.m[k]; !ok {
			break // that fetch failed: this one asks itself
		}
	}
	if c.fetching == nil {
		c.fetching = map[K]chan struct{}{}
	}
	ch, busy := c.fetching[k]
	if !busy {
		ch = make(chan struct{})
		c.fetching[k] = ch
	}
	c.mu.Unlock()
	v, err := fetch()
	c.mu.Lock()
	if err == nil {
		if c.m == nil {
			c.m = map[K]V{}
		}
		c.m[k] = v
	}
	if !busy {
		delete(c.fetching, k)
		close(ch)
	}
	c.mu.Unlock()
	return v, err
}

// Put caches an answer learnt another way (a class's signature from a
// class list), unless one is cached already.
func (c *Memo[K, V]) Put(k K, v V) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[K]V{}
	}
	if _, ok := c.m[k]; !ok {
		c.m[k] = v
	}
	c.mu.Unlock()
}

// Forget drops a cached answer.
func (c *Memo[K, V]) Forget(k K) {
	c.mu.Lock()
	delete(c.m, k)
	c.mu.Unlock()
}

// ForgetIf drops the cached answers whose keys match.
func (c *Memo[K, V]) ForgetIf(match func(K) bool) {
	c.mu.Lock()
	for k := range c.m {
		if match(k) {
			delete(c.m, k)
		}
	}
	c.mu.Unlock()
}
