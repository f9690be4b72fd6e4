package jdwp

import (
	"context"
	"errors"
	"fmt"

	"github.com/ddmbridge/ddmbridge/jdwp/queue"
)

// EventKind is a JDWP event kind.
type EventKind byte

// The event kinds.
const (
	EventSingleStep                EventKind = 1
	EventBreakpoint                EventKind = 2
	EventFramePop                  EventKind = 3
	EventException                 EventKind = 4
	EventUserDefined               EventKind = 5
	EventThreadStart               EventKind = 6
	EventThreadDeath               EventKind = 7
	EventClassPrepare              EventKind = 8
	EventClassUnload               EventKind = 9
	EventClassLoad                 EventKind = 10
	EventFieldAccess               EventKind = 20
	EventFieldModification         EventKind = 21
	EventExceptionCatch            EventKind = 30
	EventMethodEntry               EventKind = 40
	EventMethodExit                EventKind = 41
	EventMethodExitWithReturnValue EventKind = 42
	EventMonitorContendedEnter     EventKind = 43
	EventMonitorContendedEntered   EventKind = 44
	EventMonitorWait               EventKind = 45
	EventMonitorWaited             EventKind = 46
	EventVMStart                   EventKind = 90
	EventVMDeath                   EventKind = 99
	EventVMDisconnected            EventKind = 100 // never sent by a VM; synthesized when the connection ends
)

var eventKindNames = map[EventKind]string{
	EventSingleStep: "SINGLE_STEP", EventBreakpoint: "BREAKPOINT", EventFramePop: "FRAME_POP",
	EventException: "EXCEPTION", EventUserDefined: "USER_DEFINED", EventThreadStart: "THREAD_START",
	EventThreadDeath: "THREAD_DEATH", EventClassPrepare: "CLASS_PREPARE", EventClassUnload: "CLASS_UNLOAD",
	EventClassLoad: "CLASS_LOAD", EventFieldAccess: "FIELD_ACCESS", EventFieldModification: "FIELD_MODIFICATION",
	EventExceptionCatch: "EXCEPTION_CATCH", EventMethodEntry: "METHOD_ENTRY", EventMethodExit: "METHOD_EXIT",
	EventMethodExitWithReturnValue: "METHOD_EXIT_WITH_RETURN_VALUE", EventMonitorContendedEnter: "MONITOR_CONTENDED_ENTER",
	EventMonitorContendedEntered: "MONITOR_CONTENDED_ENTERED", EventMonitorWait: "MONITOR_WAIT",
	EventMonitorWaited: "MONITOR_WAITED", EventVMStart: "VM_START", EventVMDeath: "VM_DEATH",
	EventVMDisconnected: "VM_DISCONNECTED",
}

func (k EventKind) String() string {
	if n, ok := eventKindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("EVENT_%d", byte(k))
}

// eventFields says which fields follow the request id in a composite event of a kind,
// in wire order. One table drives decoding and encoding.
type eventField byte

const (
	efThread eventField = iota
	efLocation
	efValue
	efObject      // tagged object id (monitor, field owner)
	efException   // tagged object id of the exception
	efCatch       // catch location
	efTimeout     // u8
	efTimedOut    // bool
	efRefType     // type tag + reference type id
	efSignature   // string
	efClassStatus // s4
	efField       // field id
)

var eventLayouts = map[EventKind][]eventField{
	EventVMStart:                   {efThread},
	EventSingleStep:                {efThread, efLocation},
	EventBreakpoint:                {efThread, efLocation},
	EventMethodEntry:               {efThread, efLocation},
	EventMethodExit:                {efThread, efLocation},
	EventMethodExitWithReturnValue: {efThread, efLocation, efValue},
	EventMonitorContendedEnter:     {efThread, efObject, efLocation},
	EventMonitorContendedEntered:   {efThread, efObject, efLocation},
	EventMonitorWait:               {efThread, efObject, efLocation, efTimeout},
	EventMonitorWaited:             {efThread, efObject, efLocation, efTimedOut},
	EventException:                 {efThread, efLocation, efException, efCatch},
	EventThreadStart:               {efThread},
	EventThreadDeath:               {efThread},
	EventClassPrepare:              {efThread, efRefType, efSignature, efClassStatus},
	EventClassUnload:               {efSignature},
	EventFieldAccess:               {efThread, efLocation, efRefType, efField, efObject},
	EventFieldModification:         {efThread, efLocation, efRefType, efField, efObject, efValue},
	EventVMDeath:                   {},
}

// Event is one event of a composite event packet. Which fields are set depends on Kind.
type Event struct {
	Kind      EventKind
	RequestID int32
	Thread    ThreadID
	Location  Location
	// Value is the return value (METHOD_EXIT_WITH_RETURN_VALUE) or the value to be
	// stored (FIELD_MODIFICATION).
	Value Value
	// Object is the monitor (MONITOR_*) or the object whose field is touched (FIELD_*; 0 for statics).
	Object TaggedObjectID
	// Exception and CatchLocation for EXCEPTION. An uncaught exception has a
	// catch location with Class and Method 0 (HotSpot still sets TypeTag 1).
	Exception     TaggedObjectID
	CatchLocation Location
	// RefType with its TypeTag: the prepared class (CLASS_PREPARE) or the field's class (FIELD_*).
	TypeTag   TypeTag
	RefType   ReferenceTypeID
	Signature string // CLASS_PREPARE, CLASS_UNLOAD
	Status    ClassStatus
	Field     FieldID
	Timeout   int64 // MONITOR_WAIT, in milliseconds
	TimedOut  bool  // MONITOR_WAITED
}

// EventSet is one composite event packet.
type EventSet struct {
	SuspendPolicy SuspendPolicy
	Events        []Event
	// Packet is the raw packet the set was decoded from (nil for synthesized sets).
	Packet *Packet
	// Err is set when the packet could not be decoded; Events then holds what was read.
	Err error
}

// DecodeEventSet decodes the data of an Event.Composite command.
func DecodeEventSet(data []byte, sizes *IDSizes) (*EventSet, error) {
	r := NewReader(data, sizes)
	es := &EventSet{SuspendPolicy: SuspendPolicy(r.Byte())}
	n := r.Count(5)
	for i := 0; i < n && r.Err() == nil; i++ {
		e := Event{Kind: EventKind(r.Byte()), RequestID: r.Int32()}
		layout, ok := eventLayouts[e.Kind]
		if !ok {
			r.Fail(fmt.Errorf("jdwp: unknown event kind %d in composite event", byte(e.Kind)))
			break
		}
		for _, f := range layout {
			switch f {
			case efThread:
				e.Thread = r.ObjectID()
			case efLocation:
				e.Location = r.Location()
			case efValue:
				e.Value = r.Value()
			case efObject:
				e.Object = r.TaggedObjectID()
			case efException:
				e.Exception = r.TaggedObjectID()
			case efCatch:
				e.CatchLocation = r.Location()
			case efTimeout:
				e.Timeout = r.Int64()
			case efTimedOut:
				e.TimedOut = r.Bool()
			case efRefType:
				e.TypeTag = TypeTag(r.Byte())
				e.RefType = r.ReferenceTypeID()
			case efSignature:
				e.Signature = r.String()
			case efClassStatus:
				e.Status = ClassStatus(r.Int32())
			case efField:
				e.Field = r.FieldID()
			}
		}
		if r.Err() == nil {
			es.Events = append(es.Events, e)
		}
	}
	if r.Err() != nil {
		return es, fmt.Errorf("Event.Composite: %w", r.Err())
	}
	return es, nil
}

// EncodeEventSet encodes an event set as Event.Composite data (used by proxies and
// simulated VMs).
func EncodeEventSet(es *EventSet, sizes *IDSizes) []byte {
	w := NewWriter(sizes)
	w.Byte(byte(es.SuspendPolicy))
	w.Int32(int32(len(es.Events)))
	for _, e := range es.Events {
		w.Byte(byte(e.Kind))
		w.Int32(e.RequestID)
		for _, f := range eventLayouts[e.Kind] {
			switch f {
			case efThread:
				w.ObjectID(e.Thread)
			case efLocation:
				w.Location(e.Location)
			case efValue:
				w.Value(e.Value)
			case efObject:
				w.Byte(byte(e.Object.Tag))
				w.ObjectID(e.Object.ID)
			case efException:
				w.Byte(byte(e.Exception.Tag))
				w.ObjectID(e.Exception.ID)
			case efCatch:
				w.Location(e.CatchLocation)
			case efTimeout:
				w.Int64(e.Timeout)
			case efTimedOut:
				w.Bool(e.TimedOut)
			case efRefType:
				w.Byte(byte(e.TypeTag))
				w.ReferenceTypeID(e.RefType)
			case efSignature:
				w.String(e.Signature)
			case efClassStatus:
				w.Int32(int32(e.Status))
			case efField:
				w.FieldID(e.Field)
			}
		}
	}
	return w.Bytes()
}

// Subscription receives every event set of a connection, in order, without ever
// blocking the connection's reader: sets queue until read. Sets that arrive
// before the connection's first subscription are held (up to 4096) and
// delivered to it; later subscriptions see only what arrives after them. When the connection
// ends, a final set holding one VM_DISCONNECTED event is delivered and C is closed.
type Subscription struct {
	// C delivers the event sets.
	C <-chan *EventSet

	q    *queue.Queue[*EventSet]
	conn *Conn
}

// Subscribe returns a new subscription to the connection's events.
func (c *Conn) Subscribe() *Subscription {
	q := queue.New[*EventSet]()
	s := &Subscription{C: q.C, q: q, conn: c}
	c.mu.Lock()
	if !c.subscribed {
		// The first subscriber gets what arrived before it, such as the VM_START
		// a VM sends right after the handshake.
		c.subscribed = true
		for _, es := range c.early {
			s.push(es)
		}
		c.early = nil
	}
	if c.err != nil {
		c.mu.Unlock()
		s.close() // queues the one VM_DISCONNECTED set
	} else {
		c.subs = append(c.subs, s)
		c.mu.Unlock()
	}
	return s
}

// maxEarlyEvents bounds the event sets held for a first subscriber.
const maxEarlyEvents = 4096

func disconnected() *EventSet {
	return &EventSet{Events: []Event{{Kind: EventVMDisconnected}}}
}

// Close stops the subscription; queued sets are dropped and C is closed.
func (s *Subscription) Close() {
	c := s.conn
	c.mu.Lock()
	for i, x := range c.subs {
		if x == s {
			c.subs = append(c.subs[:i:i], c.subs[i+1:]...)
			break
		}
	}
	c.mu.Unlock()
	s.q.Close()
}

// push queues es for the subscriber; past the connection's backlog bound
// the connection fails (see Options.MaxEventBacklog).
func (s *Subscription) push(es *EventSet) {
	size := eventSetOverhead
	if es.Packet != nil {
		size += len(es.Packet.Data)
	}
	n, total := s.q.PushCost(es, size)
	c := s.conn
	if n > c.opts.MaxEventBacklog || total > MaxEventBacklogBytes {
		c.fail(fmt.Errorf("%w: %d event sets (%d bytes) wait for a subscriber that takes them slower than the VM sends them (a VM flooding events, or one that stopped reading while the subscriber waits on it): the connection is dropped", ErrEventBacklog, n, total))
	}
}

// eventSetOverhead is what an event set costs beyond its packet's data,
// roughly (the decoded events).
const eventSetOverhead = 128

// DefaultMaxEventBacklog is Options.MaxEventBacklog's default; past
// MaxEventBacklogBytes of event packets waiting the connection fails too.
const (
	DefaultMaxEventBacklog = 1 << 16
	MaxEventBacklogBytes   = 64 << 20
)

// ErrEventBacklog fails a connection whose events pile up unread.
var ErrEventBacklog = errors.New("jdwp: event backlog beyond its bound")

// close is called when the connection ends: deliver what is queued, then VM_DISCONNECTED.
func (s *Subscription) close() { s.q.Finish(disconnected()) }

// dispatchEvents decodes a composite event packet and hands it to every
// subscriber. When the id sizes are not yet known (an event right after the
// handshake), packets queue in order while a goroutine asks the VM for them.
func (c *Conn) dispatchEvents(p *Packet) {
	c.mu.Lock()
	if s := c.sizes.Load(); s != nil && len(c.evq) == 0 {
		c.mu.Unlock()
		c.deliverEvents(p, s)
		return
	}
	c.evq = append(c.evq, p)
	start := len(c.evq) == 1
	waiting := len(c.evq)
	c.mu.Unlock()
	if waiting > c.opts.MaxEventBacklog {
		c.fail(fmt.Errorf("%w: %d event packets wait for the VM to answer VirtualMachine.IDSizes (a VM that sends events but does not read): the connection is dropped", ErrEventBacklog, waiting))
		return
	}
	if !start {
		return
	}
	go func() {
		s, err := c.sized(context.Background())
		for {
			c.mu.Lock()
			q := c.evq
			if len(q) == 0 {
				c.mu.Unlock()
				return
			}
			c.evq = c.evq[:0:0]
			if err != nil {
				c.mu.Unlock()
				c.log.Warn().Err(err).Int("packets", len(q)).Msg("cannot decode events: id sizes unknown")
				return
			}
			// Keep evq non-empty while delivering so later packets queue behind these.
			c.evq = append(c.evq, nil)
			c.mu.Unlock()
			for _, p := range q {
				c.deliverEvents(p, s)
			}
			c.mu.Lock()
			c.evq = c.evq[1:]
			c.mu.Unlock()
		}
	}()
}

func (c *Conn) deliverEvents(p *Packet, sizes *IDSizes) {
	es, err := DecodeEventSet(p.Data, sizes)
	es.Packet = p
	es.Err = err
	if err != nil {
		c.log.Warn().Err(err).Uint32("id", p.ID).Msg("malformed event packet")
	}
	if c.opts.Trace&TraceEvent != 0 {
		for _, e := range es.Events {
			c.log.Trace().Str("kind", "event").Stringer("event", e.Kind).Int32("request", e.RequestID).
				Uint64("thread", uint64(e.Thread)).Stringer("location", e.Location).Str("signature", e.Signature).
				Uint8("suspend", uint8(es.SuspendPolicy)).Msg("event")
		}
	}
	c.mu.Lock()
	subs := append([]*Subscription(nil), c.subs...)
	if !c.subscribed {
		held := len(c.early) < maxEarlyEvents
		if held {
			c.early = append(c.early, es)
		}
		c.mu.Unlock()
		if !held {
			c.log.Warn().Int("events", len(es.Events)).Uint8("suspend", uint8(es.SuspendPolicy)).Msg("event set dropped: nobody subscribed yet and the backlog is full")
		}
		return
	}
	c.mu.Unlock()
	if len(subs) == 0 {
		c.log.Warn().Int("events", len(es.Events)).Uint8("suspend", uint8(es.SuspendPolicy)).Msg("event set with no subscriber")
	}
	for _, s := range subs {
		s.push(es)
	}
}
