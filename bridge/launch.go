package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// LaunchRequest describes an app to start on an adb device for debugging, in
// the launch-config terms Android developers know.
type LaunchRequest struct {
	// Device is the target device's serial; empty picks the only online device.
	Device string
	// Package is the application id, e.g. "com.example.app".
	Package string
	// Activity is the activity to start ("com.example.app.MainActivity" or
	// ".MainActivity"); ignored when AmStartArgs is set.
	Activity string
	// AmStartArgs, if set, are passed to `am start` as they are (add -D to wait
	// for the debugger).
	AmStartArgs []string
	// APK, if set, is a local .apk file installed (replacing) before the start.
	APK string
}

// LaunchApp installs (when APK is set) and starts an app on a device so that
// it waits for a debugger (`am start -D`), waits for its process and for the
// monitor to own its VM, and returns that VM's id for OpenDebugger. progress,
// if not nil, is told what it is waiting for.
func (m *Monitor) LaunchApp(ctx context.Context, req LaunchRequest, progress func(string)) (string, error) {
	if progress == nil {
		progress = func(string) {}
	}
	if m.adb == nil {
		return "", errors.New("launching an Android app needs adb: start the monitor without --no-adb (and install adb)")
	}
	if req.Package == "" {
		return "", errors.New("packageName is required to launch an Android app")
	}
	if req.Activity == "" && len(req.AmStartArgs) == 0 {
		return "", errors.New("set launchActivity (e.g. \".MainActivity\") or amStartArgs to say what to start")
	}
	c := m.adb.c
	serial, err := m.launchDevice(ctx, req.Device)
	if err != nil {
		return "", err
	}
	if req.APK != "" {
		progress(fmt.Sprintf("Installing %s on %s", req.APK, serial))
		if err := c.Install(ctx, serial, req.APK); err != nil {
			return "", fmt.Errorf("install %s on %s: %w", req.APK, serial, err)
		}
	}
	before, err := c.JDWPProcesses(ctx, serial)
	if err != nil {
		return "", fmt.Errorf("list debuggable processes on %s: %w", serial, err)
	}
	progress(fmt.Sprintf("Starting %s on %s", req.Package, serial))
	var out string
	if len(req.AmStartArgs) > 0 {
		out, err = c.AmStart(ctx, serial, req.AmStartArgs...)
	} else {
		out, err = c.StartActivity(ctx, serial, req.Package, req.Activity, true)
	}
	if err != nil {
		return "", fmt.Errorf("am start on %s: %w", serial, err)
	}
	if strings.Contains(out, "Error") {
		return "", fmt.Errorf("am start on %s: %s", serial, strings.TrimSpace(out))
	}
	progress(fmt.Sprintf("Waiting for %s to start on %s", req.Package, serial))
	pid, err := c.WaitForProcess(ctx, serial, req.Package, before...)
	if err != nil {
		return "", fmt.Errorf("waiting for %s on %s: %w", req.Package, serial, err)
	}
	addr := DeviceAddr(serial, pid)
	progress(fmt.Sprintf("Waiting for the VM of %s (pid %d)", req.Package, pid))
	return m.waitVM(ctx, addr)
}

// launchDevice resolves the target device: the named one, which must be
// online, or the only online device.
func (m *Monitor) launchDevice(ctx context.Context, serial string) (string, error) {
	// The device list fills right after start: wait for it, a device event
	// at a time, for a few seconds.
	events, cancel := m.Subscribe()
	defer cancel()
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	expired := false
	for {
		var online []string
		devices := m.Devices()
		for _, d := range devices {
			if serial != "" && d.Serial == serial {
				if d.Online {
					return serial, nil
				}
				return "", fmt.Errorf("device %s is %s, not online", serial, d.State)
			}
			if d.Online {
				online = append(online, d.Serial)
			}
		}
		switch {
		case serial == "" && len(online) == 1:
			return online[0], nil
		case serial == "" && len(online) > 1:
			return "", fmt.Errorf("several devices are online (%s): set targetDevice to one of them", strings.Join(online, ", "))
		case expired || (serial != "" && len(devices) > 0):
			if serial != "" {
				return "", fmt.Errorf("device %s not found (see `adb devices`)", serial)
			}
			return "", errors.New("no online adb device: connect one (see `adb devices`)")
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case _, ok := <-events:
			if !ok {
				return "", errors.New("no online adb device: the monitor stopped")
			}
		case <-deadline.C:
			expired = true
		}
	}
}

// waitVM waits until the monitor owns the VM at addr and returns its id. A VM
// is registered before its event is sent, so looking again after each event
// is enough.
func (m *Monitor) waitVM(ctx context.Context, addr string) (string, error) {
	events, cancel := m.Subscribe()
	defer cancel()
	for {
		if v, err := m.VM(addr); err == nil {
			return v.Info().ID, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("waiting for the VM at %s: %w", addr, ctx.Err())
		case _, ok := <-events:
			if !ok {
				return "", fmt.Errorf("waiting for the VM at %s: the monitor stopped", addr)
			}
		}
	}
}
