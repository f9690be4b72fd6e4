package debugger

import (
	"context"
	"time"
)

// Values independent of each other's speed: a front end presents each
// value of a stop through Soon, which waits a short while for it; a value
// that needs longer (its toString runs, or waits for another method in the
// thread) is left to finish on its own, the front end shows it as pending,
// and when the last such value of the stop is done the front end is told
// to ask again (Frontend.Invalidated) and gets it from here at once. Work
// and results are the stop's: a resume forgets them (Release).

// soonEntry is one value's work.
type soonEntry struct {
	done   chan struct{}
	v      any
	gaveUp bool // a caller stopped waiting: its front end shows it pending
}

// soonState is the stop's values in the works (guarded by Presentation.mu).
type soonState struct {
	gen     int // bumped by every resume
	entries map[any]*soonEntry
	late    int // values a caller gave up on, not done yet
}

// Soon returns f's result for key in this stop, waiting for it at most
// wait: f runs once per key and stop (its result is kept), on its own
// context (ctx's values, not its end; bounded by the layer's request
// timeout). ok is false when it is not done within wait; it goes on, and
// the front end is told to ask again when every value given up on is done.
func (p *Presentation) Soon(ctx context.Context, key any, wait time.Duration, f func(context.Context) any) (v any, ok bool) {
	p.mu.Lock()
	if p.soon.entries == nil {
		p.soon.entries = map[any]*soonEntry{}
	}
	e := p.soon.entries[key]
	if e == nil {
		e = &soonEntry{done: make(chan struct{})}
		p.soon.entries[key] = e
		gen := p.soon.gen
		p.mu.Unlock()
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.t.Opts.RequestTimeout)
		p.t.spawn(func() {
			defer cancel()
			e.v = f(bctx)
			close(e.done)
			p.finished(e, gen)
		})
	} else {
		p.mu.Unlock()
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-e.done:
		return e.v, true
	case <-t.C:
	case <-ctx.Done():
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-e.done:
		return e.v, true
	default:
	}
	if !e.gaveUp && p.soon.entries[key] == e {
		e.gaveUp = true
		p.soon.late++
	}
	return nil, false
}

// finished books a value's end: the last one given up on in the stop has
// the front end ask again.
func (p *Presentation) finished(e *soonEntry, gen int) {
	p.mu.Lock()
	tell := false
	if e.gaveUp && gen == p.soon.gen {
		p.soon.late--
		tell = p.soon.late == 0
	}
	p.mu.Unlock()
	if tell && p.t.Stops.Stopped() {
		p.t.fe.Invalidated()
	}
}

// Pending waits for the value of key given up on by Soon, as long as ctx
// lets; ok is false when there is none in this stop or ctx ended first.
func (p *Presentation) Pending(ctx context.Context, key any) (v any, ok bool) {
	p.mu.Lock()
	e := p.soon.entries[key]
	p.mu.Unlock()
	if e == nil {
		return nil, false
	}
	select {
	case <-e.done:
		return e.v, true
	case <-ctx.Done():
		return nil, false
	}
}
