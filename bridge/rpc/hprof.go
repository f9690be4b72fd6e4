package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	zlog "github.com/rs/zerolog/log"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/ddm/hprof"
)

// The hprof/* methods analyse HPROF files on the monitor's host for the
// editor's heap views (docs/rpc.md): the class histogram, the dominator tree,
// the address heap map and the diff of two dumps. Each file is parsed once
// and kept in a small cache (the last hprofCacheSize dumps used, as many of
// them as fit in memory together: hprofCacheBudget), so that
// switching between the views of one dump, or diffing two, parses nothing
// again.

// hprofCacheSize bounds the parsed dumps kept: a dump and the one it is
// compared with.
const hprofCacheSize = 2

// hprofCacheBudget bounds the memory the parsed dumps kept may take
// together, by [hprof.MemoryNeeded]'s estimate of each: a dump opened
// evicts the least recently used ones until it fits. 0: what the machine
// has, the memory the kept dumps hold and the memory still available.
var hprofCacheBudget uint64

// The results are the one HPROF schema, defined in package hprof
// (ddm/hprof/view.go) and shared with `ddmbridge hprof --json` and the
// editor's decoder.
type (
	// HprofSummary is the hprof/summary result.
	HprofSummary = hprof.SummaryJSON
	// HprofTotals sums a histogram up.
	HprofTotals = hprof.TotalsJSON
	// HprofDomNode is one object in the dominator tree.
	HprofDomNode = hprof.DomNodeJSON
	// HprofDominators is the hprof/dominators result.
	HprofDominators = hprof.DominatorsJSON
	// HprofClassDelta is one line of hprof/diff.
	HprofClassDelta = hprof.ClassDeltaJSON
	// HprofDiff is the hprof/diff result.
	HprofDiff = hprof.DiffJSON
	// HprofPaths is the hprof/paths result.
	HprofPaths = hprof.PathsJSON
	// HprofIncoming is the hprof/incoming result.
	HprofIncoming = hprof.IncomingJSON
	// HprofInstances is the hprof/instances result.
	HprofInstances = hprof.InstancesJSON
	// HprofRetained is the hprof/retained result.
	HprofRetained = hprof.RetainedJSON
)

type hprofParams struct {
	Path   string  `json:"path"`
	Base   string  `json:"base"`   // hprof/diff: the earlier dump
	Object *uint64 `json:"object"` // hprof/dominators: drill into this object id; hprof/paths, hprof/incoming: the object
	Class  string  `json:"class"`  // hprof/paths, hprof/instances: the class (its instances)
	Limit  int     `json:"limit"`  // hprof/dominators: children at most (default 100); hprof/incoming, hprof/instances: a page (default 100); hprof/paths: objects shown (default 200)
	Offset int     `json:"offset"` // hprof/incoming, hprof/instances: the page's first
	PNG    bool    `json:"png"`    // hprof/heapMap
	Width  int     `json:"width"`  // hprof/heapMap
	Stream bool    `json:"stream"` // hprof/summary: from one pass over the file, without parsing a model

	// progress sends the connection an hprof/progress notification.
	progress func(HprofProgress)
}

// HprofProgress is the hprof/progress notification: how far the work a
// request waits for on a dump is.
type HprofProgress struct {
	Path  string `json:"path"`
	Phase string `json:"phase"` // "histogram" (hprof/summary's streamed pass), "parsing" (the model), "dominators"
	Read  int64  `json:"read"`  // bytes read so far ("histogram", "parsing")
	Size  int64  `json:"size"`  // the file's size
}

// hprofProgressEvery spaces a request's hprof/progress notifications.
const hprofProgressEvery = 200 * time.Millisecond

// hprofRunning is the work running on dumps, by path, for hprof/cancel:
// the streamed passes, the parses, and the computations on parsed dumps
// (the dominator tree, the classes' retained sizes). Each is listed by what
// started it for as long as it runs, whatever the cache does with its dump
// meanwhile (a dump evicted while it is parsed or its tree computed is
// still reached).
var hprofRunning = struct {
	sync.Mutex
	m map[string]map[*hprofWork]bool
}{m: map[string]map[*hprofWork]bool{}}

// hprofWork is one piece of work running: stop stops it and reports
// whether it was running still.
type hprofWork struct{ stop func() bool }

// running lists stop as work running on path until done is called.
func running(path string, stop func() bool) (done func()) {
	w := &hprofWork{stop}
	hprofRunning.Lock()
	if hprofRunning.m[path] == nil {
		hprofRunning.m[path] = map[*hprofWork]bool{}
	}
	hprofRunning.m[path][w] = true
	hprofRunning.Unlock()
	return func() {
		hprofRunning.Lock()
		defer hprofRunning.Unlock()
		delete(hprofRunning.m[path], w)
		if len(hprofRunning.m[path]) == 0 {
			delete(hprofRunning.m, path)
		}
	}
}

// streamSummary is hprof/summary's streamed pass: the histogram and the
// dump's facts from one pass over the file in memory bounded by its
// classes, with progress; hprof/cancel stops it.
func streamSummary(ctx context.Context, p hprofParams) (any, error) {
	s, err := streamPass(ctx, p)
	if err != nil {
		return nil, err
	}
	return hprof.StreamedSummary(p.Path, s), nil
}

// streamPass reads p.Path in one pass (hprof.StreamHistogram), telling
// p.progress how far it is; hprof/cancel stops it.
func streamPass(ctx context.Context, p hprofParams) (*hprof.Streamed, error) {
	f, err := os.Open(p.Path)
	if err != nil {
		return nil, rpcError(CodeInvalidParams, "hprof: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, rpcError(CodeInvalidParams, "hprof: %s is not a regular file", p.Path)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer running(p.Path, func() bool { cancel(); return true })()
	var last time.Time
	s, err := hprof.StreamHistogram(ctx, f, hprof.StreamOptions{Progress: func(read int64) {
		if h := hprofReadHook.Load(); h != nil {
			(*h)(p.Path)
		}
		if now := time.Now(); now.Sub(last) >= hprofProgressEvery {
			last = now
			p.progress(HprofProgress{Path: p.Path, Phase: "histogram", Read: read, Size: fi.Size()})
		}
	}})
	if err != nil {
		return nil, rpcError(CodeInvalidParams, "hprof: %s: %v", p.Path, err)
	}
	p.progress(HprofProgress{Path: p.Path, Phase: "histogram", Read: fi.Size(), Size: fi.Size()})
	return s, nil
}

// histogram is the histogram of the dump at path: its model's where it is
// parsed already, else from a streamed pass (nothing parsed nor cached for
// it: a diff of two big dumps holds neither model).
func histogram(ctx context.Context, path string, progress func(HprofProgress)) ([]hprof.ClassStat, error) {
	if d := hprofDumps.parsed(path); d != nil {
		return d.histogram, nil
	}
	s, err := streamPass(ctx, hprofParams{Path: path, progress: progress})
	if err != nil {
		return nil, err
	}
	return s.Histogram, nil
}

// cancelHprof stops the streamed passes, the parses and the computations
// on parsed dumps running for path, whichever connection started them and
// whatever the cache did with their dumps; it returns how many it stopped.
func cancelHprof(path string) int {
	hprofRunning.Lock()
	var works []*hprofWork
	for w := range hprofRunning.m[path] {
		works = append(works, w)
	}
	hprofRunning.Unlock()
	n := 0
	for _, w := range works {
		if w.stop() {
			n++
		}
	}
	return n
}

// hprofMethods are the methods on HPROF files, as a table.
var hprofMethods = map[string]func(ctx context.Context, p hprofParams) (any, error){
	"hprof/summary": func(ctx context.Context, p hprofParams) (any, error) {
		if p.Stream {
			return streamSummary(ctx, p)
		}
		d, err := hprofDumps.get(ctx, p.Path, p.progress)
		if err != nil {
			return nil, err
		}
		return hprof.SummaryOf(p.Path, d.heap, d.histogram), nil
	},
	"hprof/dominators": func(ctx context.Context, p hprofParams) (any, error) {
		if p.Limit < 0 || p.Limit > 10000 {
			return nil, rpcError(CodeInvalidParams, "hprof/dominators: limit %d outside 0..10000", p.Limit)
		}
		if p.Limit == 0 {
			p.Limit = 100
		}
		d, err := hprofDumps.get(ctx, p.Path, p.progress)
		if err != nil {
			return nil, err
		}
		t, err := d.dominators(ctx, p.progress)
		if err != nil {
			return nil, err
		}
		of := hprof.Root
		if p.Object != nil {
			of = d.heap.Lookup(*p.Object)
			if of < 0 {
				return nil, rpcError(CodeInvalidParams, "hprof/dominators: the dump has no object 0x%x", *p.Object)
			}
		}
		return t.Level(p.Path, of, p.Limit), nil
	},
	"hprof/paths": func(ctx context.Context, p hprofParams) (any, error) {
		if p.Limit < 0 || p.Limit > 5000 {
			return nil, rpcError(CodeInvalidParams, "hprof/paths: limit %d outside 0..5000", p.Limit)
		}
		if (p.Class == "") == (p.Object == nil) {
			return nil, rpcError(CodeInvalidParams, "hprof/paths: params need \"class\" (its instances) or \"object\" (an object id), one of them")
		}
		d, err := hprofDumps.get(ctx, p.Path, p.progress)
		if err != nil {
			return nil, err
		}
		d.threadNames()
		src, done := d.source()
		defer done()
		opt := hprof.PathOptions{Nodes: p.Limit, Source: src}
		if p.Object != nil {
			o, err := d.object(p.Object, "hprof/paths")
			if err != nil {
				return nil, err
			}
			return d.heap.PathsToObject(p.Path, o, opt), nil
		}
		res, ok := d.heap.PathsToClass(p.Path, p.Class, opt)
		if !ok {
			return nil, rpcError(CodeInvalidParams, "hprof/paths: the dump has no class %q (names as the histogram shows them)", p.Class)
		}
		return res, nil
	},
	"hprof/incoming": func(ctx context.Context, p hprofParams) (any, error) {
		if err := p.page("hprof/incoming"); err != nil {
			return nil, err
		}
		d, err := hprofDumps.get(ctx, p.Path, p.progress)
		if err != nil {
			return nil, err
		}
		o, err := d.object(p.Object, "hprof/incoming")
		if err != nil {
			return nil, err
		}
		t, err := d.dominators(ctx, p.progress)
		if err != nil {
			return nil, err
		}
		d.threadNames()
		src, done := d.source()
		defer done()
		return d.heap.Incoming(p.Path, o, p.Offset, p.Limit, t.Dominators, src), nil
	},
	"hprof/instances": func(ctx context.Context, p hprofParams) (any, error) {
		if err := p.page("hprof/instances"); err != nil {
			return nil, err
		}
		if p.Class == "" {
			return nil, rpcError(CodeInvalidParams, "hprof/instances: params need \"class\", a class name as the histogram shows it")
		}
		d, err := hprofDumps.get(ctx, p.Path, p.progress)
		if err != nil {
			return nil, err
		}
		t, err := d.dominators(ctx, p.progress)
		if err != nil {
			return nil, err
		}
		res, ok := d.heap.Instances(p.Path, p.Class, p.Offset, p.Limit, t.Dominators)
		if !ok {
			return nil, rpcError(CodeInvalidParams, "hprof/instances: the dump has no class %q (names as the histogram shows them)", p.Class)
		}
		return res, nil
	},
	"hprof/retained": func(ctx context.Context, p hprofParams) (any, error) {
		d, err := hprofDumps.get(ctx, p.Path, p.progress)
		if err != nil {
			return nil, err
		}
		t, err := d.dominators(ctx, p.progress)
		if err != nil {
			return nil, err
		}
		return d.retained.get(ctx, d.key.path, "the classes' retained sizes", func(ctx context.Context) (hprof.RetainedJSON, error) {
			return t.ClassRetainedContext(ctx, d.key.path)
		}, nil)
	},
	"hprof/heapMap": func(ctx context.Context, p hprofParams) (any, error) {
		if p.Width < 0 || p.Width > 4096 {
			return nil, rpcError(CodeInvalidParams, "hprof/heapMap: width %d outside 0..4096", p.Width)
		}
		d, err := hprofDumps.get(ctx, p.Path, p.progress)
		if err != nil {
			return nil, err
		}
		return bridge.EncodeHeapMap(p.Path, d.heap.Map(hprof.MapOptions{}), p.PNG, p.Width)
	},
	"hprof/cancel": func(ctx context.Context, p hprofParams) (any, error) {
		return struct {
			Stopped int `json:"stopped"`
		}{cancelHprof(p.Path)}, nil
	},
	"hprof/diff": func(ctx context.Context, p hprofParams) (any, error) {
		if p.Base == "" {
			return nil, rpcError(CodeInvalidParams, "hprof/diff: params need \"base\", the earlier dump's path")
		}
		newer, err := histogram(ctx, p.Path, p.progress)
		if err != nil {
			return nil, err
		}
		older, err := histogram(ctx, p.Base, p.progress)
		if err != nil {
			return nil, err
		}
		return hprof.DiffOf(p.Path, p.Base, older, newer, 0), nil
	},
}

// page checks and defaults a page's offset and limit.
func (p *hprofParams) page(method string) error {
	if p.Limit < 0 || p.Limit > 10000 || p.Offset < 0 {
		return rpcError(CodeInvalidParams, "%s: limit %d outside 0..10000 or offset %d below 0", method, p.Limit, p.Offset)
	}
	if p.Limit == 0 {
		p.Limit = 100
	}
	return nil
}

// object is the index of the object id names.
func (d *hprofDump) object(id *uint64, method string) (int32, error) {
	if id == nil {
		return 0, rpcError(CodeInvalidParams, "%s: params need \"object\", an object id", method)
	}
	o := d.heap.Lookup(*id)
	if o < 0 {
		return 0, rpcError(CodeInvalidParams, "%s: the dump has no object 0x%x", method, *id)
	}
	return o, nil
}

// notifier sends the connection a notification (none before the
// connection is stored).
func (c *rpcConn) notifier() func(method string, params any) {
	c.logs.mu.Lock()
	ctx, conn := c.logs.ctx, c.logs.conn
	c.logs.mu.Unlock()
	return func(method string, params any) {
		if conn != nil {
			conn.Notify(ctx, method, params)
		}
	}
}

// dispatchHprof runs an hprof/* method; ok is false for other methods.
func dispatchHprof(ctx context.Context, notify func(method string, params any), req *jsonrpc2.Request) (res any, ok bool, err error) {
	method, ok := hprofMethods[req.Method]
	if !ok {
		return nil, false, nil
	}
	var p hprofParams
	if req.Params == nil {
		return nil, true, rpcError(CodeInvalidParams, "%s: missing params (want {\"path\": an absolute .hprof path})", req.Method)
	}
	if err := json.Unmarshal(*req.Params, &p); err != nil {
		return nil, true, rpcError(CodeInvalidParams, "%s: bad params: %v", req.Method, err)
	}
	for _, f := range []string{p.Path, p.Base} {
		if f != "" && !filepath.IsAbs(f) {
			return nil, true, rpcError(CodeInvalidParams, "%s: path %q is not absolute", req.Method, f)
		}
	}
	if p.Path == "" {
		return nil, true, rpcError(CodeInvalidParams, "%s: params need \"path\", an absolute .hprof path", req.Method)
	}
	p.progress = func(pr HprofProgress) { notify("hprof/progress", pr) }
	res, err = method(ctx, p)
	return res, true, err
}

// hprofDump is one parsed file and what was computed from it.
type hprofDump struct {
	key   hprofKey
	ready chan struct{} // closed when heap or err is set
	heap  *hprof.Heap
	err   error
	// cancel stops the parse (hprof/cancel); read counts the bytes it
	// has read, for hprof/progress.
	cancel context.CancelFunc
	read   atomic.Int64

	histogram []hprof.ClassStat

	// The dominator tree and the classes' retained sizes, each computed
	// once and kept (hprof/cancel stops a computation: one stopped is not
	// kept, the next request computes it again).
	dom      hprofJob[*hprof.DomTree]
	retained hprofJob[hprof.RetainedJSON]

	namesOnce sync.Once

	evicted bool // opening it evicted other dumps for the memory
}

// threadNames reads the threads' names for the roots' details once (a pass
// over the file that stops when it has them); without them a thread is
// named by its object and serial.
func (d *hprofDump) threadNames() {
	d.namesOnce.Do(func() {
		f, err := os.Open(d.key.path)
		if err == nil {
			defer f.Close()
			err = d.heap.ReadThreadNames(f)
		}
		if err != nil {
			zlog.Warn().Str("component", "hprof").Err(err).Str("file", d.key.path).Msg("roots name their threads by object and serial only")
		}
	})
}

// source opens the file again for the records an answer reads back (the
// fields that hold each object shown); nil when it cannot be opened (the
// answer then names no fields). done closes it.
func (d *hprofDump) source() (src io.ReaderAt, done func()) {
	f, err := os.Open(d.key.path)
	if err != nil {
		zlog.Warn().Str("component", "hprof").Err(err).Str("file", d.key.path).Msg("references are shown without their field names")
		return nil, func() {}
	}
	return f, func() { f.Close() }
}

// hprofJob is a computation on a parsed dump, done once and kept. It is
// not bound to the request that started it (a later one may wait for it
// too): a request's ctx bounds its wait, hprof/cancel the computation.
type hprofJob[T any] struct {
	mu   sync.Mutex
	val  T
	done bool       // val is computed
	run  *jobRun[T] // the computation running
}

// jobRun is one computation of a job.
type jobRun[T any] struct {
	cancel context.CancelFunc
	over   chan struct{} // closed when val or err is set
	val    T
	err    error
}

// get is the job's value, computed by compute on the first call (and on
// the next after a computation stopped) and kept; what names it in errors
// and for hprofJobHook. Where it waits for the computation, it calls
// waiting first (if not nil), once the computation is in hprof/cancel's
// reach.
func (j *hprofJob[T]) get(ctx context.Context, path, what string, compute func(context.Context) (T, error), waiting func()) (T, error) {
	var zero T
	j.mu.Lock()
	if j.done {
		defer j.mu.Unlock()
		return j.val, nil
	}
	r := j.run
	if r == nil {
		r = &jobRun[T]{over: make(chan struct{})}
		var rctx context.Context
		rctx, r.cancel = context.WithCancel(context.Background())
		if h := hprofJobHook.Load(); h != nil {
			rctx = (*h)(what, rctx)
		}
		j.run = r
		// Stopped, the job forgets the run: the next request starts
		// another at once (the one stopped ends at its next look at its
		// context).
		unlist := running(path, func() bool {
			j.mu.Lock()
			defer j.mu.Unlock()
			if j.run != r {
				return false
			}
			j.run = nil
			r.cancel()
			return true
		})
		go func() {
			defer close(r.over)
			defer r.cancel()
			defer unlist()
			v, err := compute(rctx)
			j.mu.Lock()
			defer j.mu.Unlock()
			if j.run == r {
				j.run = nil
			}
			if r.val, r.err = v, err; err == nil {
				j.val, j.done = v, true
			}
		}()
	}
	j.mu.Unlock()
	if waiting != nil {
		waiting()
	}
	select {
	case <-r.over:
	case <-ctx.Done():
		return zero, fmt.Errorf("%s of %s: %w", what, path, ctx.Err())
	}
	if r.err != nil {
		return zero, rpcError(CodeInvalidParams, "hprof: %s: %v", path, r.err)
	}
	return r.val, nil
}

// dominators is the dump's dominator tree, computed on the first call
// (telling progress first) and kept (an hprofJob).
func (d *hprofDump) dominators(ctx context.Context, progress func(HprofProgress)) (*hprof.DomTree, error) {
	var waiting func()
	if progress != nil {
		waiting = func() {
			progress(HprofProgress{Path: d.key.path, Phase: "dominators", Read: d.key.size, Size: d.key.size})
		}
	}
	return d.dom.get(ctx, d.key.path, "the dominator tree", func(ctx context.Context) (*hprof.DomTree, error) {
		if gate := os.Getenv(hprofTreeGateEnv); gate != "" {
			ctx = &gatedCtx{Context: ctx, gate: gate, path: d.key.path}
		}
		dom, err := d.heap.DominatorsContext(ctx, hprof.DomOptions{})
		if err != nil {
			return nil, err
		}
		return dom.Tree(), nil
	}, waiting)
}

// hprofTreeGateEnv names a file: while it exists, each dominator tree's
// computation waits at its first look at its context (where hprof/cancel
// stops it as anywhere in the tree), then goes on. End-to-end tests of the
// editor's Cancel set it, whose tree would otherwise end before the click
// reaches the monitor; unset, nothing waits.
const hprofTreeGateEnv = "DDMBRIDGE_HPROF_TREE_GATE"

// gatedCtx is a computation's context that waits at its first look while
// the file gate exists (hprofTreeGateEnv), or until it is done.
type gatedCtx struct {
	context.Context
	gate, path string
	once       sync.Once
}

func (c *gatedCtx) Err() error {
	c.once.Do(func() {
		if _, err := os.Stat(c.gate); err != nil {
			return
		}
		zlog.Info().Str("component", "hprof").Str("file", c.path).Str("gate", c.gate).
			Msg("the dominator tree waits while its gate exists (" + hprofTreeGateEnv + ")")
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-c.Done():
				return
			case <-tick.C:
				if _, err := os.Stat(c.gate); err != nil {
					zlog.Info().Str("component", "hprof").Str("file", c.path).Msg("the dominator tree's gate is gone: it goes on")
					return
				}
			}
		}
	})
	return c.Context.Err()
}

// hprofJobHook, set by tests, wraps the context of each computation on a
// parsed dump ("the dominator tree", "the classes' retained sizes").
var hprofJobHook atomic.Pointer[func(what string, ctx context.Context) context.Context]

// countingFile counts the bytes read from a file.
type countingFile struct {
	f    *os.File
	n    *atomic.Int64
	path string
}

func (c *countingFile) Read(b []byte) (int, error) {
	if h := hprofReadHook.Load(); h != nil {
		(*h)(c.path)
	}
	n, err := c.f.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// hprofReadHook, set by tests, runs before each read of a parse and at
// each progress of a streamed pass, with the dump's path.
var hprofReadHook atomic.Pointer[func(path string)]

// hprofKey names one version of a file: a rewritten file is parsed again.
type hprofKey struct {
	path  string
	size  int64
	mtime time.Time
}

// hprofCache keeps the last dumps used, most recent first.
type hprofCache struct {
	mu    sync.Mutex
	dumps []*hprofDump
}

var hprofDumps = &hprofCache{}

func (c *hprofCache) get(ctx context.Context, path string, progress ...func(HprofProgress)) (*hprofDump, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, rpcError(CodeInvalidParams, "hprof: %v", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, rpcError(CodeInvalidParams, "hprof: %s is not a regular file", path)
	}
	key := hprofKey{path, fi.Size(), fi.ModTime()}
	c.mu.Lock()
	var d *hprofDump
	for k, e := range c.dumps {
		if e.key == key {
			d = e
			c.dumps = append(append([]*hprofDump{e}, c.dumps[:k]...), c.dumps[k+1:]...)
			break
		}
	}
	if d == nil {
		d = &hprofDump{key: key, ready: make(chan struct{})}
		var pctx context.Context
		pctx, d.cancel = context.WithCancel(context.Background())
		c.dumps = append([]*hprofDump{d}, c.dumps...)
		d.evicted = c.fit()
		// Listed for hprof/cancel by itself, not by the cache: evicted by
		// the next dump opened, it is still parsed until it ends.
		unlist := running(path, func() bool {
			select {
			case <-d.ready:
				return false
			default:
				d.cancel()
				return true
			}
		})
		go d.parse(pctx, unlist) // not bound to this request: a later one may wait for it
	} else {
		c.fit()
	}
	c.mu.Unlock()
	if err := d.wait(ctx, progress); err != nil {
		return nil, err
	}
	if d.err != nil {
		c.mu.Lock()
		for k, e := range c.dumps {
			if e == d {
				c.dumps = append(c.dumps[:k], c.dumps[k+1:]...)
				break
			}
		}
		c.mu.Unlock()
		return nil, rpcError(CodeInvalidParams, "hprof: %s: %v", path, d.err)
	}
	return d, nil
}

// parsed is the dump at path as it is now if it is parsed and cached,
// without parsing it or waiting; nil otherwise.
func (c *hprofCache) parsed(path string) *hprofDump {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	key := hprofKey{path, fi.Size(), fi.ModTime()}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.dumps {
		if d.key == key {
			select {
			case <-d.ready:
				if d.err == nil {
					return d
				}
			default:
			}
		}
	}
	return nil
}

// fit evicts the least recently used dumps but the first (the one opened)
// while they are more than hprofCacheSize or need more memory together
// than the budget; it reports whether it evicted any for the memory.
func (c *hprofCache) fit() (evicted bool) {
	if len(c.dumps) > hprofCacheSize {
		c.dumps = c.dumps[:hprofCacheSize]
	}
	need := func(d *hprofDump) uint64 { return hprof.MemoryNeeded(d.key.size, true) }
	var held uint64
	for _, d := range c.dumps[1:] {
		held += need(d)
	}
	budget := hprofCacheBudget
	if budget == 0 {
		avail := hprof.AvailableMemory()
		if avail == 0 {
			return false // nothing known: the count bounds the cache
		}
		budget = avail + held
	}
	for len(c.dumps) > 1 && held+need(c.dumps[0]) > budget {
		last := c.dumps[len(c.dumps)-1]
		held -= need(last)
		c.dumps = c.dumps[:len(c.dumps)-1]
		evicted = true
		zlog.Info().Str("component", "hprof").Str("file", last.key.path).Str("for", c.dumps[0].key.path).
			Msg("parsed dump dropped from the cache: both would not fit in memory")
	}
	return evicted
}

// parsing bounds the parses running at once: a client asking for many files
// in a row evicts them from the cache but cannot make them all parse at once.
var parsing = make(chan struct{}, hprofCacheSize)

// wait waits until d is parsed, telling progress (if any) how far the
// parse is as it goes.
func (d *hprofDump) wait(ctx context.Context, progress []func(HprofProgress)) error {
	tick := time.NewTicker(hprofProgressEvery)
	defer tick.Stop()
	for {
		select {
		case <-d.ready:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("parsing %s: %w", d.key.path, ctx.Err())
		case <-tick.C:
			for _, f := range progress {
				f(HprofProgress{Path: d.key.path, Phase: "parsing", Read: d.read.Load(), Size: d.key.size})
			}
		}
	}
}

func (d *hprofDump) parse(ctx context.Context, unlist func()) {
	defer close(d.ready)
	defer d.cancel()
	defer unlist()
	select {
	case parsing <- struct{}{}:
	case <-ctx.Done(): // cancelled while it waited for its turn
		d.err = fmt.Errorf("parsing stopped: %w", ctx.Err())
		return
	}
	defer func() { <-parsing }()
	f, err := os.Open(d.key.path)
	if err != nil {
		d.err = err
		return
	}
	defer f.Close()
	if d.evicted {
		debug.FreeOSMemory() // what the dumps evicted held counts as available below
	}
	// A dump the machine cannot hold would end the monitor with the Go
	// runtime's fatal out-of-memory error: refuse it first.
	if need, room := hprof.MemoryNeeded(d.key.size, true), hprof.AvailableMemory(); room > 0 && need > room {
		d.err = fmt.Errorf("the dump is %d MiB: analysing it takes about %d MiB of memory and %d MiB is available; analyse it on a machine with more memory", d.key.size>>20, need>>20, room>>20)
		return
	}
	d.heap, d.err = hprof.ParseContext(ctx, &countingFile{f, &d.read, d.key.path}, hprof.Options{SizeHint: d.key.size}) // it buffers
	if d.err == nil {
		d.histogram = d.heap.Histogram()
	}
}
