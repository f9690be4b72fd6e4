package jdwp

import (
	"bytes"
	"errors"
	"testing"
)

func TestBodies(t *testing.T) {
	if got := EncodeClearRequest(EventBreakpoint, 0x01020304); !bytes.Equal(got, []byte{byte(EventBreakpoint), 1, 2, 3, 4}) {
		t.Errorf("EncodeClearRequest = % x", got)
	}
	if kind, id, err := DecodeClearRequest([]byte{byte(EventSingleStep), 0, 0, 0, 9}); err != nil || kind != EventSingleStep || id != 9 {
		t.Errorf("DecodeClearRequest = %v, %d, %v", kind, id, err)
	}
	if _, _, err := DecodeClearRequest([]byte{2, 0}); !errors.Is(err, ErrShortData) {
		t.Errorf("DecodeClearRequest of 2 bytes: %v, want ErrShortData", err)
	}
	if id, err := DecodeSetRequestReply([]byte{0, 0, 1, 0}); err != nil || id != 256 {
		t.Errorf("DecodeSetRequestReply = %d, %v", id, err)
	}
	if _, err := DecodeSetRequestReply(nil); !errors.Is(err, ErrShortData) {
		t.Errorf("DecodeSetRequestReply(nil): %v, want ErrShortData", err)
	}
	four := &IDSizes{FieldID: 4, MethodID: 4, ObjectID: 4, ReferenceTypeID: 4, FrameID: 4}
	if got := EncodeObjectArg(0x0a0b0c0d, four); !bytes.Equal(got, []byte{0xa, 0xb, 0xc, 0xd}) {
		t.Errorf("EncodeObjectArg (4-byte ids) = % x", got)
	}
	if got := EncodeObjectArg(7, nil); len(got) != DefaultIDSizes.ObjectID {
		t.Errorf("EncodeObjectArg (default sizes) = % x", got)
	}
	if o, err := DecodeObjectArg([]byte{0, 0, 0, 0, 0, 0, 0, 42, 0xff}, nil); err != nil || o != 42 {
		t.Errorf("DecodeObjectArg = %d, %v", o, err)
	}
	if _, err := DecodeObjectArg([]byte{1, 2, 3}, nil); !errors.Is(err, ErrShortData) {
		t.Errorf("DecodeObjectArg of 3 bytes: %v, want ErrShortData", err)
	}
}

// FuzzBodies decodes any data as each body (nothing may panic) and checks
// that what decodes encodes back to the bytes it came from.
func FuzzBodies(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 7})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 42})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if kind, id, err := DecodeClearRequest(data); err == nil {
			if back := EncodeClearRequest(kind, id); !bytes.Equal(back, data[:5]) {
				t.Fatalf("Clear % x → %v %d → % x", data, kind, id, back)
			}
		}
		if id, err := DecodeSetRequestReply(data); err == nil && int32(uint32(data[0])<<24|uint32(data[1])<<16|uint32(data[2])<<8|uint32(data[3])) != id {
			t.Fatalf("Set reply % x → %d", data, id)
		}
		for _, sizes := range []*IDSizes{nil, {FieldID: 4, MethodID: 4, ObjectID: 4, ReferenceTypeID: 4, FrameID: 4}} {
			if o, err := DecodeObjectArg(data, sizes); err == nil {
				if back := EncodeObjectArg(o, sizes); !bytes.Equal(back, data[:len(back)]) {
					t.Fatalf("object % x → %d → % x", data, o, back)
				}
			}
		}
	})
}
