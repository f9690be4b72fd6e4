package jdwp

import (
	"fmt"
	"math"
	"strconv"
)

// Typed ids. Their wire width comes from IDSizes; in memory they are all uint64.
type (
	ObjectID        uint64
	ThreadID        = ObjectID
	ThreadGroupID   = ObjectID
	StringID        = ObjectID
	ClassLoaderID   = ObjectID
	ClassObjectID   = ObjectID
	ArrayID         = ObjectID
	ModuleID        = ObjectID
	ReferenceTypeID uint64
	ClassID         = ReferenceTypeID
	InterfaceID     = ReferenceTypeID
	ArrayTypeID     = ReferenceTypeID
	MethodID        uint64
	FieldID         uint64
	FrameID         uint64
)

// Tag is a JDWP value tag (the first byte of a tagged value).
type Tag byte

// The value tags.
const (
	TagArray       Tag = '['
	TagByte        Tag = 'B'
	TagChar        Tag = 'C'
	TagObject      Tag = 'L'
	TagFloat       Tag = 'F'
	TagDouble      Tag = 'D'
	TagInt         Tag = 'I'
	TagLong        Tag = 'J'
	TagShort       Tag = 'S'
	TagVoid        Tag = 'V'
	TagBoolean     Tag = 'Z'
	TagString      Tag = 's'
	TagThread      Tag = 't'
	TagThreadGroup Tag = 'g'
	TagClassLoader Tag = 'l'
	TagClassObject Tag = 'c'
)

// size returns the wire size of an untagged value with tag t, or -1 for an unknown tag.
func (t Tag) size(s *IDSizes) int {
	switch t {
	case TagByte, TagBoolean:
		return 1
	case TagChar, TagShort:
		return 2
	case TagInt, TagFloat:
		return 4
	case TagLong, TagDouble:
		return 8
	case TagVoid:
		return 0
	case TagArray, TagObject, TagString, TagThread, TagThreadGroup, TagClassLoader, TagClassObject:
		return s.ObjectID
	}
	return -1
}

// IsObject reports whether values with this tag are object references.
func (t Tag) IsObject() bool {
	switch t {
	case TagArray, TagObject, TagString, TagThread, TagThreadGroup, TagClassLoader, TagClassObject:
		return true
	}
	return false
}

// IsPrimitive reports whether t is a primitive (or void) tag.
func (t Tag) IsPrimitive() bool { return !t.IsObject() && t.size(&DefaultIDSizes) >= 0 }

func (t Tag) String() string { return string(rune(t)) }

// TagForSignature returns the tag of values of a JNI type signature ("I", "Ljava/lang/String;", "[I").
func TagForSignature(sig string) Tag {
	if sig == "" {
		return TagVoid
	}
	if sig == "Ljava/lang/String;" {
		return TagString
	}
	return Tag(sig[0])
}

// Value is a JDWP value: a tag and the raw bits (primitive bits, or the object id).
type Value struct {
	Tag  Tag
	Bits uint64
}

// Constructors for values sent to the VM.
func IntValue(v int32) Value        { return Value{TagInt, uint64(uint32(v))} }
func LongValue(v int64) Value       { return Value{TagLong, uint64(v)} }
func ShortValue(v int16) Value      { return Value{TagShort, uint64(uint16(v))} }
func ByteValue(v int8) Value        { return Value{TagByte, uint64(uint8(v))} }
func CharValue(v uint16) Value      { return Value{TagChar, uint64(v)} }
func BoolValue(v bool) Value        { return Value{TagBoolean, uint64(b2u(v))} }
func FloatValue(v float32) Value    { return Value{TagFloat, uint64(math.Float32bits(v))} }
func DoubleValue(v float64) Value   { return Value{TagDouble, math.Float64bits(v)} }
func ObjectValue(id ObjectID) Value { return Value{TagObject, uint64(id)} }
func VoidValue() Value              { return Value{Tag: TagVoid} }

// Int returns the value as a signed integer of its own width, sign-extended
// (byte, short, int, long); char and boolean are zero-extended.
func (v Value) Int() int64 {
	switch v.Tag {
	case TagByte:
		return int64(int8(v.Bits))
	case TagShort:
		return int64(int16(v.Bits))
	case TagInt:
		return int64(int32(v.Bits))
	}
	return int64(v.Bits)
}

// Bool returns a boolean value.
func (v Value) Bool() bool { return v.Bits != 0 }

// Object returns the object id of a reference value.
func (v Value) Object() ObjectID { return ObjectID(v.Bits) }

// IsNull reports whether v is a null reference.
func (v Value) IsNull() bool { return v.Tag.IsObject() && v.Bits == 0 }

// String formats the value as Java would print a primitive, or as tag@id for references.
func (v Value) String() string {
	switch v.Tag {
	case TagBoolean:
		return strconv.FormatBool(v.Bool())
	case TagByte, TagShort, TagInt, TagLong:
		return strconv.FormatInt(v.Int(), 10)
	case TagChar:
		return strconv.QuoteRune(rune(v.Bits))
	case TagFloat:
		return strconv.FormatFloat(float64(v.Float()), 'g', -1, 32)
	case TagDouble:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	case TagVoid:
		return "void"
	}
	if v.Bits == 0 {
		return "null"
	}
	return fmt.Sprintf("%c@%d", v.Tag, v.Bits)
}

// TaggedObjectID is an object id with its tag.
type TaggedObjectID struct {
	Tag Tag
	ID  ObjectID
}

// TypeTag is the kind of a reference type.
type TypeTag byte

const (
	TypeTagClass     TypeTag = 1
	TypeTagInterface TypeTag = 2
	TypeTagArray     TypeTag = 3
)

func (t TypeTag) String() string {
	switch t {
	case TypeTagClass:
		return "class"
	case TypeTagInterface:
		return "interface"
	case TypeTagArray:
		return "array"
	}
	return fmt.Sprintf("typetag(%d)", byte(t))
}

// Location is an executable position: a method of a class and a code index in it.
type Location struct {
	TypeTag TypeTag
	Class   ReferenceTypeID
	Method  MethodID
	Index   uint64
}

func (l Location) String() string {
	return fmt.Sprintf("%s %d method %d @%d", l.TypeTag, l.Class, l.Method, l.Index)
}

// ThreadStatus is the thread status constant of ThreadReference.Status.
type ThreadStatus int32

const (
	ThreadZombie   ThreadStatus = 0
	ThreadRunning  ThreadStatus = 1
	ThreadSleeping ThreadStatus = 2
	ThreadMonitor  ThreadStatus = 3
	ThreadWait     ThreadStatus = 4
)

func (s ThreadStatus) String() string {
	switch s {
	case ThreadZombie:
		return "zombie"
	case ThreadRunning:
		return "running"
	case ThreadSleeping:
		return "sleeping"
	case ThreadMonitor:
		return "monitor"
	case ThreadWait:
		return "wait"
	}
	return fmt.Sprintf("status(%d)", int32(s))
}

// SuspendStatus flags of ThreadReference.Status.
const SuspendStatusSuspended int32 = 1

// ClassStatus bits.
type ClassStatus int32

const (
	ClassVerified    ClassStatus = 1
	ClassPrepared    ClassStatus = 2
	ClassInitialized ClassStatus = 4
	ClassError       ClassStatus = 8
)

// SuspendPolicy of an event request.
type SuspendPolicy byte

const (
	SuspendNone        SuspendPolicy = 0
	SuspendEventThread SuspendPolicy = 1
	SuspendAll         SuspendPolicy = 2
)

// StepSize and StepDepth of a single-step request.
type StepSize int32
type StepDepth int32

const (
	StepMin  StepSize = 0
	StepLine StepSize = 1

	StepInto StepDepth = 0
	StepOver StepDepth = 1
	StepOut  StepDepth = 2
)

// InvokeOptions for ClassType.InvokeMethod and friends.
type InvokeOptions int32

const (
	InvokeSingleThreaded InvokeOptions = 0x01
	InvokeNonvirtual     InvokeOptions = 0x02
)
