package ddm

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// unhex parses hex with arbitrary spaces, newlines and '|' separators.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	s = strings.NewReplacer(" ", "", "\n", "", "\t", "", "|", "").Replace(s)
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex in test: %v", err)
	}
	return b
}

// jdwpHeader is a test-side view of an 11-byte JDWP header.
type jdwpHeader struct {
	length, id uint32
	flags      byte
	set, cmd   byte
	errCode    uint16
}

func splitPacket(t *testing.T, b []byte) (jdwpHeader, []byte) {
	t.Helper()
	if len(b) < 11 {
		t.Fatalf("packet of %d bytes", len(b))
	}
	h := jdwpHeader{length: binary.BigEndian.Uint32(b), id: binary.BigEndian.Uint32(b[4:]), flags: b[8]}
	if h.flags&0x80 != 0 {
		h.errCode = binary.BigEndian.Uint16(b[9:])
	} else {
		h.set, h.cmd = b[9], b[10]
	}
	if int(h.length) != len(b) {
		t.Fatalf("length field %d, packet has %d bytes", h.length, len(b))
	}
	return h, b[11:]
}

// decodeOne parses a payload holding exactly one chunk and decodes it.
func decodeOne(t *testing.T, payload []byte, dir Direction) Message {
	t.Helper()
	cs, err := ParseChunks(payload, ParseOptions{})
	if err != nil {
		t.Fatalf("ParseChunks: %v", err)
	}
	if len(cs) != 1 {
		t.Fatalf("got %d chunks, want 1", len(cs))
	}
	m, err := Decode(cs[0], dir)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if got := EncodeChunks(Encode(m)); !reflect.DeepEqual(got, payload) {
		t.Errorf("re-encoding %T:\n got %x\nwant %x", m, got, payload)
	}
	return m
}

func wantEqual(t *testing.T, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
}

func TestVector1HelloRequest(t *testing.T) {
	h, p := splitPacket(t, unhex(t, "00 00 00 17 40 00 00 00 00 C7 01 48 45 4C 4F 00 00 00 04 00 00 00 01"))
	wantEqual(t, h, jdwpHeader{length: 23, id: 0x40000000, set: CommandSet, cmd: Command})
	wantEqual(t, decodeOne(t, p, ToVM), &HelloRequest{ServerVersion: 1})
}

func TestVector2HelloReply(t *testing.T) {
	h, p := splitPacket(t, unhex(t, `00 00 00 4A 40 00 00 00 80 00 00 48 45 4C 4F 00 00 00 37
		00 00 00 01  00 00 04 D2  00 00 00 02  00 00 00 03
		00 56 00 4D  00 61 00 70 00 70
		00 00 00 0A
		00 00 00 03 00 78 00 38 00 36
		00 00 00 00
		01
		00 00 00 01 00 70
		41 5F 47 4F`))
	wantEqual(t, h, jdwpHeader{length: 0x4A, id: 0x40000000, flags: 0x80})
	wantEqual(t, decodeOne(t, p, FromVM), &Hello{
		ProtocolVersion: 1, PID: 1234, VMIdent: "VM", AppName: "app", Tails: 6,
		UserID: 10, ABI: "x86", JVMFlags: "", NativeDebuggable: true, PackageName: "p", BootStage: StageGo,
	})
	// ddmlib 25.2.2 stops after nativeDebuggable: the same bytes cut there decode with 4 tails.
	cs, _ := ParseChunks(p, ParseOptions{})
	m, err := Decode(Chunk{HELO, cs[0].Data[:45]}, FromVM)
	if err != nil {
		t.Fatal(err)
	}
	if h := m.(*Hello); h.Tails != 4 || !h.NativeDebuggable || h.PackageName != "" {
		t.Errorf("4-tail HELO decoded as %+v", h)
	}
	// And the 2007 draft reply is the first 26 bytes.
	m, err = Decode(Chunk{HELO, cs[0].Data[:26]}, FromVM)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, m, &Hello{ProtocolVersion: 1, PID: 1234, VMIdent: "VM", AppName: "app"})
}

func TestVector3EmptyReply(t *testing.T) {
	h, p := splitPacket(t, unhex(t, "00 00 00 0B 40 00 00 02 80 00 00"))
	wantEqual(t, h, jdwpHeader{length: 11, id: 0x40000002, flags: 0x80})
	cs, err := ParseChunks(p, ParseOptions{})
	if err != nil || len(cs) != 0 {
		t.Fatalf("empty reply: %d chunks, err %v", len(cs), err)
	}
}

func TestVector4ThreadStatusART(t *testing.T) {
	h, p := splitPacket(t, unhex(t, `00 00 00 3B 40 00 00 05 80 00 00 54 48 53 54 00 00 00 28
		04 12 00 02
		00 00 00 01 01 00 00 04 D2 00 00 00 0A 00 00 00 05 00
		00 00 00 02 04 00 00 04 D8 00 00 00 00 00 00 00 01 01`))
	wantEqual(t, h, jdwpHeader{length: 0x3B, id: 0x40000005, flags: 0x80})
	wantEqual(t, decodeOne(t, p, FromVM), &ThreadStatus{Layout: LayoutART, Threads: []ThreadInfo{
		{ID: 1, Status: ThreadRunning, TID: 1234, UTime: 10, STime: 5},
		{ID: 2, Status: ThreadWait, TID: 1240, UTime: 0, STime: 1, Daemon: true},
	}})
}

func TestVector5ThreadStatusDraft(t *testing.T) {
	p := unhex(t, "54 48 53 54 00 00 00 10 | 00 00 00 02 | 00 00 00 01 01 00 | 00 00 00 02 04 01")
	wantEqual(t, decodeOne(t, p, FromVM), &ThreadStatus{Layout: LayoutDraft, Threads: []ThreadInfo{
		{ID: 1, Status: ThreadRunning},
		{ID: 2, Status: ThreadWait, Suspended: true},
	}})
}

func TestVector6ThreadCreated(t *testing.T) {
	h, p := splitPacket(t, unhex(t, "00 00 00 23 80 00 00 01 00 C7 01 54 48 43 52 00 00 00 10 00 00 00 01 00 00 00 04 00 6D 00 61 00 69 00 6E"))
	wantEqual(t, h, jdwpHeader{length: 0x23, id: 0x80000001, set: CommandSet, cmd: Command})
	wantEqual(t, decodeOne(t, p, FromVM), &ThreadName{ID: 1, Name: "main"})
}

func TestVector7And8HeapSegments(t *testing.T) {
	// Vector 7 as printed in §11 has 22 data bytes under a length of 23: one
	// 00 of the offset/unitCount fields is missing. Framing must reject it...
	_, err := ParseChunks(unhex(t, "48 50 53 47 00 00 00 17 00 00 00 01 08 12 C0 00 00 00 00 00 00 00 01 35 99 FF 19 2B 09 08"), ParseOptions{})
	if !errors.Is(err, ErrTruncated) {
		t.Errorf("vector 7 as printed: %v, want ErrTruncated", err)
	}
	// ...and the same chunk as laid out field by field in the §6 worked example decodes as described there.
	m := decodeOne(t, unhex(t, "48 50 53 47 00 00 00 17 | 00 00 00 01 | 08 | 12 C0 00 00 | 00 00 00 00 | 00 00 01 35 | 99 FF 19 2B 09 08"), FromVM)
	seg := m.(*HeapSegment)
	wantEqual(t, seg, &HeapSegment{Type: HPSG, HeapID: 1, UnitSize: 8, Start: 0x12C00000, UnitCount: 309, Runs: []byte{0x99, 0xFF, 0x19, 0x2B, 0x09, 0x08}})
	blocks, err := seg.Blocks()
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, blocks, []Block{{Kind: KindArray2, Solidity: SolidHard, Units: 300}, {Kind: KindClass, Solidity: SolidHard, Units: 9}})

	m = decodeOne(t, unhex(t, "48 50 53 47 00 00 00 15 | 00 00 00 01 | 08 | 12 C0 00 00 | 00 00 00 00 | 00 00 00 06 | 01 03 | 00 01"), FromVM)
	blocks, err = m.(*HeapSegment).Blocks()
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, blocks, []Block{{Kind: KindObject, Solidity: SolidHard, Units: 4}, {Kind: KindObject, Solidity: SolidFree, Units: 2}})
}

func TestVector9Wait(t *testing.T) {
	h, p := splitPacket(t, unhex(t, "00 00 00 14 10 00 00 00 00 C7 01 57 41 49 54 00 00 00 01 00"))
	wantEqual(t, h, jdwpHeader{length: 20, id: 0x10000000, set: CommandSet, cmd: Command})
	wantEqual(t, decodeOne(t, p, FromVM), &Wait{Reason: 0})
}

func TestVector10HeapInfo(t *testing.T) {
	h, p := splitPacket(t, unhex(t, "00 00 00 14 40 00 00 03 00 C7 01 48 50 49 46 00 00 00 01 03"))
	wantEqual(t, h, jdwpHeader{length: 20, id: 0x40000003, set: CommandSet, cmd: Command})
	wantEqual(t, decodeOne(t, p, ToVM), &HeapInfoRequest{When: WhenEveryGC})
	h, p = splitPacket(t, unhex(t, `00 00 00 34 80 00 00 02 00 C7 01 48 50 49 46 00 00 00 21
		00 00 00 01 | 00 00 00 01 | 00 00 01 8B CF E5 68 00 | 03 | 10 00 00 00 | 01 00 00 00 | 00 80 00 00 | 00 01 86 A0`))
	wantEqual(t, h, jdwpHeader{length: 0x34, id: 0x80000002, set: CommandSet, cmd: Command})
	wantEqual(t, decodeOne(t, p, FromVM), &HeapInfo{Heaps: []HeapStats{{
		HeapID: 1, TimestampMs: 1700000000000, Reason: 3, MaxBytes: 256 << 20, SizeBytes: 16 << 20,
		AllocatedBytes: 8 << 20, AllocatedObjects: 100000,
	}}})
}

func TestVector11Fail(t *testing.T) {
	m := decodeOne(t, unhex(t, "46 41 49 4C 00 00 00 0E 00 00 00 01 00 00 00 03 00 62 00 61 00 64"), FromVM)
	wantEqual(t, m, &Fail{Code: 1, Message: "bad"})
	var err error = m.(*Fail).Err(HPIF)
	var fe *FailError
	if !errors.As(err, &fe) || fe.Code != 1 || err.Error() != "ddm: VM rejected HPIF: code 1: bad" {
		t.Errorf("FailError: %v", err)
	}
}

func TestVector12EmptyAllocRecords(t *testing.T) {
	m := decodeOne(t, unhex(t, "52 45 41 4C 00 00 00 0F 0F 09 08 00 00 00 00 00 0F 00 00 00 00 00 00"), FromVM)
	if r := m.(*AllocRecords); len(r.Records) != 0 {
		t.Errorf("records: %+v", r.Records)
	}
}

func TestVector13Stack(t *testing.T) {
	m := decodeOne(t, unhex(t, `53 54 4B 4C 00 00 00 2C 00 00 00 00 00 00 00 01 00 00 00 01
		00 00 00 01 00 41  00 00 00 01 00 6D  00 00 00 06 00 41 00 2E 00 6A 00 61 00 76 00 61  00 00 00 2A`), FromVM)
	wantEqual(t, m, &Stack{ThreadID: 1, Frames: []Frame{{Class: "A", Method: "m", File: "A.java", Line: 42}}})
}

func TestVector14AppName(t *testing.T) {
	m := decodeOne(t, unhex(t, "41 50 4E 4D 00 00 00 14 00 00 00 03 00 61 00 70 00 70 00 00 00 00 00 00 00 01 00 70"), FromVM)
	wantEqual(t, m, &AppName{Name: "app", Tails: 2, UserID: 0, PackageName: "p"})
}

// samples holds one message per (type, direction) layout, used by the round
// trip test, the fuzz seed corpus and the documentation of what exists.
func samples() []struct {
	dir Direction
	m   Message
} {
	type s = struct {
		dir Direction
		m   Message
	}
	return []s{
		{ToVM, &HelloRequest{ServerVersion: 1}},
		{FromVM, &Hello{ProtocolVersion: 1, PID: 4242, VMIdent: "Dalvik v2.1.0", AppName: "com.example"}},
		{FromVM, &Hello{ProtocolVersion: 1, PID: 4242, VMIdent: "Dalvik v2.1.0", AppName: "com.example", Tails: 6,
			UserID: 10, ABI: "64-bit (arm64)", JVMFlags: "CheckJNI=false", NativeDebuggable: true, PackageName: "com.example", BootStage: StageDebug}},
		{ToVM, &Empty{Type: FEAT}},
		{FromVM, &Features{Names: []string{"method-trace-profiling", "hprof-heap-dump-streaming", "view-hierarchy"}}},
		{FromVM, &AppName{Name: "com.example"}},
		{FromVM, &AppName{Name: "com.example", Tails: 2, UserID: 10, PackageName: "com.example"}},
		{FromVM, &Wait{Reason: 0}},
		{FromVM, &BootStage{Stage: StageBind}},
		{ToVM, &Exit{Status: 1}},
		{FromVM, &Raw{Type: TEST, Data: []byte{1, 2, 3}}},
		{ToVM, &Raw{Type: TEST, Data: []byte{4}}},
		{FromVM, &Fail{Code: 1, Message: "Unsupported HPIF what"}},
		{ToVM, &Empty{Type: DBGD}},
		{FromVM, &Empty{Type: DBGD}},
		{ToVM, &ThreadNotify{Enable: true}},
		{FromVM, &ThreadName{ID: 7, Name: "Binder:4242_1 \u00e9\U0001F600"}},
		{FromVM, &ThreadName{Renamed: true, ID: 7, Name: "worker"}},
		{FromVM, &ThreadDied{ID: 7}},
		{ToVM, &ThreadStatusRequest{}},
		{ToVM, &ThreadStatusRequest{Draft: true, IntervalMs: 500}},
		{FromVM, &ThreadStatus{Layout: LayoutART, Threads: []ThreadInfo{{ID: 1, Status: ThreadRunning, TID: 4242, UTime: 3, STime: 4, Daemon: false}, {ID: 2, Status: ThreadTimedWait, TID: 4243, Daemon: true}}}},
		{FromVM, &ThreadStatus{Layout: LayoutDraft, Threads: []ThreadInfo{{ID: 1, Status: ThreadNative, Suspended: true}}}},
		{FromVM, &ThreadStatus{Layout: LayoutDraft}},
		{FromVM, &ThreadStatus{Layout: LayoutART}},
		{ToVM, &StackRequest{ThreadID: 1}},
		{FromVM, &Stack{ThreadID: 1, Frames: []Frame{{"java.lang.Thread", "sleep", "", -2}, {"A", "run", "A.java", 10}}}},
		{ToVM, &HeapInfoRequest{When: WhenNow}},
		{FromVM, &HeapInfo{Heaps: []HeapStats{{HeapID: 1, TimestampMs: 1, Reason: 1, MaxBytes: 0xFFFFFFFF, SizeBytes: 2, AllocatedBytes: 3, AllocatedObjects: 4}}}},
		{ToVM, &Empty{Type: HPGC}},
		{ToVM, &SegmentRequest{When: 1, What: 1}},
		{ToVM, &SegmentRequest{Native: true, When: 0, What: 1}},
		{FromVM, &HeapDumpStart{HeapID: 1}},
		{FromVM, &HeapDumpStart{Native: true, HeapID: 1}},
		{FromVM, &HeapDumpEnd{HeapID: 1}},
		{FromVM, &HeapDumpEnd{Native: true, HeapID: 1}},
		{FromVM, &HeapSegment{Type: HPSG, HeapID: 1, UnitSize: 8, Start: 0x12C00000, UnitCount: 6, Runs: []byte{1, 3, 0, 1}}},
		{FromVM, &HeapSegment{Type: HPSO, HeapID: 1, UnitSize: 8, Start: 0x12C00000, UnitCount: 2, Runs: []byte{0x21, 0, 0x09, 0}}},
		{FromVM, &HeapSegment{Type: NHSG, HeapID: 1, UnitSize: 8, Start: 0x7000, UnitCount: 3, Runs: []byte{0x39, 1, 0, 0}}},
		{ToVM, &Empty{Type: NHGT}},
		{FromVM, &NativeHeap{PointerSize: 8, Maps: "7000-8000 rw-p 00000000 00:00 0 [anon]\n", TotalMemory: 4096, BacktraceSize: 2,
			Allocs: []NativeAlloc{{Size: 64, Count: 2, Backtrace: []uint64{0x7001, 0}}, {Size: 32, Zygote: true, Count: 1, Backtrace: []uint64{0x7002, 0x7003}}}}},
		{FromVM, &NativeHeap{PointerSize: 4, Maps: "", TotalMemory: 10, BacktraceSize: 1, Allocs: []NativeAlloc{{Size: 8, Count: 1, Backtrace: []uint64{0x1234}}}}},
		{FromVM, &NativeHeap{PointerSize: 8, TotalMemory: 77}},
		{ToVM, &HprofDumpRequest{Path: "/sdcard/app.hprof"}},
		{FromVM, &Result{Type: HPDU, Code: 0xFF}},
		{ToVM, &Empty{Type: HPDS}},
		{FromVM, &Raw{Type: HPDS, Data: []byte("JAVA PROFILE 1.0.3\x00")}},
		{ToVM, &AllocTrackingEnable{Enable: true}},
		{ToVM, &Empty{Type: REAQ}},
		{FromVM, &AllocTrackingStatus{Enabled: true}},
		{ToVM, &Empty{Type: REAL}},
		{FromVM, &AllocRecords{Records: []AllocRecord{
			{Size: 24, ThreadID: 1, Class: "Ljava/lang/String;", Frames: []AllocFrame{{"LA;", "run", "A.java", 3}, {"LA;", "main", "A.java", -1}}},
			{Size: 16, ThreadID: 2, Class: "[I"},
		}}},
		{ToVM, &TraceStart{Type: MPRS, BufferSize: 8 << 20, Path: "/sdcard/app.trace"}},
		{ToVM, &Empty{Type: MPRE}},
		{FromVM, &Result{Type: MPRE, Code: 1}},
		{ToVM, &TraceStart{Type: MPSS, BufferSize: 8 << 20, Flags: 1}},
		{ToVM, &Empty{Type: MPSE}},
		{FromVM, &Raw{Type: MPSE, Data: []byte("*version\n3\n")}},
		{ToVM, &TraceStart{Type: SPSS, BufferSize: 8 << 20, IntervalMicros: 1000}},
		{ToVM, &Empty{Type: SPSE}},
		{ToVM, &Empty{Type: MPRQ}},
		{FromVM, &ProfilingStatus{Mode: ProfilingSampling}},
		{ToVM, &ViewListWindows{Flag: 1}},
		{FromVM, &ViewWindows{Names: []string{"a1b2 com.example/.Main"}}},
		{ToVM, &ViewRootOp{Op: ViewRootDumpHierarchy, Root: "a1b2", SkipChildren: 0, IncludeProperties: 1}},
		{ToVM, &ViewRootOp{Op: ViewRootDumpHierarchy, Root: "a1b2", HasV2: true, UseV2: 1}},
		{ToVM, &ViewRootOp{Op: ViewRootCaptureLayers, Root: "a1b2"}},
		{ToVM, &ViewRootOp{Op: 9, Root: "a1b2", Extra: []byte{1}}},
		{FromVM, &Raw{Type: VURT, Data: []byte("DONE.\n")}},
		{ToVM, &ViewOp{Op: ViewCapture, Root: "r", View: "v"}},
		{ToVM, &ViewOp{Op: ViewInvokeMethod, Root: "r", View: "v", Method: "invalidate"}},
		{ToVM, &ViewOp{Op: ViewInvokeMethod, Root: "r", View: "v", Method: "setAlpha", HasArgs: true, Args: []ViewValue{
			{Sig: "F", Bits: 0x3F000000}, {Sig: "Z", Bits: 1}, {Sig: "J", Bits: 1 << 40}, {Sig: "R", Str: "héllo"}, {Sig: "[B", Bytes: []byte{9, 8}}, {Sig: "C", Bits: 'x'}}}},
		{ToVM, &ViewOp{Op: ViewSetLayoutParam, Root: "r", View: "v", Param: "width", Value: -1}},
		{FromVM, &Raw{Type: VUOP, Data: []byte{0, 'V'}}},
		{ToVM, &GLTracing{Enable: 1}},
		{FromVM, &Raw{Type: TypeOf("XYZW"), Data: []byte{42}}},
	}
}

func TestRoundTripEveryChunk(t *testing.T) {
	seen := map[regKey]bool{}
	for _, s := range samples() {
		ch := Encode(s.m)
		got, err := Decode(ch, s.dir)
		if err != nil {
			t.Errorf("%T %s: %v", s.m, ch.Type, err)
			continue
		}
		if !reflect.DeepEqual(got, s.m) {
			t.Errorf("%s %s round trip:\n got %#v\nwant %#v", ch.Type, s.dir, got, s.m)
		}
		seen[regKey{ch.Type, s.dir}] = true
	}
	for k := range registry {
		if !seen[k] {
			t.Errorf("no round-trip sample for %s %s", k.t, k.dir)
		}
	}
}

func TestDecodeRejectsShortData(t *testing.T) {
	// Every strict prefix of every sample either decodes (optional tails) or
	// fails with ErrShort or a layout error; none may panic.
	for _, s := range samples() {
		ch := Encode(s.m)
		for n := range len(ch.Data) {
			if _, err := Decode(Chunk{ch.Type, ch.Data[:n]}, s.dir); err != nil && !strings.Contains(err.Error(), string(ch.Type.String())) {
				t.Errorf("%s prefix %d: error does not name the chunk: %v", ch.Type, n, err)
			}
		}
	}
	_, err := Decode(Chunk{STKL, unhex(t, "00000000 00000001 00000001 0000000A 0041")}, FromVM)
	if !errors.Is(err, ErrShort) {
		t.Errorf("STKL with a 10-unit class name in 2 bytes: %v, want ErrShort", err)
	}
	_, err = Decode(Chunk{THST, unhex(t, "02 12 00 00")}, FromVM)
	if err == nil {
		t.Error("THST with header length 2 accepted")
	}
	_, err = Decode(Chunk{HPIF, unhex(t, "FFFFFFFF 00")}, FromVM)
	if !errors.Is(err, ErrShort) {
		t.Errorf("HPIF claiming 4G heaps: %v, want ErrShort before allocating", err)
	}
}

func TestUnknownChunkIsRaw(t *testing.T) {
	m, err := Decode(Chunk{TypeOf("ABCD"), []byte{1}}, FromVM)
	if err != nil || !reflect.DeepEqual(m, &Raw{TypeOf("ABCD"), []byte{1}}) || Known(TypeOf("ABCD"), FromVM) {
		t.Errorf("unknown chunk: %#v %v", m, err)
	}
	if !Known(HELO, ToVM) || Known(APNM, ToVM) {
		t.Error("Known disagrees with the registry")
	}
	if Type(0x01020304).String() != "0x01020304" || HELO.String() != "HELO" {
		t.Error("Type.String")
	}
}
