package jdwp

import "context"

// ObjectType returns the runtime type of an object (ObjectReference.ReferenceType).
func (c *Conn) ObjectType(ctx context.Context, obj ObjectID) (ci ClassInfo, err error) {
	err = c.do(ctx, CmdObjRefReferenceType, func(w *Writer) { w.ObjectID(obj) },
		func(r *Reader) { ci = ClassInfo{TypeTag: TypeTag(r.Byte()), ID: r.ReferenceTypeID()} })
	return ci, err
}

// FieldValues returns values of an object's instance fields (ObjectReference.GetValues).
func (c *Conn) FieldValues(ctx context.Context, obj ObjectID, fields []FieldID) (out []Value, err error) {
	err = c.do(ctx, CmdObjRefGetValues, func(w *Writer) { w.ObjectID(obj); writeFieldIDs(w, fields) },
		func(r *Reader) { out = readValues(r) })
	return out, err
}

// SetFieldValues sets an object's instance fields; values must have the fields' tags.
func (c *Conn) SetFieldValues(ctx context.Context, obj ObjectID, values []FieldValue) error {
	return c.do(ctx, CmdObjRefSetValues, func(w *Writer) {
		w.ObjectID(obj)
		w.Int32(int32(len(values)))
		for _, v := range values {
			w.FieldID(v.Field)
			w.UntaggedValue(v.Value)
		}
	}, nil)
}

// MonitorInfo is the reply of ObjectReference.MonitorInfo.
type MonitorInfo struct {
	Owner      ThreadID
	EntryCount int32
	Waiters    []ThreadID
}

// MonitorInfo returns an object's monitor state (needs CanGetMonitorInfo).
func (c *Conn) MonitorInfo(ctx context.Context, obj ObjectID) (mi MonitorInfo, err error) {
	err = c.do(ctx, CmdObjRefMonitorInfo, func(w *Writer) { w.ObjectID(obj) }, func(r *Reader) {
		mi = MonitorInfo{Owner: r.ObjectID(), EntryCount: r.Int32(), Waiters: readObjectIDs(r)}
	})
	return mi, err
}

// InvokeMethod invokes an instance method on obj in a thread suspended by an event.
// class is the type declaring the method.
func (c *Conn) InvokeMethod(ctx context.Context, obj ObjectID, thread ThreadID, class ClassID, method MethodID, args []Value, opts InvokeOptions) (res InvokeResult, err error) {
	err = c.do(ctx, CmdObjRefInvokeMethod, func(w *Writer) {
		w.ObjectID(obj)
		w.ObjectID(thread)
		w.ReferenceTypeID(class)
		w.MethodID(method)
		writeArgs(w, args, opts)
	}, func(r *Reader) { res = readInvokeResult(r) })
	return res, err
}

// DisableCollection keeps an object from being garbage collected.
func (c *Conn) DisableCollection(ctx context.Context, obj ObjectID) error {
	return c.do(ctx, CmdObjRefDisableCollection, func(w *Writer) { w.ObjectID(obj) }, nil)
}

// EnableCollection undoes DisableCollection.
func (c *Conn) EnableCollection(ctx context.Context, obj ObjectID) error {
	return c.do(ctx, CmdObjRefEnableCollection, func(w *Writer) { w.ObjectID(obj) }, nil)
}

// IsCollected reports whether an object was garbage collected.
func (c *Conn) IsCollected(ctx context.Context, obj ObjectID) (gone bool, err error) {
	err = c.do(ctx, CmdObjRefIsCollected, func(w *Writer) { w.ObjectID(obj) }, func(r *Reader) { gone = r.Bool() })
	return gone, err
}

// ReferringObjects returns up to max objects referring to obj (0 means
// all). Their ids are held as Instances' are (given back if ctx ends first).
func (c *Conn) ReferringObjects(ctx context.Context, obj ObjectID, max int32) (out []TaggedObjectID, err error) {
	err = c.doObjects(ctx, CmdObjRefReferringObjects, func(w *Writer) { w.ObjectID(obj); w.Int32(max) },
		func(r *Reader) { out = readTaggedObjects(r) })
	return out, err
}

// StringValue returns the characters of a java.lang.String.
func (c *Conn) StringValue(ctx context.Context, s StringID) (v string, err error) {
	err = c.do(ctx, CmdStringRefValue, func(w *Writer) { w.ObjectID(s) }, func(r *Reader) { v = r.String() })
	return v, err
}

// threadCmd runs a ThreadReference command whose only argument is the thread.
func (c *Conn) threadCmd(ctx context.Context, cmd Cmd, t ThreadID, dec func(*Reader)) error {
	return c.do(ctx, cmd, func(w *Writer) { w.ObjectID(t) }, dec)
}

// ThreadName returns a thread's name.
func (c *Conn) ThreadName(ctx context.Context, t ThreadID) (name string, err error) {
	err = c.threadCmd(ctx, CmdThreadName, t, func(r *Reader) { name = r.String() })
	return name, err
}

// SuspendThread suspends one thread.
func (c *Conn) SuspendThread(ctx context.Context, t ThreadID) error {
	return c.threadCmd(ctx, CmdThreadSuspend, t, nil)
}

// ResumeThread resumes one thread once.
func (c *Conn) ResumeThread(ctx context.Context, t ThreadID) error {
	return c.threadCmd(ctx, CmdThreadResume, t, nil)
}

// ThreadStatus returns a thread's status and whether it is suspended.
func (c *Conn) ThreadStatus(ctx context.Context, t ThreadID) (st ThreadStatus, suspended bool, err error) {
	err = c.threadCmd(ctx, CmdThreadStatus, t, func(r *Reader) { st, suspended = readThreadStatus(r) })
	return st, suspended, err
}

func readThreadStatus(r *Reader) (ThreadStatus, bool) {
	st := ThreadStatus(r.Int32())
	return st, r.Int32()&SuspendStatusSuspended != 0
}

// ThreadGroup returns a thread's group.
func (c *Conn) ThreadGroup(ctx context.Context, t ThreadID) (g ThreadGroupID, err error) {
	err = c.threadCmd(ctx, CmdThreadThreadGroup, t, func(r *Reader) { g = r.ObjectID() })
	return g, err
}

// Frame is one stack frame of a suspended thread.
type Frame struct {
	ID       FrameID
	Location Location
}

// Frames returns frames of a suspended thread, from start, at most length of
// them (-1 for all).
func (c *Conn) Frames(ctx context.Context, t ThreadID, start, length int32) (out []Frame, err error) {
	err = c.do(ctx, CmdThreadFrames, func(w *Writer) { w.ObjectID(t); w.Int32(start); w.Int32(length) }, func(r *Reader) { out = readFrames(r) })
	return out, err
}

func readFrames(r *Reader) []Frame {
	n := r.Count(r.Sizes.FrameID + 1 + r.Sizes.ReferenceTypeID + r.Sizes.MethodID + 8)
	out := make([]Frame, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		out = append(out, Frame{ID: r.FrameID(), Location: r.Location()})
	}
	return out
}

// FrameCount returns the number of frames of a suspended thread.
func (c *Conn) FrameCount(ctx context.Context, t ThreadID) (n int32, err error) {
	err = c.threadCmd(ctx, CmdThreadFrameCount, t, func(r *Reader) { n = r.Int32() })
	return n, err
}

// OwnedMonitors returns the monitors a suspended thread owns.
func (c *Conn) OwnedMonitors(ctx context.Context, t ThreadID) (out []TaggedObjectID, err error) {
	err = c.threadCmd(ctx, CmdThreadOwnedMonitors, t, func(r *Reader) { out = readTaggedObjects(r) })
	return out, err
}

// CurrentContendedMonitor returns the monitor a suspended thread waits for (ID 0 if none).
func (c *Conn) CurrentContendedMonitor(ctx context.Context, t ThreadID) (m TaggedObjectID, err error) {
	err = c.threadCmd(ctx, CmdThreadCurrentContendedMonitor, t, func(r *Reader) { m = r.TaggedObjectID() })
	return m, err
}

// StopThread throws an exception object in a thread.
func (c *Conn) StopThread(ctx context.Context, t ThreadID, throwable ObjectID) error {
	return c.do(ctx, CmdThreadStop, func(w *Writer) { w.ObjectID(t); w.ObjectID(throwable) }, nil)
}

// InterruptThread interrupts a thread.
func (c *Conn) InterruptThread(ctx context.Context, t ThreadID) error {
	return c.threadCmd(ctx, CmdThreadInterrupt, t, nil)
}

// SuspendCount returns how many times a thread was suspended.
func (c *Conn) SuspendCount(ctx context.Context, t ThreadID) (n int32, err error) {
	err = c.threadCmd(ctx, CmdThreadSuspendCount, t, func(r *Reader) { n = r.Int32() })
	return n, err
}

// MonitorDepth is an owned monitor and the depth of the frame that locked it.
type MonitorDepth struct {
	Monitor TaggedObjectID
	Depth   int32
}

// OwnedMonitorsStackDepthInfo returns owned monitors with their frame depths.
func (c *Conn) OwnedMonitorsStackDepthInfo(ctx context.Context, t ThreadID) (out []MonitorDepth, err error) {
	err = c.threadCmd(ctx, CmdThreadOwnedMonitorsStackDepthInfo, t, func(r *Reader) {
		n := r.Count(5 + r.Sizes.ObjectID)
		out = make([]MonitorDepth, 0, n)
		for i := 0; i < n && r.Err() == nil; i++ {
			out = append(out, MonitorDepth{Monitor: r.TaggedObjectID(), Depth: r.Int32()})
		}
	})
	return out, err
}

// ForceEarlyReturn makes the top frame of a suspended thread return value.
func (c *Conn) ForceEarlyReturn(ctx context.Context, t ThreadID, value Value) error {
	return c.do(ctx, CmdThreadForceEarlyReturn, func(w *Writer) { w.ObjectID(t); w.Value(value) }, nil)
}

// IsVirtual reports whether a thread is a virtual thread (JDWP 19+).
func (c *Conn) IsVirtual(ctx context.Context, t ThreadID) (v bool, err error) {
	err = c.threadCmd(ctx, CmdThreadIsVirtual, t, func(r *Reader) { v = r.Bool() })
	return v, err
}

// ThreadGroupName returns a thread group's name.
func (c *Conn) ThreadGroupName(ctx context.Context, g ThreadGroupID) (name string, err error) {
	err = c.do(ctx, CmdThreadGroupName, func(w *Writer) { w.ObjectID(g) }, func(r *Reader) { name = r.String() })
	return name, err
}

// ThreadGroupParent returns a group's parent (0 for a top-level group).
func (c *Conn) ThreadGroupParent(ctx context.Context, g ThreadGroupID) (p ThreadGroupID, err error) {
	err = c.do(ctx, CmdThreadGroupParent, func(w *Writer) { w.ObjectID(g) }, func(r *Reader) { p = r.ObjectID() })
	return p, err
}

// ThreadGroupChildren returns a group's live threads and child groups.
func (c *Conn) ThreadGroupChildren(ctx context.Context, g ThreadGroupID) (threads []ThreadID, groups []ThreadGroupID, err error) {
	err = c.do(ctx, CmdThreadGroupChildren, func(w *Writer) { w.ObjectID(g) }, func(r *Reader) {
		threads, groups = readObjectIDs(r), readObjectIDs(r)
	})
	return threads, groups, err
}

// ArrayLength returns an array's length.
func (c *Conn) ArrayLength(ctx context.Context, arr ArrayID) (n int32, err error) {
	err = c.do(ctx, CmdArrayRefLength, func(w *Writer) { w.ObjectID(arr) }, func(r *Reader) { n = r.Int32() })
	return n, err
}

// ArrayValues returns length elements of an array from first. Elements of
// primitive arrays carry the array's element tag; object arrays carry each
// element's own tag.
func (c *Conn) ArrayValues(ctx context.Context, arr ArrayID, first, length int32) (out []Value, err error) {
	err = c.do(ctx, CmdArrayRefGetValues, func(w *Writer) { writeArrayRange(w, arr, first, length) },
		func(r *Reader) { out = readArrayRegion(r) })
	return out, err
}

func writeArrayRange(w *Writer, arr ArrayID, first, length int32) {
	w.ObjectID(arr)
	w.Int32(first)
	w.Int32(length)
}

// readArrayRegion reads an ArrayReference.GetValues reply: an arrayregion,
// its values tagged for object elements and untagged for primitives.
func readArrayRegion(r *Reader) []Value {
	tag := Tag(r.Byte())
	if r.Err() == nil && tag.size(r.Sizes) < 0 {
		r.Fail(errUnknownTag(tag))
		return nil
	}
	tagged := tag.IsObject()
	elem := tag.size(r.Sizes)
	if tagged {
		elem = 1 + r.Sizes.ObjectID
	}
	n := r.Count(max(elem, 1))
	out := make([]Value, 0, n)
	for i := 0; i < n && r.Err() == nil; i++ {
		if tagged {
			out = append(out, r.Value())
		} else {
			out = append(out, r.UntaggedValue(tag))
		}
	}
	return out
}

// SetArrayValues sets elements of an array from first. Values must have the element type's tag.
func (c *Conn) SetArrayValues(ctx context.Context, arr ArrayID, first int32, values []Value) error {
	return c.do(ctx, CmdArrayRefSetValues, func(w *Writer) {
		w.ObjectID(arr)
		w.Int32(first)
		w.Int32(int32(len(values)))
		for _, v := range values {
			w.UntaggedValue(v)
		}
	}, nil)
}

// SlotRequest names a local variable slot and the tag to read it as.
type SlotRequest struct {
	Slot int32
	Tag  Tag
}

// FrameValues returns local variables of a frame (StackFrame.GetValues).
func (c *Conn) FrameValues(ctx context.Context, t ThreadID, f FrameID, slots []SlotRequest) (out []Value, err error) {
	err = c.do(ctx, CmdStackFrameGetValues, func(w *Writer) { writeSlots(w, t, f, slots) }, func(r *Reader) { out = readValues(r) })
	return out, err
}

func writeSlots(w *Writer, t ThreadID, f FrameID, slots []SlotRequest) {
	w.ObjectID(t)
	w.FrameID(f)
	w.Int32(int32(len(slots)))
	for _, s := range slots {
		w.Int32(s.Slot)
		w.Byte(byte(s.Tag))
	}
}

// SlotValue is a local variable slot and a value to store in it.
type SlotValue struct {
	Slot  int32
	Value Value
}

// SetFrameValues sets local variables of a frame (StackFrame.SetValues).
func (c *Conn) SetFrameValues(ctx context.Context, t ThreadID, f FrameID, values []SlotValue) error {
	return c.do(ctx, CmdStackFrameSetValues, func(w *Writer) {
		w.ObjectID(t)
		w.FrameID(f)
		w.Int32(int32(len(values)))
		for _, v := range values {
			w.Int32(v.Slot)
			w.Value(v.Value)
		}
	}, nil)
}

// ThisObject returns a frame's this (ID 0 in static and native methods).
func (c *Conn) ThisObject(ctx context.Context, t ThreadID, f FrameID) (obj TaggedObjectID, err error) {
	err = c.do(ctx, CmdStackFrameThisObject, func(w *Writer) { w.ObjectID(t); w.FrameID(f) }, func(r *Reader) { obj = r.TaggedObjectID() })
	return obj, err
}

// PopFrames pops frames up to and including f (needs CanPopFrames).
func (c *Conn) PopFrames(ctx context.Context, t ThreadID, f FrameID) error {
	return c.do(ctx, CmdStackFramePopFrames, func(w *Writer) { w.ObjectID(t); w.FrameID(f) }, nil)
}
