package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/bridge/mux"
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/hostproc"
)

// VMInfo is what the monitor knows about one VM. Its JSON form is an entry of
// vms/list and `ddmbridge vms --json`.
type VMInfo struct {
	ID        string `json:"id"`        // the monitor's id for the VM, stable while it lives
	Address   string `json:"address"`   // host:port of its JDWP agent, or SERIAL/PID on an adb device
	PID       int    `json:"pid"`       // process id (on its device for device VMs); 0 when unknown
	Name      string `json:"name"`      // application name (DDM) or main class / jar (HotSpot)
	VM        string `json:"vm"`        // VM ident, "<name> v<version>"
	DDM       bool   `json:"ddm"`       // the VM speaks DDM
	Waiting   bool   `json:"waiting"`   // the VM waits for a debugger (suspend=y or WAIT)
	Debugger  bool   `json:"debugger"`  // a debugger is attached through the monitor
	DebugPort int    `json:"debugPort"` // this VM's debugger port; 0 when per-VM ports are off

	Current      bool      `json:"current"`                // the VM the current-VM port leads to
	Protocol     string    `json:"protocol"`               // "jdwp", "ddm" or "ddm-draft"
	DebuggerFrom string    `json:"debuggerFrom,omitempty"` // remote address of the attached debugger(s), comma-separated
	Since        time.Time `json:"since"`                  // when the monitor found the VM
	Features     []string  `json:"features,omitempty"`     // DDM FEAT strings
	ThreadUpdate bool      `json:"threadUpdates"`          // thread updates are on
	HeapUpdate   bool      `json:"heapUpdates"`            // heap updates are on
	ABI          string    `json:"abi,omitempty"`          // DDM HELO ABI
	Package      string    `json:"packageName,omitempty"`  // DDM HELO/APNM package name
	UserID       uint32    `json:"userId,omitempty"`       // DDM HELO/APNM user id
	Serial       string    `json:"serial,omitempty"`       // adb serial of the VM's device; "" for workstation VMs
	Device       string    `json:"device,omitempty"`       // the device's model as `adb devices -l` lists it (else its product)

	// What an adb device's track-app says of the process (present only
	// where the device says so: track-app for the first four, its app_info
	// for the rest; frozen when the monitor found it so).
	Process            string   `json:"process,omitempty"`            // process name, e.g. "com.example.app:remote"
	Packages           []string `json:"packages,omitempty"`           // the packages running in it
	Debuggable         *bool    `json:"debuggable,omitempty"`         // adbd opens jdwp:PID to it
	Profileable        *bool    `json:"profileable,omitempty"`        // profileable (shell or from a release build)
	WaitingForDebugger *bool    `json:"waitingForDebugger,omitempty"` // the app waits for a debugger (am start -D)
	Frozen             *bool    `json:"frozen,omitempty"`             // frozen by the cached-apps freezer: adbd refuses JDWP
	Architecture       string   `json:"architecture,omitempty"`       // ISA, e.g. "arm64"
	UID                *int     `json:"uid,omitempty"`                // the app's Linux uid
	// From HELO's later tails (API 34+ for the boot stage) and STAG.
	JVMFlags         string `json:"jvmFlags,omitempty"`         // e.g. "CheckJNI=false"
	NativeDebuggable bool   `json:"nativeDebuggable,omitempty"` // the app is native-debuggable
	BootStage        string `json:"bootStage,omitempty"`        // BOOT, ATCH, BIND, NAMD, DEBG, A_GO
	// Listed marks an entry only the device's process list knows: the
	// monitor holds no JDWP connection to it (yet); Note says why.
	Listed bool   `json:"listedOnly,omitempty"`
	Note   string `json:"note,omitempty"` // why the process is not monitored, and what to do
	// Simulated marks ddmbridge's simulated VM (its Version says so,
	// ddm.Simulated): its DDM data — thread states without a JVM, heap
	// maps, allocations — is made up, and a front end says so on screen.
	Simulated bool `json:"simulated,omitempty"`
}

// ThreadInfo is one thread of a VM, in the one schema (ddm/view.go).
type ThreadInfo = ddm.ThreadJSON

// VM is one monitored VM: the monitor owns its only JDWP connection. DDM and
// debugger traffic share that connection.
type VM struct {
	m     *Monitor
	id    string
	addr  string
	conn  *jdwp.Conn
	dc    *ddm.Client // nil for plain JDWP VMs
	feed  *ddm.Feed   // the one poller of the VM's threads and heaps
	draft bool        // the VM speaks the 2007 draft protocol (DBGD)
	log   zerolog.Logger
	since time.Time
	from  vmOrigin

	// ddmOnly: a simulated VM without a JVM (its Version says so,
	// ddm.DDMOnly): it runs no code, so it is listed as not debuggable.
	// simulated: any simulated VM (ddm.Simulated).
	ddmOnly, simulated bool

	debugPort int // the debugger port of the VM's address (the monitor owns it), or 0
	// launcherPending: a launched VM whose port lives only as long as the
	// launcher's session, which has not opened yet (see AdoptLaunched).
	launcherPending atomic.Bool

	// mux shares the connection among the debuggers attached to the VM.
	mux *mux.Mux

	mu            sync.Mutex
	pid           int
	name, ident   string
	threads       []ThreadInfo // plain VMs: the last JDWP poll
	threadUpdates bool         // the control API's clients watch threads (one watcher of feed)
	heapUpdates   bool         // likewise heaps
	thenSent      bool

	// announced: vms/added was sent for the VM (or for the VM it
	// replaced after an agent reset); under m.mu. Until then no other
	// event of it is sent (Monitor.notify).
	announced bool

	removed   chan struct{}
	closeOnce sync.Once
	resetting atomic.Bool  // the monitor resets the agent: a successor replaces v
	dbgdAcks  atomic.Int32 // DBGD acknowledgements (draft VMs)
	noTHST    atomic.Bool  // the VM left a THST unanswered: current frameworks have no handler
	noSTKL    atomic.Bool  // likewise STKL

	heapChunkState atomic.Int32 // whether the VM serves the DDM heap chunks (deviceheap.go)

	dumpMu sync.Mutex               // one heap dump at a time: HPDS chunks carry no request id
	hpds   atomic.Pointer[hpdsSink] // where the HPDS chunk of the dump in progress goes
	hsHeap hotspotHeapCache
}

// ID returns the monitor's id of the VM.
func (v *VM) ID() string { return v.id }

// Addr returns the VM's JDWP address.
func (v *VM) Addr() string { return v.addr }

// Conn returns the VM's JDWP connection. Commands sent on it share the
// connection with DDM and any attached debugger; do not send
// VirtualMachine.Dispose on it.
func (v *VM) Conn() *jdwp.Conn { return v.conn }

// DDM returns the VM's DDM client, or nil for a plain JDWP VM.
func (v *VM) DDM() *ddm.Client { return v.dc }

// Done is closed when the VM is gone from the monitor.
func (v *VM) Done() <-chan struct{} { return v.removed }

// Info returns a snapshot of what is known about the VM.
func (v *VM) Info() VMInfo {
	v.mu.Lock()
	info := VMInfo{
		ID: v.id, Address: v.addr, PID: v.pid, Name: v.name, VM: v.ident, DDM: v.dc != nil,
		Waiting: v.mux.Waiting(), DebugPort: v.debugPort, Since: v.since, Protocol: "jdwp",
		ThreadUpdate: v.threadUpdates, HeapUpdate: v.heapUpdates, Serial: v.from.serial, Device: v.from.device,
	}
	v.mu.Unlock()
	if from := v.mux.Debuggers(); from != "" {
		info.Debugger = true
		info.DebuggerFrom = from
	}
	if v.dc != nil {
		info.Protocol = "ddm"
		if v.draft {
			info.Protocol = "ddm-draft"
		}
		id := v.dc.Data().Identity()
		if id.PID != 0 {
			info.PID = int(id.PID)
		}
		if id.AppName != "" && id.AppName != preInitialized {
			info.Name = id.AppName
		}
		info.VM = id.VMIdent
		info.Features = id.Features
		info.ABI, info.Package, info.UserID = id.ABI, id.PackageName, id.UserID
		info.JVMFlags, info.NativeDebuggable = id.JVMFlags, id.NativeDebuggable
		if id.BootStage != 0 {
			info.BootStage = id.BootStage.String()
		}
		if v.dc.Data().Debugger() == ddm.DebuggerWaiting {
			info.Waiting = true
		}
	}
	info.Simulated = v.simulated
	if v.ddmOnly {
		f := false
		info.Debuggable, info.Note = &f, ddm.DDMOnlyNote
	}
	return info
}

// gatedConn holds back the connection's first read until open is closed, so
// the event subscription exists before the reader can deliver the VM_START a
// suspend=y VM sends right after the handshake.
type gatedConn struct {
	net.Conn
	open chan struct{}
}

func (g *gatedConn) Read(b []byte) (int, error) {
	<-g.open
	return g.Conn.Read(b)
}

// errNotDDM marks a VM that rejected HELO.
var errNotDDM = errors.New("not DDM-aware")

// preInitialized is the name ART reports for a zygote child that is not yet
// an app (HELO before APNM, /proc/PID/cmdline): no name yet.
const preInitialized = "<pre-initialized>"

// vmOrigin says where a VM's connection comes from: a workstation port (the
// zero value) or a process on an adb device.
type vmOrigin struct {
	serial string // adb serial
	device string // the device's model
	pid    int    // pid on the device (track-jdwp)

	// dial connects to the VM's agent again and handshakes (VMs the monitor
	// found by scanning); nil when the monitor cannot.
	dial func(context.Context) (net.Conn, error)

	// keepID is the id of an earlier VM of the same process that went away
	// soon after it was found: the VM keeps it (see Monitor.noteGone).
	keepID string
}

// setupVMAs takes over a connection whose handshake is done: HELO decides
// between DDM and plain JDWP, then identity and the event pump start. id
// and since are a reconnected VM's; id "" takes a new one.
func (m *Monitor) setupVMAs(ctx context.Context, nc net.Conn, addr string, from vmOrigin, id string, since time.Time) (*VM, error) {
	reset := id != "" // a reconnect after resetting the agent (Monitor.reconnect)
	if id == "" && from.serial != "" {
		id = m.listedID(addr) // the id it had in the list before any connection
	}
	if id == "" {
		id = from.keepID
	}
	if id == "" {
		id = fmt.Sprint(m.nextID.Add(1))
	}
	v := &VM{
		m: m, addr: addr, since: since, removed: make(chan struct{}),
		id: id, from: from, pid: from.pid,
	}
	v.log = m.log.With().Str("vm", v.id).Str("addr", addr).Logger()
	g := &gatedConn{Conn: nc, open: make(chan struct{})}
	jo := m.opts.JDWP
	if jo.Logger.GetLevel() == zerolog.Disabled && m.opts.Logger.GetLevel() != zerolog.Disabled {
		jo.Logger = m.opts.Logger.With().Str("component", "jdwp").Logger()
	}
	// Events are decoded with HotSpot's sizes until the real ones are known
	// (asked of plain VMs below, seen in the debugger's IDSizes reply for DDM
	// VMs): the connection must not ask a DDM VM itself, since any non-DDM
	// packet switches it to its debugger path. Events are forwarded raw anyway.
	jo.IDSizes = &jdwp.DefaultIDSizes
	v.conn = jdwp.NewConn(g, &jo)
	sub := v.conn.Subscribe()
	close(g.open)

	dc := ddm.NewClient(v.conn, ddm.Options{
		Logger: m.opts.Logger, TraceChunks: m.opts.TraceChunks, TraceData: m.opts.TraceData,
		Timeout: m.opts.RequestTimeout,
	})
	v.conn.HandleCommandSet(ddm.CommandSet, func(_ *jdwp.Conn, p *jdwp.Packet) { dc.HandlePacket(p.ID, p.Cmd, p.Data) })
	v.streamHPDS(dc)
	// Vendor packets go only to a VM known to be Android's (see
	// identifyAndroid): HotSpot's agent crashes on command set 0xC7.
	ver, android, err := v.identifyAndroid(ctx)
	if err != nil {
		dc.Close()
		sub.Close()
		v.conn.Close()
		return nil, err
	}
	var rep ddm.Reply
	waiting := false
	if android {
		// This is ddm.Attach's greeting, split so that the HELO outcome is
		// known before anything else is sent: FEAT and MPRQ only go to DDM VMs.
		v.conn.AllowVendorCommands()
		hctx, cancel := context.WithTimeout(ctx, m.opts.RequestTimeout)
		rep, err = dc.Send(&ddm.HelloRequest{ServerVersion: 1}, nil).Wait(hctx)
		cancel()
		if err == nil {
			err = rep.Err
		}
	} else {
		err = errNotDDM
	}
	v.ddmOnly = ver != nil && ddm.DDMOnly(ver.Description)
	v.simulated = ver != nil && ddm.Simulated(ver.Description)
	switch {
	case err == nil:
		v.dc = dc
		if h, ok := rep.Msg.(*ddm.Hello); ok && h.Tails == 0 {
			v.draft = true // only the 2007 draft sends the short HELO; it alone knows DBGD
		}
		dc.Send(&ddm.Empty{Type: ddm.FEAT}, nil)
		dc.Send(&ddm.Empty{Type: ddm.MPRQ}, nil)
	case v.conn.Err() != nil:
		dc.Close()
		sub.Close()
		v.conn.Close()
		return nil, fmt.Errorf("VM %s closed the connection during HELO: %w", addr, v.conn.Err())
	default:
		// Not Android's, or an Android VM that answered HELO with a JDWP
		// error, a FAIL or not at all: a plain JDWP VM that gets no DDM
		// traffic.
		v.log.Debug().Err(err).Msg("plain JDWP VM: no DDM")
		dc.Close()
		v.conn.HandleCommandSet(ddm.CommandSet, func(_ *jdwp.Conn, p *jdwp.Packet) {
			v.log.Warn().Uint32("id", p.ID).Msg("DDM packet from a VM that rejected HELO; ignored")
		})
		if waiting, err = v.identifyPlain(ctx, nc, ver, reset); err != nil {
			sub.Close()
			v.conn.Close()
			return nil, err
		}
	}
	v.mux = mux.New(v.conn, vmHost{v}, mux.Options{
		ID: v.id, Logger: v.log, RequestTimeout: m.opts.RequestTimeout, CleanupTimeout: m.opts.CleanupTimeout,
		DebuggerWriteTimeout: m.opts.DebuggerWriteTimeout, MaxRequestsPerDebugger: m.opts.MaxRequestsPerDebugger,
		TraceProxy: m.opts.TraceProxy, Resettable: v.dc == nil && from.dial != nil, Waiting: waiting,
	})
	v.feed = ddm.NewFeed(v.dc, ddm.FeedOptions{
		ID: v.id, Interval: m.opts.ThreadPollInterval, Timeout: m.opts.RequestTimeout,
		PollThreads: func(ctx context.Context) {
			if _, err := v.Threads(ctx); err != nil {
				v.log.Debug().Err(err).Msg("thread poll failed")
			}
		},
		NamesOn: func() {
			if v.dc != nil {
				v.enableThreadNotify()
			}
		},
		ThreadsOff: func() {
			if v.dc != nil {
				v.mu.Lock()
				v.thenSent = false
				v.mu.Unlock()
				v.dc.SetThreadUpdates(false)
			}
		},
		Threads: func() ddm.ThreadsJSON {
			return ddm.ThreadsJSON{ID: v.id, Threads: nonNil(v.CachedThreads()), Note: v.ThreadsNote()}
		},
	})
	go v.mux.Pump(sub)
	if v.dc != nil {
		go v.watchModel()
	}
	return v, nil
}

// identifyAndroid decides whether the VM is Android's and so may be sent
// DDM (command set 0xC7). An adb device's VMs are ART: nothing is asked, so
// a DDM-only monitor never loads the device's JDWP agent. A VM on a
// workstation port is asked VirtualMachine.Version and is Android's only if
// it says so (jdwp.VersionInfo.Android): HotSpot's agent reads before its
// command table for a set byte of 0x80 and up and crashes (JDK-8382537,
// 17.0.21 included), so a VM that has not shown it is Android's never gets a
// vendor packet. ver is the VM's answer, if it was asked.
func (v *VM) identifyAndroid(ctx context.Context) (ver *jdwp.VersionInfo, android bool, err error) {
	if v.from.serial != "" {
		return nil, true, nil
	}
	ctx, cancel := context.WithTimeout(ctx, v.m.opts.RequestTimeout)
	defer cancel()
	vi, err := v.conn.Version(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("VM %s: VirtualMachine.Version: %w", v.addr, err)
	}
	return &vi, vi.Android(), nil
}

// identifyPlain learns a plain JDWP VM's id sizes, version (unless known)
// and, for local VMs, its process id and main class.
//
// On a connection made to reset the agent (reset) it asks nothing that
// hands out object ids: the next debugger must find the agent's id table
// as empty as a fresh attach does (see bridge/mux/staleids.go). A reset
// VM runs, so it is not waiting; waiting says whether the VM waits for a
// debugger.
func (v *VM) identifyPlain(ctx context.Context, nc net.Conn, known *jdwp.VersionInfo, reset bool) (waiting bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, v.m.opts.RequestTimeout)
	defer cancel()
	if _, err := v.conn.IDSizes(ctx); err != nil {
		return false, fmt.Errorf("VM %s: %w", v.addr, err)
	}
	var ver jdwp.VersionInfo
	if known != nil {
		ver = *known
	} else {
		var err error
		if ver, err = v.conn.Version(ctx); err != nil {
			return false, fmt.Errorf("VM %s: VirtualMachine.Version: %w", v.addr, err)
		}
	}
	// A suspend=y VM sent VM_START before any reply, but the event pump may
	// not have seen it yet: ask, so the VM is announced as waiting.
	if reset {
		// no AllThreads: see above
	} else if ts, err := v.conn.AllThreads(ctx); err == nil && len(ts) > 0 {
		n, err := v.conn.SuspendCount(ctx, ts[0])
		waiting = err == nil && n > 0
	}
	v.mu.Lock()
	v.ident = clip(ver.VMName+" v"+ver.VMVersion, maxNameBytes)
	v.mu.Unlock()
	if v.from.serial != "" {
		return waiting, nil // the stream ends at the adb server: the device knows the pid and name
	}
	pid, name := hostproc.Peer(nc)
	v.mu.Lock()
	v.pid, v.name = pid, name
	v.mu.Unlock()
	return waiting, nil
}

// watchModel turns DDM model changes into monitor events.
func (v *VM) watchModel() {
	ch, cancel := v.dc.Data().Subscribe()
	defer cancel()
	for {
		select {
		case c := <-ch:
			if c&(ddm.ChangeIdentity|ddm.ChangeDebugger|ddm.ChangeFeatures) != 0 {
				v.m.notify(EventChanged, v)
			}
			if c&(ddm.ChangeThreads) != 0 {
				v.m.notify(EventThreads, v)
			}
			if c&ddm.ChangeHeapInfo != 0 {
				v.m.notify(EventHeap, v)
			}
			if c&ddm.ChangeHeapMap != 0 {
				v.m.notify(EventHeapMap, v)
			}
		case <-v.removed:
			return
		}
	}
}

// close ends the VM's monitoring: the debuggers, DDM and the connection (the
// monitor owns the debugger port). It does not send Dispose (that would end a suspend=y VM's wait).
func (v *VM) close() {
	v.closeOnce.Do(func() {
		close(v.removed)
		// When the VM went, what it sent before (VM_DEATH, the last
		// events) reaches its debuggers first, as it would directly.
		v.mux.Close()
		if v.feed != nil {
			v.feed.Close()
		}
		if v.dc != nil {
			v.dc.Close()
		}
		v.conn.Close()
	})
}

// ErrNotDDM is returned for DDM-only operations on a plain JDWP VM.
var ErrNotDDM = errors.New("the VM does not speak DDM (desktop HotSpot?): this needs a DDM-aware VM, e.g. one behind `ddmbridge simvm --jvm`")

// Threads returns the VM's threads: for DDM VMs from THST (thread
// notifications are turned on first, once), for plain VMs from JDWP.
func (v *VM) Threads(ctx context.Context) ([]ThreadInfo, error) {
	if v.dc == nil {
		return v.pollJDWPThreads(ctx)
	}
	v.enableThreadNotify()
	if v.noTHST.Load() {
		return v.threadsWithoutTHST(ctx)
	}
	msg, err := v.dc.Request(ctx, &ddm.ThreadStatusRequest{})
	switch {
	case unanswered(v, msg, err) && ctx.Err() == nil:
		// Current frameworks dropped DdmHandleThread's THST: say so once and
		// stop asking, rather than wait for every poll.
		v.noTHST.Store(true)
		v.log.Info().Msg(noteNoTHST)
		return v.threadsWithoutTHST(ctx)
	case err != nil && !errors.Is(err, ddm.ErrTimeout):
		return nil, fmt.Errorf("VM %s: THST: %w", v.id, err)
	}
	ts := v.ddmThreads()
	v.markSuspended(ctx, ts)
	return ts, nil
}

// unanswered reports a request the VM has no handler for: no reply at all
// (adbconnection), or an empty one (current ART with its JDWP agent loaded).
// The draft answers empty by design, so only a missing reply counts there.
func unanswered(v *VM, msg ddm.Message, err error) bool {
	if err == nil {
		return msg == nil && !v.draft
	}
	return errors.Is(err, ddm.ErrTimeout) && v.conn.Err() == nil
}

// noteNoTHST is what the thread view says of a VM that does not answer THST.
const noteNoTHST = "this VM does not answer THST (current Android dropped the handler): threads come from THCR/THNM " +
	"without states; their states come from JDWP once a debugger is attached"

// ThreadsNote says why the thread list lacks something ("" when it does
// not): a VM without THST shows states only while a debugger is attached.
func (v *VM) ThreadsNote() string {
	if v.dc == nil || !v.noTHST.Load() {
		return ""
	}
	return noteNoTHST
}

// threadsWithoutTHST: with a debugger attached (the JDWP agent is loaded
// anyway) states come from JDWP; without one, the monitor stays DDM-only and
// gives the THCR names with state "unknown".
func (v *VM) threadsWithoutTHST(ctx context.Context) ([]ThreadInfo, error) {
	if v.Info().Debugger {
		return v.pollJDWPThreads(ctx)
	}
	ts := v.ddmThreads()
	for i := range ts {
		ts[i].State = "unknown"
	}
	return ts, nil
}

// CachedThreads returns the last known threads without asking the VM.
func (v *VM) CachedThreads() []ThreadInfo {
	if v.dc != nil && !(v.noTHST.Load() && v.Info().Debugger) {
		return v.ddmThreads()
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.threads)
}

func (v *VM) ddmThreads() []ThreadInfo {
	return ddm.ThreadsOf(v.dc.Data().Threads()) // a thread no THST told of yet: "unknown"

}

func (v *VM) enableThreadNotify() {
	v.mu.Lock()
	send := !v.thenSent
	v.thenSent = true
	v.mu.Unlock()
	if send {
		v.dc.Send(&ddm.ThreadNotify{Enable: true}, nil)
	}
}

// pollJDWPThreads reads a plain VM's threads with AllThreads, Name and Status
// (none of which suspends anything), pipelined.
func (v *VM) pollJDWPThreads(ctx context.Context) ([]ThreadInfo, error) {
	ids, err := v.conn.AllThreads(ctx)
	if err != nil {
		return nil, fmt.Errorf("VM %s: VirtualMachine.AllThreads: %w", v.id, err)
	}
	if len(ids) > ddm.MaxThreads {
		v.log.Warn().Int("threads", len(ids)).Int("kept", ddm.MaxThreads).Msg("VM lists more threads than the monitor keeps; the rest are not shown")
		ids = ids[:ddm.MaxThreads]
	}
	out := make([]ThreadInfo, len(ids))
	var wg sync.WaitGroup
	sem := make(chan struct{}, threadPollDepth)
	for i, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			t := ThreadInfo{ID: uint64(id), State: "zombie"}
			if name, err := v.conn.ThreadName(ctx, id); err == nil {
				t.Name = clip(name, maxNameBytes)
			}
			if st, sus, err := v.conn.ThreadStatus(ctx, id); err == nil {
				t.State = ddm.ThreadStateFromJDWP(st).String()
				t.Suspended = sus
			}
			out[i] = t
		}()
	}
	wg.Wait()
	v.addNativeThreads(out)
	v.mu.Lock()
	changed := !slices.Equal(v.threads, out)
	v.threads = out
	v.mu.Unlock()
	if changed {
		v.m.notify(EventThreads, v)
	}
	return slices.Clone(out), nil
}

// threadPollDepth bounds the threads asked about at once by a thread poll:
// enough to keep the VM busy, few enough that a VM listing a huge number of
// threads costs no goroutine each.
const threadPollDepth = 64

// maxNameBytes bounds a thread, VM or application name the monitor keeps
// from a plain JDWP VM (whose strings are bounded only by the packet size).
const maxNameBytes = 4096

// clip cuts s to at most n bytes, at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// addNativeThreads gives a local JVM's threads their Linux thread ids and CPU
// times from /proc, as a DDM VM's THST does (package hostproc); a thread
// keeps the native thread it had at the last poll while the name fits.
func (v *VM) addNativeThreads(ts []ThreadInfo) {
	v.mu.Lock()
	pid, local := v.pid, v.from.serial == ""
	prev := make(map[uint64]uint32, len(v.threads))
	for _, t := range v.threads {
		prev[t.ID] = t.TID
	}
	v.mu.Unlock()
	if pid <= 0 || !local {
		return
	}
	tasks := hostproc.Read(uint32(pid))
	if tasks == nil {
		return
	}
	order := make([]int, len(ts)) // by JDWP id: creation order, stable across polls
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return ts[order[a]].ID < ts[order[b]].ID })
	pts := make([]*hostproc.Thread, len(ts))
	for k, i := range order {
		pts[k] = &hostproc.Thread{Name: ts[i].Name, TID: prev[ts[i].ID]}
	}
	hostproc.Match(pts, tasks, uint32(pid))
	for k, i := range order {
		ts[i].TID, ts[i].UTime, ts[i].STime = pts[k].TID, pts[k].UTime, pts[k].STime
	}
}

// SetThreadUpdates turns periodic thread updates for the control API on or
// off: the VM's feed polls (THEN and THST for DDM VMs, JDWP for plain VMs)
// while anyone watches. Changes are published as EventThreads.
func (v *VM) SetThreadUpdates(on bool) {
	v.mu.Lock()
	if v.threadUpdates == on {
		v.mu.Unlock()
		return
	}
	v.threadUpdates = on
	v.mu.Unlock()
	v.feed.WatchThreads(on)
	v.m.notify(EventChanged, v)
}

// SetHeapUpdates turns HPIF after every GC and HPSG heap maps for the
// control API on or off (DDM VMs only). Changes are published as EventHeap.
func (v *VM) SetHeapUpdates(on bool) error {
	if v.dc == nil {
		return ErrNotDDM
	}
	v.mu.Lock()
	changed := v.heapUpdates != on
	v.heapUpdates = on
	v.mu.Unlock()
	if changed && !v.heapChunks(context.Background()) {
		// No heap reports to turn on (current Android): the watchers get
		// a first dump now, later ones on a GC they ask for.
		if on {
			go v.firstDumpHeap()
		}
	} else if changed {
		if err := v.feed.WatchHeap(on); err != nil {
			return err
		}
	}
	v.m.notify(EventChanged, v)
	return nil
}

// Feed returns the VM's one poller of thread and heap data.
func (v *VM) Feed() *ddm.Feed { return v.feed }

// HeapInfo asks for an HPIF now and returns the heaps' statistics; a plain
// HotSpot VM on this host answers from a heap dump (attach, no GC forced).
func (v *VM) HeapInfo(ctx context.Context) (map[uint32]ddm.HeapStats, error) {
	if v.HeapFromDump(ctx) {
		info, _, err := v.hotspotHeap(ctx, false) // a local HotSpot VM, a current device's: from a heap dump
		if err != nil {
			return nil, err
		}
		return map[uint32]ddm.HeapStats{1: info}, nil
	}
	before := v.dc.Data().HeapInfo()
	ch, cancel := v.dc.Data().Subscribe()
	defer cancel()
	v.dc.RequestHeapInfo(ddm.WhenNow)
	// The data is an unsolicited HPIF packet; wait for it briefly.
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case c := <-ch:
			if c&ddm.ChangeHeapInfo == 0 {
				continue
			}
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		break
	}
	info := v.dc.Data().HeapInfo()
	if len(info) == 0 && len(before) == 0 {
		v.heapChunksUnanswered()
		return nil, fmt.Errorf("VM %s sent no heap info (HPIF): modern ART no longer supports it", v.id)
	}
	return info, nil
}

// HeapMap returns the last complete heap map (heap 1) or nil. With
// collect, it first enables heap maps if needed and runs a GC so a fresh map
// is sent. A plain HotSpot VM on this host has its map drawn from a heap
// dump's object addresses (live objects after a full GC with collect).
func (v *VM) HeapMap(ctx context.Context, collect bool) (*ddm.HeapMap, error) {
	if v.HeapFromDump(ctx) {
		_, hm, err := v.hotspotHeap(ctx, collect) // a local HotSpot VM, a current device's: drawn from a heap dump
		return hm, err
	}
	if hm := v.dc.Data().HeapMap(1, false); hm != nil && !collect {
		return hm, nil
	}
	ch, cancel := v.dc.Data().Subscribe()
	defer cancel()
	_, on := v.feed.Watching()
	if !on {
		v.dc.SetHeapSegments(true, false)
	}
	v.dc.GC()
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
wait:
	for {
		select {
		case c := <-ch:
			if c&ddm.ChangeHeapMap != 0 {
				break wait
			}
		case <-t.C:
			break wait
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if !on {
		v.dc.SetHeapSegments(false, false)
	}
	hm := v.dc.Data().HeapMap(1, false)
	if hm == nil {
		return nil, fmt.Errorf("VM %s sent no heap map (HPSG) after a GC: modern ART no longer supports it", v.id)
	}
	return hm, nil
}

// noteNoSTKL is what a stack request on a VM without STKL says.
const noteNoSTKL = "this VM does not answer STKL (current Android dropped the handler): " +
	"attach a debugger (ddmbridge dap, jdb) and pause the thread to see its stack"

// Stack asks a DDM VM for one thread's stack (STKL).
func (v *VM) Stack(ctx context.Context, thread uint32) ([]ddm.Frame, error) {
	if v.dc == nil {
		return nil, ErrNotDDM
	}
	if v.noSTKL.Load() {
		return nil, fmt.Errorf("VM %s: %s", v.id, noteNoSTKL)
	}
	m, err := v.dc.Request(ctx, &ddm.StackRequest{ThreadID: thread})
	if unanswered(v, m, err) && ctx.Err() == nil {
		v.noSTKL.Store(true)
		v.log.Info().Msg(noteNoSTKL)
		return nil, fmt.Errorf("VM %s: %s", v.id, noteNoSTKL)
	}
	if err != nil {
		return nil, fmt.Errorf("VM %s: STKL of thread %d: %w", v.id, thread, err)
	}
	st, ok := m.(*ddm.Stack)
	if !ok {
		return nil, fmt.Errorf("VM %s: STKL of thread %d: the VM sent no stack", v.id, thread)
	}
	return st.Frames, nil
}

// GC asks a DDM VM to collect garbage (HPGC).
func (v *VM) GC(ctx context.Context) error {
	if v.dc == nil {
		return ErrNotDDM
	}
	if !v.heapChunks(ctx) {
		return v.gcWithoutReply(ctx) // deviceheap.go
	}
	_, err := v.dc.GC().Wait(ctx)
	return err
}

// Exit makes the VM exit: EXIT for DDM VMs, VirtualMachine.Exit otherwise.
func (v *VM) Exit(ctx context.Context, status int32) error {
	if v.dc != nil {
		v.dc.Send(&ddm.Exit{Status: uint32(status)}, nil)
		return nil
	}
	return v.conn.Exit(ctx, status)
}

// HeapDumpTimeout bounds [VM.DumpHeap] when its context has no earlier
// deadline.
const HeapDumpTimeout = 5 * time.Minute

// featureHprofStreaming is the FEAT string of VMs that answer HPDS.
const featureHprofStreaming = "hprof-heap-dump-streaming"

// DumpHeap returns an HPROF dump of the VM's heap. A plain JDWP VM on this
// host is asked through HotSpot's attach mechanism (package internal/hotspot:
// live objects, after a full GC); a DDM VM for a dump streamed back to the monitor
// (HPDS, ART's streaming form: the VM answers with an unsolicited HPDS chunk
// whose data is the whole file, shared/reference/ddm.md §5.4) and returns the
// file's bytes. It waits at most HeapDumpTimeout, or until ctx ends. Dumps of
// one VM are serialised, since an HPDS chunk does not say which request it
// answers.
//
// A device VM that cannot stream its dump (no DDM, no hprof-heap-dump-
// streaming feature, or HPDS failing) has the device write it instead:
// `am dumpheap PID FILE` through adb, then the file is pulled and removed.
func (v *VM) DumpHeap(ctx context.Context) ([]byte, error) {
	b, err := v.dumpDDM(ctx)
	if err != nil && v.from.serial != "" && v.m.adb != nil {
		b, aerr := v.dumpWithAm(ctx)
		if aerr != nil {
			return nil, fmt.Errorf("%w; then am dumpheap: %w", err, aerr)
		}
		v.log.Info().AnErr("hpds", err).Int("bytes", len(b)).Msg("heap dumped with am dumpheap")
		return b, nil
	}
	return b, err
}

// dumpDDM is DumpHeap without the adb fallback (dumpDDMTo into memory).
func (v *VM) dumpDDM(ctx context.Context) ([]byte, error) {
	var b bytes.Buffer
	if _, err := v.dumpDDMTo(ctx, &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Dump is DumpHeap when live, else DumpHeapAll: what the JSON-RPC's
// vm/dumpHeap and a DAP session's dumpHeap ask.
func (v *VM) Dump(ctx context.Context, live bool) ([]byte, error) {
	if live {
		return v.DumpHeap(ctx)
	}
	return v.DumpHeapAll(ctx)
}

// DumpHeapAll is DumpHeap with unreachable objects too, for VMs that can
// tell (HotSpot through attach); DDM VMs dump as DumpHeap does.
func (v *VM) DumpHeapAll(ctx context.Context) ([]byte, error) {
	if v.dc == nil && v.from.serial == "" {
		return v.dumpHotSpot(ctx, false)
	}
	return v.DumpHeap(ctx)
}

// maxDeviceDump bounds a dump pulled from a device.
const maxDeviceDump = 4 << 30

// dumpWithAm has the device write the VM's heap dump with `am dumpheap`
// (which returns once the file is complete on current Android), pulls it
// over adb's sync protocol and removes it from the device.
func (v *VM) dumpWithAm(ctx context.Context) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := v.dumpWithAmTo(ctx, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// dumpWithAmTo is dumpWithAm pulling the file into w as it arrives.
func (v *VM) dumpWithAmTo(ctx context.Context, w io.Writer) (int64, error) {
	return v.amDumpheapTo(ctx, w, false)
}

// amDumpheapTo is dumpWithAmTo, after a GC (am dumpheap -g) with gc.
func (v *VM) amDumpheapTo(ctx context.Context, w io.Writer, gc bool) (int64, error) {
	v.mu.Lock()
	pid, serial := v.pid, v.from.serial
	v.mu.Unlock()
	if pid <= 0 {
		return 0, fmt.Errorf("VM %s: its pid on the device is not known", v.id)
	}
	v.dumpMu.Lock()
	defer v.dumpMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, HeapDumpTimeout)
	defer cancel()
	c := v.m.adb.c
	remote := fmt.Sprintf("/data/local/tmp/ddmbridge-heap-%d-%d.hprof", pid, time.Now().UnixNano())
	args := []string{"am", "dumpheap"}
	if gc {
		args = append(args, "-g")
	}
	out, err := c.ShellArgs(ctx, serial, append(args, strconv.Itoa(pid), remote)...)
	defer func() {
		rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c.ShellArgs(rctx, serial, "rm", "-f", remote)
	}()
	if err != nil {
		return 0, err
	}
	// adb's shell v1 carries no exit status: the output says.
	if strings.Contains(out, "Error") || strings.Contains(out, "Exception") {
		return 0, fmt.Errorf("the device said: %s", strings.TrimSpace(out))
	}
	cw := &countingWriter{w: w}
	if err := c.Pull(ctx, serial, remote, cw, maxDeviceDump); err != nil {
		return cw.n, err
	}
	return cw.n, nil
}

// countingWriter counts what passes through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// dumpHotSpot dumps a local HotSpot VM's heap through its attach socket
// into memory (DumpTo writes it to a file instead).
func (v *VM) dumpHotSpot(ctx context.Context, live bool) ([]byte, error) {
	v.mu.Lock()
	local := v.from.serial == ""
	v.mu.Unlock()
	if !local {
		return nil, fmt.Errorf("VM %s: heap dumps of a device VM need DDM (HPDS): %w", v.id, ErrNotDDM)
	}
	var b bytes.Buffer
	if _, err := v.dumpHotSpotTo(ctx, live, &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// isNewDump reports whether the model's last hprof h is another dump than
// before: every HPDS chunk is decoded into its own buffer.
func isNewDump(before, h []byte) bool {
	if len(h) == 0 {
		return false
	}
	return len(before) == 0 || &before[0] != &h[0]
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
