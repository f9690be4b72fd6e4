package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/access"
	"github.com/ddmbridge/ddmbridge/bridge/mux"
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/queue"
)

// EventKind says what changed in the monitor.
type EventKind string

// Monitor events; the JSON-RPC notifications carry the same names.
const (
	EventAdded   EventKind = "vms/added"   // a VM was found
	EventRemoved EventKind = "vms/removed" // a VM died or its connection was lost
	EventChanged EventKind = "vms/changed" // a VM's info changed (name, waiting, debugger, current, …)
	EventThreads EventKind = "vm/threads"  // a VM's threads changed
	EventHeap    EventKind = "vm/heap"     // a VM sent heap info
	EventHeapMap EventKind = "vm/heapMap"  // a VM sent a complete heap map

	EventDeviceAdded   EventKind = "devices/added"   // an adb device appeared (in any state)
	EventDeviceRemoved EventKind = "devices/removed" // a device went away (or the adb server did)
	EventDeviceChanged EventKind = "devices/changed" // a device's state or details changed
)

// Event is one change; VM is the VM's info at the time of the change, Device
// the device's for the devices/* kinds.
type Event struct {
	Kind   EventKind
	VM     VMInfo
	Device DeviceInfo
}

// Monitor discovers VMs, owns one JDWP connection per VM and lets debuggers in
// through per-VM ports and the current-VM port.
type Monitor struct {
	opts Options
	log  zerolog.Logger

	nextID atomic.Uint64

	// notifyMu orders VM events: an event's VMInfo is read and the event
	// queued under it, so the last event a client gets of a VM carries
	// the VM's newest state (notify). Taken before mu, never inside it.
	notifyMu sync.Mutex

	mu        sync.Mutex
	vms       map[string]*VM // by id
	byAddr    map[string]*VM
	probing   map[string]chan struct{} // closed when the probe ends
	ports     map[string]int           // VM address → its last debugger port, so a restarted VM keeps it
	usedPorts map[int]bool
	portLns   map[string]*debugListener // open debugger ports by VM address
	own       map[string]bool           // our own listener addresses, never probed
	selected  *VM
	selKey    struct{ addr, name string }
	subs      map[*queue.Queue[Event]]struct{}
	changed   chan struct{} // closed and replaced on every VM list change (wakes held debuggers)
	scanNow   chan struct{} // a debugger waits for a VM: probe now, not at the next tick
	curLn     net.Listener
	closed    bool
	devices   map[string]DeviceInfo // adb devices by serial
	adb       *adbWatch             // nil without Options.ADB
	devProcs  map[string]*devProc   // device processes by address, connected or not (apps.go)
	unlisted  map[string]int        // by serial: processes track-app lists beyond maxDeviceStreams, as last logged

	recent map[string]*shortLived // scanned VMs that went away soon after they were found (peerlimits.go)

	wg sync.WaitGroup // accept loops and scanner
	// cleanups are the debugger-session cleanups started before Close,
	// which Close waits for (see goCleanup).
	cleanups sync.WaitGroup
	// watchers are the goroutines that remove each VM whose connection
	// ends; Close waits for them (every VM is removed by then, so each
	// returns), so nothing is logged or announced after it.
	watchers sync.WaitGroup
	stop     chan struct{}
	closer   sync.Once
}

// New creates a monitor and binds the current-VM port. Call Run to scan, and
// Close when done.
func New(opts Options) (*Monitor, error) {
	opts.setDefaults()
	m := &Monitor{
		opts:      opts,
		log:       opts.Logger.With().Str("component", "bridge").Logger(),
		vms:       map[string]*VM{},
		byAddr:    map[string]*VM{},
		probing:   map[string]chan struct{}{},
		ports:     map[string]int{},
		usedPorts: map[int]bool{},
		portLns:   map[string]*debugListener{},
		own:       map[string]bool{},
		subs:      map[*queue.Queue[Event]]struct{}{},
		changed:   make(chan struct{}),
		scanNow:   make(chan struct{}, 1),
		stop:      make(chan struct{}),
		devices:   map[string]DeviceInfo{},
	}
	if opts.ADB != nil {
		m.adb = newADBWatch(m, opts.ADB)
	}
	if opts.CurrentPort >= 0 {
		addr := net.JoinHostPort(opts.listenHost(), strconv.Itoa(opts.CurrentPort))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("current-VM port %s: %w — is another ddmbridge (or DDMS) running? Use --current-port to pick another", addr, err)
		}
		ln = m.guardDebugPort(ln)
		m.curLn = ln
		m.markOwn(ln)
		m.wg.Add(1)
		go m.acceptLoop(ln, "")
	}
	return m, nil
}

// CurrentAddr is the current-VM port's address ("" when disabled).
func (m *Monitor) CurrentAddr() string {
	if m.curLn == nil {
		return ""
	}
	return m.curLn.Addr().String()
}

// DebugAddress is the vm/debugAddress result: where a debugger reaches
// the VM through the monitor's pass-through.
type DebugAddress struct {
	ID       string `json:"id"`       // the VM's id ("current" resolved)
	HostName string `json:"hostName"` // a loopback address unless serve --allow-remote
	Port     int    `json:"port"`
	Current  bool   `json:"current"` // the current-VM port: it follows the current VM
}

// DebugAddress says where a debugger reaches v through the monitor: its
// own debugger port, or with current the current-VM port (which follows
// the current VM through restarts).
func (m *Monitor) DebugAddress(v *VM, current bool) (DebugAddress, error) {
	out := DebugAddress{ID: v.id, HostName: "127.0.0.1", Port: v.port(), Current: current}
	if current {
		host, port, err := net.SplitHostPort(m.CurrentAddr())
		if err != nil {
			return out, fmt.Errorf("the monitor has no current-VM port (serve --current-port -1?): attach to VM %s by its id", v.id)
		}
		if ip := net.ParseIP(host); ip != nil && !ip.IsUnspecified() {
			out.HostName = host
		}
		out.Port, _ = strconv.Atoi(port)
		return out, nil
	}
	if out.Port == 0 {
		if m.opts.DebugPortBase >= 0 {
			return out, fmt.Errorf("VM %s has no debugger port: a debug session launched it and has ended (its launch configuration's \"keepDebugPort\": true keeps the port): attach to \"current\" instead", v.id)
		}
		return out, fmt.Errorf("VM %s has no debugger port (per-VM ports are off: serve --debug-port-base): attach to \"current\" instead", v.id)
	}
	return out, nil
}

// Options returns the monitor's options with defaults filled in.
func (m *Monitor) Options() Options { return m.opts }

func (m *Monitor) markOwn(ln net.Listener) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.own[ln.Addr().String()] = true
	if a, ok := ln.Addr().(*net.TCPAddr); ok {
		m.own[net.JoinHostPort("127.0.0.1", strconv.Itoa(a.Port))] = true
		m.own[net.JoinHostPort("localhost", strconv.Itoa(a.Port))] = true
	}
}

// Run scans the configured ranges until ctx ends, then closes the monitor.
func (m *Monitor) Run(ctx context.Context) error {
	m.cleanStaleDumps()
	if len(m.opts.Scan) > 0 {
		m.log.Info().Stringer("ranges", rangeList(m.opts.Scan)).Dur("every", m.opts.ScanInterval).Msg("scanning for VMs")
	}
	m.wg.Add(1)
	go m.scan(ctx)
	if m.adb != nil {
		m.wg.Add(1)
		go m.adb.run(ctx)
	}
	select {
	case <-ctx.Done():
	case <-m.stop:
	}
	m.Close()
	return nil
}

type rangeList []Range

func (r rangeList) String() string {
	s := ""
	for i, x := range r {
		if i > 0 {
			s += ","
		}
		s += x.String()
	}
	return s
}

// Close stops scanning, ends every debugger session and VM connection (the
// VMs keep running) and waits for the monitor's goroutines.
func (m *Monitor) Close() error {
	m.closer.Do(func() {
		m.mu.Lock()
		m.closed = true
		vms := make([]*VM, 0, len(m.vms))
		for _, v := range m.vms {
			vms = append(vms, v)
		}
		subs := m.subs
		m.subs = map[*queue.Queue[Event]]struct{}{}
		m.mu.Unlock()
		close(m.stop)
		if m.curLn != nil {
			m.curLn.Close()
		}
		for _, v := range vms {
			m.remove(v, "monitor closed")
		}
		m.mu.Lock()
		for addr, dl := range m.portLns {
			m.closePortLocked(addr, dl)
		}
		m.mu.Unlock()
		for q := range subs {
			q.Close()
		}
	})
	m.wg.Wait()
	m.cleanups.Wait()
	m.watchers.Wait() // a VM that went as Close began is announced gone before Close returns
	return nil
}

// goCleanup runs a departing debugger's cleanup on its own goroutine. Close
// waits for those started before it; one started after Close began runs
// untracked, finding the VM connections closed and nothing left to reset.
// Every Add happens before closed is set, so before Close's Wait.
func (m *Monitor) goCleanup(f func()) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		go f()
		return
	}
	m.cleanups.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.cleanups.Done()
		f()
	}()
}

// Subscribe returns a channel of monitor events, delivered in order without
// ever blocking the monitor; cancel stops them.
func (m *Monitor) Subscribe() (events <-chan Event, cancel func()) {
	q := queue.New[Event]()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		q.Close()
		return q.C, func() {}
	}
	m.subs[q] = struct{}{}
	m.mu.Unlock()
	return q.C, func() {
		m.mu.Lock()
		delete(m.subs, q)
		m.mu.Unlock()
		q.Close()
	}
}

// notify announces an event of v. Clients keep a VM list from vms/list and
// these events applied in order (the extension's VM explorer: a vms/changed
// of an id it does not list adds it), so a VM's events are sent only while
// it is monitored — vms/added first, nothing after vms/removed (gone) —
// and one event's info is never older than an earlier one's.
func (m *Monitor) notify(kind EventKind, v *VM) {
	m.notifyMu.Lock()
	defer m.notifyMu.Unlock()
	info := m.info(v)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.vms[v.id] != v || (kind != EventAdded && !v.announced) {
		// Removed meanwhile (a session's end or the DDM model's last
		// change racing the VM's removal), or not announced yet (its
		// vms/added, read after this change, carries it).
		return
	}
	v.announced = true
	if kind != EventThreads && kind != EventHeap && kind != EventHeapMap {
		close(m.changed)
		m.changed = make(chan struct{})
	}
	for q := range m.subs {
		q.Push(Event{Kind: kind, VM: info})
	}
}

func (m *Monitor) info(v *VM) VMInfo {
	info := v.Info()
	info.Current = m.current() == v
	m.enrich(&info)
	return info
}

// VMs returns the monitored VMs, oldest first.
func (m *Monitor) VMs() []VMInfo {
	m.mu.Lock()
	vms := m.sortedLocked()
	m.mu.Unlock()
	out := make([]VMInfo, len(vms))
	for i, v := range vms {
		out[i] = m.info(v)
	}
	m.mu.Lock()
	out = append(out, m.listedLocked()...)
	m.mu.Unlock()
	return out
}

func (m *Monitor) sortedLocked() []*VM {
	vms := make([]*VM, 0, len(m.vms))
	for _, v := range m.vms {
		vms = append(vms, v)
	}
	slices.SortFunc(vms, func(a, b *VM) int {
		ai, _ := strconv.Atoi(a.id)
		bi, _ := strconv.Atoi(b.id)
		return ai - bi
	})
	return vms
}

// ErrNoVM is returned when a target names no monitored VM.
var ErrNoVM = errors.New("no such VM")

// VM returns the VM a target names: a VM id, "current", the address of a
// monitored VM (host:port of its JDWP agent, or SERIAL/PID on a device) or
// its debugger port (host:port).
func (m *Monitor) VM(target string) (*VM, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if target == "current" || target == "" {
		if v := m.currentLocked(); v != nil {
			return v, nil
		}
		return nil, m.noCurrentLocked()
	}
	if v, ok := m.vms[target]; ok {
		return v, nil
	}
	if v, ok := m.byAddr[target]; ok {
		return v, nil
	}
	if _, p, err := net.SplitHostPort(target); err == nil {
		for _, v := range m.vms {
			if port := v.port(); port != 0 && strconv.Itoa(port) == p {
				return v, nil
			}
		}
	}
	var named []*VM
	for _, v := range m.sortedLocked() {
		if info := v.Info(); info.Name == target || info.Package != "" && info.Package == target {
			named = append(named, v)
		}
	}
	switch len(named) {
	case 1:
		return named[0], nil
	case 0:
		if err := m.notListedLocked(target); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w %q: not a VM id, name, \"current\" or the address of a monitored VM (see `ddmbridge vms`)", ErrNoVM, target)
	}
	ids := make([]string, len(named))
	for i, v := range named {
		ids[i] = v.id
	}
	return nil, fmt.Errorf("%w: %d VMs are named %q (ids %v): give an id", ErrNoVM, len(named), target, ids)
}

// noCurrentLocked says why no VM is current: none monitored yet, or the
// selected one is gone (the selection waits for its app to come back) while
// others are monitored, which it names.
func (m *Monitor) noCurrentLocked() error {
	vms := m.sortedLocked()
	if len(vms) == 0 {
		return fmt.Errorf("%w: no VM is current (none found yet; is the app started with a JDWP agent the monitor scans for? `ddmbridge vms` lists what it sees)", ErrNoVM)
	}
	others := make([]string, len(vms))
	for i, v := range vms {
		others[i] = fmt.Sprintf("%s (%s)", v.id, v.Info().Name)
	}
	gone := m.selKey.addr
	if m.selKey.name != "" {
		gone = m.selKey.name
	}
	return fmt.Errorf("%w: no VM is current: the selected VM, %s, is gone (it becomes current again when it comes back); monitored now: %s. "+
		"Select one with `ddmbridge select ID`, or `ddmbridge select --auto` for the oldest", ErrNoVM, gone, strings.Join(others, ", "))
}

// DDM returns the DDM client of the VM target names, or nil when there is no
// such VM or it does not speak DDM.
func (m *Monitor) DDM(target string) *ddm.Client {
	v, err := m.VM(target)
	if err != nil {
		return nil
	}
	return v.dc
}

// DDMFeed returns the one poller of DDM data of the VM target names, or nil
// when there is no such VM or it does not speak DDM.
func (m *Monitor) DDMFeed(target string) *ddm.Feed {
	v, err := m.VM(target)
	if err != nil || v.dc == nil {
		return nil
	}
	return v.feed
}

// Select makes the VM target names (an id, name or address, as for VM)
// current: the current-VM port leads to it. The choice sticks to the VM's
// name (or, without a name, its address): when the VM dies, the next VM
// with that name becomes current, so a restarted app is followed.
// SelectAuto goes back to the automatic choice.
//
// The rule, like DDMS's selected client: automatic (the oldest monitored
// VM) until a VM is chosen; then the chosen app, through its restarts,
// until SelectAuto.
func (m *Monitor) Select(target string) (VMInfo, error) {
	v, err := m.VM(target)
	if err != nil {
		return VMInfo{}, err
	}
	info := v.Info()
	m.mu.Lock()
	prev := m.currentLocked()
	m.selected = v
	m.selKey.addr, m.selKey.name = v.addr, info.Name
	m.mu.Unlock()
	m.log.Info().Str("vm", v.id).Str("name", info.Name).Msg("selected as the current VM")
	if prev != nil && prev != v {
		m.notify(EventChanged, prev)
	}
	m.notify(EventChanged, v)
	return m.info(v), nil
}

// SelectAuto makes the current VM automatic again: the oldest monitored
// VM. It returns the VM now current, or nil when there is none.
func (m *Monitor) SelectAuto() *VMInfo {
	m.mu.Lock()
	prev := m.currentLocked()
	m.selected = nil
	m.selKey.addr, m.selKey.name = "", ""
	now := m.currentLocked()
	m.mu.Unlock()
	m.log.Info().Msg("the current VM is automatic again (the oldest VM)")
	if prev != nil && prev != now {
		m.notify(EventChanged, prev)
	}
	if now == nil {
		return nil
	}
	m.notify(EventChanged, now)
	info := m.info(now)
	return &info
}

func (m *Monitor) current() *VM {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.currentLocked()
}

// currentLocked: the selected VM while it lives; else one matching the
// selection's name or address; else, if nothing was ever selected, the
// oldest VM.
func (m *Monitor) currentLocked() *VM {
	if v := m.selected; v != nil && m.vms[v.id] == v {
		return v
	}
	vms := m.sortedLocked()
	if m.selected != nil {
		for _, v := range vms {
			name := v.Info().Name
			if m.selKey.name != "" && name == m.selKey.name || m.selKey.name == "" && v.addr == m.selKey.addr {
				m.selected = v
				return v
			}
		}
		return nil
	}
	if len(vms) > 0 {
		return vms[0]
	}
	return nil
}

// Connect takes over a connection to a VM (a TCP connection or an adb jdwp:
// stream) whose JDWP handshake is not done yet: it handshakes, greets the VM
// with HELO and monitors it under address until the connection ends.
func (m *Monitor) Connect(ctx context.Context, nc net.Conn, address string) (*VM, error) {
	return m.connect(ctx, nc, address, vmOrigin{})
}

func (m *Monitor) connect(ctx context.Context, nc net.Conn, address string, from vmOrigin) (*VM, error) {
	c, err := handshakeVM(ctx, nc, m.opts.ProbeTimeout)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("VM %s: %w", address, err)
	}
	return m.adoptFrom(ctx, c, address, from)
}

func (m *Monitor) adoptFrom(ctx context.Context, nc net.Conn, address string, from vmOrigin) (*VM, error) {
	v, err := m.setupVMAs(ctx, nc, address, from, "", time.Now())
	if err != nil {
		nc.Close()
		return nil, err
	}
	if err := m.add(v); err != nil {
		v.close()
		return nil, err
	}
	return v, nil
}

func (m *Monitor) add(v *VM) error { return m.addVM(v, nil) }

// addVM makes v monitored. A VM the monitor reconnected to after resetting
// its agent replaces prev: it keeps prev's id and port and is announced as
// changed, not added.
func (m *Monitor) addVM(v *VM, prev *VM) error {
	again := prev != nil
	check := func() error {
		if m.closed {
			return errors.New("monitor closed")
		}
		if old := m.byAddr[v.addr]; old != nil && old != prev {
			return fmt.Errorf("VM %s is already monitored as %s", v.addr, old.id)
		}
		if again && m.vms[prev.id] != prev {
			return errors.New("the VM was removed meanwhile")
		}
		return nil
	}
	m.mu.Lock()
	err := check()
	m.mu.Unlock()
	if err != nil {
		return err
	}
	// The port first, so that the VM is never listed without it.
	if m.opts.DebugPortBase >= 0 {
		dl, err := m.debugListener(v.addr)
		if err != nil {
			m.log.Warn().Err(err).Str("vm", v.id).Msg("no debugger port for the VM; it is still monitored")
		} else {
			// The VM's model watcher may already read Info: set under v.mu.
			v.mu.Lock()
			v.debugPort = dl.port
			v.mu.Unlock()
		}
	}
	m.mu.Lock()
	if err := check(); err != nil {
		m.mu.Unlock()
		if !again {
			m.parkPort(v.addr)
		}
		return err
	}
	if again && m.selected == prev {
		m.selected = v
	}
	if again {
		v.announced = prev.announced // clients know it by prev's id
	}
	m.vms[v.id] = v
	m.byAddr[v.addr] = v
	m.watchers.Add(1) // under mu, with closed checked: before Close's Wait
	m.mu.Unlock()
	info := v.Info()
	if again {
		m.log.Debug().Str("vm", v.id).Str("addr", v.addr).Msg("reconnected to the VM after resetting its agent")
		m.notify(EventChanged, v)
	} else {
		m.log.Info().Str("vm", v.id).Str("addr", v.addr).Str("name", info.Name).Int("pid", info.PID).Str("serial", info.Serial).Bool("ddm", info.DDM).
			Bool("waiting", info.Waiting).Int("debugPort", info.DebugPort).Msg("VM found")
		m.notify(EventAdded, v)
	}
	go func() {
		defer m.watchers.Done()
		select {
		case <-v.conn.Done():
			if !v.resetting.Load() {
				m.remove(v, "connection lost")
			}
		case <-v.removed:
		}
	}()
	return nil
}

// forget takes v out of the monitor's maps and closes it; false if it was
// not monitored (any more).
func (m *Monitor) forget(v *VM) (wasCurrent, ok bool) {
	m.mu.Lock()
	if m.vms[v.id] != v {
		m.mu.Unlock()
		v.close()
		return false, false
	}
	delete(m.vms, v.id)
	delete(m.byAddr, v.addr)
	wasCurrent = m.selected == v
	m.mu.Unlock()
	v.close()
	return wasCurrent, true
}

// remove forgets a VM and closes its connection.
func (m *Monitor) remove(v *VM, why string) {
	info := v.Info()
	wasCurrent, ok := m.forget(v)
	if ok {
		m.gone(v, info, wasCurrent, why)
	}
}

// gone announces a VM that was forgotten. The debugger port of a VM at a
// network address stays open for RestartHold in case the VM comes back
// there; a device process's closes at once (a restarted app is a new pid,
// so a new address).
func (m *Monitor) gone(v *VM, info VMInfo, wasCurrent bool, why string) {
	if v.from.serial != "" {
		m.closePort(v.addr)
	} else {
		m.parkPort(v.addr)
	}
	cause := v.conn.Err()
	if errors.Is(cause, jdwp.ErrClosed) {
		cause = nil
	}
	lvl := zerolog.InfoLevel
	if errors.Is(cause, jdwp.ErrEventBacklog) || errors.Is(cause, jdwp.ErrPacketTooLarge) {
		lvl = zerolog.WarnLevel // the monitor dropped it: say so loudly
	}
	m.noteGone(v, info)
	m.log.WithLevel(lvl).Str("vm", v.id).Str("addr", v.addr).Str("name", info.Name).AnErr("cause", cause).Str("why", why).Msg("VM gone")
	info.Debugger = false
	info.Current = wasCurrent
	m.mu.Lock()
	close(m.changed)
	m.changed = make(chan struct{})
	for q := range m.subs {
		q.Push(Event{Kind: EventRemoved, VM: info})
	}
	m.relistLocked(v.addr)
	m.mu.Unlock()
}

// resetAgent drops the monitor's connection to v, so that the VM's agent
// resets exactly as it does when a directly attached debugger leaves (it
// forgets its ids, collection pins, held events and event requests and
// resumes the VM, suspend=y included), then connects again. The VM stays
// listed meanwhile and its successor keeps its id and debugger port;
// debuggers arriving meanwhile are held. Only VMs the monitor can dial
// again (found by scanning) are reset.
func (m *Monitor) resetAgent(v *VM) {
	m.mu.Lock()
	if m.vms[v.id] != v || m.closed {
		m.mu.Unlock()
		return
	}
	v.resetting.Store(true)
	m.mu.Unlock()
	v.mu.Lock()
	threadUpdates := v.threadUpdates
	v.mu.Unlock()
	var high uint64
	if threadUpdates && v.dc == nil {
		// The monitor's polls will take ids on the new agent: note the old
		// agent's newest, before it resets (bridge/mux/staleids.go).
		high = mux.IDHighWater(v.conn, m.opts.RequestTimeout, v.log)
	}
	v.close()
	nv, err := m.reconnect(v)
	if err == nil {
		mux.PassIDs(nv.conn, high, nv.log)
		if err = m.addVM(nv, v); err != nil {
			nv.close()
		}
	}
	if err != nil {
		m.remove(v, "reconnecting after the debugger left: "+err.Error())
		return
	}
	if threadUpdates {
		nv.SetThreadUpdates(true)
	}
}

// reconnect dials v's agent again, within RestartHold, and sets up a new VM
// under v's id.
func (m *Monitor) reconnect(v *VM) (*VM, error) {
	ctx, cancel := context.WithTimeout(context.Background(), m.opts.RestartHold+m.opts.ProbeTimeout)
	defer cancel()
	wait := 5 * time.Millisecond
	for {
		nc, err := v.from.dial(ctx)
		if err == nil {
			nv, err := m.setupVMAs(ctx, nc, v.addr, v.from, v.id, v.since)
			if err != nil {
				nc.Close()
			}
			return nv, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-m.stop:
			return nil, errors.New("monitor closed")
		case <-time.After(wait):
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// debugListener is a VM address's debugger port. It outlives the VM there
// by RestartHold, so a debugger connecting during a restart is held, not
// refused.
type debugListener struct {
	ln   net.Listener
	port int
	idle *time.Timer // closes a parked listener
}

// debugListener returns addr's debugger port, opening it (its previous
// number if free) unless it is open.
func (m *Monitor) debugListener(addr string) (*debugListener, error) {
	m.mu.Lock()
	if dl := m.portLns[addr]; dl != nil {
		if dl.idle != nil {
			dl.idle.Stop()
			dl.idle = nil
		}
		m.mu.Unlock()
		return dl, nil
	}
	m.mu.Unlock()
	ln, err := m.listenDebugPort(addr)
	if err != nil {
		return nil, err
	}
	dl := &debugListener{ln: ln, port: ln.Addr().(*net.TCPAddr).Port}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		ln.Close()
		return nil, errors.New("monitor closed")
	}
	m.portLns[addr] = dl
	m.mu.Unlock()
	m.wg.Add(1)
	go m.acceptLoop(ln, addr)
	return dl, nil
}

// parkPort closes addr's debugger port after RestartHold unless a VM is
// back at addr by then.
func (m *Monitor) parkPort(addr string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dl := m.portLns[addr]
	if dl == nil {
		return
	}
	if m.closed {
		m.closePortLocked(addr, dl)
		return
	}
	if dl.idle != nil {
		dl.idle.Stop()
	}
	dl.idle = time.AfterFunc(m.opts.RestartHold, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.portLns[addr] == dl && m.byAddr[addr] == nil {
			m.closePortLocked(addr, dl)
		}
	})
}

// closePort closes addr's debugger port now.
func (m *Monitor) closePort(addr string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if dl := m.portLns[addr]; dl != nil {
		m.closePortLocked(addr, dl)
	}
}

func (m *Monitor) closePortLocked(addr string, dl *debugListener) {
	if dl.idle != nil {
		dl.idle.Stop()
	}
	dl.ln.Close()
	delete(m.portLns, addr)
	if m.opts.DebugPortBase > 0 {
		delete(m.usedPorts, dl.port)
	}
}

// guardDebugPort makes a JDWP port of the monitor (a VM's, the current
// VM's) refuse loopback connections of other local users, as the DAP and
// control listeners do: a JDWP connection runs code in the VM as its
// user. Options.AllowOtherUsers (serve --allow-other-users) lets them in.
func (m *Monitor) guardDebugPort(ln net.Listener) net.Listener {
	return access.Guard(ln, access.ListenOptions{AllowRemote: m.opts.AllowRemote, AllowOtherUsers: m.opts.AllowOtherUsers, Logger: m.opts.Logger})
}

// listenDebugPort binds the VM's debugger port: its previous port if free,
// else the lowest free one from the base.
func (m *Monitor) listenDebugPort(addr string) (net.Listener, error) {
	host := m.opts.listenHost()
	if m.opts.DebugPortBase == 0 {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, err
		}
		m.markOwn(ln)
		return m.guardDebugPort(ln), nil
	}
	m.mu.Lock()
	prev, hasPrev := m.ports[addr]
	m.mu.Unlock()
	try := func(p int) net.Listener {
		m.mu.Lock()
		if m.usedPorts[p] {
			m.mu.Unlock()
			return nil
		}
		m.usedPorts[p] = true
		m.mu.Unlock()
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p)))
		if err != nil {
			m.mu.Lock()
			delete(m.usedPorts, p)
			m.mu.Unlock()
			return nil
		}
		m.mu.Lock()
		m.ports[addr] = p
		m.mu.Unlock()
		m.markOwn(ln)
		return m.guardDebugPort(ln)
	}
	if hasPrev {
		if ln := try(prev); ln != nil {
			return ln, nil
		}
	}
	for p := m.opts.DebugPortBase; p < m.opts.DebugPortBase+1000 && p <= 65535; p++ {
		if ln := try(p); ln != nil {
			return ln, nil
		}
	}
	return nil, fmt.Errorf("no free debugger port in %d-%d", m.opts.DebugPortBase, m.opts.DebugPortBase+999)
}

// waitDebuggee returns the VM at addr ("": the current VM) other than
// gone (a VM that went away, still listed while the monitor reconnects to
// it), waiting for one: up to HoldTimeout for the current VM, RestartHold
// for an address.
func (m *Monitor) waitDebuggee(ctx context.Context, addr string, gone *VM) (*VM, error) {
	hold := m.opts.RestartHold
	pick := func() *VM { return m.byAddr[addr] }
	if addr == "" {
		hold = m.opts.HoldTimeout
		pick = m.currentLocked
	}
	return m.waitFor(ctx, hold, func() *VM {
		if v := pick(); v != gone {
			return v
		}
		return nil
	}, func() error {
		if addr == "" {
			return fmt.Errorf("%w: no VM became current within %v (start the app, or select a VM with `ddmbridge select ID`)", ErrNoVM, hold)
		}
		return fmt.Errorf("%w: no VM at %s (it did not come back within %v)", ErrNoVM, addr, hold)
	})
}

// waitFor returns the VM pick (called under m.mu) finds, waiting up to hold
// for the VM list to change so that it finds one.
func (m *Monitor) waitFor(ctx context.Context, hold time.Duration, pick func() *VM, timedOut func() error) (*VM, error) {
	t := time.NewTimer(hold)
	defer t.Stop()
	logged := false
	for {
		m.mu.Lock()
		v := pick()
		changed := m.changed
		closed := m.closed
		m.mu.Unlock()
		if v != nil {
			return v, nil
		}
		if closed {
			return nil, errors.New("monitor closed")
		}
		if !logged {
			m.log.Info().Dur("hold", hold).Msg("debugger waits for its VM; scanning now")
			logged = true
			select {
			case m.scanNow <- struct{}{}:
			default:
			}
		}
		select {
		case <-changed:
		case <-t.C:
			return nil, timedOut()
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-m.stop:
			return nil, errors.New("monitor closed")
		}
	}
}

// handshakeVM does the debugger side of the JDWP handshake on a raw conn.
func handshakeVM(ctx context.Context, nc net.Conn, timeout time.Duration) (net.Conn, error) {
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	nc.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := nc.Write([]byte(jdwp.HandshakeString)); err != nil {
		return nil, fmt.Errorf("handshake: %w", err)
	}
	buf := make([]byte, len(jdwp.HandshakeString))
	if _, err := io.ReadFull(nc, buf); err != nil {
		return nil, fmt.Errorf("handshake: %w (not a JDWP agent, or another debugger is attached?)", err)
	}
	if string(buf) != jdwp.HandshakeString {
		return nil, fmt.Errorf("handshake: peer answered %q: not a JDWP agent", buf)
	}
	if !stop() {
		return nil, fmt.Errorf("handshake: %w", ctx.Err())
	}
	nc.SetDeadline(time.Time{})
	return nc, nil
}
