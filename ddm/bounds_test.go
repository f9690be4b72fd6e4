package ddm

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// TestDecodeBounds: a string longer than MaxStringUnits or a list longer
// than MaxListLen is refused before it is allocated (issue 25: huge names
// from a fake VM took the monitor to half a gigabyte); one at the bound
// decodes.
func TestDecodeBounds(t *testing.T) {
	name := strings.Repeat("n", MaxStringUnits)
	ok := Encode(&ThreadName{ID: 1, Name: name})
	if m, err := Decode(ok, FromVM); err != nil || m.(*ThreadName).Name != name {
		t.Fatalf("THCR with a name of %d units: %v", MaxStringUnits, err)
	}
	long := Encode(&ThreadName{ID: 1, Name: name + "n"})
	if _, err := Decode(long, FromVM); !errors.Is(err, ErrTooLong) {
		t.Fatalf("THCR with a name of %d units: %v; want ErrTooLong", MaxStringUnits+1, err)
	}

	feat := binary.BigEndian.AppendUint32(nil, MaxListLen+1)
	feat = append(feat, make([]byte, 4*(MaxListLen+1))...) // that many empty strings
	if _, err := Decode(Chunk{Type: FEAT, Data: feat}, FromVM); !errors.Is(err, ErrTooLong) {
		t.Fatalf("FEAT with %d strings: %v; want ErrTooLong", MaxListLen+1, err)
	}
	binary.BigEndian.PutUint32(feat, MaxListLen)
	if m, err := Decode(Chunk{Type: FEAT, Data: feat[:len(feat)-4]}, FromVM); err != nil || len(m.(*Features).Names) != MaxListLen {
		t.Fatalf("FEAT with %d strings: %v", MaxListLen, err)
	}
}

// TestModelThreadsBounded: a VM announcing ever new threads cannot make the
// model keep more than MaxThreads of them.
func TestModelThreadsBounded(t *testing.T) {
	d := NewClientData()
	for id := range uint32(MaxThreads + 100) {
		if _, err := d.Apply(&ThreadName{ID: id, Name: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(d.Threads()); n != MaxThreads {
		t.Fatalf("the model keeps %d threads; want the bound %d", n, MaxThreads)
	}
}
