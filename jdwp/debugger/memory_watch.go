package debugger

import "sync"

// watchers are the functions told of a session's stops and resumes
// (Stops.Watch). They run on the goroutine that changed the stop state,
// after its lock is released, and must return at once.
type watchers struct {
	mu sync.Mutex
	fs []func(stopped bool)
}

func (w *watchers) tell(stopped bool) {
	w.mu.Lock()
	fs := w.fs
	w.mu.Unlock()
	for _, f := range fs {
		f(stopped)
	}
}

// Watch has f told of every change of the stop state: true when a thread
// stops (a session already stopped may stop again: another thread), false
// when a thread or the whole VM is let go, or the VM ended. f must return
// at once (it runs on the goroutine that reports the stop); it is never
// removed, so it lives as long as the session.
func (s *Stops) Watch(f func(stopped bool)) {
	s.watch.mu.Lock()
	s.watch.fs = append(s.watch.fs, f)
	s.watch.mu.Unlock()
}
