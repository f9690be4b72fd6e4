package simvm

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp"
)

const writeTimeout = 5 * time.Second

// zlibThreshold is the chunk size above which the draft profile compresses.
const zlibThreshold = 128

// session is one connection: a monitor or debugger talking to the VM.
type session struct {
	vm  *VM
	nc  net.Conn
	log zerolog.Logger

	wmu     sync.Mutex // serialises writes to nc
	eventID atomic.Uint32

	mu           sync.Mutex // DDM state below
	ddmActive    bool
	threadNotify bool
	hpifWhen     uint8
	hpsgWhen     uint8
	hpsgWhat     uint8
	nhsgWhen     uint8
	profMode     uint8
	thstStop     chan struct{}

	requests int // EventRequest.Set ids handed out by a VM without a JVM (the reading goroutine's)

	jvm       net.Conn // passthrough target, if any
	jvmWmu    sync.Mutex
	jvmOID    int            // the JVM's object id size
	jvmDone   chan struct{}  // closed when pumpFromJVM ends
	jvmClosed bool           // by closeJVM (vm.mu): refreshes still under way are stale
	bg        sync.WaitGroup // pumpFromJVM and followJVMThreads

	qmu     sync.Mutex // the simulator's own queries to the JVM
	qid     uint32
	pending map[uint32]chan *jdwp.Packet // by command id; nil once the caller gave up
	// versions are the ids of debuggers' Version commands passed to the
	// JVM, whose replies are given as the simulated VM's.
	versions map[uint32]bool
}

func (vm *VM) serveConn(nc net.Conn) {
	defer nc.Close()
	s := &session{vm: vm, nc: nc, log: vm.log.With().Str("peer", nc.RemoteAddr().String()).Logger()}
	if vm.opt.Profile.art() {
		s.eventID.Store(0x80000000) // adbconnection: 0x80000001, 0x80000002, …
	} else {
		s.eventID.Store(0x10000000 - 1) // Dalvik: 0x10000000, …
	}
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, len(jdwp.HandshakeString))
	if _, err := io.ReadFull(nc, buf); err != nil || string(buf) != jdwp.HandshakeString {
		s.log.Warn().Err(err).Str("got", string(buf)).Msg("bad JDWP handshake; closing")
		return
	}
	if _, err := nc.Write(buf); err != nil {
		return
	}
	nc.SetDeadline(time.Time{})
	if vm.opt.JVM != "" {
		defer s.closeJVM()
		if err := s.connectJVM(); err != nil {
			s.log.Error().Err(err).Msg("passthrough to the JVM failed; closing the session")
			return
		}
	}
	vm.mu.Lock()
	select {
	case <-vm.closed:
		vm.mu.Unlock()
		return
	default:
	}
	vm.sessions[s] = struct{}{}
	vm.mu.Unlock()
	defer s.end()
	if s.jvm != nil {
		s.bg.Add(1)
		go s.followJVMThreads()
	}
	r := bufio.NewReader(nc)
	for {
		p, err := jdwp.ReadPacket(r, 0)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				s.log.Debug().Err(err).Msg("session ended")
			}
			return
		}
		if p.IsReply() || p.CmdSet != ddm.CommandSet {
			if vm.nonDDM.Add(1) == 1 {
				if vm.opt.Profile == ProfileCurrent {
					s.log.Info().Uint8("set", p.CmdSet).Uint8("cmd", p.Cmd).Msg("first non-DDM packet: JDWP agent loaded")
					if vm.opt.WaitingForDebugger {
						s.event(&ddm.BootStage{Stage: ddm.StageGo}) // the debugger came: the app goes on
					}
				}
				if vm.opt.OnAgentLoaded != nil {
					vm.opt.OnAgentLoaded()
				}
			}
		}
		switch {
		case !p.IsReply() && p.CmdSet == ddm.CommandSet:
			if !s.handleDDM(p) {
				return
			}
		case s.jvm != nil:
			if !p.IsReply() && p.CmdSet == jdwp.SetVirtualMachine && p.Cmd == jdwp.CmdVMVersion.Cmd {
				// Answered as Android's VMs answer (versionReply), in order
				// with the commands before it.
				s.qmu.Lock()
				if s.versions == nil {
					s.versions = map[uint32]bool{}
				}
				s.versions[p.ID] = true
				s.qmu.Unlock()
			}
			if err := s.toJVM(p); err != nil {
				s.log.Warn().Err(err).Msg("forwarding to the JVM failed")
				return
			}
		case p.IsReply():
			// A reply to one of our DDM events would be a server bug; ignore it.
			s.log.Warn().Uint32("id", p.ID).Msg("unexpected reply from the server")
		default:
			if !s.handleCore(p) {
				return
			}
		}
	}
}

func (s *session) end() {
	s.vm.mu.Lock()
	delete(s.vm.sessions, s)
	s.vm.mu.Unlock()
	s.mu.Lock()
	if s.thstStop != nil {
		close(s.thstStop)
		s.thstStop = nil
	}
	s.mu.Unlock()
}

func (s *session) send(p *jdwp.Packet) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	return jdwp.WritePacket(s.nc, p)
}

func (s *session) reply(id uint32, code jdwp.ErrorCode, data []byte) error {
	return s.send(&jdwp.Packet{ID: id, Flags: jdwp.FlagReply, Error: code, Data: data})
}

func (s *session) draft() bool { return s.vm.opt.Profile == ProfileDraft }

// current reports the ProfileCurrent session: no THST/STKL handlers, and
// of the heap chunks only HPGC (goneOnCurrent).
func (s *session) current() bool { return s.vm.opt.Profile == ProfileCurrent }

// wire frames chunks for the profile: the draft compresses big chunks.
func (s *session) wire(cs ...ddm.Chunk) []byte {
	for i, c := range cs {
		s.trace("out", c)
		if s.draft() && len(c.Data) > zlibThreshold {
			cs[i] = ddm.Compress(c)
		}
	}
	return ddm.EncodeChunks(cs...)
}

// event sends an unsolicited chunk (a command packet the server never answers).
func (s *session) event(m ddm.Message) {
	p := &jdwp.Packet{ID: s.eventID.Add(1), CmdSet: ddm.CommandSet, Cmd: ddm.Command, Data: s.wire(ddm.Encode(m))}
	if err := s.send(p); err != nil {
		s.log.Debug().Err(err).Msg("event not sent")
	}
}

func (s *session) trace(dir string, c ddm.Chunk) {
	if s.vm.opt.TraceChunks {
		s.log.Trace().Str("kind", "ddm.chunk").Str("dir", dir).Str("type", c.Type.String()).Int("len", len(c.Data)).Msg("chunk")
	}
	if s.vm.opt.TraceData {
		s.log.Trace().Str("kind", "ddm.data").Str("type", c.Type.String()).Str("hex", hex.EncodeToString(c.Data)).Msg("chunk data")
	}
}

// handleDDM answers one 0xC7 command packet; false ends the session (EXIT).
func (s *session) handleDDM(p *jdwp.Packet) bool {
	if p.Cmd != ddm.Command {
		s.reply(p.ID, jdwp.ErrNotImplemented, nil)
		return true
	}
	s.mu.Lock()
	s.ddmActive = true
	s.mu.Unlock()
	chunks, err := ddm.ParseChunks(p.Data, ddm.ParseOptions{})
	if err != nil {
		s.log.Warn().Err(err).Msg("malformed DDM request")
		if len(chunks) == 0 {
			s.reply(p.ID, jdwp.ErrNone, s.wire(ddm.Encode(&ddm.Fail{Code: 1, Message: err.Error()})))
			return true
		}
	}
	if !s.draft() && len(chunks) > 1 {
		chunks = chunks[:1] // real VMs read only the first chunk
	}
	var out []ddm.Chunk
	var after []func()
	exit := false
	for _, c := range chunks {
		s.trace("in", c)
		s.vm.countChunk(c.Type)
		a := s.answer(c)
		if a.reply != nil {
			out = append(out, ddm.Encode(a.reply))
		}
		if a.after != nil {
			after = append(after, a.after)
		}
		exit = exit || a.exit
	}
	if exit {
		// The VM halts at once: no reply, the connection just closes.
		go s.vm.Close()
		return false
	}
	// A handler with nothing to say: Dalvik and the draft send an empty reply,
	// modern ART's adbconnection sends nothing — until the JDWP agent is
	// loaded, which answers empty (its error suppressed for compatibility).
	if len(out) > 0 || s.draft() || len(chunks) == 0 || (s.current() && s.vm.nonDDM.Load() > 0) {
		s.reply(p.ID, jdwp.ErrNone, s.wire(out...))
	}
	for _, f := range after {
		f()
	}
	return true
}

// answer is what one request chunk produces: a reply chunk (nil = none), an
// action after the reply is written, and whether the VM exits.
type answer struct {
	reply ddm.Message
	after func()
	exit  bool
}

// draftChunks are the requests the 2007 design defines; a draft VM answers
// everything else with an empty reply, as the seed says for unknown types.
var draftChunks = map[ddm.Type]bool{ddm.HELO: true, ddm.THEN: true, ddm.THST: true, ddm.HPIF: true, ddm.HPSG: true, ddm.NHSG: true, ddm.EXIT: true, ddm.DBGD: true}

func fail(msg string) answer { return answer{reply: &ddm.Fail{Code: 1, Message: msg}} }

// goneOnCurrent are the heap and allocation chunks current frameworks have no
// handler for: DdmHandleHeap registers only HPGC since ART dropped their
// native hooks (January 2021, Android 12). adbconnection sends no reply for
// a chunk without a handler (docs/android-today.md).
var goneOnCurrent = map[ddm.Type]bool{
	ddm.HPIF: true, ddm.HPSG: true, ddm.NHSG: true, ddm.HPDU: true, ddm.HPDS: true,
	ddm.REAE: true, ddm.REAQ: true, ddm.REAL: true,
}

func (s *session) answer(c ddm.Chunk) answer {
	if s.draft() && !draftChunks[c.Type] {
		return answer{}
	}
	if s.current() && goneOnCurrent[c.Type] {
		return answer{}
	}
	m, err := ddm.Decode(c, ddm.ToVM)
	if err != nil {
		return fail(err.Error())
	}
	vm := s.vm
	switch m := m.(type) {
	case *ddm.HelloRequest:
		if vm.opt.WaitingForDebugger {
			s.event(&ddm.Wait{Reason: 0}) // WAIT precedes the HELO reply
		}
		h := &ddm.Hello{ProtocolVersion: 1, PID: vm.opt.PID, VMIdent: "Dalvik v1.0.0", AppName: vm.opt.AppName}
		if s.draft() {
			return answer{reply: h}
		}
		h.VMIdent = "Dalvik v2.1.0"
		h.Tails, h.ABI, h.JVMFlags, h.PackageName, h.BootStage = 6, "64-bit (x86_64)", "CheckJNI=false", vm.opt.AppName, ddm.StageGo
		if s.current() && vm.opt.WaitingForDebugger && vm.nonDDM.Load() == 0 {
			h.BootStage = ddm.StageDebug // stopped in Debug.waitForDebugger
		}
		return answer{reply: h, after: func() {
			s.event(&ddm.AppName{Name: vm.opt.AppName, Tails: 2, PackageName: vm.opt.AppName})
		}}
	case *ddm.Empty:
		return s.answerEmpty(m.Type)
	case *ddm.ThreadNotify:
		vm.mu.Lock()
		s.mu.Lock()
		s.threadNotify = m.Enable
		s.mu.Unlock()
		if m.Enable {
			for _, t := range sortedThreads(vm.threads) { // may arrive before the reply
				s.event(&ddm.ThreadName{ID: t.id, Name: t.name})
			}
		}
		vm.mu.Unlock()
		return answer{}
	case *ddm.ThreadStatusRequest:
		if s.current() {
			return answer{} // DdmHandleThread's THST is gone from current frameworks
		}
		if s.draft() && m.Draft {
			s.setPeriodicTHST(time.Duration(m.IntervalMs) * time.Millisecond)
			return answer{}
		}
		return answer{reply: s.threadStatus()}
	case *ddm.StackRequest:
		if s.current() {
			return answer{} // and so is its STKL
		}
		vm.mu.Lock()
		t := vm.threads[m.ThreadID]
		vm.mu.Unlock()
		if t == nil {
			return fail(fmt.Sprintf("Thread %d not found", m.ThreadID))
		}
		return answer{reply: &ddm.Stack{ThreadID: t.id, Frames: []ddm.Frame{
			{Class: "java.lang.Object", Method: "wait", Line: -2},
			{Class: "com.example.simvm.Worker", Method: "run", File: "Worker.java", Line: int32(20 + t.id)},
			{Class: "java.lang.Thread", Method: "run", File: "Thread.java", Line: 1012},
		}}}
	case *ddm.HeapInfoRequest:
		if m.When > ddm.WhenEveryGC {
			return fail("Unsupported HPIF what")
		}
		if m.When != ddm.WhenNow { // a query leaves the reporting mode as it was
			s.mu.Lock()
			s.hpifWhen = m.When
			s.mu.Unlock()
		}
		if m.When == ddm.WhenNow {
			vm.mu.Lock()
			s.event(&ddm.HeapInfo{Heaps: []ddm.HeapStats{vm.heap.stats(ddm.WhenNow)}}) // sent before the (empty) reply
			vm.mu.Unlock()
		}
		return answer{}
	case *ddm.SegmentRequest:
		if m.When > 1 || m.What > 1 {
			return fail(fmt.Sprintf("Unsupported %s when %d what %d", m.ChunkType(), m.When, m.What))
		}
		s.mu.Lock()
		if m.Native {
			s.nhsgWhen = m.When
		} else {
			s.hpsgWhen, s.hpsgWhat = m.When, m.What
		}
		s.mu.Unlock()
		return answer{}
	case *ddm.Exit:
		return answer{exit: true}
	case *ddm.AllocTrackingEnable:
		s.vm.setAllocTracking(m.Enable)
		return answer{}
	case *ddm.TraceStart:
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.profMode != ddm.ProfilingOff {
			return fail("method tracing already active")
		}
		s.profMode = ddm.ProfilingTracing
		if m.Type == ddm.SPSS {
			s.profMode = ddm.ProfilingSampling
		}
		return answer{}
	case *ddm.HprofDumpRequest:
		return answer{reply: &ddm.Result{Type: ddm.HPDU, Code: 0}}
	}
	return answer{} // no handler: VULW, VURT, VUOP, VUGL, TEST, …
}

func (s *session) answerEmpty(t ddm.Type) answer {
	vm := s.vm
	switch t {
	case ddm.FEAT:
		names := []string{"hprof-heap-dump-streaming", "hprof-heap-dump", "method-sample-profiling", "method-trace-profiling-streaming", "method-trace-profiling"}
		if vm.opt.NoHprofStreaming {
			names = names[1:]
		}
		if s.current() { // the framework's own, after the VM's
			names = append(names, "view-hierarchy", "support_boot_stages")
		}
		return answer{reply: &ddm.Features{Names: names}}
	case ddm.DBGD:
		return answer{reply: &ddm.Empty{Type: ddm.DBGD}} // the seed's acknowledgement
	case ddm.HPGC:
		return answer{after: vm.GC}
	case ddm.REAQ:
		on, _ := vm.allocRecords()
		return answer{reply: &ddm.AllocTrackingStatus{Enabled: on}}
	case ddm.REAL:
		_, recs := vm.allocRecords()
		return answer{reply: &ddm.AllocRecords{Records: recs}}
	case ddm.MPRQ:
		s.mu.Lock()
		defer s.mu.Unlock()
		return answer{reply: &ddm.ProfilingStatus{Mode: s.profMode}}
	case ddm.MPRE:
		s.mu.Lock()
		s.profMode = ddm.ProfilingOff
		s.mu.Unlock()
		return answer{reply: &ddm.Result{Type: ddm.MPRE, Code: 0}}
	case ddm.MPSE, ddm.SPSE:
		s.mu.Lock()
		was := s.profMode
		s.profMode = ddm.ProfilingOff
		s.mu.Unlock()
		if was == ddm.ProfilingOff {
			return fail("no method tracing active")
		}
		return answer{after: func() {
			s.event(&ddm.Raw{Type: ddm.MPSE, Data: []byte("*version\n3\ndata-file-overflow=false\nclock=dual\n*threads\n1\tmain\n*methods\n*end\n")})
		}}
	case ddm.HPDS:
		if vm.opt.NoHprofStreaming {
			return fail("heap dump streaming is not supported by this VM")
		}
		return answer{after: func() {
			vm.mu.Lock()
			dump := vm.heap.hprofDump(time.Now()) // the simulated heap as a real HPROF file
			vm.mu.Unlock()
			if vm.opt.HprofSize > int64(len(dump)) {
				if err := s.sendHPDS(padDump(dump, vm.opt.HprofSize)); err != nil {
					s.log.Debug().Err(err).Msg("heap dump not sent")
				}
				return
			}
			s.event(&ddm.Raw{Type: ddm.HPDS, Data: dump})
		}}
	case ddm.NHGT:
		return answer{reply: &ddm.NativeHeap{PointerSize: 8, Maps: "7f0000000000-7f0000100000 rw-p 00000000 00:00 0 [anon:libc_malloc]\n",
			TotalMemory: 1 << 20, BacktraceSize: 2, Allocs: []ddm.NativeAlloc{{Size: 4096, Count: 3, Backtrace: []uint64{0x7f0000001000, 0x7f0000002000}}}}}
	}
	return answer{}
}

// threadStatus is the THST table in the profile's layout.
func (s *session) threadStatus() *ddm.ThreadStatus {
	st := &ddm.ThreadStatus{Layout: ddm.LayoutART}
	if s.draft() {
		st.Layout = ddm.LayoutDraft
	}
	s.vm.mu.Lock()
	defer s.vm.mu.Unlock()
	for _, t := range sortedThreads(s.vm.threads) {
		st.Threads = append(st.Threads, ddm.ThreadInfo{ID: t.id, Status: t.status, TID: t.tid, UTime: t.utime, STime: t.stime, Daemon: t.daemon, Suspended: t.suspended})
	}
	if st.Layout == ddm.LayoutDraft {
		for i := range st.Threads {
			st.Threads[i].TID, st.Threads[i].UTime, st.Threads[i].STime, st.Threads[i].Daemon = 0, 0, 0, false
		}
	}
	return st
}

// setPeriodicTHST starts (or with 0 stops) the draft's periodic THST pushes.
func (s *session) setPeriodicTHST(every time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.thstStop != nil {
		close(s.thstStop)
		s.thstStop = nil
	}
	if every <= 0 {
		return
	}
	stop := make(chan struct{})
	s.thstStop = stop
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			s.event(s.threadStatus())
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
}

// threadEvents reports thread changes to a session that enabled them (vm.mu held).
func (s *session) threadEvents(born, died, renamed *thread) {
	s.mu.Lock()
	on := s.threadNotify
	s.mu.Unlock()
	if !on {
		return
	}
	if born != nil {
		s.event(&ddm.ThreadName{ID: born.id, Name: born.name})
	}
	if died != nil {
		s.event(&ddm.ThreadDied{ID: died.id})
	}
	if renamed != nil && !s.draft() { // THNM is not in the 2007 design
		s.event(&ddm.ThreadName{Renamed: true, ID: renamed.id, Name: renamed.name})
	}
}

// afterGC sends what the session enabled: HPIF, then HPST…HPEN, then NHST…NHEN (vm.mu held).
func (s *session) afterGC(h *heap) {
	s.mu.Lock()
	hpif, hpsg, what, nhsg := s.hpifWhen, s.hpsgWhen, s.hpsgWhat, s.nhsgWhen
	if hpif == ddm.WhenNextGC {
		s.hpifWhen = ddm.WhenNever
	}
	s.mu.Unlock()
	if hpif == ddm.WhenNextGC || hpif == ddm.WhenEveryGC {
		s.event(&ddm.HeapInfo{Heaps: []ddm.HeapStats{h.stats(hpif)}})
	}
	if hpsg == 1 {
		s.event(&ddm.HeapDumpStart{HeapID: 1})
		for _, seg := range h.segments(what == 1) {
			s.event(seg)
		}
		s.event(&ddm.HeapDumpEnd{HeapID: 1})
	}
	if nhsg == 1 {
		s.event(&ddm.HeapDumpStart{Native: true, HeapID: 1})
		if s.draft() { // ART sends nothing between NHST and NHEN
			s.event(&ddm.HeapSegment{Type: ddm.NHSG, HeapID: 1, UnitSize: 8, Start: 0x7000000, UnitCount: 48,
				Runs: ddm.AppendRuns(nil, []ddm.Block{{Kind: ddm.KindNative, Solidity: ddm.SolidHard, Units: 32}, {Kind: ddm.KindObject, Solidity: ddm.SolidFree, Units: 16}})})
		}
		s.event(&ddm.HeapDumpEnd{Native: true, HeapID: 1})
	}
}
