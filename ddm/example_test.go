package ddm_test

import (
	"context"
	"fmt"

	"github.com/ddmbridge/ddmbridge/ddm"
)

func ExampleDecode() {
	// The payload of a DDM packet from a VM: one THCR chunk.
	payload := ddm.EncodeChunks(ddm.Encode(&ddm.ThreadName{ID: 1, Name: "main"}))
	chunks, err := ddm.ParseChunks(payload, ddm.ParseOptions{})
	if err != nil {
		panic(err)
	}
	m, err := ddm.Decode(chunks[0], ddm.FromVM)
	if err != nil {
		panic(err)
	}
	t := m.(*ddm.ThreadName)
	fmt.Println(chunks[0].Type, t.ID, t.Name)
	// Output: THCR 1 main
}

func ExampleHeapAssembler() {
	var a ddm.HeapAssembler
	a.Add(&ddm.HeapDumpStart{HeapID: 1})
	a.Add(&ddm.HeapSegment{Type: ddm.HPSG, HeapID: 1, UnitSize: 8, Start: 0x12C00000, UnitCount: 309,
		Runs: []byte{0x99, 0xFF, 0x19, 0x2B, 0x09, 0x08}})
	m, _ := a.Add(&ddm.HeapDumpEnd{HeapID: 1})
	tot := m.Totals()
	fmt.Println(tot.Bytes, tot.ByKind[ddm.KindArray2].Bytes, tot.ByKind[ddm.KindClass].Bytes)
	// Output: 2472 2400 72
}

// echoVM is a stand-in transport that answers HELO like a VM; in real use a
// *jdwp.Conn is the transport (see Attach).
type echoVM struct{}

func (echoVM) Command(ctx context.Context, set, cmd byte, data []byte) ([]byte, error) {
	return ddm.EncodeChunks(ddm.Encode(&ddm.Hello{ProtocolVersion: 1, PID: 42, VMIdent: "Dalvik v2.1.0", AppName: "demo"})), nil
}

func ExampleClient() {
	c := ddm.NewClient(echoVM{}, ddm.Options{})
	defer c.Close()
	m, err := c.Request(context.Background(), &ddm.HelloRequest{ServerVersion: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(m.(*ddm.Hello).AppName, c.Data().Identity().PID)
	// Output: demo 42
}
