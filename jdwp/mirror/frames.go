package mirror

import (
	"context"
	"fmt"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Frame is a frame of a suspended thread as the debugger last read it. A
// method run for the debugger in the thread invalidates its frame ids (the
// VM answers INVALID_FRAMEID); every reader of a frame's values here (This,
// Locals, LocalValue, ReadLocals, SetLocal, PopFrames) makes it live first
// (Live: one command, only when its id is stale), so a frame read before a
// method ran serves as it is.
type Frame struct {
	Thread jdwp.ThreadID
	ID     jdwp.FrameID // 0 until read (HotSpot's first top frame has id 0 too: see Read)
	Loc    jdwp.Location
	Depth  int32
	Gen    int  // the thread's invocation generation when ID was read
	Read   bool // ID was read from the VM (an id of 0 is then one)
}

// Frames reads n frames of thread from depth start.
func (m *VM) Frames(ctx context.Context, thread jdwp.ThreadID, start, n int32) ([]Frame, error) {
	gen := m.Gen(thread)
	fs, err := m.conn.Frames(ctx, thread, start, n)
	if err != nil {
		return nil, err
	}
	out := make([]Frame, len(fs))
	for i, f := range fs {
		out[i] = Frame{Thread: thread, ID: f.ID, Loc: f.Location, Depth: start + int32(i), Gen: gen, Read: true}
	}
	return out, nil
}

// FramesAndCount returns up to n frames of a suspended thread from start
// (all from start when n <= 0) and its frame count, with one command: it
// asks for every frame from start (JDWP's "all remaining") and keeps n.
// Asking the count first and the frames after costs two round trips on a
// slow link, and asking both at once still two when the thread has fewer
// frames than asked (the VM refuses a range past its last frame): most
// stacks at a stop are shorter than the 20 frames an editor asks first.
// The frames past n cost 25 bytes each on the wire, nothing more.
func (m *VM) FramesAndCount(ctx context.Context, thread jdwp.ThreadID, start, n int32) ([]Frame, int32, error) {
	frames, err := m.Frames(ctx, thread, start, -1)
	if jdwp.Code(err) == jdwp.ErrInvalidIndex { // start is past the last frame
		total, err := m.conn.FrameCount(ctx, thread)
		return nil, total, err
	}
	if err != nil {
		return nil, 0, err
	}
	total := start + int32(len(frames))
	if n > 0 && int32(len(frames)) > n {
		frames = frames[:n]
	}
	return frames, total, nil
}

// Live returns f with an id that is valid now: f itself, or f read again
// when it was never read or a method ran in its thread since.
func (m *VM) Live(ctx context.Context, f Frame) (Frame, error) {
	gen := m.Gen(f.Thread)
	if (f.ID != 0 || f.Read) && f.Gen == gen {
		return f, nil
	}
	fs, err := m.conn.Frames(ctx, f.Thread, f.Depth, 1)
	if err != nil {
		return f, err
	}
	if len(fs) == 0 {
		return f, fmt.Errorf("thread has no frame %d", f.Depth)
	}
	f.ID, f.Loc, f.Gen, f.Read = fs[0].ID, fs[0].Location, gen, true
	return f, nil
}

// VisibleVariables returns the local variables live at loc; absent when the
// method has no variable table.
func (m *VM) VisibleVariables(ctx context.Context, loc jdwp.Location) (vars []jdwp.Variable, absent bool, err error) {
	vt, err := m.VariableTable(ctx, loc.Class, loc.Method)
	if err != nil || vt.Absent {
		return nil, vt.Absent, err
	}
	for _, v := range vt.Variables {
		// javac -g lists this (slot 0) among the locals; it is not one.
		if v.Visible(loc.Index) && (v.Name != "this" || v.Slot != 0) {
			vars = append(vars, v)
		}
	}
	return vars, false, nil
}

// Local finds a visible local variable of a frame by name (at its
// location: no command); the innermost declaration wins.
func (m *VM) Local(ctx context.Context, f Frame, name string) (jdwp.Variable, bool, error) {
	vars, _, err := m.VisibleVariables(ctx, f.Loc)
	if err != nil {
		return jdwp.Variable{}, false, err
	}
	for i := len(vars) - 1; i >= 0; i-- {
		if vars[i].Name == name {
			return vars[i], true, nil
		}
	}
	return jdwp.Variable{}, false, nil
}

// LocalValue reads a local variable of a frame (made live first).
func (m *VM) LocalValue(ctx context.Context, f Frame, v jdwp.Variable) (jdwp.Value, error) {
	vals, err := m.ReadLocals(ctx, f, []jdwp.Variable{v})
	if err != nil {
		return jdwp.Value{}, err
	}
	return vals[0], nil
}

// This returns the this object of a frame (made live first); 0 in a static
// or native method.
func (m *VM) This(ctx context.Context, f Frame) (jdwp.TaggedObjectID, error) {
	f, err := m.Live(ctx, f)
	if err != nil {
		return jdwp.TaggedObjectID{}, err
	}
	return m.conn.ThisObject(ctx, f.Thread, f.ID)
}

// systemThreadNames are the VM's own threads, HotSpot's and ART's.
var systemThreadNames = map[string]bool{
	"Reference Handler": true, "Finalizer": true, "Signal Dispatcher": true, "Common-Cleaner": true,
	"Notification Thread": true, "Attach Listener": true, "Service Thread": true, "Monitor Deflation Thread": true,
	"Signal Catcher": true, "ReferenceQueueDaemon": true, "FinalizerDaemon": true, "FinalizerWatchdogDaemon": true,
	"HeapTaskDaemon": true, "Jit thread pool worker thread 0": true, "Profile Saver": true,
}

// SystemThread reports whether a thread called name is the VM's own: by
// name, or by belonging to the "system" thread group.
func (m *VM) SystemThread(ctx context.Context, t jdwp.ThreadID, name string) bool {
	if systemThreadNames[name] {
		return true
	}
	sys, err := m.sysThreads.Get(t, func() (bool, error) {
		g, err := m.conn.ThreadGroup(ctx, t)
		if err != nil {
			return false, err
		}
		gn, err := m.conn.ThreadGroupName(ctx, g)
		return gn == "system", err
	})
	return err == nil && sys
}

// Locals reads the visible local variables of a frame, in declaration
// order, with one command (two when the frame is made live first); absent
// when the method has no variable table.
func (m *VM) Locals(ctx context.Context, f Frame) (vars []jdwp.Variable, vals []jdwp.Value, absent bool, err error) {
	vars, absent, err = m.VisibleVariables(ctx, f.Loc)
	if err != nil || len(vars) == 0 {
		return nil, nil, absent, err
	}
	if vals, err = m.ReadLocals(ctx, f, vars); err != nil {
		return nil, nil, false, fmt.Errorf("local variables: %w", err)
	}
	return vars, vals, false, nil
}

// ReadLocals reads local variables of a frame with one command (two when
// the frame is made live first).
func (m *VM) ReadLocals(ctx context.Context, f Frame, vars []jdwp.Variable) ([]jdwp.Value, error) {
	f, err := m.Live(ctx, f)
	if err != nil {
		return nil, err
	}
	slots := make([]jdwp.SlotRequest, len(vars))
	for i, v := range vars {
		slots[i] = jdwp.SlotRequest{Slot: v.Slot, Tag: jdwp.TagForSignature(v.Signature)}
	}
	return m.conn.FrameValues(ctx, f.Thread, f.ID, slots)
}

// FrameCount returns how many frames a suspended thread has.
func (m *VM) FrameCount(ctx context.Context, thread jdwp.ThreadID) (int32, error) {
	return m.conn.FrameCount(ctx, thread)
}

// SetLocal stores val in a local variable of a frame (made live first):
// what was read of the thread's frames is read again (FramesChanged).
func (m *VM) SetLocal(ctx context.Context, f Frame, v jdwp.Variable, val jdwp.Value) error {
	f, err := m.Live(ctx, f)
	if err != nil {
		return err
	}
	defer m.FramesChanged(f.Thread)
	return m.conn.SetFrameValues(ctx, f.Thread, f.ID, []jdwp.SlotValue{{Slot: v.Slot, Value: val}})
}

// ThreadStatus returns a thread's status and whether it is suspended.
func (m *VM) ThreadStatus(ctx context.Context, t jdwp.ThreadID) (jdwp.ThreadStatus, bool, error) {
	return m.conn.ThreadStatus(ctx, t)
}
