package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Result is one run, printed as the JSON line the shared benchmark defines.
type Result struct {
	Client   string  `json:"client"`
	Workload string  `json:"workload"`
	Items    int     `json:"items"`
	Seconds  float64 `json:"seconds"`
}

// JSON returns the result's JSON line (without newline).
func (r Result) JSON() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// Workload is one named benchmark. Run does the measured work and returns the
// item count; setup (excluded from timing) runs first when set.
type Workload struct {
	Name  string
	About string
	run   func(ctx context.Context, c *jdwp.Conn, t *timer) (int, error)
}

// timer lets a workload exclude its setup from the measured time.
type timer struct{ start time.Time }

func (t *timer) reset() { t.start = time.Now() }

// Workloads are the shared benchmark's workloads, in the README's order.
var Workloads = []Workload{
	{"classes", "all loaded classes with generic signatures; for each, its methods and fields", runClasses},
	{"threaddump", "suspend; every thread's name, status and frames with method names and lines; resume", runThreadDump},
	{"locals", "suspend; for every frame of every thread, the visible variables and their values; resume", runLocals},
	{"objects", "BenchTarget.graph: every element's instance fields and its label string", runObjects},
	{"step", "breakpoint in BenchTarget.step, then 300 line step-overs reading the top frame's line", runStep},
}

// Extras are diagnostic workloads outside the shared benchmark (not in "all").
var Extras = []Workload{
	{"classesfloor", "the VM's floor for classes: AllClassesWithGeneric, then every class's methods and fields at once", runClassesFloor},
	{"threaddumpfloor", "the VM's floor for threaddump: every thread's name, status and frames at once, then each class's methods and each method's lines once, at once", runThreadDumpFloor},
	{"localsfloor", "the VM's floor for locals: only the GetValues, pipelined, after untimed frame and variable-table reads", runLocalsFloor},
	{"objectsfloor", "the VM's floor for objects: the graph array in one read, then every element's fields at once, then every label at once", runObjectsFloor},
}

// Floor returns the name of the workload that measures name's floor, or "".
func Floor(name string) string {
	for _, w := range Extras {
		if w.Name == name+"floor" {
			return w.Name
		}
	}
	return ""
}

// Lookup returns the named workload (a shared one or an extra).
func Lookup(name string) (Workload, error) {
	var names []string
	for _, w := range append(Workloads[:len(Workloads):len(Workloads)], Extras...) {
		if w.Name == name {
			return w, nil
		}
		names = append(names, w.Name)
	}
	return Workload{}, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(names, ", "))
}

// Run attaches a fresh connection to addr, runs the workload once and disposes
// the connection, leaving the VM running for the next run. Connecting and the
// handshake are not timed.
func Run(ctx context.Context, addr string, w Workload, opts *jdwp.Options) (Result, error) {
	c, err := dialRetry(ctx, addr, opts)
	if err != nil {
		return Result{}, err
	}
	defer c.Close()
	t := &timer{start: time.Now()}
	n, err := w.run(ctx, c, t)
	elapsed := time.Since(t.start)
	if err != nil {
		// Never leave the debuggee suspended or with our requests set.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		c.Dispose(dctx)
		cancel()
		return Result{}, fmt.Errorf("workload %s: %w", w.Name, err)
	}
	if err := c.Dispose(ctx); err != nil {
		return Result{}, fmt.Errorf("workload %s: dispose: %w", w.Name, err)
	}
	return Result{Client: "ddmbridge", Workload: w.Name, Items: n, Seconds: roundSeconds(elapsed)}, nil
}

// dialRetry dials addr, retrying for a few seconds while the VM refuses: after a
// debugger detaches, HotSpot's agent takes a moment to listen again.
func dialRetry(ctx context.Context, addr string, opts *jdwp.Options) (*jdwp.Conn, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := jdwp.Dial(ctx, addr, opts)
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil ||
			!(errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || strings.Contains(err.Error(), "peer closed")) {
			return c, err
		}
		if err := retryPause(ctx); err != nil {
			return nil, err
		}
	}
}

// retryPause waits before dialing again an agent that refused: nothing
// signals when it listens again, so a retry is all there is.
func retryPause(ctx context.Context) error {
	t := time.NewTimer(20 * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func roundSeconds(d time.Duration) float64 {
	return float64(d.Round(100*time.Microsecond)) / float64(time.Second)
}

// inFlight bounds how many requests a workload keeps outstanding. HotSpot's agent
// answers in order from one thread, so more only grows queues.
const inFlight = 128

// parallel runs f(i) for i in [0,n) with at most limit running at once and
// returns the first error.
func parallel(ctx context.Context, n, limit int, f func(ctx context.Context, i int) error) error {
	if n == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
		next  = make(chan int)
	)
	workers := min(limit, n)
	wg.Add(workers)
	for w := 0; w < workers; w++ {
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
feed:
	for i := 0; i < n; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return first
}

// memo caches one value per key for the length of a run, computing each key once
// even when many goroutines ask at the same time.
type memo[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]*memoEntry[V]
}

type memoEntry[V any] struct {
	done chan struct{}
	v    V
	err  error
}

func (m *memo[K, V]) get(k K, f func() (V, error)) (V, error) {
	m.mu.Lock()
	if m.m == nil {
		m.m = map[K]*memoEntry[V]{}
	}
	e, ok := m.m[k]
	if !ok {
		e = &memoEntry[V]{done: make(chan struct{})}
		m.m[k] = e
		m.mu.Unlock()
		e.v, e.err = f()
		close(e.done)
		return e.v, e.err
	}
	m.mu.Unlock()
	<-e.done
	return e.v, e.err
}

// session caches per-run type information shared by workloads.
type session struct {
	c      *jdwp.Conn
	fields memo[jdwp.ReferenceTypeID, []jdwp.FieldInfo]
	lines  memo[methodKey, *jdwp.LineTable]
}

type methodKey struct {
	class  jdwp.ReferenceTypeID
	method jdwp.MethodID
}

// lineTable returns the method's line table, or nil when it has none (native
// methods, classes compiled without -g).
func (s *session) lineTable(ctx context.Context, l jdwp.Location) (*jdwp.LineTable, error) {
	return s.lines.get(methodKey{l.Class, l.Method}, func() (*jdwp.LineTable, error) {
		lt, err := s.c.LineTable(ctx, l.Class, l.Method)
		if jdwp.Code(err) == jdwp.ErrAbsentInformation || jdwp.Code(err) == jdwp.ErrNativeMethod {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return &lt, nil
	})
}

func (s *session) classFields(ctx context.Context, t jdwp.ReferenceTypeID) ([]jdwp.FieldInfo, error) {
	return s.fields.get(t, func() ([]jdwp.FieldInfo, error) { return s.c.Fields(ctx, t) })
}

func lineOf(lt *jdwp.LineTable, idx uint64) int32 {
	if lt == nil {
		return -1
	}
	return lt.LineFor(idx)
}

// visible returns the variables of vt live at idx, ordered by slot, as a
// debugger shows them (JDI's StackFrame.visibleVariables): "this" and the
// compiler's "this$N" are not variables, and where two live variables share a
// name the one with the inner (later-starting) scope hides the other.
func visible(vt *jdwp.VariableTable, idx uint64) []jdwp.Variable {
	byName := map[string]jdwp.Variable{}
	for _, v := range vt.Variables {
		if !v.Visible(idx) || v.Name == "this" || strings.HasPrefix(v.Name, "this$") {
			continue
		}
		if old, ok := byName[v.Name]; !ok || v.CodeIndex > old.CodeIndex {
			byName[v.Name] = v
		}
	}
	out := make([]jdwp.Variable, 0, len(byName))
	for _, v := range byName {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Slot < out[j].Slot })
	return out
}
