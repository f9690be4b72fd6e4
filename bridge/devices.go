package bridge

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
)

// DeviceInfo is one adb device as the monitor sees it: an entry of
// devices/list and the params of the devices/* notifications.
type DeviceInfo struct {
	Serial      string `json:"serial"`            // adb's serial: "emulator-5554", "127.0.0.1:5555", a USB serial
	State       string `json:"state"`             // adb's state: "device" (online), "offline", "unauthorized", …
	Online      bool   `json:"online"`            // services can be opened: its debuggable processes are monitored
	Model       string `json:"model,omitempty"`   // ro.product.model as `adb devices -l` lists it (spaces as '_')
	Product     string `json:"product,omitempty"` // ro.product.name
	Device      string `json:"device,omitempty"`  // ro.product.device
	USB         string `json:"usb,omitempty"`     // USB path, for USB devices
	TransportID int    `json:"transportId,omitempty"`
}

func deviceInfo(d adb.Device) DeviceInfo {
	return DeviceInfo{Serial: d.Serial, State: string(d.State), Online: d.State.Online(), Model: d.Model,
		Product: d.Product, Device: d.Name, USB: d.USB, TransportID: d.TransportID}
}

// ADBStatus says whether the monitor follows an adb server: the adb part of
// monitor/status.
type ADBStatus struct {
	Address   string `json:"address"`         // the server's HOST:PORT
	Connected bool   `json:"connected"`       // devices are being tracked
	Version   int    `json:"version"`         // the server's protocol version (41 for adb 1.0.41) once connected
	Error     string `json:"error,omitempty"` // why not connected (retrying with backoff)
}

// DeviceAddr is the address of a VM on an adb device: "SERIAL/PID". It names
// the VM in Monitor.VM and OpenDebugger, and is VMInfo.Address.
func DeviceAddr(serial string, pid int) string { return serial + "/" + strconv.Itoa(pid) }

// Devices returns the adb devices the monitor knows (in every state), sorted
// by serial; empty when it follows no adb server.
func (m *Monitor) Devices() []DeviceInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]DeviceInfo, 0, len(m.devices))
	for _, d := range m.devices {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b DeviceInfo) int { return strings.Compare(a.Serial, b.Serial) })
	return out
}

// ADBStatus reports the adb server the monitor follows; ok is false when
// device tracking is off (no Options.ADB).
func (m *Monitor) ADBStatus() (st ADBStatus, ok bool) {
	if m.adb == nil {
		return ADBStatus{}, false
	}
	m.adb.mu.Lock()
	defer m.adb.mu.Unlock()
	return m.adb.status, true
}

func (m *Monitor) notifyDevice(kind EventKind, d DeviceInfo) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for q := range m.subs {
		q.Push(Event{Kind: kind, Device: d})
	}
}

// Why device VMs are removed (the reason logged with "VM gone").
var (
	errProcessGone = errors.New("the process is no longer debuggable (it ended, or its device went away)")
	errDeviceGone  = errors.New("its device went away or offline")
	errADBGone     = errors.New("the adb server went away")
)

// adbWatch follows an adb server's devices and their debuggable processes:
// each process gets a follower that opens jdwp:PID, hands the stream to the
// monitor and removes the VM when the process leaves the list.
type adbWatch struct {
	m    *Monitor
	c    *adb.Client
	addr string // the server's address, for logs
	log  zerolog.Logger

	mu         sync.Mutex
	status     ADBStatus
	limits     map[string]*openLimiter // by serial (peerlimits.go)
	unfollowed map[string]int          // by serial: processes listed beyond maxDeviceStreams, as last logged
}

func newADBWatch(m *Monitor, c *adb.Client) *adbWatch {
	w := &adbWatch{m: m, c: c, log: m.opts.Logger.With().Str("component", "adb").Logger()}
	w.status.Address = c.Addr
	if w.status.Address == "" {
		addr, err := adb.ServerAddr()
		w.status.Address = addr
		if err != nil {
			w.status.Error = err.Error()
		}
	}
	w.addr = w.status.Address
	return w
}

// retryDelay is the n-th (from 1) wait of a backoff from 250 ms up to max.
func retryDelay(n int, max time.Duration) time.Duration {
	d := 250 * time.Millisecond
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	return min(d, max)
}

// run follows the adb server until ctx ends or the monitor closes,
// reconnecting (and, through the client, restarting a local server) with
// backoff whenever the server goes away.
func (w *adbWatch) run(ctx context.Context) {
	defer w.m.wg.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-w.m.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	fails, lastErr := 0, ""
	for {
		began := time.Now()
		connected, err := w.session(ctx)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			err = errADBGone
		}
		if connected {
			// A session that ended at once (a server answering garbage)
			// does not restart the backoff: the server is retried ever
			// less often, as for one that cannot be reached.
			if time.Since(began) >= stableLife {
				fails, lastErr = 0, ""
			}
			w.log.Warn().Err(err).Str("adb", w.addr).Msg("lost the adb server: its devices' VMs are gone; reconnecting")
		}
		fails++
		w.mu.Lock()
		w.status.Connected, w.status.Error = false, err.Error()
		w.mu.Unlock()
		delay := retryDelay(fails, w.m.opts.ADBRetry)
		switch {
		case err.Error() == lastErr:
			w.log.Debug().Err(err).Dur("retry", delay).Msg("adb server still unavailable")
		case errors.Is(err, adb.ErrADBNotFound):
			w.log.Warn().Err(err).Msg("no adb server and no adb to start one: Android devices are not monitored " +
				"(workstation VMs still are). Install adb, or pass --adb HOST:PORT of a running server; --no-adb silences this")
		default:
			w.log.Warn().Err(err).Dur("retry", delay).Msg("cannot follow the adb server's devices; retrying")
		}
		lastErr = err.Error()
		if errors.Is(err, adb.ErrADBNotFound) {
			delay = w.m.opts.ADBRetry
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return
		}
	}
}

// procKey names one debuggable process on one connection of a device: a
// device that reconnects gets new followers.
type procKey struct {
	serial    string
	transport int
	pid       int
}

// session follows the server once: devices and processes until tracking
// ends. connected says tracking had started.
func (w *adbWatch) session(ctx context.Context) (connected bool, err error) {
	ver, err := w.c.Version(ctx)
	if err != nil {
		return false, err
	}
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(errADBGone)
	devs, err := w.c.TrackDevices(sctx)
	if err != nil {
		return false, err
	}
	defer devs.Close()
	procs, err := w.c.TrackAllJDWP(sctx)
	if err != nil {
		return false, err
	}
	defer procs.Close()
	w.mu.Lock()
	w.status.Connected, w.status.Version, w.status.Error = true, ver, ""
	w.mu.Unlock()
	w.log.Info().Str("adb", w.addr).Int("version", ver).Msg("following the adb server's devices")

	followers := map[procKey]context.CancelCauseFunc{}
	defer func() {
		for _, stop := range followers {
			stop(errADBGone)
		}
		w.setDevices(nil)
		w.m.setListed(nil)
	}()
	for {
		select {
		case list, ok := <-devs.Updates():
			if !ok {
				return true, devs.Err()
			}
			w.setDevices(list)
		case list, ok := <-procs.Updates():
			if !ok {
				return true, procs.Err()
			}
			w.m.setListed(list)
			w.setProcs(sctx, followers, list)
		case <-ctx.Done():
			return true, ctx.Err()
		}
	}
}

// setDevices records the device list and announces what changed.
func (w *adbWatch) setDevices(list []adb.Device) {
	now := make(map[string]DeviceInfo, len(list))
	for _, d := range list {
		now[d.Serial] = deviceInfo(d)
	}
	w.m.mu.Lock()
	old := w.m.devices
	w.m.devices = now
	w.m.mu.Unlock()
	serials := make([]string, 0, len(now)+len(old))
	for s := range now {
		serials = append(serials, s)
	}
	for s := range old {
		if _, ok := now[s]; !ok {
			serials = append(serials, s)
		}
	}
	slices.Sort(serials)
	for _, s := range serials {
		d, isNew := now[s]
		o, wasOld := old[s]
		switch {
		case !wasOld:
			w.log.Info().Str("serial", s).Str("state", d.State).Str("model", d.Model).Msg("device found")
			w.m.notifyDevice(EventDeviceAdded, d)
		case !isNew:
			w.log.Info().Str("serial", s).Str("model", o.Model).Msg("device gone")
			o.State, o.Online = "gone", false
			w.m.notifyDevice(EventDeviceRemoved, o)
		case d != o:
			w.log.Info().Str("serial", s).Str("state", d.State).Str("was", o.State).Msg("device changed")
			w.m.notifyDevice(EventDeviceChanged, d)
		}
	}
}

// setProcs starts a follower for each new process and stops those of
// processes no longer listed.
func (w *adbWatch) setProcs(ctx context.Context, followers map[procKey]context.CancelCauseFunc, list []adb.JDWPProcess) {
	listed := make(map[procKey]bool, len(list))
	following := map[string]int{} // by serial
	for k := range followers {
		following[k.serial]++
	}
	full := map[string]int{} // processes left unfollowed, by serial
	for _, p := range list {
		k := procKey{p.Device.Serial, p.Device.TransportID, p.PID}
		listed[k] = true
		if followers[k] != nil {
			continue
		}
		if following[k.serial] >= maxDeviceStreams {
			full[k.serial]++
			continue
		}
		following[k.serial]++
		fctx, stop := context.WithCancelCause(ctx)
		followers[k] = stop
		w.m.wg.Add(1)
		go w.follow(fctx, p)
	}
	w.mu.Lock()
	for serial, n := range full {
		if w.unfollowed[serial] != n { // said once per change, not at every list
			w.log.Warn().Str("serial", serial).Int("followed", maxDeviceStreams).Int("more", n).
				Msg("the device lists more debuggable processes than the monitor follows at once; the rest wait until followed ones end")
		}
	}
	w.unfollowed = full
	w.mu.Unlock()
	for k, stop := range followers {
		if listed[k] {
			continue
		}
		why := errProcessGone
		w.m.mu.Lock()
		if d, ok := w.m.devices[k.serial]; !ok || !d.Online || d.TransportID != k.transport {
			why = errDeviceGone
		}
		w.m.mu.Unlock()
		stop(why)
		delete(followers, k)
	}
}

// follow keeps one device process monitored until ctx ends (it left the
// list): it opens jdwp:PID and connects the VM, and does so again, with
// backoff, when the stream cannot be opened (another debugger holds the VM)
// or ends while the process is still listed (the monitor dropped it to reset
// the VM's agent). When ctx ends the VM is removed.
func (w *adbWatch) follow(ctx context.Context, p adb.JDWPProcess) {
	defer w.m.wg.Done()
	serial, pid := p.Device.Serial, p.PID
	addr := DeviceAddr(serial, pid)
	model := p.Device.Model
	if model == "" {
		model = p.Device.Product
	}
	from := vmOrigin{serial: serial, device: model, pid: pid}
	if !p.Debuggable() {
		<-ctx.Done() // track-app lists it as profileable only: adbd would refuse
		return
	}
	fails := 0
	lim := w.limiter(serial)
	for {
		if lim.wait(ctx) != nil {
			return
		}
		nc, err := w.c.DialJDWP(ctx, serial, pid)
		if err != nil && ctx.Err() == nil {
			w.checkFrozen(ctx, addr, serial, pid, err)
		}
		var v *VM
		if err == nil {
			v, err = w.m.connect(ctx, nc, addr, from)
		}
		if err == nil {
			from.keepID = v.id // a VM of the same process keeps its id
			w.m.setProcNote(addr, false, "")
			w.m.wg.Add(1)
			go w.nameFromDevice(ctx, v, serial, pid)
			select {
			case <-v.Done():
				// One that dies soon after it was found (mid-reply, say)
				// is opened again ever less often.
				if time.Since(v.since) >= stableLife {
					fails = 0
				} else {
					fails++
				}
			case <-ctx.Done():
				why := context.Cause(ctx)
				if errors.Is(why, context.Canceled) {
					why = errors.New("monitor closed")
				}
				w.m.remove(v, why.Error())
				return
			}
		} else {
			if ctx.Err() != nil {
				return
			}
			fails++
			ev := w.log.Debug()
			if fails == 3 {
				ev = w.log.Warn()
			}
			ev.Err(err).Str("addr", addr).Int("attempt", fails).
				Msg("cannot monitor the device's VM (does another debugger, Android Studio or DDMS, hold it?); retrying")
		}
		select {
		case <-time.After(retryDelay(fails+1, w.m.opts.ADBRetry)):
		case <-ctx.Done():
			return
		}
	}
}

// nameFromDevice names a device VM that did not name itself (a plain JDWP
// VM, or ART before APNM) after its /proc/PID/cmdline, asking again for a
// few seconds while the process is still "<pre-initialized>".
func (w *adbWatch) nameFromDevice(ctx context.Context, v *VM, serial string, pid int) {
	defer w.m.wg.Done()
	for try := 0; try < 5 && v.Info().Name == ""; try++ {
		if try > 0 {
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
				return
			case <-v.Done():
				return
			}
		}
		name, err := w.c.ProcessName(ctx, serial, pid)
		if err != nil {
			w.log.Debug().Err(err).Str("addr", v.addr).Msg("no process name from the device")
			if errors.Is(err, adb.ErrNoProcess) || ctx.Err() != nil {
				return
			}
			continue
		}
		if name != "" && name != preInitialized {
			v.setFallbackName(name)
			return
		}
	}
}

// setFallbackName names a VM that has no name of its own yet; a DDM name
// (HELO/APNM) still takes precedence.
func (v *VM) setFallbackName(name string) {
	v.mu.Lock()
	if v.name != "" {
		v.mu.Unlock()
		return
	}
	v.name = name
	v.mu.Unlock()
	v.log.Debug().Str("name", name).Msg("named after the device's process name")
	v.m.notify(EventChanged, v)
}

// checkFrozen tells a frozen app (the cached-apps freezer: adbd refuses
// jdwp:PID) from one another debugger holds, and records it in words.
func (w *adbWatch) checkFrozen(ctx context.Context, addr, serial string, pid int, dialErr error) {
	frozen, err := w.c.ProcessFrozen(ctx, serial, pid)
	if err != nil {
		w.log.Debug().Err(err).Str("addr", addr).Msg("cannot tell whether the process is frozen")
		return
	}
	if frozen {
		w.log.Info().Str("addr", addr).AnErr("refused", dialErr).Msg("the app is frozen by the cached-apps freezer; adbd refuses JDWP until it is unfrozen")
		w.m.setProcNote(addr, true, noteFrozen)
		return
	}
	w.m.setProcNote(addr, false, "")
}
