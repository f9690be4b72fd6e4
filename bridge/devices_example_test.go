package bridge_test

import (
	"context"
	"fmt"

	"github.com/ddmbridge/ddmbridge/bridge"
	"github.com/ddmbridge/ddmbridge/bridge/adb"
)

// A monitor that follows the adb server's devices as well as the seed's
// workstation ports: each debuggable process on a device becomes a VM at
// SERIAL/PID with its own debugger port.
func ExampleOptions_adb() {
	opts := bridge.DefaultOptions()
	opts.ADB = &adb.Client{} // the server $ANDROID_ADB_SERVER_PORT selects; started if none runs
	m, err := bridge.New(opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, stop := m.Subscribe()
	defer stop()
	go m.Run(ctx)
	for e := range events {
		switch e.Kind {
		case bridge.EventDeviceAdded:
			fmt.Println("device", e.Device.Serial, e.Device.State)
		case bridge.EventAdded:
			if e.VM.Serial != "" {
				fmt.Printf("%s on %s: jdb -attach 127.0.0.1:%d\n", e.VM.Name, e.VM.Device, e.VM.DebugPort)
			}
		}
	}
}
