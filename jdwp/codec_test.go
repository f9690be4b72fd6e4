package jdwp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// testSizes are the id widths codec tests run at: HotSpot's, the fake VM's
// mixed widths, and the narrowest possible.
var testSizes = []IDSizes{DefaultIDSizes, fakeSizes, {1, 1, 1, 1, 1}}

var allTags = []Tag{TagArray, TagByte, TagChar, TagObject, TagFloat, TagDouble, TagInt, TagLong,
	TagShort, TagVoid, TagBoolean, TagString, TagThread, TagThreadGroup, TagClassLoader, TagClassObject}

// maxBits is the largest value that fits n bytes.
func maxBits(n int) uint64 {
	if n >= 8 {
		return math.MaxUint64
	}
	return 1<<(8*n) - 1
}

func TestValueRoundTrip(t *testing.T) {
	for _, sizes := range testSizes {
		for _, tag := range allTags {
			n := tag.size(&sizes)
			for _, bits := range []uint64{0, 1, maxBits(n), maxBits(n) / 3} {
				if n == 0 {
					bits = 0
				}
				v := Value{Tag: tag, Bits: bits}
				w := NewWriter(&sizes)
				w.Value(v)
				w.UntaggedValue(v)
				if len(w.Bytes()) != 1+2*n {
					t.Errorf("sizes %v: %v encoded to %d bytes; want %d", sizes, v, len(w.Bytes()), 1+2*n)
				}
				r := NewReader(w.Bytes(), &sizes)
				got, got2 := r.Value(), r.UntaggedValue(tag)
				if r.Err() != nil || got != v || got2 != v || r.Remaining() != 0 {
					t.Errorf("sizes %v: %v read back as %v and %v (err %v, %d left)", sizes, v, got, got2, r.Err(), r.Remaining())
				}
			}
		}
	}
	r := NewReader([]byte{'Q', 0, 0, 0, 0}, nil)
	if v := r.Value(); v != (Value{}) || r.Err() == nil || !strings.Contains(r.Err().Error(), `unknown value tag 81 ('Q')`) {
		t.Errorf("value with tag Q = %v, %v; want an unknown tag error", v, r.Err())
	}
}

func TestValueAccessors(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		int  int64
		str  string
		null bool
	}{
		{ByteValue(-1), -1, "-1", false},
		{ShortValue(-300), -300, "-300", false},
		{IntValue(math.MinInt32), math.MinInt32, "-2147483648", false},
		{LongValue(math.MinInt64), math.MinInt64, "-9223372036854775808", false},
		{CharValue('é'), 'é', "'é'", false},
		{BoolValue(true), 1, "true", false},
		{FloatValue(1.5), int64(math.Float32bits(1.5)), "1.5", false},
		{DoubleValue(-0.25), int64(math.Float64bits(-0.25)), "-0.25", false},
		{VoidValue(), 0, "void", false},
		{ObjectValue(0), 0, "null", true},
		{ObjectValue(17), 17, "L@17", false},
		{Value{TagString, 5}, 5, "s@5", false},
	} {
		if got := tc.v.Int(); got != tc.int {
			t.Errorf("%v.Int() = %d; want %d", tc.v, got, tc.int)
		}
		if got := tc.v.String(); got != tc.str {
			t.Errorf("String() = %q; want %q", got, tc.str)
		}
		if got := tc.v.IsNull(); got != tc.null {
			t.Errorf("%v.IsNull() = %v", tc.v, got)
		}
		// Every constructor's value survives the wire.
		w := NewWriter(nil)
		w.Value(tc.v)
		if got := NewReader(w.Bytes(), nil).Value(); got != tc.v {
			t.Errorf("%v read back as %v", tc.v, got)
		}
	}
	if FloatValue(1.5).Float() != 1.5 || DoubleValue(-0.25).Double() != -0.25 {
		t.Error("Float/Double do not invert FloatValue/DoubleValue")
	}
	for sig, want := range map[string]Tag{"I": TagInt, "Ljava/lang/String;": TagString, "Ljava/lang/Object;": TagObject, "[I": TagArray, "": TagVoid, "Z": TagBoolean} {
		if got := TagForSignature(sig); got != want {
			t.Errorf("TagForSignature(%q) = %v; want %v", sig, got, want)
		}
	}
	for _, tag := range allTags {
		if tag.IsObject() == tag.IsPrimitive() {
			t.Errorf("tag %v: IsObject %v, IsPrimitive %v", tag, tag.IsObject(), tag.IsPrimitive())
		}
	}
	if Tag('Q').IsObject() || Tag('Q').IsPrimitive() {
		t.Error("unknown tag Q is neither object nor primitive")
	}
}

func TestIDAndLocationRoundTrip(t *testing.T) {
	for _, sizes := range testSizes {
		w := NewWriter(&sizes)
		obj, ref, meth, field, frame := ObjectID(maxBits(sizes.ObjectID)), ReferenceTypeID(maxBits(sizes.ReferenceTypeID)),
			MethodID(maxBits(sizes.MethodID)), FieldID(maxBits(sizes.FieldID)), FrameID(maxBits(sizes.FrameID))
		loc := Location{TypeTagInterface, ref, meth, math.MaxUint64}
		w.ObjectID(obj)
		w.ReferenceTypeID(ref)
		w.MethodID(meth)
		w.FieldID(field)
		w.FrameID(frame)
		w.Location(loc)
		w.Byte(byte(TagThread))
		w.ObjectID(obj)
		want := 2*sizes.ObjectID + 2*sizes.ReferenceTypeID + 2*sizes.MethodID + sizes.FieldID + sizes.FrameID + 1 + 8 + 1
		if len(w.Bytes()) != want {
			t.Errorf("sizes %v: encoded %d bytes; want %d", sizes, len(w.Bytes()), want)
		}
		r := NewReader(w.Bytes(), &sizes)
		if o, rt, m, f, fr, l, to := r.ObjectID(), r.ReferenceTypeID(), r.MethodID(), r.FieldID(), r.FrameID(), r.Location(), r.TaggedObjectID(); o != obj || rt != ref || m != meth || f != field || fr != frame || l != loc || to != (TaggedObjectID{TagThread, obj}) {
			t.Errorf("sizes %v: read back %x %x %x %x %x %v %v", sizes, o, rt, m, f, fr, l, to)
		}
		if r.Err() != nil || r.Remaining() != 0 {
			t.Errorf("sizes %v: err %v, %d bytes left", sizes, r.Err(), r.Remaining())
		}
	}
	// Widths 1..8 of Sized, with the top byte set so truncation would show.
	for n := 1; n <= 8; n++ {
		v := maxBits(n) &^ 1
		w := NewWriter(nil)
		w.Sized(v, n)
		if len(w.Bytes()) != n || NewReader(w.Bytes(), nil).Sized(n) != v {
			t.Errorf("Sized(%x, %d) = % x", v, n, w.Bytes())
		}
	}
}

func TestPrimitivesRoundTrip(t *testing.T) {
	w := NewWriter(nil)
	w.Byte(0xAB)
	w.Bool(true)
	w.Bool(false)
	w.Uint16(0xBEEF)
	w.Int32(-2)
	w.Uint32(0xFFFFFFFE)
	w.Int64(math.MinInt64)
	w.Uint64(math.MaxUint64)
	r := NewReader(w.Bytes(), nil)
	if r.Byte() != 0xAB || !r.Bool() || r.Bool() || r.Uint16() != 0xBEEF || r.Int32() != -2 || r.Uint32() != 0xFFFFFFFE ||
		r.Int64() != math.MinInt64 || r.Uint64() != math.MaxUint64 || r.Err() != nil || r.Remaining() != 0 {
		t.Errorf("primitives did not round trip: % x (err %v)", w.Bytes(), r.Err())
	}
}

// modifiedUTF8 encodes s as the JVM does: NUL as C0 80, supplementary
// characters as two 3-byte surrogates.
func modifiedUTF8(s string) []byte {
	var b []byte
	for _, c := range s {
		switch {
		case c == 0:
			b = append(b, 0xC0, 0x80)
		case c >= 0x10000:
			c -= 0x10000
			for _, s := range []rune{0xD800 + c>>10, 0xDC00 + c&0x3FF} {
				b = append(b, 0xE0|byte(s>>12), 0x80|byte(s>>6)&0x3F, 0x80|byte(s)&0x3F)
			}
		default:
			b = utf8.AppendRune(b, c)
		}
	}
	return b
}

func TestStrings(t *testing.T) {
	for _, s := range []string{"", "main", "héllo wörld", "日本語", "a\x00b", "\x00", "😀", "x😀y\x00z", "Ljava/lang/String;", "\uffff\U0010FFFF"} {
		w := NewWriter(nil)
		w.String(s)
		if got := NewReader(w.Bytes(), nil).String(); got != s {
			t.Errorf("String %q read back as %q", s, got)
		}
		// As a VM sends it, in modified UTF-8.
		m := modifiedUTF8(s)
		w = NewWriter(nil)
		w.Int32(int32(len(m)))
		w.Buf = append(w.Buf, m...)
		r := NewReader(w.Bytes(), nil)
		if got := r.String(); got != s || r.Err() != nil || r.Remaining() != 0 {
			t.Errorf("modified UTF-8 % x read as %q (err %v); want %q", m, got, r.Err(), s)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"a\xC0\x80b", "a\x00b"},
		{"\xED\xA0\xBD\xED\xB8\x80", "😀"}, // U+1F600 as the surrogates D83D DE00
		{"\xED\xAF\xBF\xED\xBF\xBF", "\U0010FFFF"},
		{"\xF0\x9F\x98\x80", "😀"},  // standard UTF-8 passes unchanged
		{"\xED\x9F\xBF", "\uD7FF"}, // the last code point before the surrogates
		// Invalid input is kept as is, whether or not a modified sequence is also present.
		{"\xff", "\xff"},
		{"\xff\xC0\x80", "\xff\x00"},
		{"\xC0", "\xC0"},
		{"\xC0\x41", "\xC0A"},
		{"\xED\xA0\xBD", "\xED\xA0\xBD"},                         // a lone high surrogate
		{"\xED\xA0\xBDx\xC0\x80", "\xED\xA0\xBDx\x00"},           // ... next to a NUL
		{"\xED\xB8\x80\xED\xA0\xBD", "\xED\xB8\x80\xED\xA0\xBD"}, // low before high
		{"\xED\xA0A\xED\xB0A", "\xED\xA0A\xED\xB0A"},             // surrogate lookalikes without continuation bytes
	} {
		if got := decodeModifiedUTF8([]byte(tc.in)); got != tc.want {
			t.Errorf("decodeModifiedUTF8(% x) = %+q; want %+q", tc.in, got, tc.want)
		}
	}
	r := NewReader([]byte{0xFF, 0xFF, 0xFF, 0xFF}, nil)
	if s := r.String(); s != "" || r.Err() == nil || !strings.Contains(r.Err().Error(), "negative string length -1") {
		t.Errorf("string of length -1 = %q, %v", s, r.Err())
	}
	r = NewReader([]byte{0, 0, 0, 10, 'a', 'b'}, nil)
	if s := r.String(); s != "" || !errors.Is(r.Err(), ErrShortData) {
		t.Errorf("truncated string = %q, %v; want ErrShortData", s, r.Err())
	}
}

func TestReaderSticky(t *testing.T) {
	r := NewReader([]byte{1, 2, 3}, nil)
	if r.Uint16() != 0x0102 || r.Err() != nil {
		t.Fatal("first read failed")
	}
	if v := r.Uint32(); v != 0 || !errors.Is(r.Err(), ErrShortData) {
		t.Fatalf("reading 4 of 1 bytes = %d, %v; want 0, ErrShortData", v, r.Err())
	}
	first := r.Err()
	// The byte that is left is not consumed by later reads: everything is zero.
	if r.Byte() != 0 || r.Bool() || r.ObjectID() != 0 || r.String() != "" || r.Value() != (Value{}) ||
		r.Location() != (Location{}) || r.Count(1) != 0 || r.Remaining() != 1 {
		t.Error("reads after an error returned data")
	}
	r.Fail(errors.New("later"))
	if r.Err() != first || !strings.Contains(first.Error(), "need 4 bytes at offset 2, have 1") {
		t.Errorf("Err = %v; want the first error, with its offset", r.Err())
	}
	if rest := r.Rest(); !bytes.Equal(rest, []byte{3}) || r.Remaining() != 0 {
		t.Errorf("Rest = % x", rest)
	}
}

func TestReaderCount(t *testing.T) {
	count := func(b []byte, minElem int) (int, error) {
		r := NewReader(b, nil)
		n := r.Count(minElem)
		return n, r.Err()
	}
	if n, err := count([]byte{0, 0, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8}, 4); n != 2 || err != nil {
		t.Errorf("count 2 of 4-byte elements in 8 bytes = %d, %v", n, err)
	}
	if n, err := count([]byte{0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8}, 4); n != 0 || !errors.Is(err, ErrShortData) {
		t.Errorf("count 3 of 4-byte elements in 8 bytes = %d, %v; want ErrShortData", n, err)
	}
	if n, err := count([]byte{0x80, 0, 0, 0}, 1); n != 0 || err == nil || !strings.Contains(err.Error(), "negative count") {
		t.Errorf("negative count = %d, %v", n, err)
	}
	if n, err := count([]byte{0, 0, 0, 1, 9}, 0); n != 1 || err != nil {
		t.Errorf("count with minElem 0 = %d, %v", n, err)
	}
	// A corrupt huge count fails before anything is allocated for it.
	huge := []byte{0x7F, 0xFF, 0xFF, 0xFF, 0, 0, 0, 1}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := NewReader(huge, &fakeSizes)
	ids := readObjectIDs(r)
	r2 := NewReader(huge, nil)
	vals := readValues(r2)
	runtime.ReadMemStats(&after)
	if len(ids) != 0 || !errors.Is(r.Err(), ErrShortData) || len(vals) != 0 || !errors.Is(r2.Err(), ErrShortData) {
		t.Errorf("huge counts: %d ids (%v), %d values (%v); want ErrShortData", len(ids), r.Err(), len(vals), r2.Err())
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<10 {
		t.Errorf("decoding a corrupt count of 2^31-1 allocated %d bytes", n)
	}
}

func TestIDSizesValidate(t *testing.T) {
	for _, s := range testSizes {
		if err := s.Validate(); err != nil {
			t.Errorf("%v: %v", s, err)
		}
	}
	for _, s := range []IDSizes{{}, {8, 8, 9, 8, 8}, {8, 8, 8, 8, -1}} {
		if err := s.Validate(); err == nil {
			t.Errorf("%v validated", s)
		}
	}
	if err := (IDSizes{8, 0, 8, 8, 8}).Validate(); err == nil || !strings.Contains(err.Error(), "methodID size 0") {
		t.Errorf("error %v does not name the bad size", err)
	}
}

// fullEvent returns an event of kind with every field of its layout set to a
// value that fills the id widths, and the other fields zero.
func fullEvent(kind EventKind, sizes IDSizes) Event {
	obj := ObjectID(maxBits(sizes.ObjectID))
	loc := Location{TypeTagClass, ReferenceTypeID(maxBits(sizes.ReferenceTypeID)), MethodID(maxBits(sizes.MethodID)) - 1, 1234}
	e := Event{Kind: kind, RequestID: -7}
	for _, f := range eventLayouts[kind] {
		switch f {
		case efThread:
			e.Thread = obj - 1
		case efLocation:
			e.Location = loc
		case efValue:
			e.Value = Value{TagArray, uint64(obj) - 2}
		case efObject:
			e.Object = TaggedObjectID{TagObject, obj - 3}
		case efException:
			e.Exception = TaggedObjectID{TagObject, obj - 4}
		case efCatch:
			e.CatchLocation = Location{TypeTagInterface, 2, 3, 4}
		case efTimeout:
			e.Timeout = math.MaxInt64
		case efTimedOut:
			e.TimedOut = true
		case efRefType:
			e.TypeTag, e.RefType = TypeTagArray, ReferenceTypeID(maxBits(sizes.ReferenceTypeID))-5
		case efSignature:
			e.Signature = "Lcom/example/Ünïcode\x00$1;"
		case efClassStatus:
			e.Status = ClassVerified | ClassPrepared | ClassInitialized
		case efField:
			e.Field = FieldID(maxBits(sizes.FieldID)) - 6
		default:
			panic(fmt.Sprintf("field %d of %v not handled by the test", f, kind))
		}
	}
	return e
}

func TestEventSetRoundTrip(t *testing.T) {
	for _, sizes := range testSizes {
		all := &EventSet{SuspendPolicy: SuspendAll}
		for kind := range eventLayouts {
			e := fullEvent(kind, sizes)
			all.Events = append(all.Events, e)
			es := &EventSet{SuspendPolicy: SuspendEventThread, Events: []Event{e}}
			got, err := DecodeEventSet(EncodeEventSet(es, &sizes), &sizes)
			if err != nil || !reflect.DeepEqual(got, es) {
				t.Errorf("sizes %v, %v: decoded %+v, %v\nwant %+v", sizes, kind, got, err, es)
			}
		}
		data := EncodeEventSet(all, &sizes)
		got, err := DecodeEventSet(data, &sizes)
		if err != nil || !reflect.DeepEqual(got, all) {
			t.Errorf("sizes %v: set of every kind decoded as %+v, %v", sizes, got, err)
		}
		// Every truncation fails cleanly and keeps only whole events.
		for n := range len(data) {
			got, err := DecodeEventSet(data[:n], &sizes)
			if err == nil {
				t.Fatalf("sizes %v: %d of %d bytes decoded without error", sizes, n, len(data))
			}
			if len(got.Events) > 0 && !reflect.DeepEqual(got.Events, all.Events[:len(got.Events)]) {
				t.Fatalf("sizes %v: %d bytes: partial events %+v", sizes, n, got.Events)
			}
		}
	}
	_, err := DecodeEventSet([]byte{2, 0, 0, 0, 1, 77, 0, 0, 0, 1}, nil)
	if err == nil || !strings.Contains(err.Error(), "unknown event kind 77") {
		t.Errorf("unknown event kind: %v", err)
	}
	_, err = DecodeEventSet([]byte{2, 0x7F, 0xFF, 0xFF, 0xFF, 99, 0, 0, 0, 1}, nil)
	if !errors.Is(err, ErrShortData) {
		t.Errorf("event count 2^31-1: %v; want ErrShortData", err)
	}
	for k, name := range map[EventKind]string{EventBreakpoint: "BREAKPOINT", EventVMDisconnected: "VM_DISCONNECTED", 200: "EVENT_200"} {
		if k.String() != name {
			t.Errorf("EventKind(%d) = %q; want %q", k, k.String(), name)
		}
	}
}

// TestEventSetWireFormat pins the wire layout against bytes written by hand
// from the JDWP specification, so encoder and decoder cannot agree on a mistake.
func TestEventSetWireFormat(t *testing.T) {
	data := []byte{
		2,          // suspend policy ALL
		0, 0, 0, 2, // two events
		2, 0, 0, 0, 5, // BREAKPOINT, request 5
		0, 0, 0, 1, // thread (4-byte object id)
		1, 0, 9, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 16, // location: class 9 (2 bytes), method 3 (3 bytes), index 16
		8, 0, 0, 0, 6, // CLASS_PREPARE, request 6
		0, 0, 0, 1, // thread
		1, 0, 9, // type tag and ref type id
		0, 0, 0, 7, 'L', 'H', 'e', 'l', 'l', 'o', ';',
		0, 0, 0, 7, // status
	}
	want := &EventSet{SuspendPolicy: SuspendAll, Events: []Event{
		{Kind: EventBreakpoint, RequestID: 5, Thread: 1, Location: Location{TypeTagClass, 9, 3, 16}},
		{Kind: EventClassPrepare, RequestID: 6, Thread: 1, TypeTag: TypeTagClass, RefType: 9, Signature: "LHello;", Status: 7},
	}}
	got, err := DecodeEventSet(data, &fakeSizes)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v, %v\nwant %+v", got, err, want)
	}
	if enc := EncodeEventSet(want, &fakeSizes); !bytes.Equal(enc, data) {
		t.Errorf("encoded % x\nwant    % x", enc, data)
	}
}

func TestModifierEncoding(t *testing.T) {
	s := fakeSizes
	loc := Location{TypeTagClass, 1, 2, 3}
	for _, tc := range []struct {
		m    Modifier
		kind byte
		n    int
	}{
		{Count(3), 1, 4},
		{Conditional(1), 2, 4},
		{ThreadOnly(1), 3, s.ObjectID},
		{ClassOnly(1), 4, s.ReferenceTypeID},
		{ClassMatch("java.*"), 5, 4 + 6},
		{ClassExclude("sun.*"), 6, 4 + 5},
		{LocationOnly(loc), 7, 1 + s.ReferenceTypeID + s.MethodID + 8},
		{ExceptionOnly{Type: 1, Caught: true}, 8, s.ReferenceTypeID + 2},
		{FieldOnly{1, 2}, 9, s.ReferenceTypeID + s.FieldID},
		{Step{1, StepLine, StepOver}, 10, s.ObjectID + 8},
		{InstanceOnly(1), 11, s.ObjectID},
		{SourceNameMatch("*.kt"), 12, 4 + 4},
		{PlatformThreadsOnly{}, 13, 0},
	} {
		w := NewWriter(&s)
		tc.m.encode(w)
		if tc.m.kind() != tc.kind || len(w.Bytes()) != tc.n {
			t.Errorf("%T: kind %d, %d bytes; want kind %d, %d bytes", tc.m, tc.m.kind(), len(w.Bytes()), tc.kind, tc.n)
		}
	}
}

func TestPacketRoundTrip(t *testing.T) {
	packets := []*Packet{
		{ID: 1, CmdSet: SetVirtualMachine, Cmd: 1},
		{ID: 0xFFFFFFFF, CmdSet: SetDDM, Cmd: 1, Data: []byte("HELO\x00\x00\x00\x00")},
		{ID: 7, Flags: FlagReply, Error: ErrInvalidThread},
		{ID: 8, Flags: FlagReply, Data: bytes.Repeat([]byte{0xAA}, 1000)},
	}
	var stream bytes.Buffer
	for _, p := range packets {
		b := p.Bytes()
		if len(b) != HeaderSize+len(p.Data) {
			t.Errorf("%v: %d bytes", p, len(b))
		}
		h, n, err := ParsePacketHeader(b, 0)
		if err != nil || n != len(p.Data) || h.ID != p.ID || h.Flags != p.Flags || h.CmdSet != p.CmdSet || h.Cmd != p.Cmd || h.Error != p.Error {
			t.Errorf("ParsePacketHeader(%v) = %v, %d, %v", p, &h, n, err)
		}
		if err := WritePacket(&stream, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range packets {
		got, err := ReadPacket(&stream, 0)
		if err != nil || got.ID != want.ID || got.Flags != want.Flags || got.CmdSet != want.CmdSet || got.Cmd != want.Cmd ||
			got.Error != want.Error || !bytes.Equal(got.Data, want.Data) {
			t.Errorf("ReadPacket = %v, %v; want %v", got, err, want)
		}
	}
	if _, err := ReadPacket(&stream, 0); err != io.EOF {
		t.Errorf("ReadPacket at the end of the stream = %v; want io.EOF", err)
	}
	if _, _, err := ParsePacketHeader(make([]byte, 10), 0); !errors.Is(err, ErrPacketTooShort) {
		t.Errorf("10-byte header: %v", err)
	}
	if _, _, err := ParsePacketHeader(header(10, 1, 0), 0); !errors.Is(err, ErrPacketTooShort) {
		t.Errorf("length field 10: %v", err)
	}
	if _, _, err := ParsePacketHeader(header(DefaultMaxPacketSize+1, 1, 0), 0); !errors.Is(err, ErrPacketTooLarge) {
		t.Errorf("length field over the default maximum: %v", err)
	}
	if _, err := ReadPacket(bytes.NewReader(append(header(20, 3, 0), 1, 2)), 0); !errors.Is(err, io.ErrUnexpectedEOF) ||
		!strings.Contains(err.Error(), "truncated packet id=3") {
		t.Errorf("truncated packet: %v", err)
	}
	for p, want := range map[*Packet]string{
		packets[0]: "command id=1 VirtualMachine.Version len=0",
		packets[2]: "reply id=7 err=INVALID_THREAD len=0",
	} {
		if p.String() != want {
			t.Errorf("String() = %q; want %q", p.String(), want)
		}
	}
}

func TestCommandName(t *testing.T) {
	for _, tc := range []struct {
		set, cmd byte
		want     string
	}{
		{1, 7, "VirtualMachine.IDSizes"},
		{11, 6, "ThreadReference.Frames"},
		{64, 100, "Event.Composite"},
		{SetDDM, 1, "DDM.Chunk"},
		{1, 99, "VirtualMachine.99"},
		{0xC8, 2, "200.2"},
	} {
		if got := CommandName(tc.set, tc.cmd); got != tc.want {
			t.Errorf("CommandName(%d, %d) = %q; want %q", tc.set, tc.cmd, got, tc.want)
		}
	}
}

func TestErrorCodes(t *testing.T) {
	for code, name := range map[ErrorCode]string{
		ErrNone: "NONE", ErrInvalidThread: "INVALID_THREAD", ErrAbsentInformation: "ABSENT_INFORMATION",
		ErrNotImplemented: "NOT_IMPLEMENTED", ErrVMDead: "VM_DEAD", ErrInvalidCount: "INVALID_COUNT", 1234: "ERROR_1234",
	} {
		if code.String() != name {
			t.Errorf("ErrorCode(%d).String() = %q; want %q", code, code.String(), name)
		}
	}
	if got := ErrInvalidThread.Error(); got != "JDWP error 10 (INVALID_THREAD)" {
		t.Errorf("Error() = %q", got)
	}
	// Every named constant has a distinct name.
	seen := map[string]ErrorCode{}
	for code, name := range errorNames {
		if other, dup := seen[name]; dup {
			t.Errorf("codes %d and %d are both named %s", code, other, name)
		}
		seen[name] = code
	}

	var err error = &CommandError{Command: "ThreadReference.Frames", Code: ErrThreadNotSuspended}
	err = fmt.Errorf("stack trace of thread 1: %w", err)
	if err.Error() != "stack trace of thread 1: ThreadReference.Frames: JDWP error 13 (THREAD_NOT_SUSPENDED)" {
		t.Errorf("wrapped error text = %q", err)
	}
	if !errors.Is(err, ErrThreadNotSuspended) || errors.Is(err, ErrInvalidThread) {
		t.Error("errors.Is does not see the code through CommandError")
	}
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Command != "ThreadReference.Frames" {
		t.Errorf("errors.As(*CommandError) = %v", ce)
	}
	var code ErrorCode
	if !errors.As(err, &code) || code != ErrThreadNotSuspended {
		t.Errorf("errors.As(ErrorCode) = %v", code)
	}
	if Code(err) != ErrThreadNotSuspended || Code(nil) != ErrNone || Code(io.EOF) != ErrNone || Code(ErrAbsentInformation) != ErrAbsentInformation {
		t.Error("Code does not extract codes")
	}
}
