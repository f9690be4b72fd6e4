package simvm_test

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

func Example() {
	vm, _ := simvm.New(simvm.Options{Profile: simvm.ProfileART, AppName: "com.example.demo", PID: 1234})
	defer vm.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go vm.Serve(ln)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := jdwp.Dial(ctx, ln.Addr().String(), nil)
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	// DDM goes only to a VM that says it is Android's (HotSpot's agent
	// crashes on it): the simulator answers Version as ART does.
	if v, err := conn.Version(ctx); err != nil || !v.Android() {
		panic(fmt.Sprintf("not an Android VM: %+v %v", v, err))
	}
	conn.AllowVendorCommands()
	c := ddm.Attach(conn, ddm.Options{})
	defer c.Close()
	m, err := c.Request(ctx, &ddm.HelloRequest{ServerVersion: 1})
	if err != nil {
		panic(err)
	}
	h := m.(*ddm.Hello)
	fmt.Println(h.VMIdent, h.PID, h.AppName)
	// Output: Dalvik v2.1.0 1234 com.example.demo
}
