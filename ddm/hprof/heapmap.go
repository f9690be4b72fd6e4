package hprof

import (
	"slices"

	"github.com/ddmbridge/ddmbridge/ddm"
)

// MapOptions tunes [Heap.Map].
type MapOptions struct {
	// MaxGap is the largest free stretch between two objects drawn as free
	// space inside one piece; a wider gap starts a new piece. 0 means 4 MiB.
	MaxGap uint64
}

const mapUnit = 8 // bytes per allocation unit: HotSpot's object alignment

// Map draws the heap from object addresses, as the DDM heap map (HPSG) does
// for Android: objects in address order, each a block of its kind (class
// objects, instances, arrays by element size) covering the space up to the
// next object when that is within a few bytes of its estimated size (the
// VM's hidden fields and padding), free space in between, pieces where the
// gap is wider than MaxGap. It is meaningful for HotSpot dumps, whose ids are
// addresses; for Android dumps (whose ids are also addresses) it shows each
// heap's objects the same way.
func (h *Heap) Map(opt MapOptions) *ddm.HeapMap {
	maxGap := opt.MaxGap
	if maxGap == 0 {
		maxGap = 4 << 20
	}
	order := make([]int32, h.ids.len())
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		switch {
		case h.ids.at(a) < h.ids.at(b):
			return -1
		case h.ids.at(a) > h.ids.at(b):
			return 1
		}
		return 0
	})
	m := &ddm.HeapMap{Complete: true, PerObject: false}
	var cur *ddm.Piece
	add := func(k ddm.Kind, s ddm.Solidity, units uint64) {
		for units > 0 {
			u := min(units, 1<<31)
			units -= u
			if n := len(cur.Blocks); n > 0 && cur.Blocks[n-1].Kind == k && cur.Blocks[n-1].Solidity == s && uint64(cur.Blocks[n-1].Units)+u < 1<<32 {
				cur.Blocks[n-1].Units += uint32(u)
			} else {
				cur.Blocks = append(cur.Blocks, ddm.Block{Kind: k, Solidity: s, Units: uint32(u)})
			}
			cur.Units += u
		}
	}
	for k, i := range order {
		addr := h.ids.at(i) &^ (mapUnit - 1)
		if cur == nil || addr < cur.End() || addr-cur.End() > maxGap {
			if cur != nil && addr < cur.End() {
				continue // overlapping ids (not addresses): skip
			}
			m.Pieces = append(m.Pieces, ddm.Piece{Start: addr, UnitSize: mapUnit})
			cur = &m.Pieces[len(m.Pieces)-1]
		} else if gap := addr - cur.End(); gap > 0 {
			add(ddm.KindObject, ddm.SolidFree, gap/mapUnit)
		}
		size := max(uint64(h.Size(i)), mapUnit)
		if k+1 < len(order) {
			next := h.ids.at(order[k+1]) &^ (mapUnit - 1)
			if next > addr && next-addr >= size && next-addr-size <= 4*mapUnit {
				size = next - addr // hidden fields and padding belong to the object
			}
		}
		add(h.kind(i), ddm.SolidHard, (size+mapUnit-1)/mapUnit)
	}
	return m
}

// kind is the DDM heap-map kind of object i.
func (h *Heap) kind(i int32) ddm.Kind {
	if h.IsClassObject(i) {
		return ddm.KindClass
	}
	switch e := h.Classes[h.cls[i]].Elem; {
	case e == 0:
		return ddm.KindObject
	case e == TypeObject, typeSize[e] == 4:
		return ddm.KindArray4
	case typeSize[e] == 1:
		return ddm.KindArray1
	case typeSize[e] == 2:
		return ddm.KindArray2
	default:
		return ddm.KindArray8
	}
}
