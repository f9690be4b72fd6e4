package ddm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/internal/lockedbuf"
	"github.com/rs/zerolog"
)

// jdwpErr mimics jdwp.ErrorCode: an unsigned integer type that is an error.
type jdwpErr uint16

func (e jdwpErr) Error() string { return fmt.Sprintf("JDWP error %d", uint16(e)) }

// fakeTransport answers each request with answer(req); a nil reply with a nil
// error means "never answer" (the request blocks until its context ends).
type fakeTransport struct {
	mu     sync.Mutex
	sent   []Chunk
	answer func(req Chunk) ([]byte, error, bool)
}

func (f *fakeTransport) Command(ctx context.Context, set, cmd byte, data []byte) ([]byte, error) {
	if set != CommandSet || cmd != Command {
		return nil, fmt.Errorf("fake: unexpected command %d/%d", set, cmd)
	}
	cs, err := ParseChunks(data, ParseOptions{})
	if err != nil || len(cs) != 1 {
		return nil, fmt.Errorf("fake: bad request payload: %v", err)
	}
	f.mu.Lock()
	f.sent = append(f.sent, cs[0])
	answer := f.answer
	f.mu.Unlock()
	if answer != nil {
		if rep, err, ok := answer(cs[0]); ok {
			return rep, err
		}
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

func (f *fakeTransport) types() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.sent {
		out = append(out, c.Type.String())
	}
	return out
}

func reply(m Message) ([]byte, error, bool) { return EncodeChunks(Encode(m)), nil, true }

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // generous: load only slows the test
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

type listener struct {
	mu     sync.Mutex
	events []string
}

func (l *listener) Connected(*Client) {
	l.mu.Lock()
	l.events = append(l.events, "connected")
	l.mu.Unlock()
}
func (l *listener) Disconnected(*Client) {
	l.mu.Lock()
	l.events = append(l.events, "disconnected")
	l.mu.Unlock()
}

func TestClientSession(t *testing.T) {
	ft := &fakeTransport{answer: func(req Chunk) ([]byte, error, bool) {
		switch req.Type {
		case HELO:
			return reply(&Hello{ProtocolVersion: 1, PID: 99, VMIdent: "Dalvik v2.1.0", AppName: "<pre-initialized>", Tails: 4, ABI: "64-bit (x86_64)"})
		case FEAT:
			return reply(&Features{Names: []string{"method-trace-profiling-streaming"}})
		case MPRQ:
			return reply(&ProfilingStatus{Mode: ProfilingOff})
		case HPIF, THEN:
			return nil, nil, true // empty reply
		case STKL:
			return reply(&Fail{Code: 1, Message: "unknown thread"})
		}
		return nil, nil, false // never answered (the REAQ below)
	}}
	var logs lockedbuf.Buffer
	c := NewClient(ft, Options{Logger: zerolog.New(&logs), Timeout: 3 * time.Second, ThreadUpdates: true, TraceChunks: true, TraceData: true})
	l := &listener{}
	c.Listen(l)
	changes, cancel := c.Data().Subscribe()
	defer cancel()

	var seenMu sync.Mutex
	var seen []string
	c.Handle(THCR, HandlerFunc(func(c *Client, ty Type, data []byte, isReply bool, msgID uint32) {
		seenMu.Lock()
		seen = append(seen, fmt.Sprintf("%s reply=%v id=%#x len=%d", ty, isReply, msgID, len(data)))
		seenMu.Unlock()
		c.Apply(Chunk{ty, data}) // keep the model up to date too
	}))
	c.Start()
	<-c.Ready()
	waitFor(t, "identity", func() bool { return c.Data().Identity().PID == 99 })
	waitFor(t, "greeting and ready requests", func() bool { return len(ft.types()) >= 4 })
	got := strings.Join(ft.types(), " ")
	for _, want := range []string{"HELO", "FEAT", "MPRQ", "THEN"} {
		if !strings.Contains(got, want) {
			t.Errorf("sent %q, missing %s", got, want)
		}
	}
	if strings.Contains(got, "HPIF") { // without HeapUpdates: ddmlib's HPIF(0) is not sent (current ART has no handler)
		t.Errorf("sent %q: HPIF without heap updates", got)
	}
	waitFor(t, "features", func() bool { id := c.Data().Identity(); return id.HasFeature("method-trace-profiling-streaming") })
	if id := c.Data().Identity(); id.VMIdent != "Dalvik v2.1.0" || id.AppName != "<pre-initialized>" || id.ABI != "64-bit (x86_64)" {
		t.Errorf("identity %+v", id)
	}

	// Unsolicited packets, as the jdwp connection hands them over.
	ev := func(id uint32, m Message) { c.HandlePacket(id, Command, EncodeChunks(Encode(m))) }
	ev(0x80000001, &AppName{Name: "com.example", Tails: 1, UserID: 10})
	ev(0x80000002, &ThreadName{ID: 1, Name: "main"})
	ev(0x80000003, &ThreadName{ID: 2, Name: "worker"})
	ev(0x80000004, &ThreadStatus{Threads: []ThreadInfo{{ID: 1, Status: ThreadRunning, TID: 99, UTime: 5}, {ID: 2, Status: ThreadWait, Daemon: true}}})
	ev(0x80000005, &ThreadName{Renamed: true, ID: 2, Name: "worker-2"})
	ev(0x80000006, &ThreadDied{ID: 3})
	ev(0x80000007, &Wait{})
	ev(0x80000008, &HeapInfo{Heaps: []HeapStats{{HeapID: 1, MaxBytes: 1 << 28, SizeBytes: 1 << 20}}})
	ev(0x80000009, &HeapDumpStart{HeapID: 1})
	ev(0x8000000A, &HeapSegment{Type: HPSG, HeapID: 1, UnitSize: 8, Start: 0x1000, UnitCount: 2, Runs: []byte{0x01, 0x01}})
	ev(0x8000000B, &HeapDumpEnd{HeapID: 1})
	c.HandlePacket(0x8000000C, Command, EncodeChunks(Chunk{TypeOf("ZZZZ"), []byte{1}}))
	c.HandlePacket(0x8000000D, Command, []byte{1, 2, 3}) // malformed: logged, not fatal

	if id := c.Data().Identity(); id.AppName != "com.example" || id.UserID != 10 {
		t.Errorf("after APNM: %+v", id)
	}
	th := c.Data().Threads()
	if len(th) != 2 || th[0].Name != "main" || th[0].Status != ThreadRunning || th[0].TID != 99 || th[1].Name != "worker-2" || !th[1].Daemon {
		t.Errorf("threads %+v", th)
	}
	if c.Data().Debugger() != DebuggerWaiting {
		t.Error("WAIT not applied")
	}
	if hi := c.Data().HeapInfo()[1]; hi.MaxBytes != 1<<28 {
		t.Errorf("heap info %+v", hi)
	}
	if hm := c.Data().HeapMap(1, false); hm == nil || hm.Totals().Bytes != 16 {
		t.Errorf("heap map %+v", hm)
	}
	seenMu.Lock()
	wantEqual(t, seen, []string{"THCR reply=false id=0x80000002 len=16", "THCR reply=false id=0x80000003 len=20"})
	seenMu.Unlock()
	all := Change(0)
	for all&(ChangeIdentity|ChangeThreads|ChangeHeapMap|ChangeHeapInfo|ChangeDebugger) != ChangeIdentity|ChangeThreads|ChangeHeapMap|ChangeHeapInfo|ChangeDebugger {
		select {
		case ch := <-changes:
			all |= ch
		case <-time.After(5 * time.Second):
			t.Fatalf("changes so far %b", all)
		}
	}

	// FAIL becomes *FailError; the request is matched by type.
	_, err := c.Request(context.Background(), &StackRequest{ThreadID: 7})
	var fe *FailError
	if !errors.As(err, &fe) || fe.Request != STKL || fe.Message != "unknown thread" {
		t.Errorf("STKL: %v", err)
	}
	// Empty reply: no message, no error.
	if m, err := c.Request(context.Background(), &HeapInfoRequest{When: WhenNow}); m != nil || err != nil {
		t.Errorf("empty reply: %v %v", m, err)
	}
	// No reply at all: times out and the id is forgotten.
	if _, err := c.Request(context.Background(), &Empty{Type: REAQ}); !errors.Is(err, ErrTimeout) {
		t.Errorf("no reply: %v", err)
	}
	if c.Pending() != 0 {
		t.Errorf("pending %d after timeout", c.Pending())
	}
	// Pending requests fail with ErrClosed on Close, and listeners hear about it.
	r := c.Send(&Empty{Type: REAQ}, nil)
	c.Close()
	if rep, _ := r.Wait(context.Background()); !errors.Is(rep.Err, ErrClosed) {
		t.Errorf("after Close: %v", rep.Err)
	}
	if _, err := c.Request(context.Background(), &Empty{Type: HPGC}); !errors.Is(err, ErrClosed) {
		t.Errorf("send after Close: %v", err)
	}
	l.mu.Lock()
	wantEqual(t, l.events, []string{"connected", "disconnected"})
	l.mu.Unlock()
	for _, want := range []string{"unknown DDM chunk type", "ZZZZ", "malformed DDM packet", `"kind":"ddm.chunk"`, `"kind":"ddm.data"`, `"component":"ddm"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q", want)
		}
	}
}

func TestClientNonDDMVM(t *testing.T) {
	// HotSpot answers every 0xC7 packet with JDWP error 99.
	ft := &fakeTransport{answer: func(Chunk) ([]byte, error, bool) { return nil, jdwpErr(99), true }}
	c := NewClient(ft, Options{Logger: zerolog.Nop()})
	defer c.Close()
	_, err := c.Request(context.Background(), &HelloRequest{ServerVersion: 1})
	if !errors.Is(err, ErrNotDDM) || !strings.Contains(err.Error(), "99") {
		t.Fatalf("HELO: %v", err)
	}
	select {
	case <-c.Ready():
	default:
		t.Error("an error reply is still a DDM packet: the client should be ready")
	}
	if _, err := c.Request(context.Background(), &Empty{Type: FEAT}); !errors.Is(err, ErrNotDDM) {
		t.Errorf("FEAT after rejected HELO: %v", err)
	}
}

func TestSubscribeCoalesces(t *testing.T) {
	d := NewClientData()
	ch, cancel := d.Subscribe()
	d.Apply(&ThreadName{ID: 1, Name: "a"})
	d.Apply(&Wait{})
	d.Apply(&HeapInfo{})
	if got := <-ch; got != ChangeThreads|ChangeDebugger|ChangeHeapInfo {
		t.Errorf("coalesced %b", got)
	}
	cancel()
	cancel()
	if _, ok := <-ch; ok {
		t.Error("channel open after cancel")
	}
	d.Apply(&Wait{}) // no subscriber: must not block
}

func TestClientDataConcurrentReaders(t *testing.T) {
	d := NewClientData()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := range 200 {
				d.Apply(&ThreadName{ID: uint32(i*1000 + j), Name: "t"})
				d.Apply(&ThreadStatus{Threads: []ThreadInfo{{ID: uint32(i*1000 + j), Status: ThreadRunning}}})
			}
		}()
		go func() {
			defer wg.Done()
			for range 200 {
				_ = d.Threads()
				_ = d.Identity()
			}
		}()
	}
	wg.Wait()
	if n := len(d.Threads()); n != 800 {
		t.Errorf("%d threads", n)
	}
}
