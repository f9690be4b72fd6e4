package dap

import (
	"context"
	"net"
	"slices"
	"testing"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	godap "github.com/google/go-dap"
)

// fakeAndroid is a backend that "launches" an app by handing out a HotSpot
// VM started with suspend=y, as the monitor hands out an app started with
// am start -D.
type fakeAndroid struct {
	DirectBackend
	vm       *jvmtest.JVM
	got      AndroidLaunch
	messages []string
}

func (f *fakeAndroid) LaunchAndroid(ctx context.Context, req AndroidLaunch, progress func(string)) (string, error) {
	f.got = req
	for _, m := range []string{"installing app.apk", "waiting for com.example.app's VM"} {
		progress(m)
	}
	return f.vm.Addr, nil
}

func (f *fakeAndroid) OpenDebugger(ctx context.Context, target string) (net.Conn, error) {
	return f.DirectBackend.OpenDebugger(ctx, target)
}

func (f *fakeAndroid) DDMFeed(string) *ddm.Feed { return nil }

// TestAndroidLaunch launches through a backend implementing
// AndroidLauncher: progress events while it waits, then the usual launch
// answer, and the VM runs to a breakpoint once configured.
func TestAndroidLaunch(t *testing.T) {
	vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{fixtures(t)}, MainClass: "Basic", Suspend: true})
	backend := &fakeAndroid{vm: vm}
	c := startSession(t, Config{Backend: backend})
	c.send("initialize", map[string]any{"adapterID": "ddmbridge", "pathFormat": "path", "supportsProgressReporting": true})
	expect[*godap.InitializeResponse](c)
	c.send("launch", map[string]any{
		"packageName": "com.example.app", "targetDevice": "emulator-5554", "launchActivity": ".Main",
		"amStartArgs": []string{"--ez", "demo", "true"}, "apkFile": "app.apk", "sourcePaths": []string{source(t, "")},
	})
	start := expect[*godap.ProgressStartEvent](c)
	if start.Body.Title != "Launching com.example.app" || !start.Body.Cancellable {
		t.Errorf("progressStart %+v", start.Body)
	}
	var msgs []string
	for {
		m := c.next()
		if u, ok := m.(*godap.ProgressUpdateEvent); ok {
			msgs = append(msgs, u.Body.Message)
			continue
		}
		if _, ok := m.(*godap.ProgressEndEvent); !ok {
			t.Fatalf("got %s, want progress events", mustJSON(m))
		}
		break
	}
	if !slices.Equal(msgs, []string{"installing app.apk", "waiting for com.example.app's VM", "attaching to " + vm.Addr}) {
		t.Errorf("progress messages %q", msgs)
	}
	p := expect[*godap.ProcessEvent](c)
	if p.Body.Name != "com.example.app" || p.Body.StartMethod != "launch" || p.Body.IsLocalProcess {
		t.Errorf("process event %+v", p.Body)
	}
	expect[*godap.LaunchResponse](c)
	expect[*godap.InitializedEvent](c)
	want := AndroidLaunch{Device: "emulator-5554", Package: "com.example.app", Activity: ".Main", AmStartArgs: []string{"--ez", "demo", "true"}, APK: "app.apk"}
	if backend.got.Device != want.Device || backend.got.Package != want.Package || backend.got.Activity != want.Activity ||
		!slices.Equal(backend.got.AmStartArgs, want.AmStartArgs) || backend.got.APK != want.APK {
		t.Errorf("LaunchAndroid got %+v, want %+v", backend.got, want)
	}
	c.setBreakpoints(source(t, "Basic.java"), bp(t, "Basic.java", "call-add"))
	c.configurationDone()
	expect[*godap.BreakpointEvent](c)
	stop := c.expectStop("breakpoint")
	frameAt(t, c.stackTrace(stop.Body.ThreadId)[0], "Basic.main", line(t, "Basic.java", "call-add"))
	c.send("disconnect", nil) // an Android launch is terminated by default
	expect[*godap.DisconnectResponse](c)
	<-vm.Exited()
}

// TestAndroidLaunchNeedsMonitor: without an AndroidLauncher the launch
// says where to go.
func TestAndroidLaunchNeedsMonitor(t *testing.T) {
	c := startSession(t, Config{})
	c.initialize()
	c.send("launch", map[string]any{"packageName": "com.example.app"})
	c.expectError(ErrFailedToLaunch, "launching Android apps needs the monitor: run ddmbridge serve (adb devices are found automatically) and connect through it")
}
