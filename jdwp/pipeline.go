package jdwp

import (
	"context"
	"fmt"
)

// Pipeline sends typed commands without waiting for their replies, so that a
// caller with many independent questions (every thread's frames, every
// element's fields) asks them all at once: each command is encoded straight
// into the connection's output and goes out with the write under way (the
// writer is woken only when none is), so a burst leaves in a few large
// writes; the replies are decoded when the caller waits for them. No
// goroutine per command, no round trip per command, one allocation per
// command sent: what the VM's single-threaded agent allows. A Pipeline is
// safe for concurrent use.
//
// A command whose arguments depend on another's reply waits for that reply
// first (Future.Wait) and is sent then; commands sent from one goroutine are
// answered in the order they were sent (HotSpot's agent serves one command at
// a time), so waiting on futures in the order they were made never waits
// longer than the last of them.
type Pipeline struct {
	c     *Conn
	sizes *IDSizes
}

// Pipeline returns a pipeline on the connection, asking the VM for its id
// sizes first if they are not known yet.
func (c *Conn) Pipeline(ctx context.Context) (*Pipeline, error) {
	s, err := c.sized(ctx)
	if err != nil {
		return nil, err
	}
	return &Pipeline{c: c, sizes: s}, nil
}

// Future is the reply to a command sent on a Pipeline.
type Future[T any] struct {
	call Call
	p    *Pipeline
	err  error // the command could not be sent
	dec  func(*Reader) T
}

// Done is closed once the reply arrived or the command failed.
func (f *Future[T]) Done() <-chan struct{} {
	if f.err != nil {
		return closedChan
	}
	return f.call.Done()
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Wait waits for the reply and decodes it. A JDWP error reply is returned as
// a *CommandError, as by the Conn's methods. When ctx ends first, the late
// reply is dropped when it comes.
func (f *Future[T]) Wait(ctx context.Context) (T, error) {
	var zero T
	if f.err != nil {
		return zero, f.err
	}
	b, err := f.call.Wait(ctx)
	if err != nil {
		if ctx.Err() != nil {
			select {
			case <-f.call.Done():
			default:
				// The caller gave up: the reply is not wanted.
				f.p.c.forget(f.call.ID)
			}
		}
		return zero, err
	}
	r := Reader{Sizes: f.p.sizes, b: b}
	v := f.dec(&r)
	if r.err != nil {
		return zero, fmt.Errorf("%s: bad reply: %w", f.call.Cmd, r.err)
	}
	return v, nil
}

// send queues one command; enc writes its data (may be nil). The future
// and its call are one allocation; the data is encoded in place.
func send[T any](p *Pipeline, cmd Cmd, enc func(*Writer), dec func(*Reader) T) *Future[T] {
	f := &Future[T]{p: p, dec: dec}
	f.err = p.c.startCall(&f.call, cmd, p.sizes, enc)
	return f
}

// failed is a future that fails at once with err.
func failed[T any](err error) *Future[T] { return &Future[T]{err: err} }

// FieldValues sends ObjectReference.GetValues (see Conn.FieldValues).
func (p *Pipeline) FieldValues(obj ObjectID, fields []FieldID) *Future[[]Value] {
	return send(p, CmdObjRefGetValues, func(w *Writer) { w.ObjectID(obj); writeFieldIDs(w, fields) }, readValues)
}

// ArrayValues sends ArrayReference.GetValues (see Conn.ArrayValues).
func (p *Pipeline) ArrayValues(arr ArrayID, first, length int32) *Future[[]Value] {
	return send(p, CmdArrayRefGetValues, func(w *Writer) { writeArrayRange(w, arr, first, length) }, readArrayRegion)
}

// StringValue sends StringReference.Value (see Conn.StringValue).
func (p *Pipeline) StringValue(s StringID) *Future[string] {
	return send(p, CmdStringRefValue, func(w *Writer) { w.ObjectID(s) }, (*Reader).String)
}

// ThreadName sends ThreadReference.Name (see Conn.ThreadName).
func (p *Pipeline) ThreadName(t ThreadID) *Future[string] {
	return send(p, CmdThreadName, func(w *Writer) { w.ObjectID(t) }, (*Reader).String)
}

// ThreadState is a reply to ThreadReference.Status.
type ThreadState struct {
	Status    ThreadStatus
	Suspended bool
}

// ThreadStatus sends ThreadReference.Status (see Conn.ThreadStatus).
func (p *Pipeline) ThreadStatus(t ThreadID) *Future[ThreadState] {
	return send(p, CmdThreadStatus, func(w *Writer) { w.ObjectID(t) }, func(r *Reader) ThreadState {
		st, suspended := readThreadStatus(r)
		return ThreadState{st, suspended}
	})
}

// Frames sends ThreadReference.Frames (see Conn.Frames).
func (p *Pipeline) Frames(t ThreadID, start, length int32) *Future[[]Frame] {
	return send(p, CmdThreadFrames, func(w *Writer) { w.ObjectID(t); w.Int32(start); w.Int32(length) }, readFrames)
}

// FrameValues sends StackFrame.GetValues (see Conn.FrameValues).
func (p *Pipeline) FrameValues(t ThreadID, f FrameID, slots []SlotRequest) *Future[[]Value] {
	return send(p, CmdStackFrameGetValues, func(w *Writer) { writeSlots(w, t, f, slots) }, readValues)
}

// Fields sends ReferenceType.Fields (see Conn.Fields).
func (p *Pipeline) Fields(t ReferenceTypeID) *Future[[]FieldInfo] {
	return p.fields(CmdRefTypeFields, t, false)
}

// FieldsWithGeneric sends ReferenceType.FieldsWithGeneric (see Conn.FieldsWithGeneric).
func (p *Pipeline) FieldsWithGeneric(t ReferenceTypeID) *Future[[]FieldInfo] {
	return p.fields(CmdRefTypeFieldsWithGeneric, t, true)
}

func (p *Pipeline) fields(cmd Cmd, t ReferenceTypeID, generic bool) *Future[[]FieldInfo] {
	return send(p, cmd, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) []FieldInfo { return readFields(r, generic) })
}

// Methods sends ReferenceType.Methods (see Conn.Methods).
func (p *Pipeline) Methods(t ReferenceTypeID) *Future[[]MethodInfo] {
	return p.methods(CmdRefTypeMethods, t, false)
}

// MethodsWithGeneric sends ReferenceType.MethodsWithGeneric (see Conn.MethodsWithGeneric).
func (p *Pipeline) MethodsWithGeneric(t ReferenceTypeID) *Future[[]MethodInfo] {
	return p.methods(CmdRefTypeMethodsWithGeneric, t, true)
}

func (p *Pipeline) methods(cmd Cmd, t ReferenceTypeID, generic bool) *Future[[]MethodInfo] {
	return send(p, cmd, func(w *Writer) { w.ReferenceTypeID(t) }, func(r *Reader) []MethodInfo { return readMethods(r, generic) })
}

// LineTable sends Method.LineTable (see Conn.LineTable; method id 0 fails
// without asking, as there).
func (p *Pipeline) LineTable(t ReferenceTypeID, m MethodID) *Future[LineTable] {
	if m == 0 {
		return failed[LineTable](noMethod(CmdMethodLineTable))
	}
	return send(p, CmdMethodLineTable, func(w *Writer) { writeMethod(w, t, m) }, readLineTable)
}

// VariableTable sends Method.VariableTable (see Conn.VariableTable; method
// id 0 fails without asking, as there).
func (p *Pipeline) VariableTable(t ReferenceTypeID, m MethodID) *Future[VariableTable] {
	if m == 0 {
		return failed[VariableTable](noMethod(CmdMethodVariableTable))
	}
	return send(p, CmdMethodVariableTable, func(w *Writer) { writeMethod(w, t, m) }, func(r *Reader) VariableTable { return readVariableTable(r, false) })
}
