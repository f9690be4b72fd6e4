package debugger

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// maxMet bounds the threads the book keeps as met at an event: a program
// that runs a million virtual threads through a logpoint keeps the latest
// ones, not a million.
const maxMet = 1024

// threadBook is what the layer knows of the VM's threads beyond what
// VirtualMachine.AllThreads says: JDWP lists only platform threads unless
// the agent runs with includevirtualthreads=y, so the virtual threads an
// event or a stop named are kept here until they end.
type threadBook struct {
	mu sync.Mutex
	// virtualVM says the VM has virtual threads: a HotSpot of JDWP 21 or
	// later (IsVirtual and the PlatformThreadsOnly modifier are its
	// commands; an older VM is never sent them).
	virtualVM bool
	seq       uint64
	met       map[jdwp.ThreadID]uint64 // thread → when last met
	virtual   map[jdwp.ThreadID]bool   // IsVirtual's answers
}

// VirtualThreads reports whether the VM has virtual threads (JDWP 21 or
// later, not Android) and understands ThreadReference.IsVirtual and the
// PlatformThreadsOnly modifier.
func (t *Target) VirtualThreads() bool {
	t.threads.mu.Lock()
	defer t.threads.mu.Unlock()
	return t.threads.virtualVM
}

// readVersion learns from VirtualMachine.Version whether the VM has
// virtual threads.
func (t *Target) readVersion(ctx context.Context) {
	v, err := t.VM.Version(ctx)
	if err != nil {
		t.log.Debug().Err(err).Msg("read the VM's version")
		return
	}
	t.threads.mu.Lock()
	t.threads.virtualVM = v.JDWPMajor >= 21 && !v.Android()
	t.threads.mu.Unlock()
}

// Met records that an event or a stop named thread: it is listed until
// it ends, even when the VM does not list it (a virtual thread).
func (t *Target) Met(thread jdwp.ThreadID) {
	if thread == 0 {
		return
	}
	b := &t.threads
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.met == nil {
		b.met = map[jdwp.ThreadID]uint64{}
	}
	b.seq++
	b.met[thread] = b.seq
	if len(b.met) <= maxMet {
		return
	}
	var oldest jdwp.ThreadID
	var at uint64
	for th, s := range b.met {
		if oldest == 0 || s < at {
			oldest, at = th, s
		}
	}
	delete(b.met, oldest)
	delete(b.virtual, oldest)
}

// forgetThread drops an ended thread.
func (t *Target) forgetThread(thread jdwp.ThreadID) {
	b := &t.threads
	b.mu.Lock()
	delete(b.met, thread)
	delete(b.virtual, thread)
	b.mu.Unlock()
}

// MetThreads lists the threads met at events and still alive, the latest
// last; an ended one (a terminated or collected virtual thread, whose end
// no event reports) is dropped.
func (t *Target) MetThreads(ctx context.Context) []jdwp.ThreadID {
	b := &t.threads
	b.mu.Lock()
	ids := make([]jdwp.ThreadID, 0, len(b.met))
	for th := range b.met {
		ids = append(ids, th)
	}
	sort.Slice(ids, func(i, j int) bool { return b.met[ids[i]] < b.met[ids[j]] })
	b.mu.Unlock()
	alive := make([]bool, len(ids))
	var wg sync.WaitGroup
	for i, th := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, _, err := t.Conn.ThreadStatus(ctx, th)
			switch c := jdwp.Code(err); {
			case c == jdwp.ErrInvalidThread || c == jdwp.ErrInvalidObject:
			case err != nil:
				alive[i] = true // keep it: the VM did not say it ended
			default:
				alive[i] = st != jdwp.ThreadZombie
			}
		}()
	}
	wg.Wait()
	out := ids[:0]
	for i, th := range ids {
		if alive[i] {
			out = append(out, th)
		} else {
			t.forgetThread(th)
		}
	}
	return out
}

// IsVirtual reports whether thread is a virtual thread; on a VM without
// virtual threads it is false without a command sent.
func (t *Target) IsVirtual(ctx context.Context, thread jdwp.ThreadID) (bool, error) {
	b := &t.threads
	b.mu.Lock()
	if !b.virtualVM {
		b.mu.Unlock()
		return false, nil
	}
	v, ok := b.virtual[thread]
	b.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := t.Conn.IsVirtual(ctx, thread)
	if err != nil {
		return false, err
	}
	b.mu.Lock()
	if b.virtual == nil {
		b.virtual = map[jdwp.ThreadID]bool{}
	}
	if len(b.virtual) < 4*maxMet {
		b.virtual[thread] = v
	}
	b.mu.Unlock()
	return v, nil
}

// PlatformThreads lists the VM's live platform threads. On a VM with
// virtual threads it walks the thread groups (which hold platform threads
// only), so an agent run with includevirtualthreads=y does not make the
// list as long as its virtual threads; elsewhere it is AllThreads.
func (t *Target) PlatformThreads(ctx context.Context) ([]jdwp.ThreadID, error) {
	if !t.VirtualThreads() {
		return t.VM.Threads(ctx) // read once while the VM is held
	}
	groups, err := t.Conn.TopLevelThreadGroups(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the VM's thread groups: %w", err)
	}
	var out []jdwp.ThreadID
	for len(groups) > 0 {
		g := groups[0]
		groups = groups[1:]
		threads, children, err := t.Conn.ThreadGroupChildren(ctx, g)
		if c := jdwp.Code(err); c == jdwp.ErrInvalidThreadGroup || c == jdwp.ErrInvalidObject {
			continue // the group ended meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("list a thread group's threads: %w", err)
		}
		out = append(out, threads...)
		groups = append(groups, children...)
	}
	return out, nil
}

// threadEventModifiers are the modifiers of the thread start and death
// requests: platform threads only on a VM with virtual threads, so a
// million short virtual threads send no million events.
func (t *Target) threadEventModifiers() []jdwp.Modifier {
	if t.VirtualThreads() {
		return []jdwp.Modifier{jdwp.PlatformThreadsOnly{}}
	}
	return nil
}

// VirtualThreadList is the VM's virtual threads: all of them when its
// agent lists them (includevirtualthreads=y), else the ones met at
// events.
type VirtualThreadList struct {
	Threads []jdwp.ThreadID
	// Listed says the VM's agent lists its virtual threads; false: only
	// the met ones are known.
	Listed bool
}

// VirtualThreadsAll lists the VM's virtual threads (none on a VM without
// them): AllThreads less the platform threads, and the met virtual
// threads the agent does not list.
func (t *Target) VirtualThreadsAll(ctx context.Context) (VirtualThreadList, error) {
	if !t.VirtualThreads() {
		return VirtualThreadList{}, nil
	}
	all, err := t.Conn.AllThreads(ctx)
	if err != nil {
		return VirtualThreadList{}, fmt.Errorf("list the VM's threads: %w", err)
	}
	platform, err := t.PlatformThreads(ctx)
	if err != nil {
		return VirtualThreadList{}, err
	}
	skip := make(map[jdwp.ThreadID]bool, len(platform))
	for _, p := range platform {
		skip[p] = true
	}
	var out VirtualThreadList
	for _, th := range all {
		if !skip[th] {
			skip[th] = true
			out.Threads = append(out.Threads, th)
		}
	}
	out.Listed = len(out.Threads) > 0
	for _, th := range t.MetThreads(ctx) {
		if skip[th] {
			continue
		}
		if v, err := t.IsVirtual(ctx, th); err == nil && v {
			out.Threads = append(out.Threads, th)
		}
	}
	return out, nil
}

// ThreadGroupByStack is threads with identical stacks: the methods and
// lines of their frames, top first.
type ThreadGroupByStack struct {
	Frames  []jdwp.Location
	Threads []jdwp.ThreadID
}

// maxGroupFrames bounds the frames compared (and returned) of a thread.
const maxGroupFrames = 64

// GroupByStack reads the stacks of threads (suspended ones: a running
// thread has none to read and is grouped under an empty stack; so is one
// that ended) and groups those alike, the largest group first.
func (t *Target) GroupByStack(ctx context.Context, threads []jdwp.ThreadID) ([]ThreadGroupByStack, error) {
	stacks := make([][]jdwp.Location, len(threads))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i, th := range threads {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			frames, err := t.Conn.Frames(ctx, th, 0, -1)
			if err != nil {
				return
			}
			if len(frames) > maxGroupFrames {
				frames = frames[:maxGroupFrames]
			}
			locs := make([]jdwp.Location, len(frames))
			for j, f := range frames {
				locs[j] = f.Location
			}
			stacks[i] = locs
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	byKey := map[string]int{}
	var groups []ThreadGroupByStack
	for i, st := range stacks {
		key := fmt.Sprint(st)
		g, ok := byKey[key]
		if !ok {
			g = len(groups)
			byKey[key] = g
			groups = append(groups, ThreadGroupByStack{Frames: st})
		}
		groups[g].Threads = append(groups[g].Threads, threads[i])
	}
	sort.SliceStable(groups, func(i, j int) bool { return len(groups[i].Threads) > len(groups[j].Threads) })
	return groups, nil
}
