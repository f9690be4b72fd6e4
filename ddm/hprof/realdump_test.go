//go:build linux

package hprof

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/internal/hotspot"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// These tests dump a real HotSpot VM running testdata/leak (Leak: one static
// holds a URLClassLoader that loaded Plugin, whose statics hold 100 000
// bytes; 51 Strings on one byte[]; a lambda; an object only a local of
// main's frame holds) through the attach mechanism, as the monitor does.

type leakRun struct {
	once sync.Once
	dump []byte
	h    *Heap
	err  error
}

var leakCompressed, leakWide, leakParallel leakRun

// leakDump returns the dump of Leak run with vmArgs, made once per test
// binary; with histo it also returns jcmd's GC.class_histogram of the VM,
// taken right after the dump.
func leakDump(t *testing.T, run *leakRun, vmArgs []string, histo *map[string][2]int64) ([]byte, *Heap) {
	t.Helper()
	jvmtest.RequireJava(t)
	run.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		app, err := jvmtest.CompileCached(ctx, "testdata/leak/app")
		if err != nil {
			run.err = err
			return
		}
		plugin, err := jvmtest.CompileCached(ctx, "testdata/leak/plugin")
		if err != nil {
			run.err = err
			return
		}
		vm, err := jvmtest.Start(ctx, jvmtest.Options{ClassPath: []string{app}, MainClass: "Leak", ReadyLine: "READY",
			VMArgs: append([]string{"-Dplugin.dir=" + plugin, "-Xmx128m"}, vmArgs...), Timeout: 2 * time.Minute})
		if err != nil {
			run.err = err
			return
		}
		defer vm.Close()
		run.dump, run.err = hotspot.DumpHeap(ctx, vm.Pid, true)
		if run.err != nil {
			return
		}
		if histo != nil {
			*histo, run.err = jcmdHistogram(ctx, vm.Pid)
			if run.err != nil {
				return
			}
		}
		run.h, run.err = Parse(bytes.NewReader(run.dump), Options{Strings: true})
	})
	if run.err != nil {
		t.Fatal(run.err)
	}
	return run.dump, run.h
}

// jcmdHistogram runs the JDK's jcmd PID GC.class_histogram: instances and
// bytes per class, names in Java source form ("byte[]").
func jcmdHistogram(ctx context.Context, pid int) (map[string][2]int64, error) {
	jcmd, err := jvmtest.FindTool("jcmd")
	if err != nil {
		return nil, err
	}
	out, err := exec.CommandContext(ctx, jcmd, strconv.Itoa(pid), "GC.class_histogram").Output()
	if err != nil {
		return nil, err
	}
	line := regexp.MustCompile(`^\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)`)
	m := map[string][2]int64{}
	for _, l := range strings.Split(string(out), "\n") {
		if g := line.FindStringSubmatch(l); g != nil {
			n, _ := strconv.ParseInt(g[1], 10, 64)
			b, _ := strconv.ParseInt(g[2], 10, 64)
			name := g[3]
			if strings.HasPrefix(name, "[") {
				name = javalang.ClassName(strings.ReplaceAll(name, ".", "/"))
			}
			old := m[name]
			m[name] = [2]int64{old[0] + n, old[1] + b}
		}
	}
	return m, nil
}

// instancesOf lists the objects of the class named name.
func instancesOf(h *Heap, name string) []int32 {
	var out []int32
	for i := range int32(h.NumObjects()) {
		if h.ClassName(i) == name {
			out = append(out, i)
		}
	}
	return out
}

func classObject(t *testing.T, h *Heap, name string) (int32, *Class) {
	t.Helper()
	for k := range h.Classes {
		if c := &h.Classes[k]; c.Name == name && c.Object >= 0 && !c.pseudo {
			return c.Object, c
		}
	}
	t.Fatalf("no class %s in the dump", name)
	return -1, nil
}

// reachable marks what the roots reach without passing through removed, on
// the graph built here from the public API (references, object → class,
// loader → defined classes), not from Succ.
func reachable(h *Heap, roots []int32, removed int32) []bool {
	defined := map[int32][]int32{}
	for k := range h.Classes {
		if c := &h.Classes[k]; c.Loader >= 0 && c.Object >= 0 && !c.pseudo {
			defined[c.Loader] = append(defined[c.Loader], c.Object)
		}
	}
	seen := make([]bool, h.NumObjects())
	var stack []int32
	push := func(w int32) {
		if w >= 0 && w != removed && !seen[w] {
			seen[w] = true
			stack = append(stack, w)
		}
	}
	for _, r := range roots {
		push(r)
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, w := range h.Refs(v) {
			push(w)
		}
		push(h.Classes[h.ClassOf(v)].Object)
		for _, w := range defined[v] {
			push(w)
		}
	}
	return seen
}

// TestClassLoaderLeak: the URLClassLoader one static holds retains Plugin's
// class, its statics (a 100 000-byte array, a Plugin) and the loader's own
// state; the figure is checked against the definition of retention (what
// the roots no longer reach once the loader is gone) computed here.
func TestClassLoaderLeak(t *testing.T) {
	_, h := leakDump(t, &leakCompressed, nil, nil)
	loaders := instancesOf(h, "java.net.URLClassLoader")
	if len(loaders) != 1 {
		t.Fatalf("%d URLClassLoaders, want 1", len(loaders))
	}
	l := loaders[0]
	plugin, pc := classObject(t, h, "Plugin")
	if pc.Loader != l {
		t.Fatalf("Plugin's loader is object %d, want the URLClassLoader %d", pc.Loader, l)
	}
	roots := h.roots // the dump's and the boot classes (see Heap.Roots)
	all, without := reachable(h, roots, -1), reachable(h, roots, l)
	var want uint64
	var retained []int32
	for i := range int32(h.NumObjects()) {
		if all[i] && !without[i] {
			want += uint64(h.Size(i))
			retained = append(retained, i)
		}
	}
	// Succ is this test's graph: references, the class, a loader's classes.
	for i := range int32(h.NumObjects()) {
		want := slices.Clone(h.Refs(i))
		want = append(want, h.Classes[h.ClassOf(i)].Object)
		for k := range h.Classes {
			if c := &h.Classes[k]; c.Loader == i && !c.pseudo {
				want = append(want, c.Object)
			}
		}
		got := h.Succ(i, nil)
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("Succ(%s @%#x) = %v, want %v", h.Label(i), h.ID(i), got, want)
		}
	}
	d := h.Dominators()
	if d.Retained[l] != want {
		t.Errorf("the URLClassLoader retains %d bytes, the definition says %d", d.Retained[l], want)
	}
	// What it must retain: Plugin's class object, its 100 000-byte static
	// array and the Plugin instance its other static holds.
	data := int32(-1)
	for _, i := range instancesOf(h, "byte[]") {
		if h.Size(i) >= 100_000 {
			data = i
		}
	}
	self := instancesOf(h, "Plugin")
	if data < 0 || len(self) != 1 {
		t.Fatalf("Plugin's statics not in the dump: byte[100000] %d, Plugin instances %d", data, len(self))
	}
	for _, o := range []int32{plugin, data, self[0]} {
		if !slices.Contains(retained, o) {
			t.Errorf("%s @%#x is not retained by the URLClassLoader", h.Label(o), h.ID(o))
		}
	}
	if want < 100_016 {
		t.Errorf("the URLClassLoader retains %d bytes, less than Plugin's static array", want)
	}
	// The former model, every class object a root, kept the loader from
	// retaining its classes: the same figure with class objects as roots.
	withClasses := slices.Clone(roots)
	for k := range h.Classes {
		if o := h.Classes[k].Object; o >= 0 {
			withClasses = append(withClasses, o)
		}
	}
	allC, withoutC := reachable(h, withClasses, -1), reachable(h, withClasses, l)
	var old uint64
	for i := range int32(h.NumObjects()) {
		if allC[i] && !withoutC[i] {
			old += uint64(h.Size(i))
		}
	}
	t.Logf("the URLClassLoader retains %d bytes in %d objects (with every class object a root: %d bytes)", want, len(retained), old)
}

// TestPathThroughLoader: the path to Plugin's class goes through Leak's
// class, the URLClassLoader and its classes list, from a root of a true kind;
// an object only main's frame holds has a Java-frame root with its thread
// and frame.
func TestPathThroughLoader(t *testing.T) {
	_, h := leakDump(t, &leakCompressed, nil, nil)
	plugin, _ := classObject(t, h, "Plugin")
	p := h.PathFromRoot(plugin)
	var names []string
	for _, s := range p {
		names = append(names, s.Class)
	}
	want := []string{"class Leak", "java.net.URLClassLoader", "java.util.ArrayList", "java.lang.Object[]", "class Plugin"}
	if len(names) < len(want)+1 || !slices.Equal(names[len(names)-len(want):], want) {
		t.Errorf("path to Plugin's class: %q, want it to end with %q", names, want)
	}
	if len(p) > 0 && (p[0].Root == "" || p[0].Root == "unknown") {
		t.Errorf("path starts at a root of kind %q", p[0].Root)
	}
	if len(p) > 0 && h.IsClassObject(p[0].Index) && p[0].Root != "sticky class" {
		t.Errorf("a class object is a %q root, want sticky class", p[0].Root)
	}
	t.Logf("path: %q from a %s root %s", names, p[0].Root, p[0].RootDetail)

	locals := instancesOf(h, "Leak$Local")
	if len(locals) != 1 {
		t.Fatalf("%d Leak$Local objects, want 1", len(locals))
	}
	lp := h.PathFromRoot(locals[0])
	if len(lp) != 1 || lp[0].Root != "Java frame" || !strings.Contains(lp[0].RootDetail, "Leak.main(Leak.java:") || !strings.Contains(lp[0].RootDetail, "thread 0x") {
		t.Errorf("path to main's local: %+v, want one step, a Java frame root naming the thread and Leak.main's line", lp)
	}
	t.Logf("path to main's local: %s root, %s", lp[0].Root, lp[0].RootDetail)
	// Leak$Local's class is nearest through its one instance, held by
	// main's frame: the last step is the instance's edge to its class.
	localClass, _ := classObject(t, h, "Leak$Local")
	cp := h.PathFromRoot(localClass)
	if len(cp) != 2 || cp[0].Index != locals[0] || cp[1].Via != "<class>" {
		t.Errorf("path to Leak$Local's class: %+v, want its instance, then the class via <class>", cp)
	}
	// A root's own path is itself, labelled with the kind of its first
	// record (HotSpot 17 writes thread objects, Java frames, JNI globals and
	// sticky classes; no busy monitors); every kind has a name.
	roots, kinds := h.Roots()
	seen := map[int32]bool{}
	byKind := map[string]int{}
	for k, r := range roots {
		if strings.HasPrefix(kinds[k].String(), "root(") {
			t.Errorf("root kind %v has no name", kinds[k])
		}
		if seen[r] {
			continue
		}
		seen[r] = true
		rp := h.PathFromRoot(r)
		if len(rp) != 1 || rp[0].Root != kinds[k].String() {
			t.Errorf("path to the %s root %#x: %+v", kinds[k], h.ID(r), rp)
		}
		if kinds[k] == RootThreadObject && !strings.HasPrefix(rp[0].RootDetail, "thread serial ") {
			t.Errorf("thread root %#x: detail %q, want its serial", h.ID(r), rp[0].RootDetail)
		}
		byKind[rp[0].Root]++
	}
	for _, k := range []string{"thread", "Java frame", "JNI global", "sticky class"} {
		if byKind[k] == 0 {
			t.Errorf("no %s root in the dump (roots by kind: %v)", k, byKind)
		}
	}
	t.Logf("roots by kind: %v", byKind)
}

// TestDuplicateStringsSharedArray: Leak's 51 Strings on one byte[] (new
// String(s) shares s's array) waste 50 String objects, not 50 arrays too.
func TestDuplicateStringsSharedArray(t *testing.T) {
	dump, h := leakDump(t, &leakCompressed, nil, nil)
	dups, err := h.DuplicateStrings(bytes.NewReader(dump), 0)
	if err != nil {
		t.Fatal(err)
	}
	strSize := int64(0)
	for _, s := range h.Histogram() {
		if s.Class == "java.lang.String" {
			strSize = s.Bytes / s.Instances
		}
	}
	for _, d := range dups {
		if d.Value == "shared-42" {
			if d.Count != 51 || int64(d.Wasted) != 50*strSize {
				t.Errorf("shared-42: %d copies wasting %d bytes, want 51 wasting %d (50 Strings of %d bytes, the array once)", d.Count, d.Wasted, 50*strSize, strSize)
			}
			return
		}
	}
	t.Errorf("shared-42 not among the %d duplicates", len(dups))
}

// TestHistogramMatchesJcmd: VMs run with -XX:-UseCompressedOops (G1) and
// with compressed oops (Parallel GC: G1's archived CDS mirrors, which jcmd
// counts, are not in its dumps); the parser infers the reference width and
// its histogram matches jcmd's class by class, java.lang.Class, Thread
// (@Contended padding) and lambda classes included. The two snapshots are
// taken one after the other and the VM runs between them (the attach
// listener serving jcmd, the JDK's Cleaner collecting what the dump left):
// a class's instance count may differ by 4 (the differences seen are 2 and
// 3), but an instance class's bytes per instance must be equal, an array
// class's bytes equal when its count is, and the totals within 0.5 %.
func TestHistogramMatchesJcmd(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  *leakRun
		args []string
		oops Oops
	}{
		{"wide", &leakWide, []string{"-XX:-UseCompressedOops"}, OopsWide},
		{"compressed", &leakParallel, []string{"-XX:+UseParallelGC", "-XX:+UseCompressedOops"}, OopsCompressed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want map[string][2]int64
			_, h := leakDump(t, tc.run, tc.args, &want)
			if h.Oops != tc.oops || !h.OopsInferred {
				t.Errorf("oops %v (inferred %v, votes %v), want %v, inferred", h.Oops, h.OopsInferred, h.OopsVotes, tc.oops)
			}
			compareJcmd(t, h, want)
		})
	}
}

func compareJcmd(t *testing.T, h *Heap, want map[string][2]int64) {
	got := map[string]ClassStat{}
	var total, wantTotal int64
	for _, c := range h.Histogram() {
		got[c.Class] = c
		total += c.Bytes
	}
	compared := 0
	for name, w := range want {
		wantTotal += w[1]
		g := got[name]
		compared++
		if d := abs64(g.Instances - w[0]); d > 4 {
			t.Errorf("%s: %d instances in the dump, jcmd counts %d", name, g.Instances, w[0])
			continue
		}
		if g.Instances == 0 || w[0] == 0 {
			continue
		}
		if strings.HasSuffix(name, "[]") {
			if g.Instances == w[0] && g.Bytes != w[1] {
				t.Errorf("%s: %d bytes in the dump, jcmd %d", name, g.Bytes, w[1])
			}
			continue
		}
		if g.Bytes*w[0] != w[1]*g.Instances {
			t.Errorf("%s: %d bytes per instance in the dump, jcmd %d", name, g.Bytes/g.Instances, w[1]/w[0])
		}
	}
	for _, name := range []string{"java.lang.Class", "java.lang.Thread", "java.lang.String", "java.util.HashMap$Node[]"} {
		if _, ok := want[name]; !ok {
			t.Errorf("jcmd lists no %s", name)
		}
	}
	lambdas := 0
	for name := range want {
		if strings.Contains(name, "$$Lambda$") {
			lambdas++
			if _, ok := got[name]; !ok {
				t.Errorf("jcmd's %s is not in the dump's histogram under that name", name)
			}
		}
	}
	if lambdas == 0 {
		t.Error("jcmd lists no lambda class")
	}
	if compared < 200 || abs64(total-wantTotal) > wantTotal/200 {
		t.Errorf("%d classes compared; %d bytes in the dump, jcmd %d", compared, total, wantTotal)
	}
	t.Logf("%d classes compared with jcmd; %d bytes in the dump, jcmd %d; java.lang.Class %+v, jcmd %v; oops votes %v",
		compared, total, wantTotal, got["java.lang.Class"], want["java.lang.Class"], h.OopsVotes)
}

func abs64(v int64) int64 { return max(v, -v) }

// TestTruncatedDump: the real dump cut at several offsets parses to a
// partial model of the complete records before the cut, marked Partial with
// a warning, whose analyses run.
func TestTruncatedDump(t *testing.T) {
	dump, full := leakDump(t, &leakCompressed, nil, nil)
	if full.Partial || len(full.Warnings) != 0 {
		t.Errorf("the whole dump: partial %v, warnings %q", full.Partial, full.Warnings)
	}
	// HotSpot writes the strings and class records first, then the heap dump
	// segments: objects, then the roots. Cut before the first object and
	// then at fractions of the heap dump.
	heapAt := bytes.IndexByte(dump, 0) + 1 + 12
	for heapAt+9 <= len(dump) && dump[heapAt] != tagHeapDump && dump[heapAt] != tagHeapDumpSeg {
		heapAt += 9 + int(be32(dump[heapAt+5:]))
	}
	if _, err := Parse(bytes.NewReader(dump[:heapAt/2]), Options{}); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("cut before the heap dump: %v, want an error saying it is truncated", err)
	}
	prev := 0
	for _, frac := range []float64{0.02, 0.3, 0.5, 0.77, 0.999} {
		cut := heapAt + int(float64(len(dump)-heapAt)*frac)
		h, err := Parse(bytes.NewReader(dump[:cut]), Options{Strings: true})
		if err != nil {
			t.Errorf("cut at %d of %d bytes: %v", cut, len(dump), err)
			continue
		}
		if !h.Partial || len(h.Warnings) == 0 || !strings.Contains(h.Warnings[0], "partial") {
			t.Errorf("cut at %d: partial %v, warnings %q", cut, h.Partial, h.Warnings)
		}
		n := h.NumObjects()
		if n == 0 || n < prev || n > full.NumObjects() {
			t.Errorf("cut at %d: %d objects (the cut before had %d, the whole dump %d)", cut, n, prev, full.NumObjects())
		}
		prev = n
		// Every object kept is the whole dump's, of the same class and size.
		for i := range int32(n) {
			j := full.Lookup(h.ID(i))
			if j < 0 || full.Size(j) != h.Size(i) && !h.IsClassObject(i) || full.ClassName(j) != h.ClassName(i) {
				t.Fatalf("cut at %d: object %#x (%s, %d bytes) differs from the whole dump's", cut, h.ID(i), h.ClassName(i), h.Size(i))
			}
		}
		if len(h.Histogram()) == 0 || h.Dominators() == nil {
			t.Errorf("cut at %d: no analyses", cut)
		}
		t.Logf("cut at %d of %d bytes: %d of %d objects; %s", cut, len(dump), n, full.NumObjects(), h.Warnings[0])
	}
}

// TestLeakViews: what the editor shows of the leak in a real HotSpot dump —
// the merged paths to Plugin's instances run through Leak's class, the
// URLClassLoader and its classes list from a sticky-class root; the
// loader's incoming references include Leak's class; the histogram's
// retained column matches the definition, and the URLClassLoader's figure
// is the loader's own retained size.
func TestLeakViews(t *testing.T) {
	_, h := leakDump(t, &leakCompressed, nil, nil)
	m, ok := h.PathsToClass("leak.hprof", "Plugin", PathOptions{})
	if !ok || m.Objects != 1 || m.Reached != 1 || len(m.Roots) != 1 {
		t.Fatalf("paths to Plugin: %+v", m)
	}
	var names []string
	nd := m.Roots[0]
	if nd.Root != "sticky class" {
		t.Errorf("root %q (%s), want a sticky class", nd.Root, nd.Class)
	}
	for {
		names = append(names, nd.Class)
		if len(nd.Children) != 1 {
			break
		}
		nd = nd.Children[0]
	}
	want := []string{"class Leak", "java.net.URLClassLoader", "java.util.ArrayList", "java.lang.Object[]", "class Plugin", "Plugin"}
	if len(names) < len(want)+1 || !slices.Equal(names[len(names)-len(want):], want) || !nd.Target {
		t.Errorf("merged paths to Plugin: %q, want them to end with %q", names, want)
	}
	t.Logf("paths to Plugin: %q", names)

	loader := instancesOf(h, "java.net.URLClassLoader")[0]
	leakClass, _ := classObject(t, h, "Leak")
	in := h.Incoming("leak.hprof", loader, 0, 0, nil, nil)
	if !slices.ContainsFunc(in.Referrers, func(s PathStep) bool { return s.Index == leakClass }) {
		t.Errorf("incoming references of the URLClassLoader: %+v, want class Leak among them", in.Referrers)
	}
	pluginClass, _ := classObject(t, h, "Plugin")
	pin := h.Incoming("leak.hprof", pluginClass, 0, 0, nil, nil)
	if !slices.ContainsFunc(pin.Referrers, func(s PathStep) bool { return s.Index == loader && s.Via == "<defined class>" }) || pin.Instances != 1 {
		t.Errorf("incoming references of class Plugin: %+v, want the loader (defined class) and 1 instance", pin)
	}

	d := h.Dominators()
	checkClassRetained(t, h, d)
	for _, c := range d.ClassRetained("leak.hprof").Classes {
		if c.Class == "java.net.URLClassLoader" && c.Retained != d.Retained[loader] {
			t.Errorf("java.net.URLClassLoader retains %d as a class, its one instance %d", c.Retained, d.Retained[loader])
		}
	}
	inst, ok := h.Instances("leak.hprof", "java.lang.String", 0, 10, d)
	if !ok || inst.Total < 51 || len(inst.Objects) != 10 || inst.Objects[0].Retained < inst.Objects[9].Retained {
		t.Errorf("instances of String, largest retained first: %+v", inst)
	}
}

// TestThreadNamesInRootDetails: once the names are read back from the
// dump, a Java frame root names its thread ("main", "lock-holder"), and the
// scan finds every thread's name.
func TestThreadNamesInRootDetails(t *testing.T) {
	dump, _ := leakDump(t, &leakCompressed, nil, nil)
	h, err := Parse(bytes.NewReader(dump), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.ReadThreadNames(bytes.NewReader(dump)); err != nil {
		t.Fatal(err)
	}
	threads := 0
	for _, k := range h.rootKind {
		if k == RootThreadObject {
			threads++
		}
	}
	if len(h.threadNames) != threads {
		t.Errorf("%d thread names read, %d threads: %v", len(h.threadNames), threads, h.threadNames)
	}
	local := instancesOf(h, "Leak$Local")[0]
	p := h.PathTo(local, 0, nil)
	if len(p.Steps) != 1 || !strings.Contains(p.Steps[0].RootDetail, `thread "main" 0x`) || !strings.Contains(p.Steps[0].RootDetail, "Leak.main(Leak.java:") {
		t.Errorf("path to main's local: %+v, want a Java frame of thread \"main\"", p.Steps)
	}
	holder := false
	for k, kind := range h.rootKind {
		if kind == RootJavaFrame && strings.Contains(h.rootDetail(k), `thread "lock-holder"`) {
			holder = true
		}
	}
	if !holder {
		t.Error("no Java frame root names the thread \"lock-holder\"")
	}
	t.Logf("threads: %v; main's local: %s", h.threadNames, p.Steps[0].RootDetail)
}

// TestFieldNamesOnRealDump: on a real HotSpot dump, paths and incoming
// references name the field or element that holds each object: Leak's
// static, the loader's classes list (a field of its superclass
// ClassLoader), the list's elementData, the array's element, Plugin's
// static; a field a subclass declares again is qualified by its class; an
// array holding one object twice says so.
func TestFieldNamesOnRealDump(t *testing.T) {
	dump, h := leakDump(t, &leakCompressed, nil, nil)
	src := bytes.NewReader(dump)
	m, ok := h.PathsToClass("leak.hprof", "Plugin", PathOptions{Source: src})
	if !ok || len(m.Roots) != 1 {
		t.Fatalf("paths to Plugin: %+v", m)
	}
	var steps []string
	for nd := m.Roots[0]; ; nd = nd.Children[0] {
		steps = append(steps, nd.Field+" → "+nd.Class)
		if len(nd.Children) != 1 {
			break
		}
	}
	want := []string{"static held → java.net.URLClassLoader", "classes → java.util.ArrayList", "elementData → java.lang.Object[]",
		"[0] → class Plugin", "static self → Plugin"}
	if len(steps) < len(want)+1 || !slices.Equal(steps[len(steps)-len(want):], want) {
		t.Errorf("merged paths to Plugin: %q, want them to end with %q", steps, want)
	}
	t.Logf("paths to Plugin: %q", steps)

	plugin := instancesOf(h, "Plugin")[0]
	p := h.PathTo(plugin, 0, src)
	var fields []string
	for _, s := range p.Steps {
		fields = append(fields, s.Field+s.Via)
	}
	if n := len(fields); n < 6 || !slices.Equal(fields[n-5:], []string{"static held", "classes", "elementData", "[0]", "static self"}) {
		t.Errorf("path to the Plugin instance: fields %q", fields)
	}
	// Every step but the root's is held by a field or an element, or says
	// how else (its class, a loader's class).
	for k, s := range p.Steps[1:] {
		if s.Field == "" && s.Via == "" {
			t.Errorf("step %d (%s) names no field and no via: %q", k+1, s.Class, fields)
		}
	}

	held := func(class string) PathStep {
		t.Helper()
		objs := instancesOf(h, class)
		if len(objs) != 1 {
			t.Fatalf("%d instances of %s", len(objs), class)
		}
		in := h.Incoming("leak.hprof", objs[0], 0, 0, nil, src)
		if len(in.Referrers) != 1 {
			t.Fatalf("incoming references of %s: %+v", class, in.Referrers)
		}
		return in.Referrers[0]
	}
	for class, want := range map[string]string{"Leak$Inherited": "Leak$Base.value", "Leak$Own": "Leak$Sub.value", "Leak$Sub": "static hiding"} {
		if r := held(class); r.Field != want || r.FieldCount != 0 {
			t.Errorf("%s is held by %s's %q (×%d), want %q", class, r.Class, r.Field, r.FieldCount, want)
		}
	}
	if r := held("Leak$Twice"); r.Class != "java.lang.Object[]" || r.Field != "[1]" || r.FieldCount != 2 {
		t.Errorf("Leak$Twice is held by %s's %q ×%d, want java.lang.Object[]'s [1] ×2", r.Class, r.Field, r.FieldCount)
	}
	loader := instancesOf(h, "java.net.URLClassLoader")[0]
	leakClass, _ := classObject(t, h, "Leak")
	in := h.Incoming("leak.hprof", loader, 0, 0, nil, src)
	k := slices.IndexFunc(in.Referrers, func(s PathStep) bool { return s.Index == leakClass })
	if k < 0 || in.Referrers[k].Field != "static held" {
		t.Errorf("incoming references of the URLClassLoader: %+v, want class Leak by static held", in.Referrers)
	}
	pluginClass, _ := classObject(t, h, "Plugin")
	if name, _, err := h.FieldOf(src, pluginClass, loader); err != nil || name != "<loader>" {
		t.Errorf("class Plugin → its loader: %q, %v", name, err)
	}
}
