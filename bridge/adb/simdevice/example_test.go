package simdevice_test

import (
	"fmt"
	"log"
	"net"

	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
)

// A device with two simulated VMs, ready for `adb connect`.
func Example() {
	dev := simdevice.New(simdevice.Options{Model: "Demo", Packages: []string{"com.example.app"}})
	defer dev.Close()
	dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.one"})
	pid, _ := dev.AddProcess(simdevice.ProcessOptions{Name: "com.example.two", WaitingForDebugger: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go dev.Serve(ln)
	// Now: adb connect <ln.Addr()>; adb -s <ln.Addr()> jdwp
	dev.RemoveProcess(pid)
	for _, p := range dev.Processes() {
		fmt.Println(p.PID, p.Name)
	}
	// Output: 1000 com.example.one
}
