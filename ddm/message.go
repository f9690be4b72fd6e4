package ddm

import (
	"fmt"
)

// Message is a decoded chunk. Each layout in the reference is one small struct
// whose walk method describes its fields once, for encoding and decoding.
type Message interface {
	ChunkType() Type
	walk(c *coder)
}

// Direction says which side sent a chunk; several types have a request layout
// (server to VM) and a different reply or event layout (VM to server).
type Direction uint8

const (
	ToVM   Direction = iota // server request
	FromVM                  // VM reply or unsolicited chunk
)

func (d Direction) String() string {
	if d == ToVM {
		return "server→VM"
	}
	return "VM→server"
}

// Encode returns m as a chunk.
func Encode(m Message) Chunk {
	c := newEncoder()
	m.walk(c)
	return Chunk{Type: m.ChunkType(), Data: c.b}
}

// Decode decodes a chunk sent in direction dir. Types without a layout in that
// direction (unknown types included) come back as *[Raw] with a nil error; use
// [Known] to tell them apart. Trailing bytes after the last known field are
// ignored, as ddmlib and the VMs do, so newer peers can extend layouts.
func Decode(ch Chunk, dir Direction) (Message, error) {
	f, ok := registry[regKey{ch.Type, dir}]
	if !ok {
		return &Raw{Type: ch.Type, Data: ch.Data}, nil
	}
	m := f(ch.Type)
	c := newDecoder(ch.Data)
	m.walk(c)
	if c.err != nil {
		return nil, fmt.Errorf("ddm: decoding %s (%s, %d bytes): %w", ch.Type, dir, len(ch.Data), c.err)
	}
	return m, nil
}

// Known reports whether chunk type t has a typed layout in direction dir.
func Known(t Type, dir Direction) bool {
	_, ok := registry[regKey{t, dir}]
	return ok
}

type regKey struct {
	t   Type
	dir Direction
}

// mk constructs a message type that does not need its chunk type.
func mk[T any, P interface {
	*T
	Message
}](Type) Message {
	return P(new(T))
}

func empty(t Type) Message { return &Empty{Type: t} }
func raw(t Type) Message   { return &Raw{Type: t} }
func segment(t Type) Message {
	return &HeapSegment{Type: t}
}
func segmentRequest(t Type) Message    { return &SegmentRequest{Native: t == NHSG} }
func heapDumpStart(t Type) Message     { return &HeapDumpStart{Native: t == NHST} }
func heapDumpEnd(t Type) Message       { return &HeapDumpEnd{Native: t == NHEN} }
func threadNameEvent(t Type) Message   { return &ThreadName{Renamed: t == THNM} }
func traceStartRequest(t Type) Message { return &TraceStart{Type: t} }
func result(t Type) Message            { return &Result{Type: t} }

// registry maps each (type, direction) to the struct that decodes it.
var registry = map[regKey]func(Type) Message{
	{HELO, ToVM}: mk[HelloRequest], {HELO, FromVM}: mk[Hello],
	{FEAT, ToVM}: empty, {FEAT, FromVM}: mk[Features],
	{APNM, FromVM}: mk[AppName],
	{WAIT, FromVM}: mk[Wait],
	{STAG, FromVM}: mk[BootStage],
	{EXIT, ToVM}:   mk[Exit],
	{TEST, FromVM}: raw, {TEST, ToVM}: raw,
	{FAIL, FromVM}: mk[Fail],
	{DBGD, ToVM}:   empty, {DBGD, FromVM}: empty,
	{THEN, ToVM}:   mk[ThreadNotify],
	{THCR, FromVM}: threadNameEvent, {THNM, FromVM}: threadNameEvent,
	{THDE, FromVM}: mk[ThreadDied],
	{THST, ToVM}:   mk[ThreadStatusRequest], {THST, FromVM}: mk[ThreadStatus],
	{STKL, ToVM}: mk[StackRequest], {STKL, FromVM}: mk[Stack],
	{HPIF, ToVM}: mk[HeapInfoRequest], {HPIF, FromVM}: mk[HeapInfo],
	{HPGC, ToVM}: empty,
	{HPSG, ToVM}: segmentRequest, {NHSG, ToVM}: segmentRequest,
	{HPSG, FromVM}: segment, {HPSO, FromVM}: segment, {NHSG, FromVM}: segment,
	{HPST, FromVM}: heapDumpStart, {NHST, FromVM}: heapDumpStart,
	{HPEN, FromVM}: heapDumpEnd, {NHEN, FromVM}: heapDumpEnd,
	{NHGT, ToVM}: empty, {NHGT, FromVM}: mk[NativeHeap],
	{HPDU, ToVM}: mk[HprofDumpRequest], {HPDU, FromVM}: result,
	{HPDS, ToVM}: empty, {HPDS, FromVM}: raw,
	{REAE, ToVM}: mk[AllocTrackingEnable],
	{REAQ, ToVM}: empty, {REAQ, FromVM}: mk[AllocTrackingStatus],
	{REAL, ToVM}: empty, {REAL, FromVM}: mk[AllocRecords],
	{MPRS, ToVM}: traceStartRequest, {MPSS, ToVM}: traceStartRequest, {SPSS, ToVM}: traceStartRequest,
	{MPRE, ToVM}: empty, {MPRE, FromVM}: result,
	{MPSE, ToVM}: empty, {MPSE, FromVM}: raw,
	{SPSE, ToVM}: empty,
	{MPRQ, ToVM}: empty, {MPRQ, FromVM}: mk[ProfilingStatus],
	{VULW, ToVM}: mk[ViewListWindows], {VULW, FromVM}: mk[ViewWindows],
	{VURT, ToVM}: mk[ViewRootOp], {VURT, FromVM}: raw,
	{VUOP, ToVM}: mk[ViewOp], {VUOP, FromVM}: raw,
	{VUGL, ToVM}: mk[GLTracing],
}

// Raw is a chunk kept as bytes: opaque payloads (TEST, HPDS hprof data, MPSE
// trace data, VURT/VUOP output) and types without a layout in that direction.
type Raw struct {
	Type Type
	Data []byte
}

// Empty is a chunk without data: FEAT, HPGC, HPDS, NHGT, REAQ, REAL, MPRE,
// MPSE, SPSE and MPRQ requests, and DBGD both ways.
type Empty struct{ Type Type }

// HelloRequest (HELO, server→VM).
type HelloRequest struct{ ServerVersion uint32 }

// Hello is the HELO reply. Fields after AppName were appended over Android's
// history; Tails counts how many of them are present (0 = 2007 draft layout,
// 4 = what ddmlib 25.2.2 parses, 6 = API 34+).
type Hello struct {
	ProtocolVersion  uint32
	PID              uint32
	VMIdent          string // "<java.vm.name> v<java.vm.version>", e.g. "Dalvik v2.1.0"
	AppName          string
	Tails            int
	UserID           uint32 // tail 1
	ABI              string // tail 2, e.g. "64-bit (arm64)"
	JVMFlags         string // tail 3
	NativeDebuggable bool   // tail 4
	PackageName      string // tail 5
	BootStage        Type   // tail 6: a STAG stage
}

// Features is the FEAT reply: VM and framework feature strings.
type Features struct{ Names []string }

// Has reports whether the VM advertised feature name.
func (f *Features) Has(name string) bool {
	for _, n := range f.Names {
		if n == name {
			return true
		}
	}
	return false
}

// AppName (APNM): the process got its real name. Tails: 0 name only (draft),
// 1 + user id, 2 + package name.
type AppName struct {
	Name        string
	Tails       int
	UserID      uint32
	PackageName string
}

// Wait (WAIT): reason 0 = waiting for a debugger.
type Wait struct{ Reason uint8 }

// Boot stages reported by STAG and HELO tail 6, in order.
var (
	StageBoot  = TypeOf("BOOT")
	StageAttch = TypeOf("ATCH")
	StageBind  = TypeOf("BIND")
	StageNamed = TypeOf("NAMD")
	StageDebug = TypeOf("DEBG")
	StageGo    = TypeOf("A_GO")
)

// BootStage (STAG, API 34+).
type BootStage struct{ Stage Type }

// Exit (EXIT): the VM halts with Status; no reply is expected.
type Exit struct{ Status uint32 }

// Fail is the FAIL reply chunk; [Fail.Err] turns it into a *FailError.
type Fail struct {
	Code    uint32
	Message string
}

// Err returns f as an error attributed to request req.
func (f *Fail) Err(req Type) *FailError {
	return &FailError{Request: req, Code: f.Code, Message: f.Message}
}

// ThreadNotify (THEN): thread creation/death notifications on or off.
type ThreadNotify struct{ Enable bool }

// ThreadName is THCR (thread created) or, with Renamed, THNM.
type ThreadName struct {
	Renamed bool
	ID      uint32
	Name    string
}

// ThreadDied (THDE).
type ThreadDied struct{ ID uint32 }

// ThreadStatusRequest (THST, server→VM): empty on real VMs; the 2007 draft
// carries an update interval in milliseconds (0 = stop periodic updates).
type ThreadStatusRequest struct {
	Draft      bool
	IntervalMs uint32
}

// ThreadLayout is the THST reply layout.
type ThreadLayout uint8

const (
	LayoutART   ThreadLayout = iota // u1 headerLen, u1 entrySize, u2 count, 18-byte entries (Dalvik and ART)
	LayoutDraft                     // u4 count, {u4 id, u1 state, u1 suspended} (2007 draft)
)

func (l ThreadLayout) String() string {
	if l == LayoutDraft {
		return "draft"
	}
	return "art"
}

// ThreadState is a THST status value (Dalvik numbering; ART sends only 0–4).
type ThreadState uint8

const (
	ThreadZombie ThreadState = iota
	ThreadRunning
	ThreadTimedWait
	ThreadMonitor
	ThreadWait
	ThreadInitializing
	ThreadStarting
	ThreadNative
	ThreadVMWait
	ThreadSuspended
)

var threadStateNames = [...]string{"zombie", "running", "timed-wait", "monitor", "wait", "initializing", "starting", "native", "vmwait", "suspended"}

func (s ThreadState) String() string {
	if int(s) < len(threadStateNames) {
		return threadStateNames[s]
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// ThreadStatus is the THST reply. Decoding detects the layout: a first byte of
// 0 can only be the high byte of the draft's u4 count, since the real header
// length is at least 4.
type ThreadStatus struct {
	Layout  ThreadLayout
	Threads []ThreadInfo
}

// ThreadInfo is one THST entry. Draft entries carry only ID, Status and
// Suspended; real entries carry everything but Suspended.
type ThreadInfo struct {
	ID           uint32
	Status       ThreadState
	TID          uint32 // Linux thread id
	UTime, STime uint32 // CPU clock ticks
	Daemon       bool
	Suspended    bool
}

// StackRequest (STKL, server→VM).
type StackRequest struct{ ThreadID uint32 }

// Stack is the STKL reply.
type Stack struct {
	ThreadID uint32
	Frames   []Frame
}

// Frame is one stack frame; Line follows StackTraceElement (-2 native, -1 unknown).
type Frame struct {
	Class, Method, File string
	Line                int32
}

// HPIF 'when' values.
const (
	WhenNever   uint8 = 0
	WhenNow     uint8 = 1
	WhenNextGC  uint8 = 2
	WhenEveryGC uint8 = 3
)

// HeapInfoRequest (HPIF, server→VM).
type HeapInfoRequest struct{ When uint8 }

// HeapInfo is the HPIF data (always an unsolicited packet on real VMs).
type HeapInfo struct{ Heaps []HeapStats }

// HeapStats is one heap in HPIF. Sizes are unsigned.
type HeapStats struct {
	HeapID           uint32
	TimestampMs      uint64 // ms since the Unix epoch
	Reason           uint8  // the 'when' that triggered it
	MaxBytes         uint32
	SizeBytes        uint32
	AllocatedBytes   uint32
	AllocatedObjects uint32
}

// SegmentRequest is HPSG or (Native) NHSG from the server: When 0 off, 1 after
// every GC; What 0 merged runs (HPSG data), 1 per object (HPSO data).
type SegmentRequest struct {
	Native     bool
	When, What uint8
}

// HeapDumpStart is HPST or (Native) NHST.
type HeapDumpStart struct {
	Native bool
	HeapID uint32
}

// HeapDumpEnd is HPEN or (Native) NHEN.
type HeapDumpEnd struct {
	Native bool
	HeapID uint32
}

// HeapSegment is HPSG, HPSO or NHSG data: one piece of a heap map. Runs holds
// the raw (state, length−1) pairs; [HeapSegment.Blocks] decodes them.
type HeapSegment struct {
	Type      Type // HPSG, HPSO or NHSG
	HeapID    uint32
	UnitSize  uint8
	Start     uint32
	Offset    uint32
	UnitCount uint32
	Runs      []byte
}

// HprofDumpRequest (HPDU): write an hprof file to Path on the device.
type HprofDumpRequest struct{ Path string }

// Result is the one-byte status reply of HPDU (0 ok, 0xFF failed) and MPRE (0 ok, 1 failed).
type Result struct {
	Type Type
	Code uint8
}

// AllocTrackingEnable (REAE).
type AllocTrackingEnable struct{ Enable bool }

// AllocTrackingStatus is the REAQ reply.
type AllocTrackingStatus struct{ Enabled bool }

// TraceStart is MPRS (to a device file), MPSS (streamed) or SPSS (sampling).
// Path is used by MPRS only, IntervalMicros by SPSS only.
type TraceStart struct {
	Type           Type
	BufferSize     uint32
	Flags          uint32
	Path           string
	IntervalMicros uint32
}

// Profiling modes reported by MPRQ.
const (
	ProfilingOff      uint8 = 0
	ProfilingTracing  uint8 = 1
	ProfilingSampling uint8 = 2
)

// ProfilingStatus is the MPRQ reply.
type ProfilingStatus struct{ Mode uint8 }

// ViewListWindows (VULW request); ddmlib sends Flag 1, which the VM ignores.
type ViewListWindows struct{ Flag uint32 }

// ViewWindows is the VULW reply: window-root names.
type ViewWindows struct{ Names []string }

// View root operations (VURT).
const (
	ViewRootDumpHierarchy uint32 = 1
	ViewRootCaptureLayers uint32 = 2
	ViewRootDumpTheme     uint32 = 3
)

// ViewRootOp (VURT request). The flags are used by op 1 only; UseV2 is sent
// when HasV2. Ops other than 1–3 keep their argument bytes in Extra.
type ViewRootOp struct {
	Op                uint32
	Root              string
	SkipChildren      uint32
	IncludeProperties uint32
	HasV2             bool
	UseV2             uint32
	Extra             []byte
}

// View operations (VUOP).
const (
	ViewCapture         uint32 = 1
	ViewDumpDisplayList uint32 = 2
	ViewProfile         uint32 = 3
	ViewInvokeMethod    uint32 = 4
	ViewSetLayoutParam  uint32 = 5
)

// ViewOp (VUOP request). Method and Args are used by op 4 (Args only when
// HasArgs), Param and Value by op 5; other unknown ops keep their bytes in Extra.
type ViewOp struct {
	Op      uint32
	Root    string
	View    string
	Method  string
	HasArgs bool
	Args    []ViewValue
	Param   string
	Value   int32
	Extra   []byte
}

// ViewValue is a typed argument of VUOP invoke-method. Sig is the type
// character: Z B C S I J F D (value in Bits; F and D as IEEE bits), R (Str,
// UTF-8 on the wire) or "[B" (Bytes).
type ViewValue struct {
	Sig   string
	Bits  uint64
	Str   string
	Bytes []byte
}

// GLTracing (VUGL): 1 start, 0 stop OpenGL tracing.
type GLTracing struct{ Enable uint32 }

func (m *Raw) ChunkType() Type                 { return m.Type }
func (m *Empty) ChunkType() Type               { return m.Type }
func (m *HelloRequest) ChunkType() Type        { return HELO }
func (m *Hello) ChunkType() Type               { return HELO }
func (m *Features) ChunkType() Type            { return FEAT }
func (m *AppName) ChunkType() Type             { return APNM }
func (m *Wait) ChunkType() Type                { return WAIT }
func (m *BootStage) ChunkType() Type           { return STAG }
func (m *Exit) ChunkType() Type                { return EXIT }
func (m *Fail) ChunkType() Type                { return FAIL }
func (m *ThreadNotify) ChunkType() Type        { return THEN }
func (m *ThreadDied) ChunkType() Type          { return THDE }
func (m *ThreadStatusRequest) ChunkType() Type { return THST }
func (m *ThreadStatus) ChunkType() Type        { return THST }
func (m *StackRequest) ChunkType() Type        { return STKL }
func (m *Stack) ChunkType() Type               { return STKL }
func (m *HeapInfoRequest) ChunkType() Type     { return HPIF }
func (m *HeapInfo) ChunkType() Type            { return HPIF }
func (m *HeapSegment) ChunkType() Type         { return m.Type }
func (m *HprofDumpRequest) ChunkType() Type    { return HPDU }
func (m *Result) ChunkType() Type              { return m.Type }
func (m *AllocTrackingEnable) ChunkType() Type { return REAE }
func (m *AllocTrackingStatus) ChunkType() Type { return REAQ }
func (m *AllocRecords) ChunkType() Type        { return REAL }
func (m *TraceStart) ChunkType() Type          { return m.Type }
func (m *ProfilingStatus) ChunkType() Type     { return MPRQ }
func (m *NativeHeap) ChunkType() Type          { return NHGT }
func (m *ViewListWindows) ChunkType() Type     { return VULW }
func (m *ViewWindows) ChunkType() Type         { return VULW }
func (m *ViewRootOp) ChunkType() Type          { return VURT }
func (m *ViewOp) ChunkType() Type              { return VUOP }
func (m *GLTracing) ChunkType() Type           { return VUGL }

func (m *ThreadName) ChunkType() Type {
	if m.Renamed {
		return THNM
	}
	return THCR
}

func (m *SegmentRequest) ChunkType() Type { return pick(m.Native, NHSG, HPSG) }
func (m *HeapDumpStart) ChunkType() Type  { return pick(m.Native, NHST, HPST) }
func (m *HeapDumpEnd) ChunkType() Type    { return pick(m.Native, NHEN, HPEN) }

func pick(native bool, n, j Type) Type {
	if native {
		return n
	}
	return j
}
