package adb_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Follow every debuggable VM on every device, as the monitor does.
func ExampleClient_TrackAllJDWP() {
	ctx := context.Background()
	c := &adb.Client{} // 127.0.0.1:5037 or what ADB_SERVER_SOCKET says; started if needed
	tr, err := c.TrackAllJDWP(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer tr.Close()
	for list := range tr.Updates() {
		for _, p := range list {
			name, _ := c.ProcessName(ctx, p.Device.Serial, p.PID)
			fmt.Println(p.Device.Serial, p.Device.Model, p.PID, name)
		}
	}
	log.Println("tracking ended:", tr.Err())
}

// Attach our JDWP client to a VM on a device, directly over jdwp:PID.
func ExampleClient_DialJDWP() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &adb.Client{}
	nc, err := c.DialJDWP(ctx, "emulator-5554", 1234)
	if err != nil {
		log.Fatal(err)
	}
	conn, err := jdwp.Handshake(ctx, nc, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	v, err := conn.Version(ctx)
	fmt.Println(v.VMName, err)
}

// Launch an app waiting for a debugger and give jdb a port to attach to.
func ExampleClient_StartActivity() {
	ctx := context.Background()
	c := &adb.Client{}
	serial := "emulator-5554"
	if err := c.Install(ctx, serial, "app-debug.apk"); err != nil {
		log.Fatal(err)
	}
	before, _ := c.JDWPProcesses(ctx, serial)
	if _, err := c.StartActivity(ctx, serial, "com.example.app", ".MainActivity", true); err != nil {
		log.Fatal(err)
	}
	pid, err := c.WaitForProcess(ctx, serial, "com.example.app", before...)
	if err != nil {
		log.Fatal(err)
	}
	port, err := c.ForwardJDWP(ctx, serial, 0, pid)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("jdb -attach localhost:%d\n", port)
}
