package jdwp

import "context"

// Modifier restricts an event request (EventRequest.Set). The concrete types
// below are the JDWP modifier kinds 1..13.
type Modifier interface {
	kind() byte
	encode(w *Writer)
}

type (
	// Count reports the event only once, after Count-1 occurrences are skipped.
	Count int32
	// Conditional is reserved by JDWP (expression id); no VM implements it.
	Conditional int32
	// ThreadOnly restricts to events in one thread.
	ThreadOnly ThreadID
	// ClassOnly restricts to a type and its subtypes.
	ClassOnly ReferenceTypeID
	// ClassMatch restricts to classes whose name matches a pattern like "java.*" or "*.Foo".
	ClassMatch string
	// ClassExclude excludes classes whose name matches a pattern.
	ClassExclude string
	// LocationOnly restricts to one location (breakpoints).
	LocationOnly Location
	// ExceptionOnly restricts exception events by type (0 for all) and caught/uncaught.
	ExceptionOnly struct {
		Type     ReferenceTypeID
		Caught   bool
		Uncaught bool
	}
	// FieldOnly restricts field watch events to one field.
	FieldOnly struct {
		Type  ReferenceTypeID
		Field FieldID
	}
	// Step makes a single-step request for a thread.
	Step struct {
		Thread ThreadID
		Size   StepSize
		Depth  StepDepth
	}
	// InstanceOnly restricts to events whose this is the object.
	InstanceOnly ObjectID
	// SourceNameMatch restricts class prepare events to a source name pattern.
	SourceNameMatch string
	// PlatformThreadsOnly restricts thread start/end events to platform threads (JDWP 21).
	PlatformThreadsOnly struct{}
)

func (Count) kind() byte               { return 1 }
func (Conditional) kind() byte         { return 2 }
func (ThreadOnly) kind() byte          { return 3 }
func (ClassOnly) kind() byte           { return 4 }
func (ClassMatch) kind() byte          { return 5 }
func (ClassExclude) kind() byte        { return 6 }
func (LocationOnly) kind() byte        { return 7 }
func (ExceptionOnly) kind() byte       { return 8 }
func (FieldOnly) kind() byte           { return 9 }
func (Step) kind() byte                { return 10 }
func (InstanceOnly) kind() byte        { return 11 }
func (SourceNameMatch) kind() byte     { return 12 }
func (PlatformThreadsOnly) kind() byte { return 13 }

func (m Count) encode(w *Writer)        { w.Int32(int32(m)) }
func (m Conditional) encode(w *Writer)  { w.Int32(int32(m)) }
func (m ThreadOnly) encode(w *Writer)   { w.ObjectID(ObjectID(m)) }
func (m ClassOnly) encode(w *Writer)    { w.ReferenceTypeID(ReferenceTypeID(m)) }
func (m ClassMatch) encode(w *Writer)   { w.String(string(m)) }
func (m ClassExclude) encode(w *Writer) { w.String(string(m)) }
func (m LocationOnly) encode(w *Writer) { w.Location(Location(m)) }
func (m ExceptionOnly) encode(w *Writer) {
	w.ReferenceTypeID(m.Type)
	w.Bool(m.Caught)
	w.Bool(m.Uncaught)
}
func (m FieldOnly) encode(w *Writer) { w.ReferenceTypeID(m.Type); w.FieldID(m.Field) }
func (m Step) encode(w *Writer) {
	w.ObjectID(m.Thread)
	w.Int32(int32(m.Size))
	w.Int32(int32(m.Depth))
}
func (m InstanceOnly) encode(w *Writer)      { w.ObjectID(ObjectID(m)) }
func (m SourceNameMatch) encode(w *Writer)   { w.String(string(m)) }
func (PlatformThreadsOnly) encode(w *Writer) {}

// SetRequest asks the VM to report events of a kind (EventRequest.Set) and
// returns the request id that events carry.
func (c *Conn) SetRequest(ctx context.Context, kind EventKind, suspend SuspendPolicy, mods ...Modifier) (id int32, err error) {
	err = c.do(ctx, CmdEventRequestSet, func(w *Writer) {
		w.Byte(byte(kind))
		w.Byte(byte(suspend))
		w.Int32(int32(len(mods)))
		for _, m := range mods {
			w.Byte(m.kind())
			m.encode(w)
		}
	}, func(r *Reader) { id = r.Int32() })
	return id, err
}

// ClearRequest removes an event request (EventRequest.Clear).
func (c *Conn) ClearRequest(ctx context.Context, kind EventKind, id int32) error {
	return c.do(ctx, CmdEventRequestClear, func(w *Writer) { writeClearRequest(w, kind, id) }, nil)
}

// ClearRequestNoWait clears an event request without waiting for the VM's
// answer: the command goes out at once, ahead of any command sent after
// it, and done (when not nil) is given the VM's error, nil for none, on
// the connection's reader goroutine (it must not block). A debugger that
// needs no answer (a one-shot step that fired) saves a round trip.
func (c *Conn) ClearRequestNoWait(kind EventKind, id int32, done func(error)) error {
	var w Writer
	writeClearRequest(&w, kind, id)
	_, err := c.StartFunc(nil, CmdEventRequestClear, w.Buf, func(call *Call) {
		if done == nil {
			return
		}
		switch {
		case call.err != nil:
			done(call.err)
		case call.reply.Error != ErrNone:
			done(&CommandError{Command: call.Cmd.String(), Code: call.reply.Error})
		default:
			done(nil)
		}
	})
	return err
}

// ClearAllBreakpoints removes every breakpoint request.
func (c *Conn) ClearAllBreakpoints(ctx context.Context) error {
	return c.do(ctx, CmdEventRequestClearAllBreakpoints, nil, nil)
}

// PeekRequest reads the event kind and suspend policy at the head of an
// EventRequest.Set command's data (as a proxy sees it pass), without
// decoding its modifiers. ok is false when the data is too short.
func PeekRequest(data []byte) (kind EventKind, suspend SuspendPolicy, ok bool) {
	if len(data) < 2 {
		return 0, 0, false
	}
	return EventKind(data[0]), SuspendPolicy(data[1]), true
}
