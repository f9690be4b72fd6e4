package debugger

import "time"

// Whether the classes the view shows are counted in a command of their own,
// before the others, is measured, not assumed. What one InstanceCounts costs
// depends on the VM: HotSpot's agent follows every reference from the roots
// whatever classes it is asked about (JVMTI FollowReferences), so a count of
// the 50 classes a view shows takes about as long as a count of all of them,
// and counting them first only adds a second heap walk; ART visits each
// object and looks its class up among those asked, so the shown classes
// alone cost a fraction. The plan counts everything in one command until it
// has a measurement, then tries the shown classes first once and keeps doing
// so only while that brings them at most half as late, and by minShownGain
// at least, as one command for all would; it measures again when the number
// of shown classes or the cost of a count changes twofold.

// minShownGain is how much sooner the shown classes must arrive for a
// command of their own to pay: below it nobody sees the difference.
const minShownGain = 100 * time.Millisecond

// countPlan is the measurement behind the choice.
type countPlan struct {
	all   time.Duration // the latest count of every class (one command; while split pays, the sum of both)
	shown time.Duration // the latest count of the shown classes alone; 0: never tried
	// What the trial was made at: the number of classes shown, and the
	// cost of all then.
	triedShown int
	triedAll   time.Duration
}

// split reports whether the next count should count the nShown classes
// the view shows first, in a command of their own.
func (p *countPlan) split(nShown int) bool {
	switch {
	case nShown == 0 || p.all == 0: // nothing shown, or no count of all measured yet
		return false
	case p.all < minShownGain: // cheap counts: one command, nobody waits
		return false
	case p.shown == 0 || twofold(nShown, p.triedShown) || twofold(int(p.all), int(p.triedAll)):
		return true // try (again): what was measured no longer holds
	}
	return pays(p.shown, p.all)
}

// pays reports whether the shown classes alone, counted in shown, arrive
// soon enough before a count of all, in all, to be worth a second command.
func pays(shown, all time.Duration) bool {
	return 2*shown <= all && all-shown >= minShownGain
}

// counted books a count: of every class in one command (shown 0, the time
// in rest), or of the nShown shown classes in shown and the rest in rest.
func (p *countPlan) counted(nShown int, shown, rest time.Duration) {
	if shown == 0 {
		p.all = rest
		return
	}
	if p.shown == 0 || twofold(nShown, p.triedShown) || twofold(int(p.all), int(p.triedAll)) {
		p.triedShown, p.triedAll = nShown, p.all // a trial, against one command's cost
	}
	p.shown = shown
	if pays(shown, p.all) {
		p.all = shown + rest // counted in two from now on: what all costs, roughly
	}
}

// twofold reports whether a and b differ by a factor of two or more.
func twofold(a, b int) bool { return a >= 2*b || b >= 2*a }
