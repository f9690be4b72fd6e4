package rpc

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/hprof"
	"github.com/ddmbridge/ddmbridge/internal/hotspot"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// writeDump writes a small HotSpot-style dump (8-byte ids): a root Holder
// whose Object[] holds n Item instances, each with a long[] of 2 elements,
// and extra unreachable Extra instances.
func writeDump(t *testing.T, path string, n, extra int) {
	t.Helper()
	var buf bytes.Buffer
	w := hprof.NewWriter(&buf, 8, time.UnixMilli(1700000000000))
	for i, s := range []string{"java/lang/Object", "Holder", "Item", "[Ljava/lang/Object;", "Extra", "items", "data"} {
		w.String(uint64(100+i), s)
	}
	for i := range 5 {
		w.LoadClass(uint64(0x1000+16*i), uint64(100+i))
	}
	ref := func(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }
	w.ClassDump(0x1000, 0, 0, nil, nil)
	w.ClassDump(0x1010, 0x1000, 8, nil, []hprof.FieldDecl{{NameID: 105, Type: hprof.TypeObject}})
	w.ClassDump(0x1020, 0x1000, 8, nil, []hprof.FieldDecl{{NameID: 106, Type: hprof.TypeObject}})
	w.ClassDump(0x1030, 0x1000, 0, nil, nil)
	w.ClassDump(0x1040, 0x1000, 0, nil, nil)
	w.Root(hprof.RootJNIGlobal, 0x10000)
	w.Instance(0x10000, 0x1010, ref(0x10100))
	items := make([]uint64, n)
	for i := range items {
		items[i] = uint64(0x20000 + 0x100*i)
	}
	w.ObjectArray(0x10100, 0x1030, items)
	for _, id := range items {
		w.Instance(id, 0x1020, ref(id+0x40))
		w.PrimitiveArray(id+0x40, hprof.TypeLong, make([]byte, 16))
	}
	for i := range extra {
		w.Instance(uint64(0x900000+0x20*i), 0x1040, nil)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hprofRPC serves the control API (with a monitor that finds no VM) and
// returns a client.
func hprofRPC(t *testing.T) *Client {
	t.Helper()
	lo := freePorts(t, 1)
	m := startMonitor(t, testOptions(t, lo, 1))
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c, err := DialRPC(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func statNamed(s []hprof.ClassStat, name string) hprof.ClassStat {
	for _, c := range s {
		if c.Class == name {
			return c
		}
	}
	return hprof.ClassStat{Class: name}
}

// TestHprofRPCGenerated checks every hprof/* method on generated dumps whose
// contents are known, the diff of two of them, the cache and the errors.
func TestHprofRPCGenerated(t *testing.T) {
	c := hprofRPC(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.hprof"), filepath.Join(dir, "b.hprof")
	writeDump(t, a, 10, 0)
	writeDump(t, b, 25, 3)

	var sum HprofSummary
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": b}, &sum); err != nil {
		t.Fatal(err)
	}
	// Shallow sizes: Item 12+4 → 16, long[2] 16+16 → 32, Extra 12 → 16,
	// Object[25] 16+100 → 120, Holder 16.
	for name, want := range map[string][2]int64{"Item": {25, 25 * 16}, "long[]": {25, 25 * 32}, "Extra": {3, 3 * 16}, "java.lang.Object[]": {1, 120}, "Holder": {1, 16}} {
		if got := statNamed(sum.Classes, name); got.Instances != want[0] || got.Bytes != want[1] {
			t.Errorf("summary %s: %d instances, %d bytes; want %v", name, got.Instances, got.Bytes, want)
		}
	}
	if sum.Objects != 5+25+25+3+2 || sum.Totals.Instances != int64(sum.Objects) || sum.Format != "JAVA PROFILE 1.0.2" || sum.IDSize != 8 {
		t.Errorf("summary: %d objects, totals %+v, %s, %d-byte ids", sum.Objects, sum.Totals, sum.Format, sum.IDSize)
	}

	// The dominator tree: Holder retains everything reachable.
	var top HprofDominators
	if err := c.Call(ctx, "hprof/dominators", map[string]any{"path": b}, &top); err != nil {
		t.Fatal(err)
	}
	reachable := uint64(16 + 120 + 25*(16+32))
	// Class objects are roots too (retaining only themselves here).
	var sumTop uint64
	for _, o := range top.Children {
		sumTop += o.Retained
	}
	if len(top.Children) != 6 || top.Children[0].Class != "Holder" || top.Children[0].Retained != reachable || top.Total != sumTop || top.Reachable != 5+2+50 {
		t.Fatalf("top of the dominator tree: %+v", top)
	}
	var arr HprofDominators
	if err := c.Call(ctx, "hprof/dominators", map[string]any{"path": b, "object": 0x10000}, &arr); err != nil {
		t.Fatal(err)
	}
	if arr.Object == nil || arr.Object.ID != 0x10000 || len(arr.Children) != 1 || arr.Children[0].Class != "java.lang.Object[]" || arr.Children[0].Children != 25 {
		t.Fatalf("under Holder: %+v", arr)
	}
	var items HprofDominators
	if err := c.Call(ctx, "hprof/dominators", map[string]any{"path": b, "object": 0x10100, "limit": 10}, &items); err != nil {
		t.Fatal(err)
	}
	if len(items.Children) != 10 || items.More != 15 || items.Children[0].Retained != 48 || items.Children[0].Children != 1 {
		t.Errorf("under the array (limit 10): %d children, %d more, first %+v", len(items.Children), items.More, items.Children)
	}

	// The heap map: the objects at their addresses, free space between.
	var hm HeapMapJSON
	if err := c.Call(ctx, "hprof/heapMap", map[string]any{"path": b, "png": true}, &hm); err != nil {
		t.Fatal(err)
	}
	var units uint64
	for _, p := range hm.Pieces {
		blocks, err := p.RunBlocks()
		if err != nil {
			t.Fatal(err)
		}
		var u uint64
		for _, bl := range blocks {
			u += uint64(bl.Units)
		}
		if u != p.Units {
			t.Errorf("piece at 0x%x: runs cover %d units, piece says %d", p.Start, u, p.Units)
		}
		units += u * uint64(p.UnitSize)
	}
	if units != hm.Totals.Bytes || hm.Totals.ByKind["class"] == 0 || hm.Totals.ByKind["8-byte array"] < 25*32 || hm.Totals.FreeBytes == 0 {
		t.Errorf("heap map: %d bytes in runs, totals %+v", units, hm.Totals)
	}
	if img, err := base64.StdEncoding.DecodeString(hm.PNG); err != nil {
		t.Error(err)
	} else if _, err := png.Decode(bytes.NewReader(img)); err != nil {
		t.Errorf("heap map PNG: %v", err)
	}

	// The diff against the earlier dump.
	var d HprofDiff
	if err := c.Call(ctx, "hprof/diff", map[string]any{"path": b, "base": a}, &d); err != nil {
		t.Fatal(err)
	}
	got := map[string]HprofClassDelta{}
	for _, x := range d.Classes {
		got[x.Class] = x
	}
	if x := got["Item"]; x.Instances != 15 || x.Bytes != 15*16 || x.OldInstances != 10 || x.NewInstances != 25 {
		t.Errorf("diff Item: %+v", x)
	}
	if x := got["Extra"]; x.Instances != 3 || x.OldInstances != 0 {
		t.Errorf("diff Extra: %+v", x)
	}
	if _, ok := got["Holder"]; ok {
		t.Errorf("diff lists Holder, which did not change: %+v", d.Classes)
	}
	if d.Totals.New.Instances-d.Totals.Old.Instances != 15+15+3+0 {
		t.Errorf("diff totals: %+v", d.Totals)
	}

	// The cache: b is parsed once (the diff streamed a, which nothing had
	// parsed, and kept nothing of it); a third file evicts the least
	// recently used; a rewritten file is parsed again.
	cached := func() []string {
		hprofDumps.mu.Lock()
		defer hprofDumps.mu.Unlock()
		var out []string
		for _, e := range hprofDumps.dumps {
			if strings.HasPrefix(e.key.path, dir) {
				out = append(out, filepath.Base(e.key.path))
			}
		}
		return out
	}
	if got := cached(); len(got) != 1 || got[0] != "b.hprof" {
		t.Errorf("cached after the diff: %v, want [b.hprof]", got)
	}
	before, _ := hprofDumps.get(ctx, b)
	again, _ := hprofDumps.get(ctx, b)
	if before != again {
		t.Error("b.hprof parsed twice")
	}
	third := filepath.Join(dir, "c.hprof")
	writeDump(t, third, 1, 0)
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": third}, &sum); err != nil {
		t.Fatal(err)
	}
	if got := cached(); len(got) != 2 || got[0] != "c.hprof" || got[1] != "b.hprof" {
		t.Errorf("cached after c.hprof: %v, want [c.hprof b.hprof]", got)
	}
	writeDump(t, b, 7, 0)
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": b}, &sum); err != nil {
		t.Fatal(err)
	}
	if n := statNamed(sum.Classes, "Item").Instances; n != 7 {
		t.Errorf("rewritten b.hprof: %d Items, want 7", n)
	}
	// A memory budget that holds one dump: opening another evicts the
	// first, and it is parsed again when asked for.
	fi, err := os.Stat(third)
	if err != nil {
		t.Fatal(err)
	}
	hprofCacheBudget = hprof.MemoryNeeded(fi.Size(), true) * 3 / 2
	defer func() { hprofCacheBudget = 0 }()
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": third}, &sum); err != nil {
		t.Fatal(err)
	}
	if got := cached(); len(got) != 1 || got[0] != "c.hprof" {
		t.Errorf("cached under a budget of one dump: %v, want [c.hprof]", got)
	}
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": b}, &sum); err != nil {
		t.Fatal(err)
	}
	if got := cached(); len(got) != 1 || got[0] != "b.hprof" || statNamed(sum.Classes, "Item").Instances != 7 {
		t.Errorf("cached under a budget of one dump after b.hprof: %v (%d Items)", got, statNamed(sum.Classes, "Item").Instances)
	}
	hprofCacheBudget = 0

	// Bad input: clear errors, the server stays up.
	garbage := filepath.Join(dir, "garbage.hprof")
	os.WriteFile(garbage, []byte("JAVA PROFILE 9\x00nonsense"), 0o644)
	for _, tc := range []struct {
		method string
		params map[string]any
		want   string
	}{
		{"hprof/summary", map[string]any{"path": "rel.hprof"}, "not absolute"},
		{"hprof/summary", map[string]any{}, "need \"path\""},
		{"hprof/summary", map[string]any{"path": filepath.Join(dir, "missing.hprof")}, "no such file"},
		{"hprof/summary", map[string]any{"path": garbage}, "garbage.hprof"},
		{"hprof/summary", map[string]any{"path": dir}, "not a regular file"},
		{"hprof/dominators", map[string]any{"path": b, "object": 12345}, "no object 0x3039"},
		{"hprof/dominators", map[string]any{"path": b, "limit": -1}, "limit"},
		{"hprof/diff", map[string]any{"path": b}, "base"},
		{"hprof/heapMap", map[string]any{"path": b, "width": 99999}, "width"},
		{"hprof/paths", map[string]any{"path": b}, "\"class\""},
		{"hprof/paths", map[string]any{"path": b, "class": "NoSuch"}, "no class \"NoSuch\""},
		{"hprof/incoming", map[string]any{"path": b}, "\"object\""},
		{"hprof/incoming", map[string]any{"path": b, "object": 0x10000, "offset": -1}, "offset"},
		{"hprof/instances", map[string]any{"path": b}, "\"class\""},
	} {
		err := c.Call(ctx, tc.method, tc.params, nil)
		if err == nil || rpcCode(err) != CodeInvalidParams || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %v (code %d), want invalid params saying %q", tc.method, tc.params, err, rpcCode(err), tc.want)
		}
	}
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": a}, &sum); err != nil {
		t.Errorf("after the errors: %v", err)
	}
}

// TestHprofRPCWhyAlive: the paths to a class's instances, an object's
// incoming references, a page of instances and the histogram's retained
// column on a generated dump whose graph is known (Holder → Object[] →
// 25 Items, each with a long[]).
func TestHprofRPCWhyAlive(t *testing.T) {
	c := hprofRPC(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	b := filepath.Join(t.TempDir(), "b.hprof")
	writeDump(t, b, 25, 3)

	var paths HprofPaths
	if err := c.Call(ctx, "hprof/paths", map[string]any{"path": b, "class": "Item", "limit": 10}, &paths); err != nil {
		t.Fatal(err)
	}
	if paths.Objects != 25 || paths.Reached != 25 || len(paths.Roots) != 1 || paths.Roots[0].ID != 0x10000 || paths.Roots[0].Root != "JNI global" {
		t.Fatalf("paths to Item: %+v", paths)
	}
	arr := paths.Roots[0].Children[0]
	if arr.ID != 0x10100 || arr.Targets != 25 || len(arr.Children)+arr.More != 25 || len(arr.Children) > 10 || !arr.Children[0].Target {
		t.Errorf("paths to Item: the array %+v, want 25 Items below it, at most 10 shown", arr)
	}
	var one HprofPaths
	if err := c.Call(ctx, "hprof/paths", map[string]any{"path": b, "object": 0x20140}, &one); err != nil {
		t.Fatal(err)
	}
	if one.Objects != 1 || one.Target != "long[] 0x20140" || one.Roots[0].Children[0].Children[0].Children[0].ID != 0x20140 {
		t.Errorf("paths to one long[]: %+v", one)
	}
	// Each step names the field or element that holds it (read back from
	// the file): Holder.items → Object[], its [1] → Item, Item.data → long[].
	var fields []string
	for n := one.Roots[0]; ; n = n.Children[0] {
		fields = append(fields, n.Field)
		if len(n.Children) == 0 {
			break
		}
	}
	if strings.Join(fields, " ") != " items [1] data" {
		t.Errorf("paths to one long[]: fields %q, want \"\", items, [1], data", fields)
	}

	var in HprofIncoming
	if err := c.Call(ctx, "hprof/incoming", map[string]any{"path": b, "object": 0x20100}, &in); err != nil {
		t.Fatal(err)
	}
	if in.Total != 1 || len(in.Referrers) != 1 || in.Referrers[0].ID != 0x10100 || in.Object.ID != 0x20100 || in.Referrers[0].Field != "[1]" {
		t.Errorf("incoming of an Item: %+v, want the Object[], by its element [1]", in)
	}

	var inst HprofInstances
	if err := c.Call(ctx, "hprof/instances", map[string]any{"path": b, "class": "Item", "offset": 20, "limit": 10}, &inst); err != nil {
		t.Fatal(err)
	}
	if inst.Total != 25 || len(inst.Objects) != 5 || inst.Objects[0].Retained != 16+32 {
		t.Errorf("instances of Item from the 20th: %+v, want 5, each retaining itself and its long[] (48 bytes)", inst)
	}

	var ret HprofRetained
	if err := c.Call(ctx, "hprof/retained", map[string]any{"path": b}, &ret); err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, r := range ret.Classes {
		got[r.Class] = r.Retained
	}
	// Holder retains everything reachable: 16 + 120 + 25·(16+32).
	if got["Holder"] != 16+120+25*48 || got["Item"] != 25*48 || got["long[]"] != 25*32 || got["Extra"] != 0 {
		t.Errorf("retained by class: %v", got)
	}
}

// TestHprofRPCHotSpot dumps a real HotSpot VM through its attach mechanism
// and reads the dump through the hprof/* methods: BenchTarget's graph (a
// Node[] of nodes, each with a label and an int[]) must show in the
// histogram, and each node its label and data in the dominator tree.
func TestHprofRPCHotSpot(t *testing.T) {
	const nodes = 5000
	vm := jvmtest.StartBenchTargetT(t, jvmtest.Options{VMArgs: []string{"-Dobjects=" + strconv.Itoa(nodes), "-Dthreads=2", "-Xmx128m"}})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	dump, err := hotspot.DumpHeap(ctx, vm.Pid, true)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bench.hprof")
	if err := os.WriteFile(path, dump, 0o644); err != nil {
		t.Fatal(err)
	}
	c := hprofRPC(t)

	var sum HprofSummary
	start := time.Now()
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": path}, &sum); err != nil {
		t.Fatal(err)
	}
	parsed := time.Since(start)
	node := statNamed(sum.Classes, "BenchTarget$Node")
	if node.Instances != nodes || statNamed(sum.Classes, "BenchTarget$Node[]").Instances != 1 || statNamed(sum.Classes, "java.lang.String").Instances < nodes {
		t.Errorf("summary: %d nodes, want %d; %d classes", node.Instances, nodes, len(sum.Classes))
	}
	var n int64
	for k, cl := range sum.Classes {
		n += cl.Instances
		if k > 0 && cl.Bytes > sum.Classes[k-1].Bytes {
			t.Errorf("histogram not sorted by bytes at %s", cl.Class)
		}
	}
	if n != sum.Totals.Instances || n != int64(sum.Objects) {
		t.Errorf("histogram counts %d objects, totals %d, objects %d", n, sum.Totals.Instances, sum.Objects)
	}
	if sum.Oops != "compressed" || sum.Partial || sum.Warnings == nil || len(sum.Warnings) != 0 {
		t.Errorf("summary facts: oops %q, partial %v, warnings %q", sum.Oops, sum.Partial, sum.Warnings)
	}
	// The same dump cut short: a partial summary with a warning saying where.
	cut := filepath.Join(t.TempDir(), "cut.hprof")
	if err := os.WriteFile(cut, dump[:len(dump)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	var part HprofSummary
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": cut}, &part); err != nil {
		t.Fatal(err)
	}
	if !part.Partial || len(part.Warnings) == 0 || !strings.Contains(part.Warnings[0], "partial") || part.Objects == 0 || part.Objects >= sum.Objects {
		t.Errorf("summary of the cut dump: partial %v, %d of %d objects, warnings %q", part.Partial, part.Objects, sum.Objects, part.Warnings)
	}

	// The top of the tree: biggest first; the reachable heap is what it retains.
	var top HprofDominators
	start = time.Now()
	if err := c.Call(ctx, "hprof/dominators", map[string]any{"path": path, "limit": 10000}, &top); err != nil {
		t.Fatal(err)
	}
	dominated := time.Since(start)
	start = time.Now()
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": path}, &sum); err != nil {
		t.Fatal(err)
	}
	cached := time.Since(start)
	var sumTop uint64
	for k, o := range top.Children {
		sumTop += o.Retained
		if o.Retained < uint64(o.Size) || k > 0 && o.Retained > top.Children[k-1].Retained {
			t.Errorf("top level: %+v after %+v", o, top.Children[max(k-1, 0)])
		}
	}
	if top.More == 0 && sumTop != top.Total || top.Total > uint64(sum.Totals.Bytes) || top.Reachable > sum.Objects {
		t.Errorf("top level: retained %d of %d, total %d, %d reachable of %d", sumTop, top.Total, sum.Totals.Bytes, top.Reachable, sum.Objects)
	}

	// Drill down: the biggest retainer is its own size plus its children's
	// retained sizes. A node is reachable both from the Node[] and along the
	// chain of next fields from main's last node, so it hangs off the root
	// and dominates exactly its label (which dominates its byte[]) and its
	// int[].
	checkNode := func(id uint64) HprofDominators {
		t.Helper()
		var d HprofDominators
		if err := c.Call(ctx, "hprof/dominators", map[string]any{"path": path, "object": id, "limit": 10000}, &d); err != nil {
			t.Fatal(err)
		}
		if d.Object == nil || d.Object.ID != id {
			t.Fatalf("drill into 0x%x: %+v", id, d.Object)
		}
		own := uint64(d.Object.Size)
		for k, o := range d.Children {
			own += o.Retained
			if k > 0 && o.Retained > d.Children[k-1].Retained {
				t.Errorf("children of 0x%x not sorted: %+v", id, d.Children)
			}
		}
		if d.More == 0 && own != d.Object.Retained || d.Object.Children != len(d.Children)+d.More {
			t.Errorf("0x%x retains %d, own + children %d; %d children, %d listed, %d more", id, d.Object.Retained, own, d.Object.Children, len(d.Children), d.More)
		}
		return d
	}
	checkNode(top.Children[0].ID)
	h, err := hprof.Parse(bytes.NewReader(dump), hprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var aNode uint64
	for i := range int32(h.NumObjects()) {
		if h.ClassName(i) == "BenchTarget$Node" {
			aNode = h.ID(i)
		}
	}
	nd := checkNode(aNode)
	kinds := map[string]int{}
	for _, o := range nd.Children {
		kinds[o.Class] = o.Children
	}
	if len(nd.Children) != 2 || kinds["java.lang.String"] != 1 || kinds["int[]"] != 0 || nd.Object.Class != "BenchTarget$Node" {
		t.Errorf("a node dominates %+v, want its label and its int[]", nd.Children)
	}
	var label HprofDominators
	for _, o := range nd.Children {
		if o.Class == "java.lang.String" {
			label = checkNode(o.ID)
		}
	}
	if len(label.Children) != 1 || label.Children[0].Class != "byte[]" {
		t.Errorf("a node's label dominates %+v, want its byte[]", label.Children)
	}

	// The heap map of a HotSpot dump covers the objects at their addresses.
	var hm HeapMapJSON
	if err := c.Call(ctx, "hprof/heapMap", map[string]any{"path": path}, &hm); err != nil {
		t.Fatal(err)
	}
	if alloc := hm.Totals.Bytes - hm.Totals.FreeBytes; alloc < uint64(sum.Totals.Bytes) || len(hm.Pieces) == 0 || hm.Totals.ByKind["class"] == 0 {
		t.Errorf("heap map: %d bytes allocated for %d bytes of objects, %d pieces, %v", alloc, sum.Totals.Bytes, len(hm.Pieces), hm.Totals.ByKind)
	}

	// A dump diffed against itself changes nothing.
	var d HprofDiff
	if err := c.Call(ctx, "hprof/diff", map[string]any{"path": path, "base": path}, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Classes) != 0 || d.Totals.Old != d.Totals.New {
		t.Errorf("self diff: %d classes, totals %+v", len(d.Classes), d.Totals)
	}
	t.Logf("dump %d bytes, %d objects, %d classes; a node retains %d bytes", len(dump), sum.Objects, len(sum.Classes), nd.Object.Retained)
	t.Logf("hprof/summary %v (parse + histogram + JSON), hprof/dominators %v (tree + top level), summary again from the cache %v", parsed, dominated, cached)
}

// TestHprofRPCStreamProgressCancel: hprof/summary with "stream" answers
// the histogram of one pass (the model's, marked streamed) with
// hprof/progress notifications up to the file's size; hprof/cancel stops
// a streamed pass and a parse in progress (each held at its first read
// until then), and the request fails saying so.
func TestHprofRPCStreamProgressCancel(t *testing.T) {
	lo := freePorts(t, 1)
	m := startMonitor(t, testOptions(t, lo, 1))
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c, progress := dialHprofProgress(ctx, t, addr)
	dir := t.TempDir()
	b := filepath.Join(dir, "b.hprof")
	writeDump(t, b, 25, 3)
	fi, err := os.Stat(b)
	if err != nil {
		t.Fatal(err)
	}
	var streamed, parsed HprofSummary
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": b, "stream": true}, &streamed); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": b}, &parsed); err != nil {
		t.Fatal(err)
	}
	if !streamed.Streamed || parsed.Streamed || !reflect.DeepEqual(streamed.Classes, parsed.Classes) || streamed.Objects != parsed.Objects ||
		streamed.Totals != parsed.Totals || streamed.Roots < parsed.Roots || streamed.Oops != parsed.Oops {
		t.Errorf("streamed summary %+v\nparsed %+v", streamed, parsed)
	}
	for p := range progress {
		if p.Path != b || p.Phase != "histogram" || p.Size != fi.Size() || p.Read > p.Size {
			t.Fatalf("progress %+v", p)
		}
		if p.Read == p.Size {
			break
		}
	}

	// Held at the first read until cancelled.
	defer hprofReadHook.Store(nil)
	big := filepath.Join(dir, "big.hprof")
	writeDump(t, big, 200, 0)
	for _, params := range []map[string]any{{"path": big, "stream": true}, {"path": big}} {
		var once sync.Once
		hold := make(chan struct{})
		hook := func(string) { once.Do(func() { <-hold }) }
		hprofReadHook.Store(&hook)
		done := make(chan error, 1)
		go func() {
			var s HprofSummary
			done <- c.Call(ctx, "hprof/summary", params, &s)
		}()
		for {
			var r struct {
				Stopped int `json:"stopped"`
			}
			if err := c.Call(ctx, "hprof/cancel", map[string]any{"path": big}, &r); err != nil {
				t.Fatal(err)
			}
			if r.Stopped > 0 {
				break
			}
			time.Sleep(10 * time.Millisecond) // the request not started yet: ask again
		}
		close(hold)
		if err := <-done; err == nil || !strings.Contains(err.Error(), "context canceled") {
			t.Errorf("%v after hprof/cancel: %v, want the pass stopped", params, err)
		}
	}
	// A parse stopped is not kept: asked again, the dump parses.
	hprofReadHook.Store(nil)
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": big}, &parsed); err != nil || parsed.Objects == 0 {
		t.Errorf("after a cancelled parse: %v, %+v", err, parsed)
	}
}

// heldCtx holds the dominator tree's computation at its first look at its
// context until the context is cancelled, telling held when it is there.
type heldCtx struct {
	context.Context
	once sync.Once
	held chan struct{}
}

func (c *heldCtx) Err() error {
	c.once.Do(func() {
		close(c.held)
		<-c.Done()
	})
	return c.Context.Err()
}

// TestHprofRPCDominatorsCancel stops a dominator tree's computation with
// hprof/cancel while the request waits for it (after its "dominators"
// progress): the request fails with context canceled, the tree is not
// kept, and the next request computes it again, the same as the package's.
func TestHprofRPCDominatorsCancel(t *testing.T) {
	lo := freePorts(t, 1)
	m := startMonitor(t, testOptions(t, lo, 1))
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c, progress := dialHprofProgress(ctx, t, addr)
	path := filepath.Join(t.TempDir(), "d.hprof")
	writeDump(t, path, 200, 3)
	var s HprofSummary
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": path}, &s); err != nil {
		t.Fatal(err)
	}

	// The first computation is held at its first look at its context.
	held := &heldCtx{held: make(chan struct{})}
	var first sync.Once
	hook := func(what string, c context.Context) context.Context {
		out := c
		if what == "the dominator tree" {
			first.Do(func() { held.Context = c; out = held })
		}
		return out
	}
	hprofJobHook.Store(&hook)
	defer hprofJobHook.Store(nil)
	done := make(chan error, 1)
	go func() {
		var d HprofDominators
		done <- c.Call(ctx, "hprof/dominators", map[string]any{"path": path, "limit": 10}, &d)
	}()
	for p := range progress {
		if p.Phase == "dominators" {
			if p.Path != path {
				t.Fatalf("progress %+v", p)
			}
			break
		}
	}
	select {
	case <-held.held:
	case <-ctx.Done():
		t.Fatal("the dominator tree's computation never looked at its context")
	}
	var r struct {
		Stopped int `json:"stopped"`
	}
	if err := c.Call(ctx, "hprof/cancel", map[string]any{"path": path}, &r); err != nil || r.Stopped != 1 {
		t.Fatalf("hprof/cancel: %v, stopped %d, want 1 (the tree)", err, r.Stopped)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("hprof/dominators after hprof/cancel: %v, want the tree stopped", err)
	}

	// Not kept: asked again, the tree is computed, the package's own.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := hprof.Parse(bytes.NewReader(data), hprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := h.Dominators().Tree()
	var got HprofDominators
	if err := c.Call(ctx, "hprof/dominators", map[string]any{"path": path, "limit": 10}, &got); err != nil {
		t.Fatal(err)
	}
	same := func(got, want any) bool { // as sent: the JSON
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		return bytes.Equal(g, w)
	}
	if w := want.Level(path, hprof.Root, 10); !same(got, w) || got.Reachable == 0 {
		t.Errorf("the tree after a cancelled one:\n%+v\nwant\n%+v", got, w)
	}
	var ret HprofRetained
	if err := c.Call(ctx, "hprof/retained", map[string]any{"path": path}, &ret); err != nil || !same(ret, want.ClassRetained(path)) {
		t.Errorf("hprof/retained after a cancelled tree: %v, %+v", err, ret)
	}
	if err := c.Call(ctx, "hprof/cancel", map[string]any{"path": path}, &r); err != nil || r.Stopped != 0 {
		t.Errorf("hprof/cancel with nothing running: %v, stopped %d", err, r.Stopped)
	}

	// A dump evicted from the cache while its tree is computed (another
	// dump opened, the two not fitting the budget) is still in reach.
	evicted := filepath.Join(t.TempDir(), "e.hprof")
	writeDump(t, evicted, 50, 0)
	other := filepath.Join(t.TempDir(), "o.hprof")
	writeDump(t, other, 60, 0)
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": evicted}, &s); err != nil {
		t.Fatal(err)
	}
	held = &heldCtx{held: make(chan struct{})}
	first = sync.Once{}
	go func() {
		var d HprofDominators
		done <- c.Call(ctx, "hprof/dominators", map[string]any{"path": evicted}, &d)
	}()
	select {
	case <-held.held:
	case <-ctx.Done():
		t.Fatal("the evicted dump's tree never looked at its context")
	}
	hprofCacheBudget = 1 // any second dump evicts the others
	defer func() { hprofCacheBudget = 0 }()
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": other}, &s); err != nil {
		t.Fatal(err)
	}
	if hprofDumps.parsed(evicted) != nil {
		t.Fatal("opening another dump did not evict the first")
	}
	if err := c.Call(ctx, "hprof/cancel", map[string]any{"path": evicted}, &r); err != nil || r.Stopped != 1 {
		t.Fatalf("hprof/cancel of an evicted dump's tree: %v, stopped %d, want 1", err, r.Stopped)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("hprof/dominators of the evicted dump after hprof/cancel: %v, want the tree stopped", err)
	}
}

// TestHprofRPCRetainedCancel stops the classes' retained sizes (computed
// after the tree, for the histogram's retained column) with hprof/cancel
// while hprof/retained waits for them: the request fails with context
// canceled, the tree stays, and the next request computes them, the
// package's own.
func TestHprofRPCRetainedCancel(t *testing.T) {
	lo := freePorts(t, 1)
	m := startMonitor(t, testOptions(t, lo, 1))
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c, _ := dialHprofProgress(ctx, t, addr)
	path := filepath.Join(t.TempDir(), "r.hprof")
	writeDump(t, path, 200, 3)
	var d HprofDominators
	if err := c.Call(ctx, "hprof/dominators", map[string]any{"path": path, "limit": 10}, &d); err != nil {
		t.Fatal(err)
	}

	// The first computation is held at its first look at its context.
	held := &heldCtx{held: make(chan struct{})}
	var first sync.Once
	var trees atomic.Int32
	hook := func(what string, c context.Context) context.Context {
		out := c
		switch what {
		case "the dominator tree":
			trees.Add(1)
		case "the classes' retained sizes":
			first.Do(func() { held.Context = c; out = held })
		}
		return out
	}
	hprofJobHook.Store(&hook)
	defer hprofJobHook.Store(nil)
	done := make(chan error, 1)
	go func() {
		var r HprofRetained
		done <- c.Call(ctx, "hprof/retained", map[string]any{"path": path}, &r)
	}()
	select {
	case <-held.held:
	case <-ctx.Done():
		t.Fatal("the classes' retained sizes never looked at their context")
	}
	var r struct {
		Stopped int `json:"stopped"`
	}
	if err := c.Call(ctx, "hprof/cancel", map[string]any{"path": path}, &r); err != nil || r.Stopped != 1 {
		t.Fatalf("hprof/cancel: %v, stopped %d, want 1 (the retained sizes)", err, r.Stopped)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("hprof/retained after hprof/cancel: %v, want the computation stopped", err)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := hprof.Parse(bytes.NewReader(data), hprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(h.Dominators().ClassRetained(path))
	var ret HprofRetained
	if err := c.Call(ctx, "hprof/retained", map[string]any{"path": path}, &ret); err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(ret); !bytes.Equal(got, want) || len(ret.Classes) == 0 {
		t.Errorf("hprof/retained after a cancelled one:\n%s\nwant\n%s", got, want)
	}
	if n := trees.Load(); n != 0 {
		t.Errorf("the tree was computed %d times more: a cancel of the retained sizes dropped it", n)
	}
}

// TestHprofRPCCancelEvictedParse: a dump evicted from the cache while it
// is parsed (another dump opened, the two not fitting the budget) is still
// in hprof/cancel's reach: the parse stops, its request fails with context
// canceled, and the dump opened meanwhile is parsed.
func TestHprofRPCCancelEvictedParse(t *testing.T) {
	lo := freePorts(t, 1)
	m := startMonitor(t, testOptions(t, lo, 1))
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c, _ := dialHprofProgress(ctx, t, addr)
	dir := t.TempDir()
	evicted, other := filepath.Join(dir, "e.hprof"), filepath.Join(dir, "o.hprof")
	writeDump(t, evicted, 200, 0)
	writeDump(t, other, 60, 0)

	// The evicted dump's parse is held at its first read until it is
	// cancelled; the other's reads go on.
	var once sync.Once
	atRead, hold := make(chan struct{}), make(chan struct{})
	hook := func(path string) {
		if path == evicted {
			once.Do(func() { close(atRead); <-hold })
		}
	}
	hprofReadHook.Store(&hook)
	defer hprofReadHook.Store(nil)
	done := make(chan error, 1)
	go func() {
		var s HprofSummary
		done <- c.Call(ctx, "hprof/summary", map[string]any{"path": evicted}, &s)
	}()
	select {
	case <-atRead:
	case <-ctx.Done():
		t.Fatal("the parse never read")
	}
	hprofCacheBudget = 1 // any second dump evicts the others
	defer func() { hprofCacheBudget = 0 }()
	var s HprofSummary
	if err := c.Call(ctx, "hprof/summary", map[string]any{"path": other}, &s); err != nil || s.Objects == 0 {
		t.Fatalf("the other dump: %v, %+v", err, s)
	}
	hprofDumps.mu.Lock()
	for _, d := range hprofDumps.dumps {
		if d.key.path == evicted {
			t.Error("opening another dump did not evict the one parsed")
		}
	}
	hprofDumps.mu.Unlock()
	var r struct {
		Stopped int `json:"stopped"`
	}
	if err := c.Call(ctx, "hprof/cancel", map[string]any{"path": evicted}, &r); err != nil || r.Stopped != 1 {
		t.Fatalf("hprof/cancel of an evicted dump's parse: %v, stopped %d, want 1", err, r.Stopped)
	}
	close(hold)
	if err := <-done; err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("hprof/summary of the evicted dump after hprof/cancel: %v, want the parse stopped", err)
	}
	if err := c.Call(ctx, "hprof/cancel", map[string]any{"path": evicted}, &r); err != nil || r.Stopped != 0 {
		t.Errorf("hprof/cancel with nothing running: %v, stopped %d", err, r.Stopped)
	}
}

// TestHprofRPCTreeGate: with DDMBRIDGE_HPROF_TREE_GATE naming a file that
// exists, the dominator tree waits at its first look at its context, where
// hprof/cancel stops it; the file gone, the next tree is computed, the
// package's own.
func TestHprofRPCTreeGate(t *testing.T) {
	lo := freePorts(t, 1)
	m := startMonitor(t, testOptions(t, lo, 1))
	addr := startRPC(t, m, ServerOptions{Logger: testLogger(t)})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c, progress := dialHprofProgress(ctx, t, addr)
	dir := t.TempDir()
	path, gate := filepath.Join(dir, "g.hprof"), filepath.Join(dir, "gate")
	writeDump(t, path, 200, 3)
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(hprofTreeGateEnv, gate)
	// Without the gate the tree of these 200 nodes ends in microseconds,
	// before any hprof/cancel: with it, it waits.
	done := make(chan error, 1)
	go func() {
		var d HprofDominators
		done <- c.Call(ctx, "hprof/dominators", map[string]any{"path": path, "limit": 10}, &d)
	}()
	for p := range progress {
		if p.Phase == "dominators" {
			break
		}
	}
	var r struct {
		Stopped int `json:"stopped"`
	}
	if err := c.Call(ctx, "hprof/cancel", map[string]any{"path": path}, &r); err != nil || r.Stopped != 1 {
		t.Fatalf("hprof/cancel of a tree at its gate: %v, stopped %d, want 1", err, r.Stopped)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("hprof/dominators after hprof/cancel: %v, want the tree stopped", err)
	}

	if err := os.Remove(gate); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := hprof.Parse(bytes.NewReader(data), hprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(h.Dominators().Tree().Level(path, hprof.Root, 10))
	var d HprofDominators
	if err := c.Call(ctx, "hprof/dominators", map[string]any{"path": path, "limit": 10}, &d); err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(d); !bytes.Equal(got, want) {
		t.Errorf("the tree once the gate is gone:\n%s\nwant\n%s", got, want)
	}
}

// dialHprofProgress connects to the control API at addr, keeping the
// first 1000 hprof/progress notifications it is sent (the rest are
// dropped, never blocking the connection); the connection closes with the
// test.
func dialHprofProgress(ctx context.Context, t *testing.T, addr string) (*Client, <-chan HprofProgress) {
	t.Helper()
	progress := make(chan HprofProgress, 1000)
	c, err := DialRPC(ctx, addr, func(method string, params json.RawMessage) {
		var p HprofProgress
		if method == "hprof/progress" && json.Unmarshal(params, &p) == nil {
			select {
			case progress <- p:
			default:
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, progress
}
