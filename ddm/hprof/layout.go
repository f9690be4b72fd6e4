package hprof

import (
	"fmt"
	"slices"
	"strings"
)

// Oops says how wide the dumped VM's object references were, which decides
// shallow sizes (HPROF ids are always the VM's word size).
type Oops uint8

// Reference widths of a 64-bit HotSpot VM.
const (
	// OopsAuto infers the width from the dump: HotSpot's ids are addresses
	// and its heap walk writes neighbours in address order, so the distance
	// from one object to the next is the first one's size; Parse compares
	// the distances of the first objects with the sizes each width gives.
	OopsAuto Oops = iota
	// OopsCompressed: 4-byte references (-XX:+UseCompressedOops, the default
	// below 32 GiB of heap).
	OopsCompressed
	// OopsWide: 8-byte references (-XX:-UseCompressedOops, heaps of 32 GiB
	// and more).
	OopsWide
)

func (o Oops) String() string {
	switch o {
	case OopsCompressed:
		return "compressed"
	case OopsWide:
		return "wide"
	}
	return "auto"
}

// ParseOops reads "compressed", "wide" or "auto" (the --oops flag).
func ParseOops(s string) (Oops, error) {
	switch s {
	case "compressed":
		return OopsCompressed, nil
	case "wide":
		return OopsWide, nil
	case "auto", "":
		return OopsAuto, nil
	}
	return OopsAuto, fmt.Errorf("oops %q: want compressed, wide or auto", s)
}

// vmLayout is one object layout model: header sizes and reference width.
type vmLayout struct{ hdr, aHdr, ref uint32 }

// The layouts: 64-bit HotSpot with compressed class pointers (the default
// with and without compressed oops since JDK 15) and 32-bit HotSpot.
var (
	layoutCompressed = vmLayout{12, 16, 4}
	layoutWide       = vmLayout{12, 16, 8}
	layout32         = vmLayout{8, 12, 4}
)

// contendedPadding is HotSpot's ContendedPaddingWidth: the bytes it puts
// before and after a @Contended class's fields or field group.
const contendedPadding = 128

// vmField is a field as the VM lays it out.
type vmField struct {
	typ   Type
	group string // @Contended group ("" = none; "*" = the class is @Contended)
}

// hotspotInjected are the fields HotSpot adds to JDK classes without
// declaring them (javaClasses.hpp, ALL_INJECTED_FIELDS, JDK 17); dumps leave
// them out. intptr fields are longs on a 64-bit VM.
var hotspotInjected = map[string][]Type{
	"java.lang.String":                                     {TypeByte},                                                                 // flags
	"java.lang.Class":                                      {TypeLong, TypeLong, TypeInt, TypeInt, TypeObject, TypeObject, TypeObject}, // klass, array_klass, oop_size, static_oop_field_count, protection_domain, signers, source_file
	"java.lang.ClassLoader":                                {TypeLong},                                                                 // loader_data
	"java.lang.Module":                                     {TypeLong},                                                                 // module_entry
	"java.lang.invoke.MemberName":                          {TypeLong},                                                                 // vmindex
	"java.lang.invoke.ResolvedMethodName":                  {TypeLong, TypeObject},                                                     // vmtarget, vmholder
	"java.lang.invoke.MethodHandleNatives$CallSiteContext": {TypeLong, TypeLong},                                                       // vmdependencies, last_cleanup
	"java.lang.StackFrameInfo":                             {TypeShort},                                                                // version
	"java.lang.InternalError":                              {TypeBoolean},                                                              // during_unsafe_access
}

// hotspotContended are the JDK classes with @Contended fields (a field name
// → its group) or "*" for a @Contended class (java.base, JDK 17).
var hotspotContended = map[string]map[string]string{
	"java.lang.Thread": {"threadLocalRandomSeed": "tlr", "threadLocalRandomProbe": "tlr", "threadLocalRandomSecondarySeed": "tlr"},
	"java.util.concurrent.ForkJoinPool$WorkQueue":                   {"top": "w", "source": "w", "nsteals": "w"},
	"java.util.concurrent.ForkJoinPool":                             {"ctl": "fjpctl"},
	"java.util.concurrent.SubmissionPublisher$BufferedSubscription": {"*": "*", "demand": "c", "waiting": "c"},
	"java.util.concurrent.ConcurrentHashMap$CounterCell":            {"*": "*"},
	"java.util.concurrent.atomic.Striped64$Cell":                    {"*": "*"},
	"java.util.concurrent.Exchanger$Node":                           {"*": "*"},
}

// hidden class names: HotSpot writes Foo$$Lambda$14/0x0000000800c03000 as
// Foo$$Lambda$14+0x0000000800c03000 in dumps; jcmd prints the slash.
func hiddenName(s string) string {
	k := strings.LastIndex(s, "+0x")
	if k < 0 || k+3 == len(s) {
		return s
	}
	for _, c := range s[k+3:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return s
		}
	}
	return s[:k] + "/" + s[k+1:]
}

// hole is an empty slot of a layout.
type hole struct{ off, size uint32 }

// fieldLayout follows HotSpot's FieldLayoutBuilder (JDK 15 and later): the
// superclass's fields keep their offsets, the class's primitive fields
// (largest first) and then its references go into the smallest hole that
// fits them aligned to their size, or at the end; @Contended fields go at the
// end between paddings.
type fieldLayout struct {
	holes     []hole
	tail      uint32
	contended bool // a class so far has @Contended fields: no hole filling
}

func alignUp(n, a uint32) uint32 { return (n + a - 1) / a * a }

func (l *fieldLayout) place(size uint32, fill bool) {
	if fill {
		best := -1
		for k, h := range l.holes {
			adj := alignUp(h.off, size) - h.off
			if h.size >= size+adj && (best < 0 || h.size < l.holes[best].size) {
				best = k
			}
		}
		if best >= 0 {
			h := l.holes[best]
			adj := alignUp(h.off, size) - h.off
			var repl []hole
			if adj > 0 {
				repl = append(repl, hole{h.off, adj})
			}
			if rest := h.size - adj - size; rest > 0 {
				repl = append(repl, hole{h.off + adj + size, rest})
			}
			l.holes = slices.Replace(l.holes, best, best+1, repl...)
			return
		}
	}
	off := alignUp(l.tail, size)
	if off > l.tail {
		l.holes = append(l.holes, hole{l.tail, off - l.tail})
	}
	l.tail = off + size
}

// add lays out one class's fields.
func (l *fieldLayout) add(fields []vmField, ref uint32) {
	size := func(t Type) uint32 {
		if t == TypeObject {
			return ref
		}
		return uint32(typeSize[t])
	}
	classContended := false
	var regular []Type
	groups := map[string][]Type{}
	var order []string
	for _, f := range fields {
		switch f.group {
		case "*":
			classContended = true
			regular = append(regular, f.typ)
		case "":
			regular = append(regular, f.typ)
		default:
			if _, ok := groups[f.group]; !ok {
				order = append(order, f.group)
			}
			groups[f.group] = append(groups[f.group], f.typ)
		}
	}
	put := func(ts []Type, fill bool) {
		prims := make([]uint32, 0, len(ts))
		refs := 0
		for _, t := range ts {
			if t == TypeObject {
				refs++
			} else {
				prims = append(prims, size(t))
			}
		}
		slices.SortFunc(prims, func(a, b uint32) int { return int(b) - int(a) })
		for _, s := range prims {
			l.place(s, fill)
		}
		for range refs {
			l.place(ref, fill)
		}
	}
	if l.contended {
		l.holes = nil // a @Contended superclass's holes are reserved
	}
	pad := false
	if classContended {
		l.tail += contendedPadding
		pad = true
	}
	put(regular, !classContended && !l.contended)
	for _, g := range order {
		l.tail += contendedPadding
		put(groups[g], false)
		pad = true
	}
	if pad {
		l.tail += contendedPadding
		l.contended = true
	}
}

// staticSize is the bytes a class's static fields add to its mirror:
// references first, contiguous, then primitives filling holes, from an
// 8-aligned start.
func staticSize(statics []Type, ref uint32) uint32 {
	l := fieldLayout{}
	for _, t := range statics {
		if t == TypeObject {
			l.place(ref, false)
		}
	}
	var prims []Type
	for _, t := range statics {
		if t != TypeObject {
			prims = append(prims, t)
		}
	}
	l.add(fieldsOf(prims), ref)
	return alignUp(l.tail, 8)
}

func fieldsOf(ts []Type) []vmField {
	out := make([]vmField, len(ts))
	for k, t := range ts {
		out[k] = vmField{typ: t}
	}
	return out
}
