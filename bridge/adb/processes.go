package adb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// JDWPProcess is one process on one online device: a debuggable one
// (track-jdwp), or with App a debuggable or profileable one as track-app
// describes it (its JDWP may still be refused: not debuggable, or frozen).
type JDWPProcess struct {
	Device Device
	PID    int
	App    *AppProcess // nil when the device has no track-app
}

// Debuggable reports whether the device lets a debugger open jdwp:PID (as
// far as the list says: a frozen app is still refused).
func (p JDWPProcess) Debuggable() bool { return p.App == nil || p.App.Debuggable }

func (p JDWPProcess) equal(q JDWPProcess) bool {
	if p.Device != q.Device || p.PID != q.PID || (p.App == nil) != (q.App == nil) {
		return false
	}
	return p.App == nil || p.App.Equal(*q.App)
}

// retryJDWP is how long TrackAllJDWP waits before reopening the track-jdwp
// stream of a device that is still listed online after its stream ended.
const retryJDWP = time.Second

// TrackAllJDWP follows every debuggable process on every online device: it
// tracks the devices and, per online device, its track-app stream when the
// device has the track_app feature (then profileable processes are listed
// too, with their details), else its track-jdwp stream. A device
// that goes offline or away takes its processes with it in the same update.
// The list is sorted by serial, then pid. Tracking ends with the device
// tracker (ctx, Close, or the server going away).
func (c *Client) TrackAllJDWP(ctx context.Context) (*Tracker[[]JDWPProcess], error) {
	devs, err := c.TrackDevices(ctx)
	if err != nil {
		return nil, err
	}
	t := newTracker[[]JDWPProcess](ctx, devs.nc)
	go c.mergeJDWP(ctx, devs, t)
	return t, nil
}

// watchedDevice is one online device whose track-jdwp TrackAllJDWP follows.
type watchedDevice struct {
	dev    Device
	procs  []JDWPProcess
	cancel context.CancelFunc
}

// pidUpdate is a device's new process list; nil when its stream ended.
type pidUpdate struct {
	w     *watchedDevice
	procs []JDWPProcess
}

func (c *Client) mergeJDWP(ctx context.Context, devs *Tracker[[]Device], t *Tracker[[]JDWPProcess]) {
	updates := make(chan pidUpdate)
	byserial := map[string]*watchedDevice{}
	defer func() {
		for _, w := range byserial {
			w.cancel()
		}
	}()
	var last []JDWPProcess
	first := true
	emit := func() {
		all := []JDWPProcess{}
		for _, w := range byserial {
			for _, p := range w.procs {
				p.Device = w.dev
				all = append(all, p)
			}
		}
		slices.SortFunc(all, func(a, b JDWPProcess) int {
			return cmp.Or(cmp.Compare(a.Device.Serial, b.Device.Serial), cmp.Compare(a.PID, b.PID))
		})
		if first || !slices.EqualFunc(all, last, JDWPProcess.equal) {
			first, last = false, all
			t.emit(all)
		}
	}
	for {
		select {
		case list, ok := <-devs.Updates():
			if !ok {
				t.finish(ctx, "adb track-all-jdwp", devs.Err())
				return
			}
			online := map[string]Device{}
			for _, d := range list {
				if d.State.Online() {
					online[d.Serial] = d
				}
			}
			for serial, w := range byserial {
				if d, ok := online[serial]; !ok || d.TransportID != w.dev.TransportID {
					w.cancel()
					delete(byserial, serial)
				}
			}
			for serial, d := range online {
				if w := byserial[serial]; w != nil {
					w.dev = d
					continue
				}
				wctx, cancel := context.WithCancel(ctx)
				w := &watchedDevice{dev: d, cancel: cancel}
				byserial[serial] = w
				go c.followJDWP(wctx, w, updates)
			}
			emit()
		case u := <-updates:
			if byserial[u.w.dev.Serial] == u.w {
				u.w.procs = u.procs
				emit()
			}
		}
	}
}

// followJDWP feeds one device's process lists to updates, reopening the
// tracker while the device stays online (until ctx ends): track-app when the
// device announces track_app, else (or when track-app is refused) track-jdwp.
func (c *Client) followJDWP(ctx context.Context, w *watchedDevice, updates chan<- pidUpdate) {
	serial := w.dev.Serial
	send := func(procs []JDWPProcess) bool {
		select {
		case updates <- pidUpdate{w, procs}:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for ctx.Err() == nil {
		service := "track-jdwp"
		if feats, err := c.Features(ctx, serial); err == nil && slices.Contains(feats, FeatureTrackApp) {
			service = "track-app"
		}
		err := c.followProcesses(ctx, serial, service, send)
		var fe *FailError
		if service == "track-app" && errors.As(err, &fe) {
			c.log().Info().Str("serial", serial).Err(err).Msg("track-app refused; following track-jdwp")
			err = c.followProcesses(ctx, serial, "track-jdwp", send)
		}
		c.log().Debug().Str("serial", serial).Str("service", service).AnErr("why", err).Msg("process tracking ended")
		if !send(nil) {
			return
		}
		select {
		case <-time.After(retryJDWP):
		case <-ctx.Done():
			return
		}
	}
}

// followProcesses sends each list of one tracker until it ends; the error
// is why (a *FailError when the device refused the service).
func (c *Client) followProcesses(ctx context.Context, serial, service string, send func([]JDWPProcess) bool) error {
	if service == "track-app" {
		tr, err := c.TrackApp(ctx, serial)
		if err != nil {
			return err
		}
		for apps := range tr.Updates() {
			procs := make([]JDWPProcess, len(apps))
			for i := range apps {
				procs[i] = JDWPProcess{PID: apps[i].PID, App: &apps[i]}
			}
			send(procs)
		}
		return tr.Err()
	}
	tr, err := c.TrackJDWP(ctx, serial)
	if err != nil {
		return err
	}
	for pids := range tr.Updates() {
		procs := make([]JDWPProcess, len(pids))
		for i, pid := range pids {
			procs[i] = JDWPProcess{PID: pid}
		}
		send(procs)
	}
	return tr.Err()
}

// WaitForProcess waits until a debuggable process named name (its
// /proc/PID/cmdline, the package for an app) runs on the device and returns
// its pid. Pids in ignore (those that ran before an `am start`) are skipped.
// A zygote child still "<pre-initialized>" is checked again until it has a
// name.
//
// On a device with track-app and app_info the names come with the list and
// no shell command is run.
func (c *Client) WaitForProcess(ctx context.Context, serial, name string, ignore ...int) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if feats, err := c.Features(ctx, serial); err == nil && slices.Contains(feats, FeatureTrackApp) && slices.Contains(feats, FeatureAppInfo) {
		if pid, err := c.waitForApp(ctx, serial, name, ignore); !errors.Is(err, errNoTrackApp) {
			return pid, err
		}
	}
	tr, err := c.TrackJDWP(ctx, serial)
	if err != nil {
		return 0, err
	}
	other := map[int]bool{}
	for _, pid := range ignore {
		other[pid] = true
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var pids []int
	for {
		select {
		case p, ok := <-tr.Updates():
			if !ok {
				if ctx.Err() != nil {
					return 0, fmt.Errorf("waiting for %s on %s: %w", name, serial, ctx.Err())
				}
				return 0, fmt.Errorf("waiting for %s on %s: %w", name, serial, tr.Err())
			}
			pids = p
		case <-tick.C:
		case <-ctx.Done():
			return 0, fmt.Errorf("waiting for %s on %s: %w — did it start? (adb -s %s shell am start …)", name, serial, ctx.Err(), serial)
		}
		for _, pid := range pids {
			if other[pid] {
				continue
			}
			got, err := c.ProcessName(ctx, serial, pid)
			switch {
			case err != nil && !errors.Is(err, ErrNoProcess):
				if ctx.Err() != nil {
					return 0, fmt.Errorf("waiting for %s on %s: %w", name, serial, ctx.Err())
				}
				return 0, err
			case got == name:
				return pid, nil
			case err == nil && got != "" && got != "<pre-initialized>":
				other[pid] = true
			}
		}
	}
}

// errNoTrackApp: the device refused track-app after all.
var errNoTrackApp = errors.New("track-app refused")

// waitForApp is WaitForProcess over track-app's process names.
func (c *Client) waitForApp(ctx context.Context, serial, name string, ignore []int) (int, error) {
	tr, err := c.TrackApp(ctx, serial)
	if err != nil {
		var fe *FailError
		if errors.As(err, &fe) {
			return 0, errNoTrackApp
		}
		return 0, err
	}
	defer tr.Close()
	for {
		select {
		case apps, ok := <-tr.Updates():
			if !ok {
				return 0, fmt.Errorf("waiting for %s on %s: %w", name, serial, tr.Err())
			}
			for _, a := range apps {
				if a.Debuggable && a.ProcessName == name && !slices.Contains(ignore, a.PID) {
					return a.PID, nil
				}
			}
		case <-ctx.Done():
			return 0, fmt.Errorf("waiting for %s on %s: %w — did it start? (adb -s %s shell am start …)", name, serial, ctx.Err(), serial)
		}
	}
}
