package debugger

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/rs/zerolog"
)

// The memory view's policy (IntelliJ's Memory tab, Android Studio's
// allocation tracker): instance counts of the loaded classes at each stop and
// their change since the previous stop at which counts were taken, the
// instances of a class (paged by the front end), the objects referring to
// one, the instances that appeared since the previous stop for the classes
// the view tracks, and the records of a DDM VM's allocation tracker since the
// previous stop.
//
// Counting is the VM's work (a heap walk per InstanceCounts command, during
// which the VM's JDWP agent answers nothing else), so it stays off the
// stepping path: it is done after a stop only while the view is visible, in
// the background, a settle time after the stop (a step that comes sooner finds the
// agent idle), each piece of work once per stop however many ask, and
// cancelled when the VM resumes: what was not yet sent is never sent. The
// classes the view shows are counted first, in a command of their own,
// where that brings them sooner (memory_plan.go).

// ClassCount is one class of the memory view.
type ClassCount struct {
	// Name is the class's binary name as Java writes it ("Alloc$Order",
	// "int[]"); the classes of one name loaded by several loaders are one.
	Name string `json:"name"`
	// Instances is the number of its reachable instances.
	Instances int64 `json:"instances"`
	// Delta is the change since the previous stop at which the class was
	// counted; a class loaded since then counts from 0, and at the first
	// count every delta is 0.
	Delta int64 `json:"delta"`
}

// Allocation is one record of a VM's allocation tracker.
type Allocation struct {
	Class  string `json:"class"` // as Java writes it: "java.lang.String", "byte[]"
	Size   uint32 `json:"size"`  // bytes
	Thread uint32 `json:"thread"`
	// ThreadName is the allocating thread's name, "" when the VM has not
	// named it (yet): Thread is the VM's id of it (DDM's, as THCR gives it).
	ThreadName string      `json:"threadName,omitempty"`
	Frames     []AllocSite `json:"frames"` // the allocating stack, innermost first
}

// AllocSite is one frame of an allocation's stack.
type AllocSite struct {
	Class  string `json:"class"`
	Method string `json:"method"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line"` // -1: no line information, -2: native
}

// AllocTracker is a VM's allocation tracker (DDM's REAE and REAL) as the
// front end reaches it: Enable turns recording on (an empty record buffer)
// or off (records dropped); Records returns what was recorded since it was
// turned on or restarted, most recent first; Restart empties the buffer,
// the tracker staying on (what comes with it on, such as the thread names
// of its records, stays too).
type AllocTracker interface {
	Enable(ctx context.Context, on bool) error
	Records(ctx context.Context) ([]Allocation, error)
	Restart(ctx context.Context) error
}

// MemoryConfig is what a Memory needs from its owner.
type MemoryConfig struct {
	// Context ends the background work with the session.
	Context context.Context
	// Go starts a goroutine the owner waits for; nil means go f().
	Go func(f func())
	// Log receives what the memory view has to say.
	Log zerolog.Logger
	// Timeout bounds each command sent to the VM; 0 means 30 s (a count of
	// a large heap takes seconds).
	Timeout time.Duration
	// Settle is how long after a stop the background work starts at the
	// least; 0 means DefaultSettle, a negative value none. When the last
	// count took longer, the wait is that long, up to MaxSettle: the more a
	// count costs, the likelier a user stepping again soon is spared it.
	Settle time.Duration
	// OnCounts, if set, receives the counts taken at a stop: the classes
	// the view shows first (complete false) when they are counted in a
	// command of their own, then all.
	OnCounts func(counts []ClassCount, complete bool)
	// Tracker is the VM's allocation tracker; nil for a VM without DDM.
	Tracker AllocTracker
}

// DefaultSettle is how long after a stop counting starts in the background:
// an editor asks for the stack and variables first, and a user stepping
// through code steps again sooner than this.
const DefaultSettle = 150 * time.Millisecond

// MaxSettle bounds the wait after a stop that a costly last count makes.
const MaxSettle = time.Second

// Limits that keep memory bounded.
const (
	maxInstances = 100_000 // instances listed or tracked of one class
	maxReferrers = 1_000   // objects listed as referring to one object
)

// Memory is the memory view of one session (see above). Safe for
// concurrent use.
type Memory struct {
	conn *jdwp.Conn
	cfg  MemoryConfig

	mu        sync.Mutex
	visible   bool
	shown     map[string]bool // the classes the view shows, counted first
	stopped   bool
	epoch     uint64             // numbers the stops: a stop after a resume is a new one
	cancel    context.CancelFunc // ends the current stop's work
	timer     *time.Timer        // starts the current stop's work after the settle time; nil when none waits
	ctx       context.Context    // the current stop's work
	jobs      map[string]*job    // the current stop's work, each piece once
	classes   map[string]*classEntry
	base      uint64 // the stop of the first complete count, 0 before
	tracked   map[string]*tracked
	insts     map[string]Listing // instances listed at this stop, by class
	allocOn   bool
	allocs    []Allocation  // the tracker's records at the latest stop
	allocFor  uint64        // the stop allocs belong to
	lastCost  time.Duration // how long the last count took
	plan      countPlan     // whether the shown classes are counted first
	walks     int           // commands making the VM walk its heap, sent and not answered
	walksDone chan struct{} // closed when walks is 0 again; nil while it is
}

type classEntry struct {
	count, prev int64
	epoch       uint64 // the stop count was taken at
	hasPrev     bool
}

type tracked struct {
	ids       map[jdwp.ObjectID]bool  // the instances at the stop epoch
	sent      map[jdwp.ObjectID]int32 // times the VM sent each id to the tracking (disposed when it stops)
	epoch     uint64
	fresh     []jdwp.TaggedObjectID // those not there at the stop before
	cut       bool                  // the listing at the stop epoch was cut at maxInstances
	truncated bool                  // it or the one before was: some of fresh may be older
}

// Listing is the instances of a class listed at a stop.
type Listing struct {
	Objects []jdwp.TaggedObjectID
	// Truncated says the class has more instances than the 100,000
	// listed. For the new instances of a tracked class, it says one of the
	// two listings compared was cut: some listed as new may be older ones.
	Truncated bool
}

// job is one piece of a stop's work, done once whoever asks first.
type job struct {
	done chan struct{}
	err  error
}

// NewMemory returns the memory view over conn, told of stops by stops.
func NewMemory(conn *jdwp.Conn, stops *Stops, cfg MemoryConfig) *Memory {
	if cfg.Context == nil {
		cfg.Context = context.Background()
	}
	if cfg.Go == nil {
		cfg.Go = func(f func()) { go f() }
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Settle == 0 {
		cfg.Settle = DefaultSettle
	}
	m := &Memory{conn: conn, cfg: cfg, classes: map[string]*classEntry{}, tracked: map[string]*tracked{}}
	stops.Watch(m.changed)
	if stops.Stopped() {
		m.changed(true)
	}
	return m
}

// changed is told of every stop and resume.
func (m *Memory) changed(stopped bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if stopped == m.stopped {
		return // another thread's stop in the same stop, or a second resume
	}
	m.stopped = stopped
	if !stopped {
		if m.cancel != nil {
			m.cancel()
		}
		m.stopTimerLocked()
		return
	}
	m.beginLocked()
	if m.visible || m.allocOn || len(m.tracked) > 0 {
		m.backgroundLocked(true)
	}
}

// Busy says the user is at work at this stop (a request of the front end's
// other than the view's own: a variable expanded, an expression evaluated):
// the settle time starts again, so the count, which makes the VM answer
// nothing else for its duration, waits for a pause.
func (m *Memory) Busy() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.timer != nil && m.timer.Stop() { // not fired yet: wait again (a fired one's work has begun)
		m.timer.Reset(m.settleLocked())
	}
}

// stopTimerLocked stops the settle timer of the stop that ended.
func (m *Memory) stopTimerLocked() {
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
}

// beginLocked starts a new stop: new work, nothing listed yet.
func (m *Memory) beginLocked() {
	if m.cancel != nil {
		m.cancel()
	}
	m.stopTimerLocked()
	m.epoch++
	m.ctx, m.cancel = context.WithCancel(m.cfg.Context)
	m.jobs = map[string]*job{}
	m.insts = map[string]Listing{}
}

// backgroundLocked does the stop's work in the background, after Settle
// when settle is set: the counts when the view is visible, then the tracked
// classes' new instances, then the allocation records.
func (m *Memory) backgroundLocked(settle bool) {
	ctx := m.ctx
	work := func() {
		if ctx.Err() != nil { // resumed as the timer fired: this stop's work is over
			return
		}
		m.mu.Lock()
		visible := m.visible // as it is now: a view hidden during the settle time is not counted for
		m.mu.Unlock()
		if visible {
			m.wait(ctx, "counts", m.count)
		}
		m.mu.Lock()
		var names []string
		for n := range m.tracked {
			names = append(names, n)
		}
		allocs := m.allocOn && m.cfg.Tracker != nil
		m.mu.Unlock()
		sort.Strings(names)
		for _, n := range names {
			if ctx.Err() != nil {
				return
			}
			m.wait(ctx, "track "+n, func(ctx context.Context, epoch uint64) error { return m.track(ctx, epoch, n) })
		}
		if allocs && ctx.Err() == nil {
			m.wait(ctx, "allocations", m.readAllocs)
		}
	}
	wait := m.settleLocked()
	if !settle || wait <= 0 {
		m.cfg.Go(work)
		return
	}
	// A timer, not a goroutine waiting on one: a user stepping faster than
	// the settle time costs a timer set and stopped per stop, nothing more.
	m.timer = time.AfterFunc(wait, func() { m.cfg.Go(work) }) // one per stop: only a stop's beginning sets it
}

// settleLocked is how long the background work waits after a stop.
func (m *Memory) settleLocked() time.Duration {
	if m.cfg.Settle < 0 {
		return 0
	}
	return max(m.cfg.Settle, min(m.lastCost, MaxSettle))
}

// SetVisible says whether the view is visible and which classes it shows
// (counted first). The view made visible at a stop whose counts were not
// taken has them taken at once.
func (m *Memory) SetVisible(visible bool, shown []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	was := m.visible
	m.visible = visible
	if shown != nil {
		m.shown = map[string]bool{}
		for _, n := range shown {
			m.shown[n] = true
		}
	}
	if visible && !was && m.stopped && m.jobs["counts"] == nil {
		m.backgroundLocked(false)
	}
}

// errResumed is the answer to a request whose stop ended while it waited.
var errResumed = errors.New("the VM resumed before the work was done; ask again at the next stop")

// wait does the stop's piece of work named key, once: the first caller
// starts it on the stop's context, every caller waits for it (or for ctx).
func (m *Memory) wait(ctx context.Context, key string, work func(ctx context.Context, epoch uint64) error) error {
	m.mu.Lock()
	if m.ctx == nil || m.ctx.Err() != nil { // a request at a stop not seen as one (a thread let go alone)
		m.beginLocked()
	}
	j := m.jobs[key]
	if j == nil {
		j = &job{done: make(chan struct{})}
		m.jobs[key] = j
		wctx, epoch := m.ctx, m.epoch
		m.cfg.Go(func() {
			defer close(j.done)
			j.err = work(wctx, epoch)
			if wctx.Err() != nil && j.err != nil {
				j.err = errResumed
			}
		})
	}
	m.mu.Unlock()
	select {
	case <-j.done:
		return j.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// command bounds one command to the VM.
func (m *Memory) command(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, m.cfg.Timeout)
}

// CanCount returns an error saying so when the VM cannot count or list
// instances.
func (m *Memory) CanCount(ctx context.Context) error {
	caps, err := m.conn.Capabilities(ctx)
	if err != nil {
		return err
	}
	if !caps.CanGetInstanceInfo {
		return ErrNoInstanceInfo
	}
	return nil
}

// count takes the instance counts of every loaded class at stop epoch: in
// one command, or the classes the view shows first and the others after
// when that pays (countPlan).
func (m *Memory) count(ctx context.Context, epoch uint64) error {
	if err := m.CanCount(ctx); err != nil {
		return err
	}
	start := time.Now()
	defer func() {
		m.mu.Lock()
		m.lastCost = time.Since(start)
		m.mu.Unlock()
	}()
	cctx, cancel := m.command(ctx)
	classes, err := m.conn.AllClasses(cctx)
	cancel()
	if err != nil {
		return fmt.Errorf("list the loaded classes: %w", err)
	}
	byName := map[string][]jdwp.ReferenceTypeID{}
	for _, c := range classes {
		if c.TypeTag == jdwp.TypeTagInterface { // never has instances of its own
			continue
		}
		n := javalang.TypeName(c.Signature)
		byName[n] = append(byName[n], c.ID)
	}
	m.mu.Lock()
	var first, rest []string
	nShown := len(m.shown) // what the plan is asked with, and told of
	split := m.base != 0 && m.plan.split(nShown)
	for n := range byName {
		if split && m.shown[n] {
			first = append(first, n)
		} else {
			rest = append(rest, n)
		}
	}
	m.mu.Unlock()
	var took [2]time.Duration
	phases := [][]string{first, rest}
	for i, names := range phases {
		if len(names) == 0 && i < len(phases)-1 {
			continue
		}
		var ids []jdwp.ReferenceTypeID
		for _, n := range names {
			ids = append(ids, byName[n]...)
		}
		counts, d, err := m.instanceCounts(ctx, ids)
		if err != nil {
			return err
		}
		took[i] = d
		sums := map[string]int64{}
		k := 0
		for _, n := range names {
			for range byName[n] {
				sums[n] += counts[k]
				k++
			}
		}
		complete := i == len(phases)-1
		m.mu.Lock()
		if m.epoch != epoch {
			m.mu.Unlock()
			return errResumed
		}
		m.recordLocked(epoch, sums)
		if complete {
			if m.base == 0 {
				m.base = epoch
			}
			m.plan.counted(nShown, took[0], took[1]) // took[0] 0: one command after all
		}
		var shown []ClassCount
		if m.cfg.OnCounts != nil {
			shown = m.listLocked(epoch, nil)
		}
		m.mu.Unlock()
		if m.cfg.OnCounts != nil && ctx.Err() == nil {
			m.cfg.OnCounts(shown, complete)
		}
	}
	return nil
}

// instanceCounts asks the VM to count the instances of classes, and says
// how long that took.
func (m *Memory) instanceCounts(ctx context.Context, classes []jdwp.ReferenceTypeID) ([]int64, time.Duration, error) {
	defer m.heapWalk("instance counts")()
	cctx, cancel := m.command(ctx)
	defer cancel()
	start := time.Now()
	counts, err := m.conn.InstanceCounts(cctx, classes)
	d := time.Since(start)
	if err != nil {
		return nil, d, fmt.Errorf("count the instances of %d classes: %w", len(classes), err)
	}
	if len(counts) != len(classes) {
		return nil, d, fmt.Errorf("the VM counted %d of %d classes", len(counts), len(classes))
	}
	return counts, d, nil
}

// recordLocked books the counts taken at stop epoch.
func (m *Memory) recordLocked(epoch uint64, sums map[string]int64) {
	for n, c := range sums {
		e := m.classes[n]
		if e == nil {
			e = &classEntry{}
			m.classes[n] = e
		}
		if e.epoch != epoch {
			e.prev, e.hasPrev = e.count, e.epoch != 0
			e.epoch = epoch
		}
		e.count = c
	}
}

// listLocked lists the classes counted at stop epoch that match, by
// instances, most first (then by name); classes without instances now or
// at the stop before are left out.
func (m *Memory) listLocked(epoch uint64, match func(string) bool) []ClassCount {
	out := []ClassCount{}
	for n, e := range m.classes {
		if e.epoch != epoch || match != nil && !match(n) {
			continue
		}
		c := ClassCount{Name: n, Instances: e.count}
		switch {
		case e.hasPrev:
			c.Delta = e.count - e.prev
		case m.base != 0 && m.base < epoch: // loaded since the first count
			c.Delta = e.count
		}
		if c.Instances == 0 && c.Delta == 0 {
			continue // none, before or now: a class nobody made an object of
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Instances != out[j].Instances {
			return out[i].Instances > out[j].Instances
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Matcher returns what filter selects: with * or ?, a glob of whole class
// names (* any run of characters, ? one; everything else, brackets
// included, stands for itself), else a substring; case matters when the
// filter has an upper-case letter (as editors' smart case does). An empty
// filter selects everything.
func Matcher(filter string) (func(string) bool, error) {
	filter = strings.TrimSpace(filter)
	if filter == "" {
		return func(string) bool { return true }, nil
	}
	fold := strings.ToLower(filter) == filter
	norm := func(s string) string {
		if fold {
			return strings.ToLower(s)
		}
		return s
	}
	if !strings.ContainsAny(filter, "*?") {
		return func(n string) bool { return strings.Contains(norm(n), filter) }, nil
	}
	var re strings.Builder
	re.WriteString("^")
	for _, r := range filter {
		switch r {
		case '*':
			re.WriteString(".*")
		case '?':
			re.WriteString(".")
		default:
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re.WriteString("$")
	rx, err := regexp.Compile(re.String())
	if err != nil {
		return nil, fmt.Errorf("filter %q: %v", filter, err)
	}
	return func(n string) bool { return rx.MatchString(norm(n)) }, nil
}

// Counts returns the instance counts of the loaded classes that filter
// selects (Matcher), with their deltas, most instances first: those taken
// at this stop, taken now if nobody did yet. Classes with no instances, now
// or at the stop before, are left out.
func (m *Memory) Counts(ctx context.Context, filter string) ([]ClassCount, error) {
	match, err := Matcher(filter)
	if err != nil {
		return nil, err
	}
	if err := m.wait(ctx, "counts", m.count); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.listLocked(m.epoch, match), nil
}

// classIDs returns the loaded reference types named name ("Alloc$Order",
// "int[]"), one per loader.
func (m *Memory) classIDs(ctx context.Context, name string) ([]jdwp.ReferenceTypeID, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, errors.New(`field "className" is required: a class name as instanceCounts gives it`)
	}
	cctx, cancel := m.command(ctx)
	defer cancel()
	cs, err := m.conn.ClassesBySignature(cctx, javalang.Signature(name))
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("class %s is not loaded (names are as instanceCounts gives them: java.util.HashMap$Node, int[])", name)
	}
	ids := make([]jdwp.ReferenceTypeID, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return ids, nil
}

// list returns the live instances of the class named name, at most
// maxInstances, and whether it has more.
func (m *Memory) list(ctx context.Context, name string) (Listing, error) {
	ids, err := m.classIDs(ctx, name)
	if err != nil {
		return Listing{}, err
	}
	var out []jdwp.TaggedObjectID
	for _, t := range ids {
		done := m.heapWalk("instances")
		cctx, cancel := m.command(ctx)
		objs, err := m.conn.Instances(cctx, t, int32(maxInstances+1-len(out))) // one more: are there more?
		cancel()
		done()
		if err != nil {
			m.giveBack(out) // the listing is dropped: its first part too
			return Listing{}, fmt.Errorf("list the instances of %s: %w", name, err)
		}
		out = append(out, objs...)
		if len(out) > maxInstances {
			m.giveBack(out[maxInstances:])
			return Listing{Objects: out[:maxInstances:maxInstances], Truncated: true}, nil
		}
	}
	return Listing{Objects: out}, nil
}

// giveBack disposes ids the VM sent and nobody keeps (one send each), so
// its agent forgets them: held, each costs every VM-wide suspend and resume
// (issue 42.6). It does not wait for the VM.
func (m *Memory) giveBack(objs []jdwp.TaggedObjectID) {
	if len(objs) == 0 {
		return
	}
	sent := make(map[jdwp.ObjectID]int32, len(objs))
	for _, o := range objs {
		sent[o.ID]++
	}
	m.cfg.Go(func() { m.dispose(m.cfg.Context, sent) })
}

// Instances returns the live instances of the class named name at this
// stop (listed once per stop, so pages of them agree; at most 100,000).
// With fresh, only those that appeared since the previous stop: the class
// must be tracked (Track).
func (m *Memory) Instances(ctx context.Context, name string, fresh bool) (Listing, error) {
	if err := m.CanCount(ctx); err != nil {
		return Listing{}, err
	}
	if fresh {
		m.mu.Lock()
		_, ok := m.tracked[name]
		m.mu.Unlock()
		if !ok {
			return Listing{}, fmt.Errorf("class %s is not tracked: track it (memoryView \"track\") and its new instances are listed from the next stop on", name)
		}
		if err := m.wait(ctx, "track "+name, func(ctx context.Context, epoch uint64) error { return m.track(ctx, epoch, name) }); err != nil {
			return Listing{}, err
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if tc := m.tracked[name]; tc != nil {
			return Listing{Objects: tc.fresh, Truncated: tc.truncated}, nil
		}
		return Listing{}, nil
	}
	err := m.wait(ctx, "instances "+name, func(ctx context.Context, epoch uint64) error {
		l, err := m.list(ctx, name)
		if err != nil {
			return err
		}
		m.mu.Lock()
		if m.epoch == epoch {
			m.insts[name] = l
		}
		m.mu.Unlock()
		return nil
	})
	if err != nil {
		return Listing{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.insts[name], nil
}

// MaxTracked bounds the classes tracked at once (Track): each is listed
// (a heap walk) at every stop.
const MaxTracked = 100

// Track starts or stops tracking the new instances of the class named
// name: at each stop while tracked, the instances that were not there at
// the stop before (Instances with fresh). Tracking starts from the
// instances there are now.
func (m *Memory) Track(ctx context.Context, name string, on bool) error {
	if !on {
		m.mu.Lock()
		tc := m.tracked[name]
		delete(m.tracked, name)
		m.mu.Unlock()
		if tc != nil && len(tc.sent) > 0 {
			m.dispose(ctx, tc.sent)
		}
		return nil
	}
	if err := m.CanCount(ctx); err != nil {
		return err
	}
	if _, err := m.classIDs(ctx, name); err != nil {
		return err
	}
	m.mu.Lock()
	if m.tracked[name] == nil && len(m.tracked) >= MaxTracked {
		m.mu.Unlock()
		return fmt.Errorf("%d classes are tracked already, the most at once (each costs a walk of the heap at every stop): stop tracking one before tracking %s", MaxTracked, name)
	}
	if m.tracked[name] == nil {
		m.tracked[name] = &tracked{}
	}
	stopped := m.stopped
	m.mu.Unlock()
	if !stopped {
		return nil // the first stop takes the instances tracking starts from
	}
	return m.wait(ctx, "track "+name, func(ctx context.Context, epoch uint64) error { return m.track(ctx, epoch, name) })
}

// track takes the instances of a tracked class at stop epoch and keeps
// those that are new since the stop before.
func (m *Memory) track(ctx context.Context, epoch uint64, name string) error {
	l, err := m.list(ctx, name)
	if err != nil {
		return err
	}
	objs := l.Objects
	m.mu.Lock()
	defer m.mu.Unlock()
	tc := m.tracked[name]
	if tc == nil || m.epoch != epoch { // untracked, or resumed, since: nobody keeps these ids
		m.giveBack(objs)
		return nil
	}
	ids := make(map[jdwp.ObjectID]bool, len(objs))
	var fresh []jdwp.TaggedObjectID
	if tc.sent == nil {
		tc.sent = map[jdwp.ObjectID]int32{}
	}
	for _, o := range objs {
		ids[o.ID] = true
		tc.sent[o.ID]++
		if tc.ids != nil && !tc.ids[o.ID] {
			fresh = append(fresh, o)
		}
	}
	tc.truncated = l.Truncated || tc.cut // this listing or the one compared with
	tc.ids, tc.epoch, tc.fresh, tc.cut = ids, epoch, fresh, l.Truncated
	return nil
}

// dispose gives the VM back the ids a tracking was sent (DisposeObjects,
// by the count of sends), so the agent forgets them: left, they keep every
// step slower (issue 42.6: 3 → 60 ms after tracking 200 classes).
func (m *Memory) dispose(ctx context.Context, sent map[jdwp.ObjectID]int32) {
	refs := make([]jdwp.ObjectRefCount, 0, len(sent))
	for o, n := range sent {
		refs = append(refs, jdwp.ObjectRefCount{Object: o, Count: n})
	}
	for len(refs) > 0 {
		k := min(len(refs), 10000)
		cctx, cancel := m.command(ctx)
		err := m.conn.DisposeObjects(cctx, refs[:k])
		cancel()
		if err != nil {
			m.cfg.Log.Debug().Err(err).Msg("memory view: dispose the ids of an untracked class")
			return
		}
		refs = refs[k:]
	}
}

// Referrers returns the objects that refer to obj (at most 1,000).
func (m *Memory) Referrers(ctx context.Context, obj jdwp.ObjectID) ([]jdwp.TaggedObjectID, error) {
	if err := m.CanCount(ctx); err != nil {
		return nil, err
	}
	defer m.heapWalk("referring objects")()
	cctx, cancel := m.command(ctx)
	defer cancel()
	return m.conn.ReferringObjects(cctx, obj, maxReferrers)
}

// heapWalk books a command that makes the VM walk its heap as sent; the
// function it returns, its answer as come.
func (m *Memory) heapWalk(what string) (done func()) {
	m.mu.Lock()
	m.walks++
	if m.walksDone == nil {
		m.walksDone = make(chan struct{})
	}
	m.mu.Unlock()
	m.cfg.Log.Debug().Str("for", what).Msg("memory view: the VM walks its heap")
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.walks--; m.walks == 0 {
			close(m.walksDone)
			m.walksDone = nil
		}
	}
}

// HeapWalk returns nil when no command of the memory view makes the VM walk
// its heap, else a channel closed when none does any more. While one does,
// HotSpot's agent answers nothing else: a step waits for it (JDWP cannot
// take a command back), and a front end says so.
func (m *Memory) HeapWalk() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.walksDone
}

// Errors of the memory view a front end tells apart.
var (
	// ErrNoInstanceInfo: the VM cannot count or list instances.
	ErrNoInstanceInfo = errors.New("this VM cannot count or list instances (CanGetInstanceInfo is false): the memory view needs a VM that can, such as HotSpot or ART with its JDWP agent")
	// ErrNoAllocTracker: the VM has no allocation tracker.
	ErrNoAllocTracker = errors.New("this VM has no allocation tracker: allocation records need an Android VM (DDM), directly or through the ddmbridge monitor")
)

// TrackAllocations turns the VM's allocation tracker on (records start
// empty; each stop then has the records since the stop before) or off.
func (m *Memory) TrackAllocations(ctx context.Context, on bool) error {
	if m.cfg.Tracker == nil {
		return ErrNoAllocTracker
	}
	if err := m.cfg.Tracker.Enable(ctx, on); err != nil {
		return fmt.Errorf("turn the allocation tracker %s: %w", map[bool]string{true: "on", false: "off"}[on], err)
	}
	m.mu.Lock()
	m.allocOn, m.allocs, m.allocFor = on, nil, 0
	if on && m.jobs != nil {
		m.jobs["allocations"] = doneJob() // this stop's records start now
		m.allocFor = m.epoch
	}
	m.mu.Unlock()
	return nil
}

func doneJob() *job {
	j := &job{done: make(chan struct{})}
	close(j.done)
	return j
}

// AllocTracking reports whether the allocation tracker is on.
func (m *Memory) AllocTracking() (bool, error) {
	if m.cfg.Tracker == nil {
		return false, ErrNoAllocTracker
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.allocOn, nil
}

// Allocations returns whether the allocation tracker is on and, when it
// is, the records of the allocations since the previous stop (the stop it
// was turned on at counts as one), most recent first.
func (m *Memory) Allocations(ctx context.Context) (bool, []Allocation, error) {
	if m.cfg.Tracker == nil {
		return false, nil, ErrNoAllocTracker
	}
	m.mu.Lock()
	on := m.allocOn
	m.mu.Unlock()
	if !on {
		return false, nil, nil
	}
	if err := m.wait(ctx, "allocations", m.readAllocs); err != nil {
		return true, nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.allocFor != m.epoch {
		return true, nil, errResumed
	}
	return true, m.allocs, nil
}

// readAllocs reads the tracker's records at stop epoch and starts it
// afresh, so the next stop has the records since this one.
func (m *Memory) readAllocs(ctx context.Context, epoch uint64) error {
	t := m.cfg.Tracker
	cctx, cancel := m.command(ctx)
	defer cancel()
	recs, err := t.Records(cctx)
	if err != nil {
		return fmt.Errorf("read the allocation records: %w", err)
	}
	if err := t.Restart(cctx); err != nil {
		m.cfg.Log.Warn().Err(err).Msg("restart the allocation tracker: the next stop's records include this one's")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.epoch == epoch {
		m.allocs, m.allocFor = recs, epoch
	}
	return nil
}
