package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/bench"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmrun"
)

func init() {
	register(&command{
		name:     "bench",
		summary:  "run the JDWP client benchmark (bench jdwp), the DDM heap-map decoding benchmark (bench heap FILE), the heap dump memory benchmark (bench dump), the slow-link benchmark (bench link), the heap dump analysis benchmark (bench hprof) or the Kotlin source-map benchmark (bench kotlin)",
		synopsis: "ddmbridge bench jdwp|heap|dump|link|hprof|kotlin [flags]",
		run:      runBench,
	})
}

// benchCommand is one `bench` subcommand: a new benchmark adds a row.
type benchCommand struct {
	name, synopsis, summary string
	run                     func(ctx context.Context, fs *flag.FlagSet, args []string) error
}

var benchCommands = []benchCommand{
	{"jdwp", benchJDWPUsage, "the JDWP client workloads against a real VM (and their floors, and JDI with --jdi)", runBenchJDWP},
	{"heap", benchHeapUsage, "decode a DDM heap capture into the heap-map model (and ddmlib's parser with --ddmlib)", runBenchHeap},
	{"dump", benchDumpUsage, "the monitor's and the CLI's memory while dumping JVM heaps of given sizes", runBenchDump},
	{"link", benchLinkUsage, "sequential JDWP round trips and ms per user action over a link with a delay (--delay 20ms), direct, through the monitor and with jdb", runBenchLink},
	{"hprof", benchHprofUsage, "the histogram's and the dominator tree's time and memory on HotSpot dumps of given sizes", runBenchHprof},
	{"kotlin", benchKotlinUsage, "setBreakpoints→verified in a generated 2,000-class Kotlin jar (ms, JDWP commands) and the SMAP parse per class", runBenchKotlin},
}

// runBench dispatches to the bench subcommand args names; bench alone or
// with --help lists them.
func runBench(ctx context.Context, fs *flag.FlagSet, args []string) error {
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, "usage: ddmbridge bench SUBCOMMAND [flags]")
		fmt.Fprintln(w, "\nsubcommands ('ddmbridge bench SUBCOMMAND --help' for their flags):")
		for _, b := range benchCommands {
			fmt.Fprintf(w, "  %-5s %s\n", b.name, b.summary)
			for _, l := range strings.Split(b.synopsis, " | ") {
				fmt.Fprintf(w, "          %s\n", l)
			}
		}
	}
	if len(args) == 0 {
		return fmt.Errorf("%w: name a benchmark, e.g. ddmbridge bench jdwp --attach 127.0.0.1:5005 --workload objects", errUsage)
	}
	if isHelpFlag(args[0]) {
		fs.Usage()
		return flag.ErrHelp
	}
	for _, b := range benchCommands {
		if b.name == args[0] {
			return b.run(ctx, fs, args[1:])
		}
	}
	return fmt.Errorf("%w: unknown benchmark %q", errUsage, args[0])
}

const benchJDWPUsage = "ddmbridge bench jdwp [--attach HOST:PORT] [--workload NAME|all] [--runs N] [--jdi] [--timeout D]"

// runBenchJDWP runs the JDWP client workloads and prints one JSON line per run.
func runBenchJDWP(ctx context.Context, fs *flag.FlagSet, args []string) error {
	attach := fs.String("attach", "", "HOST:PORT of a VM running BenchTarget with a JDWP agent (server=y); empty starts the bundled sample VM")
	workload := fs.String("workload", "all", "workload: "+workloadNames()+", or all (each with its floor where it has one); also classesfloor, threaddumpfloor, localsfloor, objectsfloor (the VM's own floor for a workload) and roundtrip (client overhead per round trip against a raw socket)")
	runs := fs.Int("runs", 1, "runs of each workload")
	jdi := fs.Bool("jdi", false, "also run the JDI reference harness on the same debuggee, side by side (needs a JDK)")
	timeout := fs.Duration("timeout", 10*time.Minute, "bound on the whole benchmark")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: "+benchJDWPUsage)
		fmt.Fprintln(fs.Output(), "\nPrints one JSON line per run on stdout: {\"client\":...,\"workload\":...,\"items\":N,\"seconds\":S}")
		fs.PrintDefaults()
	}
	if err := parse(ctx, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	var selected []bench.Workload
	roundtrip := false
	if *workload == "all" {
		selected = bench.Workloads
	} else {
		for _, name := range strings.Split(*workload, ",") {
			if strings.TrimSpace(name) == "roundtrip" {
				roundtrip = true
				continue
			}
			w, err := bench.Lookup(strings.TrimSpace(name))
			if err != nil {
				return fmt.Errorf("%w: %v", errUsage, err)
			}
			selected = append(selected, w)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	log := component("bench")

	addr := *attach
	if addr == "" {
		log.Info().Msg("starting the bundled sample VM (BenchTarget)")
		vm, err := jvmrun.StartBenchTarget(ctx, jvmrun.Options{})
		if err != nil {
			return fmt.Errorf("start the bundled sample VM: %w", err)
		}
		defer vm.Close()
		addr = vm.Addr
		log.Info().Str("addr", addr).Msg("sample VM ready")
	}
	opts := jdwpOptions("jdwp")
	out := stdout(ctx)
	times := map[string][]float64{} // seconds of each run, by workload
	defer func() { logFloorMedians(log, selected, times) }()
	for _, w := range selected {
		// JDI runs the shared workloads only; extras have no JDI twin.
		withJDI := *jdi && slices.ContainsFunc(bench.Workloads, func(x bench.Workload) bool { return x.Name == w.Name })
		// A workload with a floor is compared with it: one untimed pass of the
		// floor first, so the VM's one-time costs (method ids made on the
		// first question about a class, frames first walked) are charged to
		// neither, instead of to whichever goes first.
		if name := bench.Floor(w.Name); name != "" {
			fw, _ := bench.Lookup(name)
			if _, err := bench.Run(ctx, addr, fw, opts); err != nil {
				return err
			}
			log.Debug().Str("workload", name).Msg("warm-up pass done (not printed)")
		}
		for i := 0; i < *runs; i++ {
			// Side by side, the clients take turns going first: a debuggee's
			// first pass over its frames can cost it more than later ones.
			jdiFirst := withJDI && i%2 == 1
			var jr bench.Result
			var err error
			if jdiFirst {
				if jr, err = runJDI(ctx, addr, w.Name); err != nil {
					return err
				}
			}
			// The VM's own floor for this workload, measured in the same run:
			// how far the client is from what the VM allows. The workload and
			// its floor take turns going first too; the workload's line is
			// printed first either way.
			floor, hasFloor := bench.Workload{}, false
			if name := bench.Floor(w.Name); name != "" {
				floor, _ = bench.Lookup(name)
				hasFloor = true
			}
			floorFirst := hasFloor && i%2 == 1
			var fr bench.Result
			if floorFirst {
				if fr, err = bench.Run(ctx, addr, floor, opts); err != nil {
					return err
				}
			}
			r, err := bench.Run(ctx, addr, w, opts)
			if err != nil {
				return err
			}
			if hasFloor && !floorFirst {
				if fr, err = bench.Run(ctx, addr, floor, opts); err != nil {
					return err
				}
			}
			if withJDI && !jdiFirst {
				if jr, err = runJDI(ctx, addr, w.Name); err != nil {
					return err
				}
			}
			fmt.Fprintln(out, r.JSON())
			times[w.Name] = append(times[w.Name], r.Seconds)
			if hasFloor {
				fmt.Fprintln(out, fr.JSON())
				times[floor.Name] = append(times[floor.Name], fr.Seconds)
				if fr.Seconds > 0 {
					log.Info().Str("workload", w.Name).Float64("floor_seconds", fr.Seconds).Float64("ratio", r.Seconds/fr.Seconds).Msg("ddmbridge time / the VM's floor")
				}
			}
			if !withJDI {
				continue
			}
			fmt.Fprintln(out, jr.JSON())
			if jr.Items != r.Items {
				log.Warn().Str("workload", w.Name).Int("ddmbridge", r.Items).Int("jdi", jr.Items).Msg("item counts differ")
			}
			if jr.Seconds > 0 {
				log.Info().Str("workload", w.Name).Bool("jdiFirst", jdiFirst).Float64("ratio", r.Seconds/jr.Seconds).Msg("ddmbridge time / JDI time")
			}
		}
	}
	if roundtrip {
		for i := 0; i < *runs; i++ {
			r, err := bench.RoundTrip(ctx, addr, 2000, opts)
			if err != nil {
				return err
			}
			fmt.Fprintln(out, r.JSON())
		}
	}
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.Canceled) {
		return ctx.Err()
	}
	return nil
}

// runJDI runs the JDI reference harness for one workload.
func runJDI(ctx context.Context, addr, workload string) (bench.Result, error) {
	jr, err := jvmrun.RunJDI(ctx, addr, workload)
	if err != nil {
		return bench.Result{}, fmt.Errorf("JDI harness: %w", err)
	}
	return bench.Result{Client: jr.Client, Workload: jr.Workload, Items: jr.Items, Seconds: jr.Seconds}, nil
}

func workloadNames() string {
	var names []string
	for _, w := range bench.Workloads {
		names = append(names, w.Name)
	}
	return strings.Join(names, ", ")
}

// jdwpOptions returns connection options with the logger and trace kinds for component.
func jdwpOptions(comp string) *jdwp.Options {
	var t jdwp.Trace
	for kind, bit := range map[string]jdwp.Trace{"jdwp.cmd": jdwp.TraceCmd, "jdwp.packet": jdwp.TracePacket, "jdwp.data": jdwp.TraceData, "jdwp.event": jdwp.TraceEvent} {
		if traced(kind) {
			t |= bit
		}
	}
	return &jdwp.Options{Logger: component(comp), Trace: t}
}

// logFloorMedians logs, for each workload run more than once with its floor,
// the median of its times, the median of its floor's and their ratio: on a
// noisy machine the figure to compare with the targets.
func logFloorMedians(log zerolog.Logger, selected []bench.Workload, times map[string][]float64) {
	for _, w := range selected {
		floor := bench.Floor(w.Name)
		ws, fs := times[w.Name], times[floor]
		if floor == "" || len(ws) < 2 || len(fs) < 2 {
			continue
		}
		mw, mf := median(ws), median(fs)
		if mf > 0 {
			log.Info().Str("workload", w.Name).Int("runs", len(ws)).Float64("median_seconds", mw).
				Float64("floor_median_seconds", mf).Float64("ratio", mw/mf).Msg("median ddmbridge time / median floor")
		}
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
