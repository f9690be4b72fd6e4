package mirror_test

import (
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/linkproxy"
)

// TestStaleFrameReaders: a frame read before a method ran in its thread
// (its id now refused by the VM: INVALID_FRAMEID) serves every reader of a
// frame's values as it is — each makes it live with one Frames command,
// and a live frame costs none.
func TestStaleFrameReaders(t *testing.T) {
	var proxy *linkproxy.Proxy
	ctx, m, thread, _ := stopInProbeVia(t, func(addr string) string {
		p, err := linkproxy.Start(addr, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		proxy = p
		return p.Addr()
	})
	// commands returns how many of each command the readers since mark sent.
	commands := func() map[jdwp.Cmd]int {
		n := map[jdwp.Cmd]int{}
		for _, s := range proxy.Trace() {
			n[s.Cmd]++
		}
		return n
	}

	frames, err := m.Frames(ctx, thread, 0, 1)
	if err != nil || len(frames) != 1 {
		t.Fatalf("Frames = %v, %v", frames, err)
	}
	top := frames[0]
	vars, vals, _, err := m.Locals(ctx, top)
	if err != nil || len(vars) != 2 || vars[0].Name != "sq" || vars[1].Name != "n" {
		t.Fatalf("Locals(top) = %v, %v", vars, err)
	}
	sq := vals[0].Object()

	// A method runs in the thread (the debugger layer's road would; the
	// mirror is told).
	area, err := m.InstanceMethod(ctx, sq, "area", "()D")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := m.Conn().InvokeMethod(ctx, sq, thread, area.Type, area.ID, nil, jdwp.InvokeSingleThreaded); err != nil || res.Value != jdwp.DoubleValue(9) {
		t.Fatalf("area() = %+v, %v; want 9.0", res, err)
	}
	m.ThreadRan(thread)
	slots := []jdwp.SlotRequest{{Slot: vars[1].Slot, Tag: jdwp.TagInt}}
	if _, err := m.Conn().FrameValues(ctx, thread, top.ID, slots); jdwp.Code(err) != jdwp.ErrInvalidFrameID {
		t.Fatalf("the VM read the frame read before the invocation (%v): the test would show nothing", err)
	}

	proxy.Mark()
	got, err := m.ReadLocals(ctx, top, vars)
	if err != nil || len(got) != 2 || got[0] != vals[0] || got[1] != vals[1] {
		t.Errorf("ReadLocals(stale top) = %v, %v; want %v", got, err, vals)
	}
	if n := commands(); n[jdwp.CmdThreadFrames] != 1 || n[jdwp.CmdStackFrameGetValues] != 1 || len(proxy.Trace()) != 2 {
		t.Errorf("ReadLocals(stale top) sent %v; want one Frames and one GetValues", proxy.Trace())
	}

	proxy.Mark()
	if this, err := m.This(ctx, top); err != nil || this.ID != 0 {
		t.Errorf("This(stale top) = %v, %v; want none (probe is static)", this, err)
	}
	if n := commands(); n[jdwp.CmdThreadFrames] != 1 {
		t.Errorf("This(stale top) sent %v; want one Frames first", proxy.Trace())
	}

	if err := m.SetLocal(ctx, top, vars[1], jdwp.IntValue(41)); err != nil {
		t.Errorf("SetLocal(stale top, n) = %v", err)
	}
	if v, err := m.LocalValue(ctx, top, vars[1]); err != nil || v != jdwp.IntValue(41) {
		t.Errorf("n read through the stale frame after SetLocal = %v, %v; want 41", v, err)
	}

	live, err := m.Live(ctx, top)
	if err != nil {
		t.Fatal(err)
	}
	proxy.Mark()
	if _, _, _, err := m.Locals(ctx, live); err != nil {
		t.Errorf("Locals(live top) = %v", err)
	}
	if n := commands(); n[jdwp.CmdThreadFrames] != 0 {
		t.Errorf("Locals(live top) sent %v; want no Frames", proxy.Trace())
	}
}
