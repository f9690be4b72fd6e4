package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/access"
	"github.com/ddmbridge/ddmbridge/bridge/rpc"
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/internal/dumpfile"
)

// The control CLI: thin wrappers over the JSON-RPC API of a running `ddmbridge serve`.
func init() {
	register(&command{name: "vms", summary: "list the VMs a running monitor sees", synopsis: vmsUsage, run: runVMs})
	register(&command{name: "devices", summary: "list the adb devices a running monitor follows", synopsis: devicesUsage, run: runDevices})
	register(&command{name: "select", summary: "make a VM current (port 8700 leads to it), by id, name or address; --auto: the oldest again", synopsis: selectUsage, run: runSelect})
	register(&command{name: "threads", summary: "show a VM's threads", synopsis: threadsUsage, run: runThreads})
	register(&command{name: "heap", summary: "show a VM's heap summary and map (DDM, or from a heap dump: a local HotSpot VM through attach, a current Android app through am dumpheap)", synopsis: heapUsage, run: runHeap})
}

// The control commands' synopses (ID: a VM id, "current", a name or an address, as `vms` lists them).
const (
	vmsUsage     = "ddmbridge vms [--json] [--rpc ADDR]"
	devicesUsage = "ddmbridge devices [--json] [--rpc ADDR]"
	selectUsage  = "ddmbridge select ID|NAME|ADDRESS [--rpc ADDR]\nddmbridge select --auto [--rpc ADDR]"
	threadsUsage = "ddmbridge threads ID [--json] [--rpc ADDR]"
	heapUsage    = "ddmbridge heap ID [--json] [--png FILE] [--rpc ADDR]\nddmbridge heap ID --hprof FILE [--all] [--force] [--stream] [--json] [--rpc ADDR]"
)

// cliFlags are the flags of every control command.
type cliFlags struct {
	rpc     string
	json    bool
	args    []string // positional arguments
	timeout time.Duration
	// check, when set, vets the parsed flags before dial connects: a usage
	// error is reported as such, not as a monitor that cannot be reached.
	check func() error
}

func addCLIFlags(fs *flag.FlagSet, withJSON bool) *cliFlags {
	f := &cliFlags{}
	fs.StringVar(&f.rpc, "rpc", access.DefaultRPCAddr(), "control API address of the running 'ddmbridge serve': unix:PATH or tcp:HOST:PORT")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "bound on the request")
	if withJSON {
		fs.BoolVar(&f.json, "json", false, "print JSON instead of a table")
	}
	return f
}

// dial parses args and connects; nargs is the number of positional arguments
// (negative: the caller checks them).
func (f *cliFlags) dial(ctx context.Context, fs *flag.FlagSet, args []string, nargs int, usage string) (*rpc.Client, context.Context, context.CancelFunc, error) {
	// Flags may follow the positional arguments: ddmbridge threads 3 --json.
	pos, err := parseWithOperands(ctx, fs, args)
	if err != nil {
		return nil, nil, nil, err
	}
	if nargs >= 0 && len(pos) != nargs {
		return nil, nil, nil, fmt.Errorf("%w: want %s", errUsage, strings.ReplaceAll(usage, "\n", ", or "))
	}
	f.args = pos
	if f.check != nil {
		if err := f.check(); err != nil {
			return nil, nil, nil, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	c, err := rpc.DialRPC(ctx, f.rpc, nil)
	if err != nil {
		cancel()
		return nil, nil, nil, err
	}
	return c, ctx, func() { c.Close(); cancel() }, nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func runVMs(ctx context.Context, fs *flag.FlagSet, args []string) error {
	f := addCLIFlags(fs, true)
	c, ctx, done, err := f.dial(ctx, fs, args, 0, vmsUsage)
	if err != nil {
		return err
	}
	defer done()
	vms, err := c.VMs(ctx)
	if err != nil {
		return err
	}
	out := stdout(ctx)
	if f.json {
		if vms == nil {
			vms = []bridge.VMInfo{}
		}
		return printJSON(out, vms)
	}
	if len(vms) == 0 {
		fmt.Fprintln(out, "no VMs found (is the app started with -agentlib:jdwp=transport=dt_socket,server=y,address=127.0.0.1:8000?)")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\tID\tADDRESS\tPID\tNAME\tVM\tDDM\tSTATE\tDEBUG PORT")
	for _, v := range vms {
		cur := ""
		if v.Current {
			cur = "*"
		}
		state := "running"
		switch {
		case v.Debugger:
			state = "debugger attached"
		case v.Frozen != nil && *v.Frozen:
			state = "frozen (not debuggable now)"
		case v.Debuggable != nil && !*v.Debuggable:
			state = "not debuggable"
		case v.Waiting:
			state = "waiting for debugger"
		case v.Listed:
			state = "not monitored yet"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%v\t%s\t%d\n", cur, v.ID, v.Address, v.PID, v.Name, v.VM, v.DDM, state, v.DebugPort)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	current := false
	monitored := 0
	for _, v := range vms {
		current = current || v.Current
		if !v.Listed {
			monitored++
		}
	}
	if !current && monitored > 0 {
		// Automatic selection always has a current VM: the selected one is gone.
		fmt.Fprintln(out, "no VM is current: the selected VM is gone (it becomes current again when it comes back); `ddmbridge select ID` picks another, `ddmbridge select --auto` the oldest")
	}
	for _, v := range vms { // what the device refuses, in words
		if v.Note != "" && (v.Frozen != nil && *v.Frozen || v.Debuggable != nil && !*v.Debuggable) {
			fmt.Fprintf(out, "%s %s: %s\n", v.ID, v.Name, v.Note)
		}
	}
	return nil
}

func runDevices(ctx context.Context, fs *flag.FlagSet, args []string) error {
	f := addCLIFlags(fs, true)
	c, ctx, done, err := f.dial(ctx, fs, args, 0, devicesUsage)
	if err != nil {
		return err
	}
	defer done()
	devs, err := c.Devices(ctx)
	if err != nil {
		return err
	}
	out := stdout(ctx)
	if f.json {
		if devs == nil {
			devs = []bridge.DeviceInfo{}
		}
		return printJSON(out, devs)
	}
	if len(devs) == 0 {
		fmt.Fprintln(out, "no adb devices (is one connected? `adb devices`; or the monitor runs with --no-adb)")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERIAL\tSTATE\tMODEL\tPRODUCT")
	for _, d := range devs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Serial, d.State, d.Model, d.Product)
	}
	return tw.Flush()
}

func runSelect(ctx context.Context, fs *flag.FlagSet, args []string) error {
	f := addCLIFlags(fs, false)
	auto := fs.Bool("auto", false, "make the current VM automatic again (the oldest VM), undoing a selection")
	f.check = func() error {
		if *auto != (len(f.args) == 0) || len(f.args) > 1 {
			return fmt.Errorf("%w: want %s", errUsage, strings.ReplaceAll(selectUsage, "\n", ", or "))
		}
		return nil
	}
	c, ctx, done, err := f.dial(ctx, fs, args, -1, selectUsage)
	if err != nil {
		return err
	}
	defer done()
	if *auto {
		v, err := c.SelectAuto(ctx)
		switch {
		case err != nil:
			return err
		case v == nil:
			fmt.Fprintln(stdout(ctx), "current VM: automatic (none yet)")
		default:
			fmt.Fprintf(stdout(ctx), "current VM: automatic, now %s (%s, %s)\n", v.ID, v.Name, v.Address)
		}
		return nil
	}
	v, err := c.Select(ctx, f.args[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout(ctx), "current VM: %s (%s, %s)\n", v.ID, v.Name, v.Address)
	return nil
}

func runThreads(ctx context.Context, fs *flag.FlagSet, args []string) error {
	f := addCLIFlags(fs, true)
	c, ctx, done, err := f.dial(ctx, fs, args, 1, threadsUsage)
	if err != nil {
		return err
	}
	defer done()
	th, err := c.Threads(ctx, f.args[0])
	if err != nil {
		return err
	}
	out := stdout(ctx)
	if f.json {
		return printJSON(out, th)
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSTATE\tSUSPENDED\tTID\tUTIME (1/100 s)\tSTIME (1/100 s)")
	for _, t := range th.Threads {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%v\t%d\t%d\t%d\n", t.ID, t.Name, t.State, t.Suspended, t.TID, t.UTime, t.STime)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if th.Note != "" {
		fmt.Fprintln(out, th.Note)
	}
	return nil
}

func runHeap(ctx context.Context, fs *flag.FlagSet, args []string) error {
	f := addCLIFlags(fs, true)
	pngFile := fs.String("png", "", "also write the heap map as a PNG to this file")
	gc := fs.Bool("gc", true, "run a GC first so the map is fresh")
	hprof := fs.String("hprof", "", "instead of the summary, write an HPROF heap dump to this file (HotSpot VMs on this host through attach, DDM VMs through HPDS; raise --timeout for large heaps); read it with 'ddmbridge hprof FILE'")
	all := fs.Bool("all", false, "with --hprof: dump unreachable objects too (HotSpot; by default the VM runs a full GC and dumps live objects)")
	force := fs.Bool("force", false, "with --hprof: replace an existing FILE (never through a symlink); without it an existing FILE is refused")
	stream := fs.Bool("stream", false, "with --hprof: read the dump through the control API in chunks and write FILE here, instead of having the monitor write it (automatic when the monitor is on another host or cannot tell this user)")
	f.check = func() error {
		for name, set := range map[string]bool{"--all": *all, "--force": *force, "--stream": *stream} {
			if set && *hprof == "" {
				return fmt.Errorf("%w: %s applies to a heap dump: add --hprof FILE", errUsage, name)
			}
		}
		if *hprof != "" && *pngFile != "" {
			return fmt.Errorf("%w: --png and --hprof do not go together", errUsage)
		}
		return nil
	}
	c, ctx, done, err := f.dial(ctx, fs, args, 1, heapUsage)
	if err != nil {
		return err
	}
	defer done()
	id := f.args[0]
	if *hprof != "" {
		return dumpHeap(ctx, c, id, *hprof, rpc.DumpOptions{All: *all, Force: *force}, *stream, f.json)
	}
	info, err := c.HeapInfo(ctx, id)
	if err != nil {
		return err
	}
	hm, err := c.HeapMap(ctx, id, *gc, false)
	if err != nil {
		return err
	}
	if *pngFile != "" {
		// A picture for people: the map scaled, with its legend and totals.
		m := &ddm.HeapMap{HeapID: hm.HeapID, PerObject: hm.PerObject}
		for _, p := range hm.Pieces {
			blocks, err := p.RunBlocks()
			if err != nil {
				return fmt.Errorf("heap map: %w", err)
			}
			m.Pieces = append(m.Pieces, ddm.Piece{Start: p.Start, UnitSize: p.UnitSize, Units: p.Units, Blocks: blocks})
		}
		if err := writePicture(*pngFile, m, fmt.Sprintf("VM %s heap %d (DDMS-style heap map)", id, hm.HeapID)); err != nil {
			return err
		}
	}
	out := stdout(ctx)
	if f.json {
		return printJSON(out, struct {
			Info rpc.VMHeapInfo     `json:"info"`
			Map  bridge.HeapMapJSON `json:"map"`
		}{info, hm})
	}
	for _, h := range info.Heaps {
		maxb := mib(uint64(h.MaxBytes))
		if h.MaxBytes == 0 {
			maxb = "unknown" // a HotSpot VM's heap read from a dump
		}
		fmt.Fprintf(out, "VM %s, heap %d: %s of %s used (%d objects), footprint %s, max %s\n", info.ID, h.HeapID,
			mib(uint64(h.AllocatedBytes)), mib(uint64(h.SizeBytes)), h.AllocatedObjects, mib(uint64(h.SizeBytes)), maxb)
	}
	if info.Source == "dump" {
		// No heap reports from this VM (a local HotSpot VM, current Android):
		// say so, and when the dump the figures come from was taken.
		fmt.Fprintf(out, "from a heap dump taken %s: %s\n", dumpTime(info.DumpedAt), info.Note)
	}
	pieces := "pieces"
	if len(hm.Pieces) == 1 {
		pieces = "piece"
	}
	fmt.Fprintf(out, "map: %s in %d %s, %s free\n", mib(hm.Totals.Bytes), len(hm.Pieces), pieces, mib(hm.Totals.FreeBytes))
	kinds := make([]string, 0, len(hm.Totals.ByKind))
	for k := range hm.Totals.ByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(out, "  %-14s %s\n", k, mib(hm.Totals.ByKind[k]))
	}
	if *pngFile != "" {
		fmt.Fprintf(out, "heap map written to %s\n", *pngFile)
	}
	return nil
}

// dumpTime is an RFC 3339 dump time in this host's zone, "at an unknown
// time" if there is none.
func dumpTime(rfc3339 string) string {
	t, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		return "at an unknown time"
	}
	return "at " + t.Local().Format("2006-01-02 15:04:05 MST")
}

// dumpHeap has the monitor write a heap dump to file: the monitor writes
// it itself when this process is of its user on its host (the file is
// created new, 0600, never through a symlink), else the dump is streamed
// here in chunks and written the same way. Neither side holds the dump.
func dumpHeap(ctx context.Context, c *rpc.Client, id, file string, o rpc.DumpOptions, stream, asJSON bool) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(abs); err == nil && !o.Force {
		return fmt.Errorf("%s exists: heap dumps are written to a new file; pass --force to replace it", file)
	}
	var d rpc.HeapDump
	var re *rpc.RPCError
	if !stream {
		d, err = c.DumpHeapToPath(ctx, id, abs, o)
	}
	if stream || errors.As(err, &re) && re.Code == rpc.CodeNotAllowed {
		// Another host, or the monitor cannot tell this user: stream it.
		d, err = streamDump(ctx, c, id, abs, o)
	}
	if err != nil {
		return err
	}
	out := stdout(ctx)
	if asJSON {
		return printJSON(out, rpc.HeapDump{ID: d.ID, Path: file, Bytes: d.Bytes})
	}
	fmt.Fprintf(out, "heap dump (%s) written to %s\n", mib(uint64(d.Bytes)), file)
	return nil
}

// streamDump reads a dump in chunks into a new file at path.
func streamDump(ctx context.Context, c *rpc.Client, id, path string, o rpc.DumpOptions) (rpc.HeapDump, error) {
	f, err := dumpfile.Create(path, dumpfile.Options{Force: o.Force})
	if errors.Is(err, dumpfile.ErrExists) {
		return rpc.HeapDump{}, fmt.Errorf("%w; pass --force to replace it", err)
	}
	if err != nil {
		return rpc.HeapDump{}, err
	}
	defer f.Abort()
	n, err := c.StreamHeapDump(ctx, id, o.All, 0, f.File) // the monitor's chunk size, 1 MiB
	if err != nil {
		return rpc.HeapDump{}, err
	}
	if err := f.Commit(); err != nil {
		return rpc.HeapDump{}, err
	}
	return rpc.HeapDump{ID: id, Path: path, Bytes: int(n)}, nil
}

func mib(b uint64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return strings.TrimSpace(fmt.Sprintf("%d B", b))
}
