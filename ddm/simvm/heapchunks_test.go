package simvm

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// heapChunkRequests are a server's requests of every heap and allocation
// chunk type, HPGC included.
var heapChunkRequests = []ddm.Message{
	&ddm.HeapInfoRequest{When: ddm.WhenNow},
	&ddm.HeapInfoRequest{When: ddm.WhenEveryGC},
	&ddm.SegmentRequest{When: 1, What: 0},
	&ddm.SegmentRequest{Native: true, When: 1, What: 0},
	&ddm.HprofDumpRequest{Path: "/data/local/tmp/x.hprof"},
	&ddm.Empty{Type: ddm.HPDS},
	&ddm.AllocTrackingEnable{Enable: true},
	&ddm.Empty{Type: ddm.REAQ},
	&ddm.Empty{Type: ddm.REAL},
	&ddm.Empty{Type: ddm.HPGC},
}

// TestHeapChunksByProfile sends every heap chunk type, each followed by a
// FEAT, on one raw connection: the VM handles packets in order, so the
// first reply after the chunk is the chunk's own if it has one, and FEAT's
// if it has none. The current profile answers none of them and sends no
// heap data; the art profile keeps them (HPGC has no reply on either).
func TestHeapChunksByProfile(t *testing.T) {
	for _, tc := range []struct {
		profile  Profile
		answered map[ddm.Type]bool
	}{
		{ProfileCurrent, map[ddm.Type]bool{}},
		{ProfileART, map[ddm.Type]bool{ddm.HPDU: true, ddm.REAQ: true, ddm.REAL: true}},
	} {
		t.Run(string(tc.profile), func(t *testing.T) {
			_, addr := listen(t, Options{Profile: tc.profile, AppName: "com.example.heap", Threads: 2, Tick: time.Hour, GCInterval: time.Hour})
			nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(2 * time.Minute))
			io.WriteString(nc, jdwp.HandshakeString)
			if _, err := io.ReadFull(nc, make([]byte, len(jdwp.HandshakeString))); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(nc)
			var heapData []ddm.Type // unsolicited heap chunks seen
			// next returns the next reply, keeping note of unsolicited chunks.
			next := func() *jdwp.Packet {
				t.Helper()
				for {
					p, err := jdwp.ReadPacket(r, 0)
					if err != nil {
						t.Fatalf("reading: %v", err)
					}
					if p.IsReply() {
						return p
					}
					cs, _ := ddm.ParseChunks(p.Data, ddm.ParseOptions{})
					for _, c := range cs {
						switch c.Type {
						case ddm.HPIF, ddm.HPST, ddm.HPSG, ddm.HPSO, ddm.HPEN, ddm.NHST, ddm.NHSG, ddm.NHEN, ddm.HPDS:
							heapData = append(heapData, c.Type)
						}
					}
				}
			}
			id := uint32(0)
			send := func(m ddm.Message) uint32 {
				id++
				if err := jdwp.WritePacket(nc, &jdwp.Packet{ID: id, CmdSet: ddm.CommandSet, Cmd: ddm.Command, Data: ddm.EncodeChunks(ddm.Encode(m))}); err != nil {
					t.Fatal(err)
				}
				return id
			}
			send(&ddm.HelloRequest{ServerVersion: 1})
			next()
			for _, m := range heapChunkRequests {
				typ := ddm.Encode(m).Type
				asked := send(m)
				feat := send(&ddm.Empty{Type: ddm.FEAT})
				p := next()
				switch {
				case p.ID == asked && !tc.answered[typ]:
					t.Errorf("%s: the VM replied (%d bytes), want no reply", typ, len(p.Data))
					next() // FEAT's
				case p.ID == asked:
					next()
				case p.ID == feat && tc.answered[typ]:
					t.Errorf("%s: no reply, want one", typ)
				case p.ID != feat:
					t.Fatalf("%s: reply to packet %d, want %d or %d", typ, p.ID, asked, feat)
				}
			}
			// A last HPGC: on the art profile the enabled HPIF and heap map follow it.
			send(&ddm.Empty{Type: ddm.HPGC})
			send(&ddm.Empty{Type: ddm.FEAT})
			next()
			if tc.profile == ProfileCurrent && len(heapData) > 0 {
				t.Errorf("the current profile sent heap data %v", heapData)
			}
			if tc.profile == ProfileART && len(heapData) == 0 {
				for len(heapData) == 0 { // the GC's reports come after the HPGC's handling
					send(&ddm.Empty{Type: ddm.FEAT})
					next()
				}
			}
		})
	}
}
