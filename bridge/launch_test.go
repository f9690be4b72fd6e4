package bridge

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/bridge/adb/adbtest"
	"github.com/ddmbridge/ddmbridge/bridge/adb/simdevice"
)

// TestLaunchApp starts an installed app on a simulated device through the real
// adb server with `am start -D` and gets the monitored VM waiting for a
// debugger, then checks the errors a wrong launch config gets.
func TestLaunchApp(t *testing.T) {
	t.Parallel()
	srv := adbtest.StartServer(t)
	m := startMonitor(t, deviceOptions(t, srv.Client.Addr))
	dev, _ := newDevice(t, simdevice.Options{Model: "Launcher", Packages: []string{"com.example.launch"}}, "com.example.other")
	serial := srv.Connect(t, dev)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	var steps []string
	id, err := m.LaunchApp(ctx, LaunchRequest{Package: "com.example.launch", Activity: ".MainActivity"}, func(s string) { steps = append(steps, s) })
	if err != nil {
		t.Fatalf("LaunchApp: %v (progress %q)", err, steps)
	}
	v, err := m.VM(id)
	if err != nil {
		t.Fatal(err)
	}
	info := v.Info()
	if info.Serial != serial || info.Name != "com.example.launch" {
		t.Errorf("launched VM %+v: want serial %s, name com.example.launch", info, serial)
	}
	waitFor(t, 5*time.Second, "the launched VM to show it waits for a debugger", func() bool { return v.Info().Waiting })
	if len(steps) < 3 || !strings.HasPrefix(steps[0], "Starting com.example.launch") || !strings.Contains(steps[len(steps)-1], "Waiting for the VM") {
		t.Errorf("progress: %q", steps)
	}
	// The debugger's way in: a JDWP stream to it through the monitor.
	nc, err := m.OpenDebugger(ctx, id)
	if err != nil {
		t.Fatalf("OpenDebugger(%s): %v", id, err)
	}
	nc.Close()

	for _, c := range []struct {
		req  LaunchRequest
		want string
	}{
		{LaunchRequest{Activity: ".Main"}, "packageName is required"},
		{LaunchRequest{Package: "com.example.launch"}, "launchActivity"},
		{LaunchRequest{Package: "com.example.launch", Activity: ".Main", Device: "nosuch:1"}, "device nosuch:1 not found"},
		{LaunchRequest{Package: "com.example.missing", Activity: ".Main"}, "am start"},
	} {
		_, err := m.LaunchApp(ctx, c.req, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LaunchApp(%+v) = %v, want an error mentioning %q", c.req, err, c.want)
		}
	}
}
