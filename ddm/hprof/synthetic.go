package hprof

import (
	"bytes"
	"encoding/binary"
	"io"
	"time"
)

// SyntheticDump is a well-formed dump of n objects (besides its two class
// objects) generated as it is read, for measuring a streamed pass where no
// file could hold the dump (2^31 objects take 30 GB even this small): 4-byte
// ids, the classes java.lang.Object and Tiny (no fields), then the objects,
// alternately a Tiny (a 17-byte record, 8 bytes shallow) and an empty int[]
// (14 bytes, 16 shallow), in segments of 64 Ki objects. The ids repeat from
// segment to segment (a streamed pass does not look them up). Its
// histogram: ⌈n/2⌉ Tiny, ⌊n/2⌋ int[], two java.lang.Class.
func SyntheticDump(n int64) io.Reader {
	var pre bytes.Buffer
	w := NewWriter(&pre, 4, time.Unix(0, 0))
	w.String(1, "java/lang/Object")
	w.String(2, "Tiny")
	w.LoadClass(0x10, 1)
	w.LoadClass(0x20, 2)
	w.ClassDump(0x10, 0, 0, nil, nil)
	w.ClassDump(0x20, 0x10, 0, nil, nil)
	w.Close()
	head := pre.Bytes()
	end := head[len(head)-9:] // HEAP_DUMP_END
	head = head[:len(head)-9]
	const perSeg = 1 << 16
	full, rest := n/perSeg, int(n%perSeg)
	parts := []syntheticPart{{data: head, times: 1}}
	if full > 0 {
		parts = append(parts, syntheticPart{data: syntheticSegment(perSeg), times: full})
	}
	if rest > 0 {
		parts = append(parts, syntheticPart{data: syntheticSegment(rest), times: 1})
	}
	parts = append(parts, syntheticPart{data: end, times: 1})
	return &synthetic{parts: parts}
}

// syntheticSegment is a HEAP_DUMP_SEGMENT of k objects, a Tiny first.
func syntheticSegment(k int) []byte {
	b := []byte{tagHeapDumpSeg, 0, 0, 0, 0, 0, 0, 0, 0}
	for i := range k {
		id := uint32(0x1000 + 8*i)
		if i%2 == 0 {
			b = append(b, subInstanceDump)
			b = binary.BigEndian.AppendUint32(b, id)
			b = binary.BigEndian.AppendUint32(b, 0)    // stack trace serial
			b = binary.BigEndian.AppendUint32(b, 0x20) // Tiny
			b = binary.BigEndian.AppendUint32(b, 0)    // no field bytes
		} else {
			b = append(b, subPrimArrayDump)
			b = binary.BigEndian.AppendUint32(b, id)
			b = binary.BigEndian.AppendUint32(b, 0) // stack trace serial
			b = binary.BigEndian.AppendUint32(b, 0) // no elements
			b = append(b, byte(TypeInt))
		}
	}
	binary.BigEndian.PutUint32(b[5:], uint32(len(b)-9))
	return b
}

type syntheticPart struct {
	data  []byte
	times int64
}

// synthetic reads its parts in order, each as many times as it says.
type synthetic struct {
	parts []syntheticPart
	at    int // in parts[0].data
}

func (s *synthetic) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && len(s.parts) > 0 {
		part := &s.parts[0]
		k := copy(p[n:], part.data[s.at:])
		n += k
		s.at += k
		if s.at == len(part.data) {
			s.at = 0
			if part.times--; part.times == 0 {
				s.parts = s.parts[1:]
			}
		}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
