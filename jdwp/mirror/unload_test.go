package mirror

import (
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// TestUnloadedForgetsTheClass: after a class unload, what was cached by its
// signature and its id is fetched again; other classes keep their entries.
func TestUnloadedForgetsTheClass(t *testing.T) {
	m := New(nil, Config{}) // the caches are filled by hand: no command is sent
	fetches := 0
	id := func(v jdwp.ReferenceTypeID) func() (jdwp.ReferenceTypeID, error) {
		return func() (jdwp.ReferenceTypeID, error) { fetches++; return v, nil }
	}
	str := func(v string) func() (string, error) { return func() (string, error) { fetches++; return v, nil } }
	yes := func() (bool, error) { fetches++; return true, nil }
	fill := func() {
		m.bySig.Get("LGone;", id(7))
		m.bySig.Get("LKept;", id(8))
		m.sigs.Get(7, str("LGone;"))
		m.sigs.Get(8, str("LKept;"))
		m.supers.Get(7, id(1))
		m.subtypes.Get(subtypeKey{7, "LBase;"}, yes)
		m.subtypes.Get(subtypeKey{8, "LGone;"}, yes)
		m.subtypes.Get(subtypeKey{8, "LBase;"}, yes)
		m.lines.Get(methodKey{7, 1}, func() (Lines, error) { fetches++; return Lines{Absent: true}, nil })
	}
	fill()
	if fetches != 9 {
		t.Fatalf("filling fetched %d times, want 9", fetches)
	}
	if got := m.Unloaded("LGone;"); got != 7 {
		t.Errorf("Unloaded returned %d, want the cached id 7", got)
	}
	fetches = 0
	fill()
	// Gone: bySig, sigs, supers, both subtype answers naming it, its line
	// table. Kept: LKept;'s id and signature and its other subtype answer.
	if fetches != 6 {
		t.Errorf("after Unloaded, refilling fetched %d times, want 6", fetches)
	}
	if got := m.Unloaded("LNeverSeen;"); got != 0 {
		t.Errorf("Unloaded of an unknown class returned %d, want 0", got)
	}
}
