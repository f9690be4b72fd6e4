package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/hprof"
)

func init() {
	register(&command{name: "hprof", summary: "analyse an HPROF heap dump (histogram, dominators, diff, heap map)", synopsis: hprofUsage, run: runHprof})
}

const hprofUsage = "ddmbridge hprof FILE [--histo] [--top N] [--dominators] [--dups N] [--path ID [--path-max N]] [--diff OTHER] [--png FILE] [--oops compressed|wide] [--json] [--max-memory SIZE]"

// hprofPathMax is how many steps of a path --path prints by default: the
// first and last halves, the middle summed up by class.
const hprofPathMax = 40

func runHprof(ctx context.Context, fs *flag.FlagSet, args []string) error {
	histo := fs.Bool("histo", false, "print the class histogram (instances and shallow bytes per class)")
	asJSON := fs.Bool("json", false, "print JSON instead of tables")
	top := fs.Int("top", 0, "list N lines: with --histo, --diff or --dominators the N biggest of them (dominators default 30); alone, the N biggest objects by shallow size")
	doms := fs.Bool("dominators", false, "print the dominator tree's top level with retained sizes")
	dups := fs.Int("dups", 0, "print the N duplicate strings that waste most")
	path := fs.String("path", "", "print the path from a GC root to the object with this id (0x… or decimal)")
	pathMax := fs.Int("path-max", hprofPathMax, "with --path: print at most N steps, the first and last halves, the middle counted by class (0: every step)")
	diff := fs.String("diff", "", "compare with an older dump OTHER: per-class instance and byte deltas (this FILE is the newer)")
	pngFile := fs.String("png", "", "write the heap map drawn from object addresses (HotSpot dumps) as a PNG to this file")
	oopsFlag := fs.String("oops", "auto", "reference width of the dumped 64-bit HotSpot VM: compressed, wide (-XX:-UseCompressedOops) or auto (inferred from the dump)")
	maxMem := fs.String("max-memory", "", "memory the analysis may take (e.g. 16GiB); a dump that needs more is refused before parsing. Default: what the system has available")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: "+hprofUsage)
		fmt.Fprintln(fs.Output(), "\nWithout a view flag it prints a summary and the 20 biggest classes, from one pass over the file (like --histo and --diff: memory bounded by the classes; GC roots counted as the dump lists them).")
		fs.PrintDefaults()
	}
	pos, err := parseWithOperands(ctx, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want %s", errUsage, hprofUsage)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case set["top"] && *top <= 0:
		return fmt.Errorf("%w: --top %d: want a positive number of lines", errUsage, *top)
	case set["dups"] && *dups <= 0:
		return fmt.Errorf("%w: --dups %d: want a positive number of strings", errUsage, *dups)
	case *pathMax < 0:
		return fmt.Errorf("%w: --path-max %d: want a number of steps, or 0 for every step", errUsage, *pathMax)
	case set["path-max"] && *path == "":
		return fmt.Errorf("%w: --path-max applies to --path ID", errUsage)
	}
	var pathID uint64
	if *path != "" {
		if pathID, err = strconv.ParseUint(*path, 0, 64); err != nil {
			return fmt.Errorf("%w: --path %q is not an object id (0x… or decimal)", errUsage, *path)
		}
	}
	oops, err := hprof.ParseOops(*oopsFlag)
	if err != nil {
		return fmt.Errorf("%w: --%v", errUsage, err)
	}
	var memLimit uint64
	if *maxMem != "" {
		if memLimit, err = parseSize(*maxMem); err != nil {
			return fmt.Errorf("%w: --max-memory %q: %v", errUsage, *maxMem, err)
		}
	}
	// The views that need a model of the objects: the rest (the summary,
	// the histogram, the diff, the duplicate strings) stream each dump.
	needsModel := *doms || *path != "" || *pngFile != "" || (*top > 0 && !*histo && *diff == "")
	a := &hprofRun{file: pos[0], oops: oops, memLimit: memLimit, memFlag: set["max-memory"], graph: *doms || *path != "" || (*dups > 0 && needsModel),
		strings: *dups > 0}
	if isTerminal(fs.Output()) {
		a.progressTo = fs.Output() // a terminal: how far each parse is, on one line
	}
	// The summary, the histogram, the diff and the duplicate strings need
	// no model of the objects: one pass over each dump counts them by
	// class (and keeps the Strings' arrays' hashes), in memory bounded by
	// the classes (and the strings), whatever the dump's size.
	a.streamed = !needsModel
	a.phase.Store("starting")
	// The work runs apart so that a signal ends the command promptly, in
	// whatever phase: the streamed passes, parsing and the dominator tree
	// stop themselves (ParseContext, DominatorsContext) and are waited for
	// (hprofStopWait at most), another analysis running on is abandoned
	// with the process.
	done := make(chan error, 1)
	go func() {
		views := func(h *hprof.Heap, f *os.File) error {
			return hprofViews(ctx, a, h, f, hprofFlags{histo: *histo, asJSON: *asJSON, top: *top, doms: *doms, dups: *dups,
				path: *path != "", pathID: pathID, pathMax: *pathMax, diff: *diff, png: *pngFile})
		}
		if a.streamed {
			if a.strings {
				// The duplicate strings' records fill pointer-free
				// buffers up to their budget: collecting often keeps
				// the peak near it.
				defer debug.SetGCPercent(debug.SetGCPercent(20))
			}
			done <- views(nil, nil)
			return
		}
		done <- a.run(ctx, *dups > 0, views)
	}()
	select {
	case err := <-done:
		if err != nil && ctx.Err() != nil {
			return a.interrupted()
		}
		return err
	case <-ctx.Done():
		// The parse and the dominator tree stop at their next look at
		// ctx, milliseconds away: wait for them a little, so that what
		// they were making is not cut in two by the exit (where the
		// temporary file cannot be made nameless, O_TMPFILE on Linux,
		// one created but not yet unlinked would be left behind).
		select {
		case <-done:
		case <-time.After(hprofStopWait):
		}
		return a.interrupted()
	}
}

// hprofStopWait bounds the wait for the work to stop after a signal (an
// analysis that does not look at the context is abandoned with the process).
const hprofStopWait = 2 * time.Second

// hprofRun is one hprof command: which dump, the memory it may take and
// the phase it is in (for the message when a signal stops it).
type hprofRun struct {
	file     string
	oops     hprof.Oops // --oops
	memLimit uint64     // --max-memory; 0: what the system has available
	memFlag  bool
	graph    bool   // the dominator tree, a path search or duplicate strings follow the parse
	held     uint64 // memory the dumps parsed so far need
	streamed bool   // no view needs the model: each dump streamed (StreamHistogram)
	strings  bool   // --dups: the duplicate strings' data kept (the model's, or the streamed pass's)
	spill    bool   // the dominator tree spills the model's arrays to a temporary file (memory is short)
	compact  bool   // the dominator tree holds the model's arrays it does not read packed in memory (memory is shorter than the tree in memory needs)
	hists    map[string][]hprof.ClassStat
	streams  map[string]*hprof.Streamed // the streamed passes' results, by file
	// progressTo, when set, shows how far each parse is.
	progressTo io.Writer
	phase      atomic.Value // string
	parsing    atomic.Pointer[countingReader]
}

// errInterrupted marks a command stopped by SIGINT or SIGTERM (exit 130).
var errInterrupted = errors.New("interrupted")

func (a *hprofRun) interrupted() error {
	at := ""
	if cr := a.parsing.Load(); cr != nil && a.phase.Load() == "parsing "+cr.name {
		switch n := cr.n.Load(); {
		case cr.size > 0 && n >= cr.size:
			at = " (read whole, building the model)"
		case cr.size > 0:
			at = fmt.Sprintf(" (%s bytes read of %s)", thousands(n), thousands(cr.size))
		default:
			at = fmt.Sprintf(" (%s bytes read)", thousands(n))
		}
	}
	return fmt.Errorf("%w while %s%s", errInterrupted, a.phase.Load(), at)
}

func (a *hprofRun) run(ctx context.Context, strings bool, views func(*hprof.Heap, *os.File) error) error {
	// The heap model is a few pointer-free arrays: collecting often is cheap
	// and keeps the peak near the live data (about the dump's size).
	// Both settings are the process's: put back when done (tests run
	// commands in one process).
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	h, f, err := a.open(ctx, a.file, strings)
	if err != nil {
		return err
	}
	defer f.Close()
	return views(h, f)
}

type hprofFlags struct {
	histo, asJSON, doms bool
	top, dups, pathMax  int
	path                bool
	pathID              uint64
	diff, png           string
}

func hprofViews(ctx context.Context, a *hprofRun, h *hprof.Heap, f *os.File, o hprofFlags) error {
	out := stdout(ctx)
	result := map[string]any{}
	first := true
	emit := func(key string, v any, table func(io.Writer)) {
		if o.asJSON {
			result[key] = v
			return
		}
		if !first {
			fmt.Fprintln(out)
		}
		first = false
		table(out)
	}
	views := 0
	listing := o.histo || o.diff != "" || o.doms // --top limits these; alone it lists objects
	if o.histo {
		views++
		hist, err := a.histogram(ctx, h, a.file)
		if err != nil {
			return err
		}
		shown := limit(hist, o.top)
		if o.asJSON && o.diff == "" && !o.doms && o.dups == 0 && !o.path && o.png == "" {
			return printJSON(out, orEmpty(shown)) // the documented form: just the array
		}
		emit("histogram", orEmpty(shown), func(w io.Writer) {
			if len(shown) < len(hist) {
				fmt.Fprintf(w, "class histogram: the %d biggest of %s classes by shallow bytes:\n", len(shown), thousands(len(hist)))
			} else {
				fmt.Fprintf(w, "class histogram: %s classes by shallow bytes, biggest first:\n", thousands(len(hist)))
			}
			printHisto(w, shown, 0)
		})
	}
	if o.diff != "" {
		views++
		a.phase.Store("reading " + o.diff)
		var older []hprof.ClassStat
		if a.streamed {
			var err error
			if older, err = a.histogram(ctx, nil, o.diff); err != nil {
				return err
			}
		} else {
			old, of, err := a.open(ctx, o.diff, false)
			if err != nil {
				return err
			}
			of.Close()
			older = old.Histogram()
		}
		newer, err := a.histogram(ctx, h, a.file)
		if err != nil {
			return err
		}
		a.phase.Store("comparing the dumps")
		d := hprof.DiffOf(a.file, o.diff, older, newer, o.top)
		emit("diff", d, func(w io.Writer) {
			what := fmt.Sprintf("%s classes changed", thousands(len(d.Classes)))
			if d.More > 0 {
				what = fmt.Sprintf("the %d biggest changes of %s", len(d.Classes), thousands(len(d.Classes)+d.More))
			}
			fmt.Fprintf(w, "changes from %s to %s by class, %s, largest byte change first:\n", filepath.Base(o.diff), filepath.Base(a.file), what)
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "Δ INSTANCES\tΔ BYTES\tINSTANCES\tBYTES\tCLASS\t")
			for _, c := range d.Classes {
				fmt.Fprintf(tw, "%+d\t%+d\t%d\t%d\t%s\t\n", c.Instances, c.Bytes, c.NewInstances, c.NewBytes, c.Class)
			}
			tw.Flush()
		})
	}
	if o.doms {
		views++
		a.phase.Store("computing the dominator tree")
		log := component("hprof")
		log.Info().Str("file", a.file).Bool("spill", a.spill).Bool("compact", a.compact).Msg("computing the dominator tree")
		n := o.top
		if n == 0 {
			n = 30
		}
		d, err := h.DominatorsContext(ctx, hprof.DomOptions{Spill: a.spill, Compact: a.compact}) // a signal stops it
		if err != nil {
			return err
		}
		level := d.Level(a.file, hprof.Root, n)
		emit("dominators", level, func(w io.Writer) {
			fmt.Fprintf(w, "dominator tree, top level: the %d biggest of %s (retained bytes include everything the object alone keeps alive):\n",
				len(level.Children), thousands(len(level.Children)+level.More))
			objs := make([]hprof.Object, len(level.Children))
			for k, c := range level.Children {
				objs[k] = c.Object
			}
			printObjects(w, objs, true)
		})
	}
	if o.top > 0 && !listing {
		views++
		objs := h.Biggest(o.top)
		emit("biggest", orEmpty(objs), func(w io.Writer) {
			fmt.Fprintf(w, "the %d biggest objects by shallow size:\n", len(objs))
			printObjects(w, objs, false)
		})
	}
	if o.dups > 0 {
		views++
		a.phase.Store("looking for duplicate strings")
		var ds []hprof.DupString
		var err error
		if h != nil {
			ds, err = h.DuplicateStrings(f, o.dups)
		} else if _, err = a.histogram(ctx, nil, a.file); err == nil {
			var src *os.File
			if src, err = os.Open(a.file); err == nil {
				s := a.streams[a.file]
				ds, err = s.DuplicateStrings(src, o.dups)
				src.Close()
				s.Close() // its runs' file: the summary below needs only the counts
			}
		}
		if err != nil {
			return err
		}
		emit("duplicateStrings", orEmpty(ds), func(w io.Writer) {
			fmt.Fprintln(w, "duplicate strings, most wasted bytes first:")
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "COPIES\tWASTED BYTES\tVALUE")
			for _, d := range ds {
				fmt.Fprintf(tw, "%d\t%d\t%q\n", d.Count, d.Wasted, d.Value)
			}
			tw.Flush()
		})
	}
	if o.path {
		views++
		obj := h.Lookup(o.pathID)
		if obj < 0 {
			return fmt.Errorf("the dump has no object with id %#x (ids are as --top, --dominators and --json print them)", o.pathID)
		}
		a.phase.Store("reading the threads' names")
		if err := h.ReadThreadNames(f); err != nil {
			log := component("hprof")
			log.Warn().Err(err).Msg("roots name their threads by object and serial only")
		}
		a.phase.Store("looking for a path from a GC root")
		p := h.PathTo(obj, o.pathMax, f)
		emit("path", p, func(w io.Writer) { printPath(w, p) })
	}
	if o.png != "" {
		views++
		m := h.Map(hprof.MapOptions{})
		if err := writePicture(o.png, m, "heap map of "+filepath.Base(a.file)+" (from object addresses)"); err != nil {
			return err
		}
		tot := m.Totals()
		emit("map", map[string]any{"file": o.png, "pieces": len(m.Pieces), "bytes": tot.Bytes, "freeBytes": tot.Free.Bytes}, func(w io.Writer) {
			fmt.Fprintf(w, "heap map written to %s: %s in %d pieces, %s free\n", o.png, mib(tot.Bytes), len(m.Pieces), mib(tot.Free.Bytes))
		})
	}
	if views == 0 {
		var sum hprof.SummaryJSON
		roots := "GC roots"
		if h != nil {
			sum = hprof.SummaryOf(a.file, h, h.Histogram())
		} else {
			if _, err := a.histogram(ctx, nil, a.file); err != nil {
				return err
			}
			sum = hprof.StreamedSummary(a.file, a.streams[a.file])
			roots = "GC root records"
		}
		hist := sum.Classes
		emit("summary", sum, func(w io.Writer) {
			fmt.Fprintf(w, "%s, %d-byte ids, taken %s\n", sum.Format, sum.IDSize, sum.Timestamp.UTC().Format("2006-01-02 15:04:05 MST"))
			fmt.Fprintf(w, "%d objects of %d classes, %s shallow, %d %s, heaps %v\n", sum.Objects, len(hist), mib(uint64(sum.Totals.Bytes)), sum.Roots, roots, sum.Heaps)
			if sum.Oops != hprof.OopsAuto.String() {
				fmt.Fprintf(w, "sizes with %s references\n", sum.Oops)
			}
			if sum.Partial {
				fmt.Fprintln(w, "PARTIAL: the dump is cut short; these figures cover its complete records")
			}
			fmt.Fprintln(w)
			fmt.Fprintf(w, "the %d biggest classes by shallow bytes:\n", min(20, len(hist)))
			printHisto(w, hist, 20)
		})
	}
	if o.asJSON {
		return printJSON(out, result)
	}
	return nil
}

// histogram is h's histogram, or (h nil: a streamed run) that of the dump
// name, streamed and kept for a second use.
func (a *hprofRun) histogram(ctx context.Context, h *hprof.Heap, name string) ([]hprof.ClassStat, error) {
	if h != nil {
		return h.Histogram(), nil
	}
	if hist, ok := a.hists[name]; ok {
		return hist, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	cr := &countingReader{r: f, name: name, size: size, progress: a.progress(name, size)}
	defer cr.progress.done()
	a.parsing.Store(cr)
	a.phase.Store("parsing " + name)
	strings := a.strings && name == a.file
	// What the duplicate strings keep is bounded (64 MiB, or a quarter of
	// --max-memory): the rest waits in a temporary file in sorted runs.
	var budget int64
	if strings && a.memFlag {
		budget = int64(max(a.memLimit/4, 1<<20))
		debug.SetMemoryLimit(int64(min(a.memLimit, math.MaxInt64)))
	}
	s, err := hprof.StreamHistogram(ctx, cr, hprof.StreamOptions{Oops: a.oops, Strings: strings, StringsMemory: budget})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	log := component("hprof")
	for _, w := range s.Warnings {
		log.Warn().Str("file", name).Msg(w)
	}
	if a.hists == nil {
		a.hists = map[string][]hprof.ClassStat{}
	}
	a.hists[name] = s.Histogram
	if a.streams == nil {
		a.streams = map[string]*hprof.Streamed{}
	}
	a.streams[name] = s
	a.phase.Store("analysing " + name)
	return s.Histogram, nil
}

// open parses the dump name after checking that the machine can hold it.
func (a *hprofRun) open(ctx context.Context, name string, strings bool) (*hprof.Heap, *os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	if err := a.checkMemory(name, size); err != nil {
		f.Close()
		return nil, nil, err
	}
	cr := &countingReader{r: f, name: name, size: size, progress: a.progress(name, size)}
	a.parsing.Store(cr)
	a.phase.Store("parsing " + name)
	h, err := hprof.ParseContext(ctx, cr, hprof.Options{Strings: strings, SizeHint: size, Oops: a.oops, Spill: a.spill})
	cr.progress.done()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	log := component("hprof")
	for _, w := range h.Warnings {
		log.Warn().Str("file", name).Msg(w)
	}
	a.phase.Store("analysing " + name)
	return h, f, nil
}

// checkMemory refuses a dump the machine cannot hold: the Go runtime ends a
// process that runs out of memory with a fatal error and a stack trace, so
// the estimate is checked before the first byte is parsed.
func (a *hprofRun) checkMemory(name string, size int64) error {
	need := hprof.MemoryNeeded(size, a.graph)
	room, from := a.memLimit, "--max-memory"
	if !a.memFlag {
		room, from = hprof.AvailableMemory(), "available" // what an earlier dump holds is gone from it already
	} else {
		room -= min(room, a.held) // --max-memory bounds both dumps of --diff together
		if a.held > 0 {
			from = "left under --max-memory"
		}
	}
	// Where the model and the dominator tree do not fit in memory, the
	// model's arrays a phase does not read are held packed in memory
	// (Compact): about 0.6× the dump instead of 0.8× for the same time;
	// where that does not fit either, the model and the graph wait in a
	// temporary file (0600, removed however the command ends: 0.55×, for
	// more time).
	if a.graph && a.held == 0 && need > room && (room > 0 || a.memFlag) {
		log := component("hprof")
		if compact := hprof.MemoryNeededCompact(size); compact <= room {
			need, a.compact = compact, true
			log.Info().Str("file", name).Msg("memory is short: the model's arrays are held packed while the dominator tree is computed")
		} else {
			need, a.spill = hprof.MemoryNeededSpill(size), true
			log.Info().Str("file", name).Msg("memory is short: the model and the dominator tree are computed partly in a temporary file")
		}
	}
	a.held += need
	if (room == 0 && !a.memFlag) || need <= room { // 0 available: not known
		if a.memFlag {
			debug.SetMemoryLimit(int64(min(a.memLimit, math.MaxInt64)))
		}
		return nil
	}
	// --max-memory bounds all the dumps together: the hint is their sum.
	hint := fmt.Sprintf("pass --max-memory %s to try anyway", gib(a.held))
	if a.memFlag {
		hint = fmt.Sprintf("raise --max-memory to %s to try", gib(a.held))
	}
	return fmt.Errorf("%s is %s: analysing it takes about %s of memory and %s is %s; %s, or analyse it on a machine with more memory",
		name, gib(uint64(size)), gib(need), gib(room), from, hint)
}

// countingReader counts the bytes read, for the message when a signal
// stops the parse.
type countingReader struct {
	r        io.Reader
	name     string
	size     int64
	n        atomic.Int64
	progress *parseProgress // nil: none shown
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.progress.update(c.n.Add(int64(n)))
	return n, err
}

// progress is what shows the parse of name (size bytes) on a terminal; nil
// where there is none or the size is not known.
func (a *hprofRun) progress(name string, size int64) *parseProgress {
	if a.progressTo == nil || size <= 0 {
		return nil
	}
	return &parseProgress{w: a.progressTo, name: filepath.Base(name), size: size, last: -1}
}

// parseProgress shows how far a parse is on one line of a terminal,
// rewritten at each percent and cleared at the end.
type parseProgress struct {
	w     io.Writer
	name  string
	size  int64
	last  int64
	shown bool
}

func (p *parseProgress) update(read int64) {
	if p == nil {
		return
	}
	pct := min(read, p.size) * 100 / p.size
	if pct == p.last {
		return
	}
	p.last, p.shown = pct, true
	fmt.Fprintf(p.w, "\rreading %s: %d%% of %s", p.name, pct, gib(uint64(p.size)))
}

func (p *parseProgress) done() {
	if p != nil && p.shown {
		fmt.Fprint(p.w, "\r\033[K") // the line cleared: the output follows
		p.shown = false
	}
}

func gib(b uint64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1fGiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%dMiB", (b+1<<20-1)>>20)
}

func limit[T any](s []T, n int) []T {
	if n > 0 && len(s) > n {
		return s[:n]
	}
	return s
}

// thousands writes n with thousands separators: 1,000,002.
func thousands[N ~int | ~int64](n N) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// printPath prints a path one step a line, numbered from the root, without
// indentation (which grew with the depth): its size is linear in the steps
// kept, and an elided middle takes one line.
func printPath(w io.Writer, p hprof.Path) {
	if p.Length == 0 {
		fmt.Fprintf(w, "object %#x is not reachable from a GC root\n", p.Object)
		return
	}
	fmt.Fprintf(w, "path from a GC root to %#x, %s objects, root first:\n", p.Object, thousands(p.Length))
	width := len(thousands(p.Length))
	step := func(k int, s hprof.PathStep) {
		root := ""
		if s.Root != "" {
			root = " (GC root: " + s.Root
			if s.RootDetail != "" {
				root += ", " + s.RootDetail
			}
			root += ")"
		}
		if s.Via != "" {
			root = " via " + s.Via + root
		}
		if s.Field != "" {
			root = ", in " + s.Field + root // the field of the previous step that holds it
			if s.FieldCount > 1 {
				root += fmt.Sprintf(" (and %d more)", s.FieldCount-1)
			}
		}
		fmt.Fprintf(w, "%*s  %s @%#x, %d bytes%s\n", width, thousands(k), s.Class, s.ID, s.Size, root)
	}
	for k, s := range p.Steps {
		if g := p.Elided; g != nil && k >= g.After {
			if k == g.After {
				var kinds []string
				listed := 0
				for _, c := range g.Classes {
					kinds = append(kinds, thousands(c.Count)+" "+c.Class)
					listed += c.Count
				}
				if listed < g.Count {
					kinds = append(kinds, thousands(g.Count-listed)+" of other classes")
				}
				fmt.Fprintf(w, "%*s  … %s objects elided (%s; --path-max 0 prints every step)\n", width, "", thousands(g.Count), strings.Join(kinds, ", "))
			}
			step(k+1+g.Count, s)
			continue
		}
		step(k+1, s)
	}
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func printHisto(w io.Writer, hist []hprof.ClassStat, n int) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INSTANCES\tBYTES\tCLASS")
	for k, c := range hist {
		if n > 0 && k == n {
			fmt.Fprintf(tw, "…\t\t(%d more classes; --histo for all)\n", len(hist)-n)
			break
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\n", c.Instances, c.Bytes, c.Class)
	}
	tw.Flush()
}

func printObjects(w io.Writer, objs []hprof.Object, retained bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if retained {
		fmt.Fprintln(tw, "RETAINED BYTES\tSHALLOW BYTES\tID\tCLASS")
	} else {
		fmt.Fprintln(tw, "SHALLOW BYTES\tID\tCLASS")
	}
	for _, o := range objs {
		if retained {
			fmt.Fprintf(tw, "%d\t%d\t%#x\t%s\n", o.Retained, o.Size, o.ID, o.Class)
		} else {
			fmt.Fprintf(tw, "%d\t%#x\t%s\n", o.Size, o.ID, o.Class)
		}
	}
	tw.Flush()
}

// writePicture writes m as a PNG picture with its legend and totals.
func writePicture(name string, m *ddm.HeapMap, title string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := m.WritePicture(f, title); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
