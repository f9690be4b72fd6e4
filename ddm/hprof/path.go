package hprof

import (
	"cmp"
	"slices"
)

// Path is a path from a GC root to an object as a listing shows it: every
// step when it is short; when it is long, the first and last steps with the
// middle elided and summed up by class, as Eclipse MAT folds a long chain.
// Its size is bounded by the steps kept, whatever the path's length.
type Path struct {
	Object uint64     `json:"object"` // the target's id
	Length int        `json:"length"` // objects on the whole path, root and target included; 0: unreachable
	Steps  []PathStep `json:"steps"`  // root first; with Elided, the first Elided.After steps then the last ones
	Elided *PathGap   `json:"elided,omitempty"`
}

// PathGap is the elided middle of a long path.
type PathGap struct {
	After   int          `json:"after"`   // the gap follows this many steps (Steps[:After])
	Count   int          `json:"count"`   // objects left out
	Classes []ClassCount `json:"classes"` // what they are, most frequent first (at most 5 classes)
}

// ClassCount is a class and a number of its objects.
type ClassCount struct {
	Class string `json:"class"`
	Count int    `json:"count"`
}

// ElidePath folds p (from PathFromRoot) to at most keep steps: the first
// keep/2 and the last keep−keep/2, the middle counted by class. keep ≤ 0
// keeps every step.
func ElidePath(id uint64, p []PathStep, keep int) Path {
	out := Path{Object: id, Length: len(p), Steps: p}
	if out.Steps == nil {
		out.Steps = []PathStep{}
	}
	if keep <= 0 || len(p) <= keep {
		return out
	}
	head, tail := keep/2, keep-keep/2
	mid := p[head : len(p)-tail]
	counts := map[string]int{}
	for _, s := range mid {
		counts[s.Class]++
	}
	gap := &PathGap{After: head, Count: len(mid)}
	for c, n := range counts {
		gap.Classes = append(gap.Classes, ClassCount{c, n})
	}
	slices.SortFunc(gap.Classes, func(a, b ClassCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Class, b.Class)
	})
	if len(gap.Classes) > 5 {
		gap.Classes = gap.Classes[:5]
	}
	out.Steps = append(slices.Clip(p[:head]), p[len(p)-tail:]...)
	out.Elided = gap
	return out
}
