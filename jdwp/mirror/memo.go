package mirror

import "sync"

// Memo caches the answers of VM queries that never change for a key (a
// class's methods, a method's line table) behind a lock of its own, so
// caches never wait on each other. Errors are not cached. Callers asking
// for a key another is fetching wait for that answer instead of asking the
// VM again (a thousand objects of one class read at once ask its signature
// once); when that fetch fails, each asks on its own. The zero value is
// ready to use.
type Memo[K comparable, V any] struct {
	mu     sync.Mutex
	m      map[K]V
	flying map[K]chan struct{} // keys being fetched, closed when done
}

// Get returns the cached answer for k, or fetches and caches it.
func (c *Memo[K, V]) Get(k K, fetch func() (V, error)) (V, error) {
	c.mu.Lock()
	if v, ok := c.m[k]; ok {
		c.mu.Unlock()
		return v, nil
	}
	if ch := c.flying[k]; ch != nil {
		c.mu.Unlock()
		<-ch
		c.mu.Lock()
		v, ok := c.m[k]
		c.mu.Unlock()
		if ok {
			return v, nil
		}
		return c.fetch(k, fetch) // the other fetch failed: ask on our own
	}
	ch := make(chan struct{})
	if c.flying == nil {
		c.flying = map[K]chan struct{}{}
	}
	c.flying[k] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.flying, k)
		c.mu.Unlock()
		close(ch)
	}()
	return c.fetch(k, fetch)
}

// fetch fetches k's answer and caches it.
func (c *Memo[K, V]) fetch(k K, fetch func() (V, error)) (V, error) {
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
