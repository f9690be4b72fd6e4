package bridge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
)

// devProc is one process an adb device lists with track-app, connected or
// not: the VM list shows it from the moment it is listed, with
// what the device says of it, and keeps its id when the monitor connects.
type devProc struct {
	id     string
	addr   string
	p      adb.JDWPProcess
	frozen bool   // jdwp:PID was refused and the process sleeps in the freezer
	note   string // why it is not monitored, and what to do; "" when nothing to say
}

// Words for processes adbd will not open jdwp:PID to (adbd's
// daemon/jdwp_service.cpp refuses non-debuggable and frozen apps).
const (
	noteNotDebuggable = "not debuggable: adbd refuses JDWP to it (only profileable). " +
		"Install a debug build (android:debuggable=\"true\"), or use an eng/userdebug device"
	noteFrozen = "frozen by the cached-apps freezer: adbd refuses JDWP while it is frozen. " +
		"Bring the app to the foreground (open it, or adb shell am start -n PACKAGE/ACTIVITY), " +
		"or turn the freezer off (Developer options → Suspend execution for cached apps)"
	noteConnecting = "listed by the device; the monitor is opening its JDWP stream"
)

// appInfo copies what the device says of a process into info.
func (d *devProc) appInfo(info *VMInfo) {
	a := d.p.App
	if a == nil {
		return
	}
	t, f := true, false
	info.Debuggable, info.Profileable = &f, &f
	if a.Debuggable {
		info.Debuggable = &t
	}
	if a.Profileable {
		info.Profileable = &t
	}
	info.Architecture = a.Architecture
	if a.AppInfo {
		info.Process = a.ProcessName
		info.Packages = slices.Clone(a.PackageNames)
		w := a.WaitingForDebugger
		info.WaitingForDebugger = &w
		uid := a.UID
		info.UID = &uid
		if info.UserID == 0 {
			info.UserID = uint32(a.UserID)
		}
		if info.Package == "" && len(a.PackageNames) > 0 {
			info.Package = a.PackageNames[0]
		}
		if info.Name == "" {
			info.Name = a.ProcessName
		}
	}
	if d.frozen {
		info.Frozen = &t
	}
}

// listedInfo is the VM-list entry of a process the monitor holds no JDWP
// connection to.
func (d *devProc) listedInfo(device string) VMInfo {
	info := VMInfo{ID: d.id, Address: d.addr, PID: d.p.PID, Protocol: "jdwp", Serial: d.p.Device.Serial, Device: device, Listed: true}
	d.appInfo(&info)
	if info.WaitingForDebugger != nil {
		info.Waiting = *info.WaitingForDebugger
	}
	info.Note = d.note
	if info.Note == "" {
		info.Note = noteConnecting
	}
	return info
}

func deviceModel(d adb.Device) string {
	if d.Model != "" {
		return d.Model
	}
	return d.Product
}

// listedLocked returns the entries of listed processes without a VM (m.mu held).
func (m *Monitor) listedLocked() []VMInfo {
	var out []VMInfo
	for _, d := range m.devProcs {
		if m.byAddr[d.addr] == nil {
			out = append(out, d.listedInfo(deviceModel(d.p.Device)))
		}
	}
	slices.SortFunc(out, func(a, b VMInfo) int { return strings.Compare(a.Address, b.Address) })
	return out
}

// enrich adds what the device lists about a device VM's process.
func (m *Monitor) enrich(info *VMInfo) {
	if info.Serial == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if d := m.devProcs[info.Address]; d != nil {
		d.appInfo(info)
		if info.Frozen == nil {
			f := false // adbd opened its JDWP: not frozen
			info.Frozen = &f
		}
	}
}

// notListed explains why target names no VM when it names a listed process.
func (m *Monitor) notListedLocked(target string) error {
	for _, d := range m.devProcs {
		if d.id == target || d.addr == target {
			note := d.note
			if note == "" {
				note = noteConnecting + "; try again in a moment"
			}
			return fmt.Errorf("%w: %s (pid %d on %s) is not monitored: %s", ErrNoVM, d.listedInfo("").Name, d.p.PID, d.p.Device.Serial, note)
		}
	}
	return nil
}

// setListed records the device's process list: new processes get an id and
// an entry (vms/added while no VM holds them), changed ones vms/changed, and
// those gone vms/removed when no VM stood for them. An entry's events are
// queued under m.mu with the change they announce, so they reach clients in
// the order of the changes (see relistLocked, setProcNote).
func (m *Monitor) setListed(list []adb.JDWPProcess) {
	var changedVMs []*VM // a VM's changes are announced by notify, outside m.mu
	m.mu.Lock()
	if m.devProcs == nil {
		m.devProcs = map[string]*devProc{}
	}
	seen := map[string]bool{}
	// At most maxDeviceStreams listed per device, those listed before
	// first: a device (or an adb server) listing thousands of processes
	// gets no more entries than it gets streams.
	listed := map[string]int{} // by serial
	for _, p := range list {
		if p.App != nil && m.devProcs[DeviceAddr(p.Device.Serial, p.PID)] != nil {
			listed[p.Device.Serial]++
		}
	}
	unlisted := map[string]int{} // by serial: processes beyond the bound
	for _, p := range list {
		if p.App == nil {
			continue // track-jdwp says only the pid: the VM is listed once connected, as before
		}
		addr := DeviceAddr(p.Device.Serial, p.PID)
		d := m.devProcs[addr]
		if d == nil {
			if listed[p.Device.Serial] >= maxDeviceStreams {
				unlisted[p.Device.Serial]++
				continue
			}
			listed[p.Device.Serial]++
		}
		seen[addr] = true
		switch {
		case d == nil:
			d = &devProc{id: fmt.Sprint(m.nextID.Add(1)), addr: addr, p: p}
			if !p.Debuggable() {
				d.note = noteNotDebuggable
			}
			m.devProcs[addr] = d
			if m.byAddr[addr] == nil {
				m.pushListedLocked(EventAdded, d.listedInfo(deviceModel(p.Device)))
			}
		case !sameProc(d.p, p):
			d.p = p
			if v := m.byAddr[addr]; v != nil {
				changedVMs = append(changedVMs, v)
			} else {
				m.pushListedLocked(EventChanged, d.listedInfo(deviceModel(p.Device)))
			}
		}
	}
	for addr, d := range m.devProcs {
		if seen[addr] {
			continue
		}
		delete(m.devProcs, addr)
		if m.byAddr[addr] == nil {
			m.pushListedLocked(EventRemoved, d.listedInfo(deviceModel(d.p.Device)))
		}
	}
	for serial, n := range unlisted {
		if m.unlisted[serial] != n { // said once per change, not at every list
			m.log.Warn().Str("serial", serial).Int("listed", maxDeviceStreams).Int("more", n).
				Msg("the device lists more debuggable processes (track-app) than the monitor shows at once; the rest are left out until listed ones end")
		}
	}
	m.unlisted = unlisted
	m.mu.Unlock()
	for _, v := range changedVMs {
		m.notify(EventChanged, v)
	}
}

func sameProc(a, b adb.JDWPProcess) bool {
	if (a.App == nil) != (b.App == nil) || a.Device != b.Device {
		return false
	}
	return a.App == nil || a.App.Equal(*b.App)
}

// pushListedLocked announces a change of a listed-only entry (m.mu held).
func (m *Monitor) pushListedLocked(kind EventKind, info VMInfo) {
	close(m.changed)
	m.changed = make(chan struct{})
	for q := range m.subs {
		q.Push(Event{Kind: kind, VM: info})
	}
}

// setProcNote records why a listed process is not monitored (frozen or
// refused) and announces it; "" clears it.
func (m *Monitor) setProcNote(addr string, frozen bool, note string) {
	m.mu.Lock()
	d := m.devProcs[addr]
	if d == nil || (d.frozen == frozen && d.note == note) {
		m.mu.Unlock()
		return
	}
	d.frozen, d.note = frozen, note
	v := m.byAddr[addr]
	if v == nil {
		m.pushListedLocked(EventChanged, d.listedInfo(deviceModel(d.p.Device)))
	}
	m.mu.Unlock()
	if v != nil {
		m.notify(EventChanged, v)
	}
}

// listedID is the id a listed process keeps once connected; "" if unlisted.
func (m *Monitor) listedID(addr string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d := m.devProcs[addr]; d != nil {
		return d.id
	}
	return ""
}

// relistLocked announces the listed entry of a process whose VM just went
// away while the device still lists it (m.mu held, as when the VM's
// vms/removed was queued).
func (m *Monitor) relistLocked(addr string) {
	if d := m.devProcs[addr]; d != nil && m.byAddr[addr] == nil {
		m.pushListedLocked(EventAdded, d.listedInfo(deviceModel(d.p.Device)))
	}
}
