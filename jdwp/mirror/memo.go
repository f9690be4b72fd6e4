package mirror

import "sync"

// Memo caches the answers of VM queries that never change for a key (a
// class's methods, a method's line table) behind a lock of its own, so
// caches never wait on each other. Errors are not cached. The zero value is
// ready to use.
type Memo[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

// Get returns the cached answer for k, or fetches and caches it.
func (c *Memo[K, V]) Get(k K, fetch func() (V, error)) (V, error) {
	c.mu.Lock()
	if v, ok := c.m[k]; ok {
		c.mu.Unlock()
		return v, nil
	}
	c.mu.Unlock()
	v, err := fetch()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[K]V{}
	}
	c.m[k] = v
	c.mu.Unlock()
	return v, nil
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
