package simdevice

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/adb"
	"github.com/ddmbridge/ddmbridge/ddm/simvm"
)

// Options configures a simulated device. Zero values pick the defaults noted.
type Options struct {
	Product string // ro.product.name, "product:" in `adb devices -l`; "sim"
	Model   string // ro.product.model; "Sim"
	Name    string // ro.product.device, "device:"; "sim"
	// Props are extra system properties for getprop, over the defaults
	// (ro.build.version.sdk 34 and release 14 with the current VM profile, 30 and 11 otherwise, …).
	Props map[string]string
	// Features announced in the banner; default shell_v2, cmd.
	Features []string
	// Packages installed from the start; `am start` on one of them starts
	// a simulated process. `pm install` adds more.
	Packages []string
	// MaxPayload is the largest WRTE the device sends or accepts; the
	// negotiated value is the smaller of this and the server's. Default
	// MaxPayload (1 MiB); tests lower it to exercise chunking.
	MaxPayload uint32
	// Auth makes the device ask for AUTH before going online; any signature
	// or public key is accepted.
	Auth bool
	// VM is the template for simulated processes (profile, ticks, GC
	// interval); AppName, PID, WaitingForDebugger, JVM and Logger are set
	// per process.
	VM simvm.Options
	// FirstPID is the pid of the first process; default 1000.
	FirstPID int
	// LogInterval, if set, has every process log a line (tag SimApp, the
	// levels D, I, W, E in turn) each interval, for logcat.
	LogInterval time.Duration

	Logger zerolog.Logger // component "adb" is added
}

// ProcessOptions describe one debuggable process.
type ProcessOptions struct {
	// Name is the process name (the package for an app): /proc/PID/cmdline,
	// ps, and the simulated VM's HELO/APNM app name.
	Name string
	// PID is the process id; 0 picks the next free one.
	PID int
	// WaitingForDebugger makes the VM report WAIT, as `am start -D` does,
	// and track-app (with app_info) say so.
	WaitingForDebugger bool
	// NotDebuggable makes the process profileable only: track-app lists it
	// (when Profileable), track-jdwp and jdwp do not, and jdwp:PID is
	// refused, as adbd refuses a non-debuggable app.
	NotDebuggable bool
	// Profileable marks the process profileable in track-app.
	Profileable bool
	// Frozen imitates the cached-apps freezer: the process stays listed but
	// adbd refuses jdwp:PID, and /proc/PID/wchan reads do_freezer_trap.
	Frozen bool
	// UserID and UID are the Android user and the app's Linux uid for
	// track-app's app_info; Packages its packages (default: Name);
	// Architecture its ISA (default "x86_64").
	UserID, UID  int
	Packages     []string
	Architecture string
	// JVM, if set, is the HOST:PORT of a real JVM's JDWP agent (server=y):
	// JDWP passes through to it and DDM is simulated in front of it.
	JVM string
}

// Process describes a running simulated process.
type Process struct {
	ProcessOptions
	Started time.Time
}

type process struct {
	Process
	vm       *simvm.VM
	ln       *pipeListener
	attached bool // a jdwp:PID stream holds the VM (ART serves one at a time)
}

// Device is a simulated Android device: it accepts the adb server's TCP
// connection (`adb connect`) and answers as adbd does.
type Device struct {
	opt Options
	log zerolog.Logger

	mu        sync.Mutex
	procs     map[int]*process
	nextPID   int
	packages  map[string]bool
	files     map[string][]byte // what sync: pushed
	changed   chan struct{}     // closed and replaced on every process change
	listeners []net.Listener
	conns     map[net.Conn]struct{}
	closed    bool

	wg sync.WaitGroup

	logs deviceLog // logcat's buffer (logcat.go)
}

// New returns a device with no processes.
func New(opt Options) *Device {
	if opt.Product == "" {
		opt.Product = "sim"
	}
	if opt.Model == "" {
		opt.Model = "Sim"
	}
	if opt.Name == "" {
		opt.Name = "sim"
	}
	if opt.Features == nil {
		opt.Features = []string{"shell_v2", "cmd"}
	}
	if opt.MaxPayload == 0 || opt.MaxPayload > MaxPayload {
		opt.MaxPayload = MaxPayload
	}
	if opt.FirstPID <= 0 {
		opt.FirstPID = 1000
	}
	if opt.VM.Profile == "" {
		opt.VM.Profile = simvm.ProfileART
	}
	d := &Device{
		opt:      opt,
		log:      opt.Logger.With().Str("component", "adb").Str("simdevice", opt.Model).Logger(),
		procs:    map[int]*process{},
		nextPID:  opt.FirstPID,
		packages: map[string]bool{},
		files:    map[string][]byte{},
		changed:  make(chan struct{}),
		conns:    map[net.Conn]struct{}{},
	}
	for _, p := range opt.Packages {
		d.packages[p] = true
	}
	if opt.LogInterval > 0 {
		d.logEvery(opt.LogInterval)
	}
	return d
}

// CurrentFeatures is the banner of Options.Features for a device as current
// as adbd is today: track-app with app_info besides the defaults. (A real
// adbd announces more, e.g. stat_v2 and sendrecv_v2, that would make the adb
// command line use sync requests this device does not serve.)
var CurrentFeatures = []string{"shell_v2", "cmd", adb.FeatureTrackApp, adb.FeatureAppInfo}

// ErrClosed is returned by calls on a closed device.
var ErrClosed = errors.New("simdevice: device closed")

// ListenAndServe listens on addr (e.g. "127.0.0.1:0") and serves until Close.
func (d *Device) ListenAndServe(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("simdevice: listen %s: %w", addr, err)
	}
	return d.Serve(ln)
}

// Serve accepts the adb server's connections on ln until Close; each is one
// transport. It returns nil after Close.
func (d *Device) Serve(ln net.Listener) error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		ln.Close()
		return nil
	}
	d.listeners = append(d.listeners, ln)
	d.mu.Unlock()
	for {
		nc, err := ln.Accept()
		if err != nil {
			d.mu.Lock()
			closed := d.closed
			d.mu.Unlock()
			if closed || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("simdevice: accept: %w", err)
		}
		d.mu.Lock()
		if d.closed {
			d.mu.Unlock()
			nc.Close()
			return nil
		}
		d.conns[nc] = struct{}{}
		d.wg.Add(1)
		d.mu.Unlock()
		go func() {
			defer d.wg.Done()
			newTransport(d, nc).run()
			d.mu.Lock()
			delete(d.conns, nc)
			d.mu.Unlock()
		}()
	}
}

// Close unplugs the device: listeners and transports close, processes end.
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		d.wg.Wait()
		return nil
	}
	d.closed = true
	for _, ln := range d.listeners {
		ln.Close()
	}
	for nc := range d.conns {
		nc.Close()
	}
	procs := slices.Collect(maps.Values(d.procs))
	d.procs = map[int]*process{}
	d.notifyLocked()
	d.mu.Unlock()
	for _, p := range procs {
		p.stop()
	}
	d.logs.close()
	d.wg.Wait()
	return nil
}

// AddProcess starts a debuggable process and returns its pid; track-jdwp
// streams report it at once.
func (d *Device) AddProcess(po ProcessOptions) (int, error) {
	if po.Name == "" {
		return 0, errors.New("simdevice: ProcessOptions.Name is required")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return 0, ErrClosed
	}
	if po.Architecture == "" {
		po.Architecture = "x86_64"
	}
	if po.Packages == nil {
		po.Packages = []string{po.Name}
	}
	if po.UID == 0 {
		po.UID = 10100 + len(d.procs)
	}
	if po.PID == 0 {
		for d.procs[d.nextPID] != nil {
			d.nextPID++
		}
		po.PID = d.nextPID
		d.nextPID++
	} else if d.procs[po.PID] != nil {
		return 0, fmt.Errorf("simdevice: pid %d is taken by %s", po.PID, d.procs[po.PID].Name)
	}
	vo := d.opt.VM
	vo.AppName, vo.PID, vo.WaitingForDebugger, vo.JVM = po.Name, uint32(po.PID), po.WaitingForDebugger, po.JVM
	vo.Logger = d.opt.Logger
	vo.OnAgentLoaded = func() { // track-app streams learn the app stopped waiting
		d.mu.Lock()
		defer d.mu.Unlock()
		if !d.closed {
			d.notifyLocked()
		}
	}
	vm, err := simvm.New(vo)
	if err != nil {
		return 0, err
	}
	p := &process{Process: Process{ProcessOptions: po, Started: time.Now()}, vm: vm, ln: newPipeListener()}
	go vm.Serve(p.ln)
	d.procs[po.PID] = p
	d.notifyLocked()
	d.log.Info().Int("pid", po.PID).Str("name", po.Name).Str("jvm", po.JVM).Msg("process started")
	d.Log(systemPID, systemPID+20, "I", "ActivityManager", fmt.Sprintf("Start proc %d:%s/u0a%d for activity", po.PID, po.Name, po.UID%100000-10000))
	return po.PID, nil
}

// RemoveProcess ends a process: its JDWP streams close and track-jdwp
// streams drop it.
func (d *Device) RemoveProcess(pid int) error {
	d.mu.Lock()
	p := d.procs[pid]
	if p == nil {
		d.mu.Unlock()
		return fmt.Errorf("simdevice: no process %d", pid)
	}
	delete(d.procs, pid)
	d.notifyLocked()
	d.mu.Unlock()
	p.stop()
	d.log.Info().Int("pid", pid).Str("name", p.Name).Msg("process ended")
	d.Log(systemPID, systemPID+20, "I", "ActivityManager", fmt.Sprintf("Process %s (pid %d) has died", p.Name, pid))
	return nil
}

func (p *process) stop() {
	p.ln.Close()
	p.vm.Close()
}

// Processes lists the running processes by pid.
func (d *Device) Processes() []Process {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []Process
	for _, pid := range d.pidsLocked() {
		out = append(out, d.procs[pid].Process)
	}
	return out
}

// Packages lists the installed packages.
func (d *Device) Packages() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Sorted(maps.Keys(d.packages))
}

func (d *Device) pidsLocked() []int {
	pids := slices.Collect(maps.Keys(d.procs))
	sort.Ints(pids)
	return pids
}

// notifyLocked wakes every track-jdwp stream.
func (d *Device) notifyLocked() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// pids returns the debuggable pids (what track-jdwp and jdwp list) and a
// channel closed at the next change.
func (d *Device) pids() ([]int, <-chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var pids []int
	for _, pid := range d.pidsLocked() {
		if !d.procs[pid].NotDebuggable {
			pids = append(pids, pid)
		}
	}
	return pids, d.changed
}

// apps returns what track-app lists (debuggable or profileable processes)
// and a channel closed at the next change.
func (d *Device) apps() ([]adb.AppProcess, <-chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	appInfo := slices.Contains(d.opt.Features, adb.FeatureAppInfo)
	var out []adb.AppProcess
	for _, pid := range d.pidsLocked() {
		p := d.procs[pid]
		if p.NotDebuggable && !p.Profileable {
			continue
		}
		a := adb.AppProcess{PID: pid, Debuggable: !p.NotDebuggable, Profileable: p.Profileable, Architecture: p.Architecture}
		if appInfo {
			a.AppInfo, a.UserID, a.UID, a.ProcessName = true, p.UserID, p.UID, p.Name
			// ART tells adbd when a debugger's first packet ends the wait.
			a.PackageNames, a.WaitingForDebugger = slices.Clone(p.Packages), p.WaitingForDebugger && p.vm.NonDDMPackets() == 0
		}
		out = append(out, a)
	}
	return out, d.changed
}

// attach hands the process's VM a new connection, as ART's adbconnection
// takes one debugger socket at a time. release is called when the stream ends.
func (d *Device) attach(pid int) (nc net.Conn, release func(), err error) {
	d.mu.Lock()
	p := d.procs[pid]
	switch {
	case p == nil:
		d.mu.Unlock()
		return nil, nil, fmt.Errorf("no process %d", pid)
	case p.NotDebuggable:
		d.mu.Unlock()
		return nil, nil, fmt.Errorf("process %d (%s) is not debuggable", pid, p.Name)
	case p.Frozen:
		d.mu.Unlock()
		return nil, nil, fmt.Errorf("process %d (%s) is frozen; denying JDWP connection", pid, p.Name)
	case p.attached:
		d.mu.Unlock()
		return nil, nil, fmt.Errorf("process %d already has a debugger connection", pid)
	}
	p.attached = true
	d.mu.Unlock()
	free := func() {
		d.mu.Lock()
		p.attached = false
		d.mu.Unlock()
	}
	vmSide, ourSide := net.Pipe()
	if err := p.ln.deliver(vmSide); err != nil {
		free()
		return nil, nil, fmt.Errorf("process %d: %w", pid, err)
	}
	return ourSide, func() { ourSide.Close(); free() }, nil
}

// startApp is `am start` of an installed package: a new process, waiting for
// a debugger if asked, unless one runs already.
func (d *Device) startApp(pkg string, wait bool) (int, error) {
	d.mu.Lock()
	installed := d.packages[pkg]
	for _, pid := range d.pidsLocked() {
		if d.procs[pid].Name == pkg {
			d.mu.Unlock()
			return pid, nil
		}
	}
	d.mu.Unlock()
	if !installed {
		return 0, fmt.Errorf("package %s is not installed", pkg)
	}
	return d.AddProcess(ProcessOptions{Name: pkg, WaitingForDebugger: wait})
}

// pipeListener is a net.Listener for in-process connections: it hands the
// simulated VM one end of a net.Pipe per jdwp:PID stream.
type pipeListener struct {
	c      chan net.Conn
	done   chan struct{}
	closer sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{c: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) deliver(nc net.Conn) error {
	select {
	case l.c <- nc:
		return nil
	case <-l.done:
		return io.ErrClosedPipe
	case <-time.After(5 * time.Second):
		return errors.New("the VM is not accepting connections")
	}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case nc := <-l.c:
		return nc, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.closer.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "jdwp" }

// banner is the device's CNXN payload.
func (d *Device) banner() string {
	return fmt.Sprintf("device::ro.product.name=%s;ro.product.model=%s;ro.product.device=%s;features=%s",
		d.opt.Product, d.opt.Model, d.opt.Name, strings.Join(d.opt.Features, ","))
}

// VM returns the simulated VM of process pid, or nil: tests read its
// counters (simvm.VM.NonDDMPackets).
func (d *Device) VM(pid int) *simvm.VM {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p := d.procs[pid]; p != nil {
		return p.vm
	}
	return nil
}

// Files returns the paths of the files on the simulated device (pushed, or
// written by its shell), sorted.
func (d *Device) Files() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Sorted(maps.Keys(d.files))
}

// SetFrozen freezes or thaws process pid, as the cached-apps freezer does
// when an app goes to the background or comes back: while frozen, jdwp:PID
// is refused.
func (d *Device) SetFrozen(pid int, frozen bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.procs[pid]
	if p == nil {
		return fmt.Errorf("simdevice: no process %d", pid)
	}
	p.Frozen = frozen
	return nil
}
