package hprof_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm/hprof"
)

// A dump written with the Writer (as the simulated VM does), parsed and
// analysed: class histogram, dominators and the path from a GC root.
func Example() {
	var buf bytes.Buffer
	w := hprof.NewWriter(&buf, 8, time.UnixMilli(0))
	w.String(1, "java/lang/Object")
	w.String(2, "Box")
	w.String(3, "item")
	w.LoadClass(0x100, 1)
	w.LoadClass(0x110, 2)
	w.ClassDump(0x100, 0, 0, nil, nil)
	w.ClassDump(0x110, 0x100, 8, nil, []hprof.FieldDecl{{NameID: 3, Type: hprof.TypeObject}})
	ref := func(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }
	w.Root(hprof.RootJavaFrame, 0x1000)
	w.Instance(0x1000, 0x110, ref(0x1010)) // Box → Box → int[4]
	w.Instance(0x1010, 0x110, ref(0x1020))
	w.PrimitiveArray(0x1020, hprof.TypeInt, make([]byte, 16))
	if err := w.Close(); err != nil {
		panic(err)
	}

	h, err := hprof.Parse(&buf, hprof.Options{})
	if err != nil {
		panic(err)
	}
	for _, c := range h.Histogram() {
		fmt.Printf("%-16s %d instances, %d bytes\n", c.Class, c.Instances, c.Bytes)
	}
	d := h.Dominators()
	top := d.Children(hprof.Root, 1)[0]
	fmt.Printf("retains most: %s @%#x, %d bytes\n", top.Class, top.ID, top.Retained)
	for _, s := range h.PathFromRoot(h.Lookup(0x1020)) {
		fmt.Println(strings.TrimSpace("→ " + s.Class + " " + s.Root))
	}
	// Output:
	// Box              2 instances, 32 bytes
	// int[]            1 instances, 32 bytes
	// java.lang.Class  2 instances, 32 bytes
	// retains most: Box @0x1000, 64 bytes
	// → Box Java frame
	// → Box
	// → int[]
}
