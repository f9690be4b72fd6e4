package bridge

import (
	"context"
	"sync"
)

// ART's THST carries no suspension state, so a DDM VM's threads would all
// show as running while a debugger holds one at a breakpoint. While a
// debugger is attached (and only then: before one, the monitor sends a DDM
// VM nothing but DDM), the threads' suspension is read over JDWP
// (ThreadReference.Status, which suspends nothing) and matched by name;
// names several threads share are left as THST said.
func (v *VM) markSuspended(ctx context.Context, ts []ThreadInfo) {
	if v.mux.Attached() == 0 || v.conn == nil {
		return
	}
	ids, err := v.conn.AllThreads(ctx)
	if err != nil {
		return
	}
	type state struct {
		name      string
		suspended bool
		ok        bool
	}
	st := make([]state, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name, err := v.conn.ThreadName(ctx, id)
			if err != nil {
				return
			}
			_, sus, err := v.conn.ThreadStatus(ctx, id)
			st[i] = state{name, sus, err == nil}
		}()
	}
	wg.Wait()
	count := map[string]int{}
	suspended := map[string]bool{}
	for _, s := range st {
		if s.ok {
			count[s.name]++
			suspended[s.name] = s.suspended
		}
	}
	ddmCount := map[string]int{}
	for _, t := range ts {
		ddmCount[t.Name]++
	}
	for i := range ts {
		if n := ts[i].Name; count[n] == 1 && ddmCount[n] == 1 {
			ts[i].Suspended = suspended[n]
		}
	}
}
