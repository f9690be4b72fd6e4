package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"text/tabwriter"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/hprof"
)

func init() {
	register(&command{name: "hprof", summary: "analyse an HPROF heap dump (histogram, dominators, diff, heap map)", run: runHprof})
}

const hprofUsage = "ddmbridge hprof FILE [--histo] [--top N] [--dominators] [--dups N] [--path ID] [--diff OTHER] [--png FILE] [--oops compressed|wide] [--json]"

func runHprof(ctx context.Context, fs *flag.FlagSet, args []string) error {
	histo := fs.Bool("histo", false, "print the class histogram (instances and shallow bytes per class)")
	asJSON := fs.Bool("json", false, "print JSON instead of tables")
	top := fs.Int("top", 0, "print the N biggest objects (by retained size with --dominators, else shallow)")
	doms := fs.Bool("dominators", false, "print the dominator tree's top level with retained sizes")
	dups := fs.Int("dups", 0, "print the N duplicate strings that waste most")
	path := fs.String("path", "", "print the path from a GC root to the object with this id (0x… or decimal)")
	diff := fs.String("diff", "", "compare with an older dump OTHER: per-class instance and byte deltas (this FILE is the newer)")
	pngFile := fs.String("png", "", "write the heap map drawn from object addresses (HotSpot dumps) as a PNG to this file")
	oopsFlag := fs.String("oops", "auto", "reference width of the dumped 64-bit HotSpot VM: compressed, wide (-XX:-UseCompressedOops) or auto (inferred from the dump)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: "+hprofUsage)
		fmt.Fprintln(fs.Output(), "\nWithout a view flag it prints a summary and the 20 biggest classes.")
		fs.PrintDefaults()
	}
	pos, err := parseWithOperands(ctx, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want %s", errUsage, hprofUsage)
	}
	// The heap model is a few pointer-free arrays: collecting often is cheap
	// and keeps the peak near the live data (about the dump's size).
	debug.SetGCPercent(20)
	oops, err := hprof.ParseOops(*oopsFlag)
	if err != nil {
		return fmt.Errorf("%w: --%v", errUsage, err)
	}
	dumpOops = oops
	h, f, err := openDump(pos[0], *dups > 0)
	if err != nil {
		return err
	}
	defer f.Close()
	out := stdout(ctx)
	result := map[string]any{}
	emit := func(key string, v any, table func(io.Writer)) {
		if *asJSON {
			result[key] = v
			return
		}
		table(out)
	}
	views := 0
	if *histo {
		views++
		hist := h.Histogram()
		if *asJSON && views == 1 && *diff == "" && *top == 0 && !*doms && *dups == 0 && *path == "" {
			return printJSON(out, orEmpty(hist)) // the documented form: just the array
		}
		emit("histogram", orEmpty(hist), func(w io.Writer) { printHisto(w, hist, 0) })
	}
	if *diff != "" {
		views++
		old, of, err := openDump(*diff, false)
		if err != nil {
			return err
		}
		of.Close()
		d := hprof.Diff(old.Histogram(), h.Histogram())
		emit("diff", orEmpty(d), func(w io.Writer) {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "Δ INSTANCES\tΔ BYTES\tINSTANCES\tBYTES\tCLASS\t")
			for _, c := range d {
				fmt.Fprintf(tw, "%+d\t%+d\t%d\t%d\t%s\t\n", c.Instances, c.Bytes, c.New.Instances, c.New.Bytes, c.Class)
			}
			tw.Flush()
		})
	}
	var dom *hprof.Dominators
	if *doms {
		views++
		dom = h.Dominators()
		n := *top
		if n == 0 {
			n = 30
		}
		kids := dom.Children(hprof.Root, n)
		emit("dominators", orEmpty(kids), func(w io.Writer) {
			fmt.Fprintln(w, "dominator tree, top level (retained bytes include everything the object alone keeps alive):")
			printObjects(w, kids, true)
		})
	}
	if *top > 0 && !*doms {
		views++
		objs := h.Biggest(*top)
		emit("biggest", orEmpty(objs), func(w io.Writer) { printObjects(w, objs, false) })
	}
	if *dups > 0 {
		views++
		ds, err := h.DuplicateStrings(f, *dups)
		if err != nil {
			return err
		}
		emit("duplicateStrings", orEmpty(ds), func(w io.Writer) {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "COPIES\tWASTED BYTES\tVALUE")
			for _, d := range ds {
				fmt.Fprintf(tw, "%d\t%d\t%q\n", d.Count, d.Wasted, d.Value)
			}
			tw.Flush()
		})
	}
	if *path != "" {
		views++
		id, err := strconv.ParseUint(*path, 0, 64)
		if err != nil {
			return fmt.Errorf("%w: --path %q is not an object id", errUsage, *path)
		}
		o := h.Lookup(id)
		if o < 0 {
			return fmt.Errorf("the dump has no object with id %#x", id)
		}
		p := h.PathFromRoot(o)
		emit("path", orEmpty(p), func(w io.Writer) {
			if p == nil {
				fmt.Fprintf(w, "object %#x is not reachable from a GC root\n", id)
				return
			}
			for k, s := range p {
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
				fmt.Fprintf(w, "%*s%s @%#x, %d bytes%s\n", 2*k, "", s.Class, s.ID, s.Size, root)
			}
		})
	}
	if *pngFile != "" {
		views++
		m := h.Map(hprof.MapOptions{})
		if err := writePicture(*pngFile, m, "heap map of "+filepath.Base(pos[0])+" (from object addresses)"); err != nil {
			return err
		}
		tot := m.Totals()
		emit("map", map[string]any{"file": *pngFile, "pieces": len(m.Pieces), "bytes": tot.Bytes, "freeBytes": tot.Free.Bytes}, func(w io.Writer) {
			fmt.Fprintf(w, "heap map written to %s: %s in %d pieces, %s free\n", *pngFile, mib(tot.Bytes), len(m.Pieces), mib(tot.Free.Bytes))
		})
	}
	if views == 0 {
		roots, _ := h.Roots()
		hist := h.Histogram()
		var total int64
		for _, c := range hist {
			total += c.Bytes
		}
		summary := map[string]any{"format": h.Format, "idSize": h.IDSize, "timestamp": h.Timestamp, "objects": h.NumObjects(),
			"classes": len(hist), "roots": len(roots), "bytes": total, "heaps": h.HeapNames, "oops": h.Oops.String(), "partial": h.Partial, "warnings": orEmpty(h.Warnings)}
		emit("summary", summary, func(w io.Writer) {
			fmt.Fprintf(w, "%s, %d-byte ids, taken %s\n", h.Format, h.IDSize, h.Timestamp.UTC().Format("2006-01-02 15:04:05 MST"))
			fmt.Fprintf(w, "%d objects of %d classes, %s shallow, %d GC roots, heaps %v\n", h.NumObjects(), len(hist), mib(uint64(total)), len(roots), h.HeapNames)
			if h.Oops != hprof.OopsAuto {
				fmt.Fprintf(w, "sizes with %s references\n", h.Oops)
			}
			if h.Partial {
				fmt.Fprintln(w, "PARTIAL: the dump is cut short; these figures cover its complete records")
			}
			fmt.Fprintln(w)
			printHisto(w, hist, 20)
		})
		if *asJSON {
			result["histogram"] = orEmpty(hist)
		}
	}
	if *asJSON {
		return printJSON(out, result)
	}
	return nil
}

// dumpOops is --oops, for openDump.
var dumpOops hprof.Oops

func openDump(name string, strings bool) (*hprof.Heap, *os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	h, err := hprof.Parse(f, hprof.Options{Strings: strings, Oops: dumpOops})
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	log := component("hprof")
	for _, w := range h.Warnings {
		log.Warn().Str("file", name).Msg(w)
	}
	return h, f, nil
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
