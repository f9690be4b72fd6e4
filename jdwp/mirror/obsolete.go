package mirror

import (
	"context"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Obsolete methods. After RedefineClasses, a frame still running a method
// whose code changed runs the old ("obsolete") version, and JDWP names its
// method 0: no name, no line table, no variables. Which method a frame runs
// cannot change while the frame lives, and the frames below it cannot
// either, so a frame is known by its thread and its height (its distance
// from the bottom of the stack). Obsolete records, just before a
// redefinition, what each frame of the redefined classes runs — the
// method's name, signature and old line table — for the threads that are
// suspended then (a running thread's frames cannot be read), and answers
// for the obsolete frames afterwards.

// OldMethod is a method as it was before a redefinition made it obsolete.
type OldMethod struct {
	Class  jdwp.ReferenceTypeID
	Method jdwp.MethodInfo
	Lines  Lines // the old method's line table
}

type heightKey struct {
	thread jdwp.ThreadID
	height int32
}

// Obsolete remembers the methods the frames of redefined classes were
// running. The zero value is ready to use.
type Obsolete struct {
	mu     sync.Mutex
	frames map[heightKey]OldMethod
}

// Before reads, for every suspended thread, the frames running methods of
// classes, to call before redefining them; commit keeps what was read
// (call it once the VM took the new classes). Threads the VM runs are
// passed over.
func (o *Obsolete) Before(ctx context.Context, m *VM, classes map[jdwp.ReferenceTypeID]bool) (commit func(), err error) {
	threads, err := m.Threads(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[heightKey]OldMethod{}
	for _, t := range threads {
		n, err := m.FrameCount(ctx, t)
		if err != nil || n == 0 {
			continue // running, or gone
		}
		frames, err := m.Frames(ctx, t, 0, n)
		if err != nil {
			continue
		}
		for _, f := range frames {
			if !classes[f.Loc.Class] || f.Loc.Method == 0 {
				continue // not redefined now, or obsolete already (known since then)
			}
			mi, err := m.Method(ctx, f.Loc.Class, f.Loc.Method)
			if err != nil {
				return nil, err
			}
			lines, err := m.LineTable(ctx, f.Loc.Class, f.Loc.Method)
			if err != nil {
				return nil, err
			}
			seen[heightKey{t, n - f.Depth}] = OldMethod{Class: f.Loc.Class, Method: mi, Lines: lines}
		}
	}
	return func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		if o.frames == nil {
			o.frames = map[heightKey]OldMethod{}
		}
		for k, v := range seen {
			o.frames[k] = v
		}
	}, nil
}

// Find returns the old method an obsolete frame runs (f.Loc.Method is 0),
// its frame count being total; false when no redefinition saw the frame
// (its thread was running then).
func (o *Obsolete) Find(f Frame, total int32) (OldMethod, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	old, ok := o.frames[heightKey{f.Thread, total - f.Depth}]
	if !ok || old.Class != f.Loc.Class {
		return OldMethod{}, false
	}
	if !old.Lines.Absent && (f.Loc.Index < old.Lines.Start || f.Loc.Index > old.Lines.End) {
		return OldMethod{}, false // another activation than the one seen
	}
	return old, true
}
