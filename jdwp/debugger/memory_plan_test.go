package debugger

import (
	"slices"
	"testing"
	"time"
)

// TestCountPlan drives the plan with the costs of two VMs: one whose count
// costs the same whatever classes it is asked about (HotSpot follows every
// reference), where the shown classes are tried first once and then counted
// with the rest in one command; one whose count costs in proportion to the
// classes asked (ART), where they keep being counted first. A new
// measurement is made when the number shown or the cost changes twofold;
// cheap counts are never split.
func TestCountPlan(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	type count struct {
		nShown      int
		shown, rest time.Duration // the costs the VM would have: shown alone, and the others
		all         time.Duration // all in one command
	}
	run := func(p *countPlan, c count) bool {
		if p.split(c.nShown) {
			p.counted(c.nShown, c.shown, c.rest)
			return true
		}
		p.counted(c.nShown, 0, c.all)
		return false
	}
	hotspot := count{nShown: 50, shown: ms(1400), rest: ms(450), all: ms(1450)}
	art := count{nShown: 50, shown: ms(200), rest: ms(1300), all: ms(1500)}

	var p countPlan
	if run(&p, count{nShown: 0, all: ms(1450)}) {
		t.Fatal("split with nothing shown")
	}
	var got []bool
	for range 5 {
		got = append(got, run(&p, hotspot))
	}
	if want := []bool{true, false, false, false, false}; !slices.Equal(got, want) {
		t.Errorf("HotSpot's costs: split %v, want %v (tried once)", got, want)
	}
	// Twice as many classes shown: tried again, still does not pay.
	wide := hotspot
	wide.nShown = 100
	if !run(&p, wide) || run(&p, wide) {
		t.Error("HotSpot's costs, twice as many shown: want one more trial, then one command")
	}
	// The heap grew fourfold: once that is measured, tried again.
	big := count{nShown: 100, shown: ms(5600), rest: ms(1800), all: ms(5800)}
	got = got[:0]
	for range 3 {
		got = append(got, run(&p, big))
	}
	if want := []bool{false, true, false}; !slices.Equal(got, want) {
		t.Errorf("HotSpot's costs, a heap four times larger: split %v, want %v (measured, tried, one command)", got, want)
	}

	p = countPlan{}
	run(&p, count{nShown: 0, all: ms(1500)})
	got = got[:0]
	for range 5 {
		got = append(got, run(&p, art))
	}
	if want := []bool{true, true, true, true, true}; !slices.Equal(got, want) {
		t.Errorf("ART's costs: split %v, want %v", got, want)
	}

	p = countPlan{}
	cheap := count{nShown: 50, shown: ms(5), rest: ms(40), all: ms(45)}
	for range 3 {
		if run(&p, cheap) {
			t.Fatal("split a count of 45 ms")
		}
	}
}
