package ddm

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

type sinkRecorder struct {
	bytes.Buffer
	ended bool
	err   error
}

func (s *sinkRecorder) End(err error) { s.ended, s.err = true, err }

// TestStreamChunks: a packet holding one chunk of a streamed type goes to
// the sink without its header, part by part; a chunk sharing its packet,
// of another type, or of another command is read whole; a chunk nobody
// takes is dropped.
func TestStreamChunks(t *testing.T) {
	ft := &fakeTransport{answer: func(Chunk) ([]byte, error, bool) { return nil, nil, true }}
	c := NewClient(ft, Options{})
	defer c.Close()
	var sink *sinkRecorder
	var sizes []int64
	c.StreamChunks(HPDS, func(size int64) ChunkSink {
		sizes = append(sizes, size)
		if sink == nil {
			return nil
		}
		return sink
	})
	data := make([]byte, 3*jdwp.StreamMin)
	for i := range data {
		data[i] = byte(i * 7)
	}
	pkt := EncodeChunks(Chunk{Type: HPDS, Data: data})
	hdr := &jdwp.Packet{ID: 9, CmdSet: CommandSet, Cmd: Command}
	head := pkt[:jdwp.LargeCommandHead]

	sink = &sinkRecorder{}
	rcv := c.HandleLargePacket(nil, hdr, len(pkt), head)
	if rcv == nil {
		t.Fatal("a lone HPDS chunk is not streamed")
	}
	for off := 0; off < len(pkt); off += 5 { // parts that split the header too
		if err := rcv.CommandPart(off, pkt[off:min(off+5, len(pkt))]); err != nil {
			t.Fatal(err)
		}
	}
	rcv.CommandEnd(nil)
	if !bytes.Equal(sink.Bytes(), data) || !sink.ended || sink.err != nil || sizes[0] != int64(len(data)) {
		t.Fatalf("sink got %d bytes (ended %v, %v), size %v; want the %d data bytes", sink.Len(), sink.ended, sink.err, sizes, len(data))
	}

	two := append(bytes.Clone(pkt), EncodeChunks(Chunk{Type: THCR, Data: []byte{0, 0, 0, 1, 0, 0, 0, 0}})...)
	other := EncodeChunks(Chunk{Type: MPSE, Data: data})
	for name, tc := range map[string]struct {
		p   []byte
		cmd byte
	}{"shares its packet": {two, Command}, "another type": {other, Command}, "another command": {pkt, 2}} {
		h := *hdr
		h.Cmd = tc.cmd
		if rcv := c.HandleLargePacket(nil, &h, len(tc.p), tc.p[:jdwp.LargeCommandHead]); rcv != nil {
			t.Errorf("%s: streamed; want it read whole", name)
		}
	}
	// Truncated length field: the chunk claims more than the packet holds.
	bad := bytes.Clone(pkt)
	binary.BigEndian.PutUint32(bad[4:], uint32(len(data)+1))
	if rcv := c.HandleLargePacket(nil, hdr, len(bad), bad[:jdwp.LargeCommandHead]); rcv != nil {
		t.Error("a chunk whose length disagrees with its packet is streamed")
	}

	sink = nil // nobody asked: dropped
	rcv = c.HandleLargePacket(nil, hdr, len(pkt), head)
	if rcv == nil || rcv.CommandPart(0, pkt[:100]) == nil {
		t.Fatal("an HPDS chunk nobody takes is not dropped")
	}
	rcv.CommandEnd(nil)
}
