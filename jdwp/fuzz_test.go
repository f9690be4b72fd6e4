package jdwp

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
	"unicode/utf8"
)

// The seed corpora in testdata/fuzz hold packets captured from a HotSpot 17 VM
// (VM_START, CLASS_PREPARE, VM_DEATH events, IDSizes/Version/ThreadName
// replies, a thread name with a NUL and a supplementary character) and
// hand-made edge cases.

// fuzzSizes are the id widths the fuzzers pick from with an input's first byte.
var fuzzSizes = []IDSizes{DefaultIDSizes, fakeSizes, {1, 1, 1, 1, 1}, {4, 4, 4, 4, 4}, {2, 3, 5, 7, 6}}

func pickSizes(b byte) *IDSizes {
	s := fuzzSizes[int(b)%len(fuzzSizes)]
	return &s
}

// FuzzReadPacket reads a stream of packets. Every packet read must re-encode to
// exactly the bytes it was read from; a failure must be a framing or EOF error.
func FuzzReadPacket(f *testing.F) {
	f.Add((&Packet{ID: 1, CmdSet: 1, Cmd: 1}).Bytes())
	f.Add((&Packet{ID: 2, Flags: FlagReply, Error: ErrInvalidThread}).Bytes())
	f.Add(header(0x80000000, 1, 0))
	const maxSize = 1 << 16
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		var again []byte
		for {
			p, err := ReadPacket(r, maxSize)
			if err != nil {
				if p != nil {
					t.Fatalf("ReadPacket returned a packet with error %v", err)
				}
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) &&
					!errors.Is(err, ErrPacketTooShort) && !errors.Is(err, ErrPacketTooLarge) {
					t.Fatalf("unexpected error kind: %v", err)
				}
				break
			}
			if len(p.Data)+HeaderSize > maxSize {
				t.Fatalf("packet of %d bytes passed a %d-byte bound", len(p.Data)+HeaderSize, maxSize)
			}
			h, n, err := ParsePacketHeader(data[len(again):], maxSize)
			if err != nil || n != len(p.Data) || h.ID != p.ID || h.Flags != p.Flags {
				t.Fatalf("ParsePacketHeader disagrees with ReadPacket: %v, %d, %v vs %v", &h, n, err, p)
			}
			again = p.AppendTo(again)
			_ = p.String()
		}
		if consumed := len(data) - r.Len(); consumed < len(again) || !bytes.Equal(again, data[:len(again)]) {
			t.Fatalf("re-encoded packets differ from the input:\n got % x\nfrom % x", again, data[:min(consumed, len(data))])
		}
	})
}

// FuzzDecodeEventSet decodes Event.Composite data at the id sizes the first
// byte picks. A decoded set must encode and decode back to itself, and encode
// to the same bytes again.
func FuzzDecodeEventSet(f *testing.F) {
	for i, s := range fuzzSizes {
		all := &EventSet{SuspendPolicy: SuspendAll}
		for kind := range eventLayouts {
			all.Events = append(all.Events, fullEvent(kind, s))
		}
		f.Add(append([]byte{byte(i)}, EncodeEventSet(all, &s)...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		sizes := pickSizes(data[0])
		es, err := DecodeEventSet(data[1:], sizes)
		if es == nil {
			t.Fatal("DecodeEventSet returned a nil set")
		}
		if err != nil {
			return
		}
		enc := EncodeEventSet(es, sizes)
		if len(enc) > len(data)-1 {
			t.Fatalf("%d input bytes re-encoded to %d", len(data)-1, len(enc))
		}
		es2, err := DecodeEventSet(enc, sizes)
		if err != nil {
			t.Fatalf("re-encoded set does not decode: %v\n% x", err, enc)
		}
		if !reflect.DeepEqual(es, es2) {
			t.Fatalf("round trip changed the set:\n%+v\n%+v", es.Events, es2.Events)
		}
		if enc2 := EncodeEventSet(es2, sizes); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable:\n% x\n% x", enc, enc2)
		}
	})
}

// Operations of FuzzReaderValues, chosen by an input byte.
const (
	opValue = iota
	opUntagged
	opLocation
	opString
	opTaggedObject
	opCount
)

type readOp struct {
	op  byte
	v   Value
	loc Location
	s   string
	obj TaggedObjectID
}

// FuzzReaderValues reads a sequence of values, locations, strings and tagged
// object ids, each chosen by a byte of the input, at the id sizes the first
// byte picks. What was read must write and read back the same.
func FuzzReaderValues(f *testing.F) {
	w := NewWriter(&fakeSizes)
	w.Byte(opValue)
	w.Value(IntValue(-5))
	w.Byte(opUntagged)
	w.Byte(byte(TagLong))
	w.Int64(1 << 40)
	w.Byte(opLocation)
	w.Location(Location{TypeTagClass, 0x1234, 0x56789A, 3})
	w.Byte(opString)
	w.String("héllo")
	w.Byte(opTaggedObject)
	w.Byte(byte(TagThread))
	w.ObjectID(0xCAFE)
	f.Add(append([]byte{1}, w.Bytes()...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		sizes := pickSizes(data[0])
		read := func(r *Reader) []readOp {
			var ops []readOp
			for r.Remaining() > 0 && r.Err() == nil {
				o := readOp{op: r.Byte() % opCount}
				switch o.op {
				case opValue:
					o.v = r.Value()
				case opUntagged:
					o.v = r.UntaggedValue(Tag(r.Byte()))
				case opLocation:
					o.loc = r.Location()
				case opString:
					o.s = r.String()
				case opTaggedObject:
					o.obj = r.TaggedObjectID()
				}
				if r.Err() == nil {
					ops = append(ops, o)
				}
			}
			return ops
		}
		r := NewReader(data[1:], sizes)
		ops := read(r)
		w := NewWriter(sizes)
		for _, o := range ops {
			w.Byte(o.op)
			switch o.op {
			case opValue:
				w.Value(o.v)
			case opUntagged:
				w.Byte(byte(o.v.Tag))
				w.UntaggedValue(o.v)
			case opLocation:
				w.Location(o.loc)
			case opString:
				w.String(o.s)
			case opTaggedObject:
				w.Byte(byte(o.obj.Tag))
				w.ObjectID(o.obj.ID)
			}
		}
		r2 := NewReader(w.Bytes(), sizes)
		ops2 := read(r2)
		if r2.Err() != nil || !reflect.DeepEqual(ops, ops2) {
			t.Fatalf("round trip changed what was read (err %v):\n%+v\n%+v", r2.Err(), ops, ops2)
		}
	})
}

// FuzzModifiedUTF8 checks the string decoder: plain UTF-8 passes unchanged,
// decoding never grows the input and is idempotent, and any valid string
// encoded as modified UTF-8 decodes back to itself.
func FuzzModifiedUTF8(f *testing.F) {
	f.Add([]byte("w\xc3\xb6rker-\xf0\x9f\x98\x80-\x00"))
	f.Add(modifiedUTF8("w\u00f6rker-\U0001F600-\x00"))
	f.Add([]byte("\xED\xA0\xBD"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := decodeModifiedUTF8(b)
		if len(s) > len(b) {
			t.Fatalf("decoding % x grew it to % x", b, s)
		}
		if utf8.Valid(b) && s != string(b) {
			t.Fatalf("valid UTF-8 %+q decoded as %+q", b, s)
		}
		if !bytes.ContainsAny(b, "\xC0\xED") && s != string(b) {
			t.Fatalf("%+q without C0 or ED decoded as %+q", b, s)
		}
		if again := decodeModifiedUTF8([]byte(s)); again != s {
			t.Fatalf("decoding is not idempotent: % x -> % x -> % x", b, s, again)
		}
		if utf8.Valid(b) {
			if m := modifiedUTF8(string(b)); decodeModifiedUTF8(m) != string(b) {
				t.Fatalf("modified UTF-8 % x of %+q decoded as %+q", m, b, decodeModifiedUTF8(m))
			}
		}
		// Through a Reader, with the length prefix.
		w := NewWriter(nil)
		w.Int32(int32(len(b)))
		w.Buf = append(w.Buf, b...)
		if r := NewReader(w.Bytes(), nil); r.String() != s || r.Err() != nil {
			t.Fatalf("Reader.String disagrees with decodeModifiedUTF8 on % x", b)
		}
		// Three times in a row: the second and third are cut from one copy
		// of the data when plain, and must still read the same.
		w.Int32(int32(len(b)))
		w.Buf = append(w.Buf, b...)
		w.Int32(int32(len(b)))
		w.Buf = append(w.Buf, b...)
		r := NewReader(w.Bytes(), nil)
		for i := range 3 {
			if got := r.String(); got != s || r.Err() != nil {
				t.Fatalf("string %d of three copies of % x read as %+q (%v), want %+q", i, b, got, r.Err(), s)
			}
		}
	})
}
