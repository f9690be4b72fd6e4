package hprof

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// spillSame checks that the dominator tree computed with a spill file is
// the one computed in memory, that the model is whole afterwards and that
// the file is gone.
func spillSame(t *testing.T, name string, dump []byte) {
	t.Helper()
	for _, opt := range []DomOptions{{Spill: true}, {Lean: true}, {Compact: true}} {
		spillSameWith(t, name, dump, opt)
	}
	// Compact with the classes left in 32 bits (more than 65,536).
	defer func(n int) { packClassesMax = n }(packClassesMax)
	packClassesMax = 0
	spillSameWith(t, name+" (classes not packed)", dump, DomOptions{Compact: true})
}

// spillSameWith is spillSame for the strategy opt (Spill, Lean or
// Compact: the references then wait packed in memory, not in the file).
func spillSameWith(t *testing.T, name string, dump []byte, opt DomOptions) {
	t.Helper()
	if opt.Lean {
		name += " (lean)"
	}
	if opt.Compact {
		name += " (compact)"
	}
	out := func(h *Heap) bool {
		if opt.Compact {
			return h.refsPacked.Load() != nil
		}
		return h.refsOut.Load() != nil
	}
	mem, err := Parse(bytes.NewReader(dump), Options{})
	if err != nil {
		return
	}
	dir := t.TempDir()
	disk, err := Parse(bytes.NewReader(dump), Options{Spill: true, SpillDir: dir})
	if err != nil {
		t.Fatalf("%s: parsed in memory, not with a spill file: %v", name, err)
	}
	if !reflect.DeepEqual(disk.cls, mem.cls) || !reflect.DeepEqual(disk.size, mem.size) || !reflect.DeepEqual(disk.sizes, mem.sizes) || !reflect.DeepEqual(disk.loaderCls, mem.loaderCls) {
		t.Errorf("%s: parsed with a spill file, the classes and sizes differ", name)
	}
	want := mem.Dominators()
	opt.Dir = dir
	got, err := disk.DominatorsWith(opt)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !reflect.DeepEqual(got.Idom, want.Idom) || !reflect.DeepEqual(got.Retained, want.Retained) {
		t.Errorf("%s: the tree computed with a spill file differs from the one computed in memory", name)
	}
	for _, of := range []int32{Root, int32(mem.NumObjects() - 1)} {
		for _, limit := range []int{0, 3} {
			if l, tl := got.Level("/d", of, limit), want.Tree().Level("/d", of, limit); !reflect.DeepEqual(l, tl) {
				t.Errorf("%s: Level(%d, %d) differs from the tree's:\n%+v\n%+v", name, of, limit, l, tl)
			}
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%s: the spill file has a name in %s while it is open", name, dir)
	}
	// The references wait in the file until something needs them.
	if len(mem.refs) > 0 && (disk.refs != nil || !out(disk)) {
		t.Errorf("%s: the references are back in memory before they are needed", name)
	}
	for i := range int32(mem.NumObjects()) {
		if !reflect.DeepEqual(disk.Refs(i), mem.Refs(i)) {
			t.Fatalf("%s: object %d's references read back differ", name, i)
		}
	}
	if out(disk) {
		t.Errorf("%s: the spill file or the packed references still held after the references came back", name)
	}
	if !reflect.DeepEqual(disk.ids, mem.ids) || !reflect.DeepEqual(disk.cls, mem.cls) || !reflect.DeepEqual(disk.size, mem.size) || !reflect.DeepEqual(disk.sizes, mem.sizes) ||
		!reflect.DeepEqual(disk.refStart, mem.refStart) || !reflect.DeepEqual(disk.refs, mem.refs) {
		t.Errorf("%s: the model is not whole after the spill", name)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%s: %d files left in the spill directory", name, len(left))
	}
	// Ids that are not 8-byte aligned addresses are kept wide: spilled
	// and read back as such.
	if !disk.ids.wide && disk.NumObjects() > 0 {
		wide := idList{}
		wide.add(1) // not narrow: every id after it is kept wide
		for i := range int32(disk.NumObjects()) {
			wide.add(disk.ids.at(i))
		}
		wide.all = wide.all[1:]
		disk.ids = wide
		if _, err := disk.DominatorsWith(opt); err != nil {
			t.Fatalf("%s, wide ids: %v", name, err)
		}
		if !disk.ids.wide || disk.NumObjects() != mem.NumObjects() || disk.ID(int32(mem.NumObjects()-1)) != mem.ID(int32(mem.NumObjects()-1)) {
			t.Errorf("%s: wide ids not read back whole", name)
		}
	}
}

// TestDominatorsSpill: on the synthetic dumps and on real HotSpot dumps
// (compressed and wide references) the dominator tree with the model's
// arrays spilled to a temporary file has the same immediate dominators and
// retained sizes as in memory, the file has no name while it is open (so it
// goes however the process ends), the references come back from it when
// first needed; a directory where the file cannot be made
// is an error that leaves the model as it was.
func TestDominatorsSpill(t *testing.T) {
	for i, s := range seeds(t) {
		spillSame(t, "seed"+string(rune('0'+i)), s)
	}
	// Windows of a few elements: every array is read back in many pieces,
	// and many nodes' predecessors are longer than a window.
	defer func(n int) { windowLen = n }(windowLen)
	for _, tc := range []struct {
		name string
		run  *leakRun
		args []string
	}{
		{"compressed", &leakCompressed, nil},
		{"wide", &leakWide, []string{"-XX:-UseCompressedOops"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dump, _ := leakDump(t, tc.run, tc.args, nil)
			for _, w := range []int{1 << 16, 3} {
				windowLen = w
				spillSame(t, tc.name, dump)
			}
		})
	}
	windowLen = 1 << 16
	h, err := Parse(bytes.NewReader(sample(t, 8, false)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := h.Dominators()
	for _, opt := range []DomOptions{{Spill: true}, {Lean: true}} {
		opt.Dir = filepath.Join(t.TempDir(), "missing")
		if _, err := h.DominatorsWith(opt); err == nil {
			t.Fatalf("a spill file in a missing directory (%+v): no error", opt)
		}
	}
	if got := h.Dominators(); !reflect.DeepEqual(got.Retained, want.Retained) || h.NumObjects() == 0 {
		t.Errorf("the model changed after a spill that failed")
	}
}
