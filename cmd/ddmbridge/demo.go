package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/access"
	"github.com/ddmbridge/ddmbridge/bridge/demoapp"
	"github.com/ddmbridge/ddmbridge/bridge/rpc"
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/internal/hotspot"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmrun"
)

func init() {
	register(&command{
		name:     "demo",
		summary:  "start a sample Java app behind a simulated Android VM, monitor it and show its threads and heap live",
		synopsis: "ddmbridge demo [--duration D] [--refresh D] [--scan 127.0.0.1:8000-8040] [--current-port 8700] [--debug-port-base 8600]",
		run:      runDemo,
	})
}

func runDemo(ctx context.Context, fs *flag.FlagSet, args []string) error {
	mf := addMonitorFlags(fs)
	duration := fs.Duration("duration", 0, "show the view this long once it is up, then exit (0: until Ctrl-C); start-up (compiling and starting the app) is not counted")
	every := fs.Duration("refresh", time.Second, "refresh period of the view")
	if err := parse(ctx, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	opts, err := mf.options()
	if err != nil {
		return err
	}
	if len(opts.Scan) == 0 {
		return fmt.Errorf("%w: demo needs a --scan range to put the simulated VM in", errUsage)
	}
	log := component("bridge")
	out := stdout(ctx)

	// The monitor first (scenario 1 of the seed: the VM appears later).
	m, err := bridge.New(opts)
	if err != nil {
		return err
	}
	mctx, stopMonitor := context.WithCancel(context.WithoutCancel(ctx))
	monitorDone := make(chan struct{})
	go func() { m.Run(mctx); close(monitorDone) }()
	defer func() { stopMonitor(); <-monitorDone }()
	if ln, err := access.ListenRPC(access.DefaultRPCAddr(), false); err != nil {
		log.Info().Err(err).Msg("control API not started (ddmbridge vms/threads/heap will not see the demo)")
	} else {
		srv := rpc.NewServer(m, rpc.ServerOptions{Logger: rootLogger()})
		go srv.Serve(mctx, ln)
	}

	fmt.Fprintln(out, "ddmbridge demo: compiling and starting the sample app (DemoApp.java)…")
	jvm, err := demoapp.Start(ctx, jvmrun.Options{})
	if err != nil {
		if ctx.Err() != nil {
			return demoEnd(ctx) // Ctrl-C during start-up
		}
		return fmt.Errorf("start the sample app: %w", err)
	}
	defer jvm.Close() // kills the JVM on every way out, Ctrl-C included

	// The simulated Android VM in front of it, on a free port of the scan range.
	sim, err := simvm.New(simvm.Options{JVM: jvm.Addr, AppName: "com.example.demo", PID: uint32(jvm.Pid),
		Logger: component("ddm"), TraceChunks: traced("ddm.chunk"), TraceData: traced("ddm.data")})
	if err != nil {
		return err
	}
	defer sim.Close()
	simLn, err := listenInRanges(opts.Scan)
	if err != nil {
		return err
	}
	go sim.Serve(simLn)
	simAddr := simLn.Addr().String()

	// Wait for the monitor to find it: look again after each monitor event.
	events, unsubscribe := m.Subscribe()
	var v *bridge.VM
	for v == nil {
		if v, err = m.VM(simAddr); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			unsubscribe()
			return demoEnd(ctx)
		case _, ok := <-events:
			if !ok {
				unsubscribe()
				return errors.New("the monitor stopped before it found the simulated VM")
			}
		}
	}
	unsubscribe()
	if _, err := m.Select(v.ID()); err != nil {
		return err
	}
	v.SetThreadUpdates(true)
	v.SetHeapUpdates(true)

	view := &demoView{w: out, tty: isTerminal(out), jvm: jvm, sim: simAddr, current: m.CurrentAddr(),
		prev: map[uint64]uint32{}, pct: map[uint64]string{}}
	vctx, stopView := context.WithCancel(ctx)
	defer stopView()
	go view.dumpRealHeap(vctx, *every*10)
	t := time.NewTicker(*every)
	defer t.Stop()
	// --duration counts from the first frame: start-up (compiling, starting
	// the JVM, the monitor finding it) takes what the machine needs.
	var end <-chan time.Time
	if *duration > 0 {
		timer := time.NewTimer(*duration)
		defer timer.Stop()
		end = timer.C
	}
	for {
		view.draw(vctx, v)
		select {
		case <-end:
			view.finish()
			return nil
		case <-ctx.Done():
			view.finish()
			return demoEnd(ctx)
		case <-v.Done():
			view.finish()
			return errors.New("the sample app's VM went away")
		case <-jvm.Exited():
			view.finish()
			return fmt.Errorf("the sample app exited: %v", jvm.Wait())
		case <-t.C:
		}
	}
}

// demoEnd turns the end of the context into the command's result: Ctrl-C
// and --duration are normal ends.
func demoEnd(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return ctx.Err()
}

// listenInRanges listens on the first free port of the ranges.
func listenInRanges(rs []bridge.Range) (net.Listener, error) {
	for _, r := range rs {
		for p := r.Lo; p <= r.Hi; p++ {
			if ln, err := net.Listen("tcp", net.JoinHostPort(r.Host, strconv.Itoa(p))); err == nil {
				return ln, nil
			}
		}
	}
	return nil, fmt.Errorf("no free port in %v for the simulated VM", rs)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// demoView renders the live view: ANSI redraws on a terminal, plain
// snapshots otherwise.
type demoView struct {
	w            io.Writer
	tty          bool
	jvm          *jvmrun.JVM
	sim, current string
	// CPU use is the change of a thread's utime+stime between two thread
	// samples (THST, every couple of seconds), not between two draws.
	prev     map[uint64]uint32 // thread id → utime+stime at the last sample
	pct      map[uint64]string // thread id → CPU use over the last two samples
	sampleAt time.Time         // when the last sample was first drawn
	drawn    bool

	mu       sync.Mutex
	realHeap string // summary of the last real heap dump
}

// dumpRealHeap dumps the real JVM's heap every period (all objects, so no
// GC is forced on it) and keeps a summary for the view.
func (d *demoView) dumpRealHeap(ctx context.Context, period time.Duration) {
	set := func(s string) { d.mu.Lock(); d.realHeap = s; d.mu.Unlock() }
	set("  dumping…\n")
	for {
		dctx, cancel := context.WithTimeout(ctx, time.Minute)
		b, err := hotspot.DumpHeap(dctx, d.jvm.Pid, false)
		cancel()
		var s strings.Builder
		if err == nil {
			var h *hprof.Heap
			if h, err = hprof.Parse(bytes.NewReader(b), hprof.Options{}); err == nil {
				hist := h.Histogram()
				var total int64
				for _, c := range hist {
					total += c.Bytes
				}
				fmt.Fprintf(&s, "  %d objects, %s at %s; biggest classes:", h.NumObjects(), mib(uint64(total)), time.Now().Format("15:04:05"))
				for _, c := range hist[:min(4, len(hist))] {
					fmt.Fprintf(&s, " %s %s,", c.Class, mib(uint64(c.Bytes)))
				}
				s.WriteString(" …\n")
			}
		}
		if err != nil {
			fmt.Fprintf(&s, "  no dump: %v\n", err)
		}
		set(s.String())
		select {
		case <-ctx.Done():
			return
		case <-time.After(period):
		}
	}
}

const clockTicks = 100 // USER_HZ: THST CPU times are in 1/100 s

// threads returns the VM's threads for a frame. While a debugger is
// attached they are asked for afresh, which marks the ones it holds
// suspended (THST carries no suspension; the monitor reads it over JDWP, as
// for the threads command); otherwise the last THST is enough.
func (d *demoView) threads(ctx context.Context, v *bridge.VM, debugger bool) []bridge.ThreadInfo {
	if debugger {
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if ts, err := v.Threads(tctx); err == nil {
			return ts
		}
	}
	return v.CachedThreads()
}

func (d *demoView) draw(ctx context.Context, v *bridge.VM) {
	var b strings.Builder
	info := v.Info()
	now := time.Now()
	if d.tty {
		b.WriteString("\x1b[H\x1b[2J")
	} else {
		fmt.Fprintf(&b, "--- %s ---\n", now.Format("15:04:05"))
	}
	fmt.Fprintf(&b, "%s  %s — a real HotSpot JVM (pid %d, JDWP at %s) behind a SIMULATED DDM layer on %s\n",
		d.bold("ddmbridge demo"), info.Name, info.PID, d.jvm.Addr, d.sim)
	fmt.Fprintf(&b, "  (the VM name %q, the DDM identity and the DDM heap are simulated; the threads are the JVM's own)\n", info.VM)
	dbg := "no debugger attached"
	if info.Debugger {
		dbg = "debugger attached from " + info.DebuggerFrom
	}
	fmt.Fprintf(&b, "Attach a debugger:  %s   (%s)\n\n", d.bold("jdb -attach "+d.current), dbg)

	threads := d.threads(ctx, v, info.Debugger)
	d.sample(threads, now)
	fmt.Fprintf(&b, "%s (%d, real: the JVM's threads, CPU times from /proc)\n", d.bold("THREADS"), len(threads))
	fmt.Fprintf(&b, "  %4s  %-24s %-11s %-9s %6s %9s\n", "ID", "NAME", "STATE", "SUSPENDED", "CPU", "CPU TIME")
	for _, t := range threads {
		cpu := d.pct[t.ID]
		if cpu == "" {
			cpu = "-"
		}
		sus := "no"
		if t.Suspended {
			sus = "yes" // held by the debugger: its state is where it stopped
		}
		ticks := t.UTime + t.STime // the simulator reads them from /proc for the JVM's threads
		fmt.Fprintf(&b, "  %4d  %-24s %-11s %-9s %6s %8.2fs\n", t.ID, trunc(t.Name, 24), d.state(t.State), sus, cpu, float64(ticks)/clockTicks)
	}
	b.WriteString("\n" + d.bold("REAL JVM HEAP") + " (HPROF dump through HotSpot's attach mechanism, no GC forced)\n")
	d.mu.Lock()
	b.WriteString(d.realHeap)
	d.mu.Unlock()
	b.WriteString("\n" + d.bold("SIMULATED DDM HEAP") + " (invented by ddm/simvm, not the JVM's heap)\n")
	if dc := v.DDM(); dc != nil {
		heaps := dc.Data().HeapInfo()
		ids := make([]uint32, 0, len(heaps))
		for id := range heaps {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		for _, id := range ids {
			h := heaps[id]
			fmt.Fprintf(&b, "  heap %d: %s used of %s (%d objects), max %s, at %s\n", id, mib(uint64(h.AllocatedBytes)),
				mib(uint64(h.SizeBytes)), h.AllocatedObjects, mib(uint64(h.MaxBytes)), time.UnixMilli(int64(h.TimestampMs)).Format("15:04:05"))
		}
		if hm := dc.Data().HeapMap(1, false); hm != nil {
			t := hm.Totals()
			fmt.Fprintf(&b, "  map: %s, %s free  [%s]\n", mib(t.Bytes), mib(t.Free.Bytes), d.strip(hm, 60))
			if d.tty {
				b.WriteString("       " + d.legend() + "\n")
			}
		} else {
			b.WriteString("  map: waiting for the first GC…\n")
		}
	}
	if d.tty {
		b.WriteString("\nCtrl-C to stop (the sample app is killed).\n")
	}
	io.WriteString(d.w, b.String())
	d.drawn = true
}

// sample works out the threads' CPU use when their times changed since the
// last draw, that is when a new thread sample arrived; with no change for
// longer than samples take, the threads are idle.
func (d *demoView) sample(threads []bridge.ThreadInfo, now time.Time) {
	changed := false
	for _, t := range threads {
		if p, ok := d.prev[t.ID]; !ok || p != t.UTime+t.STime {
			changed = true
		}
	}
	dt := now.Sub(d.sampleAt).Seconds()
	switch {
	case changed && !d.sampleAt.IsZero() && dt > 0:
		for _, t := range threads {
			ticks := t.UTime + t.STime
			if p, ok := d.prev[t.ID]; ok && ticks >= p {
				d.pct[t.ID] = fmt.Sprintf("%.0f%%", float64(ticks-p)/clockTicks/dt*100)
			}
		}
	case !changed && dt > 5:
		for _, t := range threads {
			d.pct[t.ID] = "0%"
		}
	}
	if changed || d.sampleAt.IsZero() {
		d.sampleAt = now
		clear(d.prev)
		for _, t := range threads {
			d.prev[t.ID] = t.UTime + t.STime
		}
	}
}

func (d *demoView) finish() {
	if d.drawn {
		fmt.Fprintln(d.w, "demo stopped; the sample app is being killed")
	}
}

func (d *demoView) bold(s string) string {
	if !d.tty {
		return s
	}
	return "\x1b[1m" + s + "\x1b[0m"
}

func (d *demoView) state(s string) string {
	if !d.tty {
		return fmt.Sprintf("%-11s", s)
	}
	colour := map[string]string{"running": "32", "monitor": "31", "wait": "33", "timed-wait": "36"}[s]
	if colour == "" {
		return fmt.Sprintf("%-11s", s)
	}
	return fmt.Sprintf("\x1b[%sm%-11s\x1b[0m", colour, s)
}

// Heap strip cells: one character (or coloured cell) per slice of the map,
// showing the kind that fills most of it, in the colours of the one heap-map
// model (ddm.BlockColor, ddm.LegendTable) every renderer shares.
var kindLetters = [8]byte{'o', 'c', '1', '2', '4', '8', '?', 'n'}

// cell is a terminal cell in colour c (24-bit ANSI background).
func cell(c color.RGBA) string {
	return fmt.Sprintf("\x1b[48;2;%d;%d;%dm \x1b[0m", c.R, c.G, c.B)
}

// blockCell is the cell of a hard-reachable block of kind k (8: free).
func blockCell(k int) string {
	if k == 8 {
		return cell(ddm.BlockColor(ddm.Block{Solidity: ddm.SolidFree}))
	}
	return cell(ddm.BlockColor(ddm.Block{Kind: ddm.Kind(k), Solidity: ddm.SolidHard}))
}

func (d *demoView) strip(hm *ddm.HeapMap, width int) string {
	var total uint64
	for _, p := range hm.Pieces {
		total += p.Units
	}
	if total == 0 {
		return ""
	}
	per := (total + uint64(width) - 1) / uint64(width)
	var cells []int // kind index, or -1 for free
	var acc [9]uint64
	var n uint64
	flush := func() {
		best, most := 8, uint64(0)
		for i, c := range acc {
			if c > most {
				best, most = i, c
			}
		}
		cells = append(cells, best)
		acc, n = [9]uint64{}, 0
	}
	for _, p := range hm.Pieces {
		for _, bl := range p.Blocks {
			for left := uint64(bl.Units); left > 0; {
				take := min(left, per-n)
				k := int(bl.Kind & 7)
				if bl.Free() {
					k = 8
				}
				acc[k] += take
				n += take
				left -= take
				if n == per {
					flush()
				}
			}
		}
	}
	if n > 0 {
		flush()
	}
	var b strings.Builder
	for _, k := range cells {
		switch {
		case d.tty:
			b.WriteString(blockCell(k))
		case k == 8:
			b.WriteByte('.')
		default:
			b.WriteByte(kindLetters[k])
		}
	}
	return b.String()
}

// legend is the one legend (ddm.LegendTable) but the gap, which the strip
// does not draw.
func (d *demoView) legend() string {
	var b strings.Builder
	for _, e := range ddm.LegendTable() {
		var c color.RGBA
		if _, err := fmt.Sscanf(e.Color, "#%02x%02x%02x", &c.R, &c.G, &c.B); err != nil || e.Key == "gap" {
			continue
		}
		fmt.Fprintf(&b, "%s %s  ", cell(c), e.Label)
	}
	return strings.TrimSpace(b.String())
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
