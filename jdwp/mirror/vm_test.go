package mirror_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// deadline bounds every wait on the VM; nothing here is timed.
const deadline = 90 * time.Second

const targetSrc = `
public class MirrorTarget {
    interface Shape { double area(); int SIDES = 4; }
    static class Base { protected int baseField = 1; static String greeting = "hi"; }
    static class Square extends Base implements Shape, Comparable<Square> {
        int side = 3;
        Integer boxed = 42;
        public double area() { return side * side; }
        public int compareTo(Square o) { return side - o.side; }
        public String toString() { return "Square(" + side + ")"; }
    }
    static volatile boolean go;
    static int waitForGo() throws InterruptedException {
        while (!go) Thread.sleep(10);
        return 7;
    }
    static void probe(Square sq, int n) { int local = n * 2; String s = "x" + local; }
    public static void main(String[] a) throws Exception {
        System.out.println("READY");
        Square sq = new Square();
        for (int i = 0; ; i++) { probe(sq, i); Thread.sleep(20); }
    }
}
`

// stopInProbe starts MirrorTarget and stops its main thread at the start of
// probe with a breakpoint (a thread stopped by an event can run methods).
func stopInProbe(t *testing.T) (context.Context, *mirror.VM, jdwp.ThreadID, jdwp.ReferenceTypeID) {
	t.Helper()
	return stopInProbeVia(t, nil)
}

// stopInProbeVia is stopInProbe with the connection made to via(the VM's
// address) (a link proxy counting commands), or to the VM when via is nil.
func stopInProbeVia(t *testing.T, via func(addr string) string) (context.Context, *mirror.VM, jdwp.ThreadID, jdwp.ReferenceTypeID) {
	t.Helper()
	jvmtest.RequireJava(t)
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	t.Cleanup(cancel)
	dir, err := jvmtest.CompileFiles(ctx, map[string][]byte{"MirrorTarget.java": []byte(targetSrc)})
	if err != nil {
		t.Fatal(err)
	}
	vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: []string{dir}, MainClass: "MirrorTarget", ReadyLine: "READY"})
	addr := vm.Addr
	if via != nil {
		addr = via(addr)
	}
	conn, err := jdwp.Dial(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	m := mirror.New(conn, mirror.Config{Context: ctx})
	sub := conn.Subscribe()
	t.Cleanup(sub.Close)
	main, err := m.ClassBySignature(ctx, "LMirrorTarget;")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := m.Methods(ctx, main)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ms, func(mi jdwp.MethodInfo) bool { return mi.Name == "probe" })
	if i < 0 {
		t.Fatal("no method probe")
	}
	lt, err := m.LineTable(ctx, main, ms[i].ID)
	if err != nil || lt.Absent {
		t.Fatalf("line table of probe: %v (absent %v)", err, lt.Absent)
	}
	loc := jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: main, Method: ms[i].ID, Index: lt.Start}
	if _, err := conn.SetRequest(ctx, jdwp.EventBreakpoint, jdwp.SuspendEventThread, jdwp.LocationOnly(loc), jdwp.Count(1)); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case es, ok := <-sub.C:
			if !ok {
				t.Fatal("connection ended before the breakpoint")
			}
			for _, e := range es.Events {
				if e.Kind == jdwp.EventBreakpoint {
					return ctx, m, e.Thread, main
				}
			}
		case <-ctx.Done():
			t.Fatal("no breakpoint in probe before the deadline")
		}
	}
}

func TestMirrorOverHotSpot(t *testing.T) {
	ctx, m, thread, main := stopInProbe(t)

	frames, err := m.Frames(ctx, thread, 0, 2)
	if err != nil || len(frames) != 2 {
		t.Fatalf("Frames = %v, %v", frames, err)
	}
	top := frames[0]
	if mi, err := m.Method(ctx, top.Loc.Class, top.Loc.Method); err != nil || mi.Name != "probe" || top.Depth != 0 || frames[1].Depth != 1 {
		t.Fatalf("top frame runs %q (%v), depths %d %d", mi.Name, err, top.Depth, frames[1].Depth)
	}
	vars, vals, absent, err := m.Locals(ctx, top)
	if err != nil || absent {
		t.Fatalf("Locals: %v (absent %v)", err, absent)
	}
	var names []string
	for _, v := range vars {
		names = append(names, v.Name)
	}
	if !slices.Equal(names, []string{"sq", "n"}) { // local and s are not live yet
		t.Fatalf("visible locals at the start of probe = %v, want [sq n]", names)
	}
	sq := vals[0].Object()
	square, sig, err := m.ObjectType(ctx, sq)
	if err != nil || sig != "LMirrorTarget$Square;" {
		t.Fatalf("ObjectType(sq) = %q, %v", sig, err)
	}

	t.Run("Values", func(t *testing.T) {
		boxed, ok, err := m.Member(ctx, sq, "boxed")
		if err != nil || !ok {
			t.Fatalf("Member(boxed) = %v, %v", ok, err)
		}
		if v, ok, err := m.Member(ctx, boxed.Object(), "value"); err != nil || !ok || v != jdwp.IntValue(42) {
			t.Errorf("Integer.value = %v, %v, %v; want 42", v, ok, err)
		}
		if v, ok, err := m.Field(ctx, sq, "baseField"); err != nil || !ok || v != jdwp.IntValue(1) {
			t.Errorf("inherited baseField = %v, %v, %v; want 1", v, ok, err)
		}
		if _, ok, err := m.Field(ctx, sq, "greeting"); err != nil || ok {
			t.Errorf("Field finds the static greeting (%v, %v); only Member reads statics", ok, err)
		}
		if v, ok, err := m.Member(ctx, sq, "greeting"); err != nil || !ok {
			t.Errorf("Member(greeting) = %v, %v", ok, err)
		} else if s, err := m.String(ctx, v.Object()); err != nil || s != "hi" {
			t.Errorf("greeting = %q, %v; want hi", s, err)
		}
		fs, err := m.Fields(ctx, sq)
		if err != nil {
			t.Fatal(err)
		}
		var fnames []string
		for _, f := range fs {
			fnames = append(fnames, f.Name)
		}
		if !slices.Equal(fnames, []string{"side", "boxed", "baseField"}) {
			t.Errorf("Fields = %v, want [side boxed baseField] (subclass first, no statics)", fnames)
		}
		if v, ok, err := m.StaticField(ctx, square, "SIDES"); err != nil || !ok || v != jdwp.IntValue(4) {
			t.Errorf("interface constant SIDES = %v, %v, %v; want 4", v, ok, err)
		}
		if _, ok, err := m.StaticField(ctx, square, "nothing"); err != nil || ok {
			t.Errorf("StaticField(nothing) = %v, %v; want not found", ok, err)
		}
	})

	t.Run("Types", func(t *testing.T) {
		for _, c := range []struct {
			sub, sup string
			want     bool
		}{
			{"LMirrorTarget$Square;", "LMirrorTarget$Shape;", true},
			{"LMirrorTarget$Square;", "LMirrorTarget$Base;", true},
			{"LMirrorTarget$Square;", "Ljava/lang/Comparable;", true},
			{"LMirrorTarget$Square;", "Ljava/util/List;", false},
			{"LMirrorTarget$Base;", "LMirrorTarget$Square;", false},
			{"[LMirrorTarget$Square;", "[LMirrorTarget$Base;", true},
			{"[I", "[J", false},
			{"[I", "Ljava/io/Serializable;", true},
			{"LNotLoaded;", "Ljava/lang/Object;", true},
			{"LNotLoaded;", "LMirrorTarget$Base;", false},
		} {
			if got, err := m.Subtype(ctx, c.sub, c.sup); err != nil || got != c.want {
				t.Errorf("Subtype(%s, %s) = %v, %v; want %v", c.sub, c.sup, got, err, c.want)
			}
		}
		if sig, err := m.ResolveClass(ctx, "Square", main); err != nil || sig != "LMirrorTarget$Square;" {
			t.Errorf("ResolveClass(Square from MirrorTarget) = %q, %v", sig, err)
		}
		if sig, err := m.ResolveClass(ctx, "String", 0); err != nil || sig != "Ljava/lang/String;" {
			t.Errorf("ResolveClass(String) = %q, %v", sig, err)
		}
		if _, err := m.ResolveClass(ctx, "NoSuchThing", main); !errors.Is(err, javalang.ErrUnknownName) {
			t.Errorf("ResolveClass(NoSuchThing) = %v, want ErrUnknownName", err)
		}
		if _, err := m.ClassBySignature(ctx, "LNoSuchThing;"); !errors.Is(err, javalang.ErrUnknownName) {
			t.Errorf("ClassBySignature(LNoSuchThing;) = %v, want ErrUnknownName", err)
		}
		ms, err := m.MethodsNamed(ctx, square, "compareTo")
		if err != nil || len(ms) == 0 {
			t.Fatalf("MethodsNamed(compareTo) = %v, %v", ms, err)
		}
		if ms[0].Class != "LMirrorTarget$Square;" || ms[0].Signature != "(LMirrorTarget$Square;)I" || ms[0].Interface {
			t.Errorf("most derived compareTo = %+v, want Square's own", ms[0])
		}
		for _, mi := range ms {
			if mi.ModBits&mirror.AccBridge != 0 {
				t.Errorf("MethodsNamed lists the bridge %s%s", mi.Name, mi.Signature)
			}
		}
		if ok, err := m.Overrides(ctx, "LMirrorTarget$Square;", "toString", "()Ljava/lang/String;"); err != nil || !ok {
			t.Errorf("Square overrides toString: %v, %v", ok, err)
		}
		if ok, err := m.Overrides(ctx, "LMirrorTarget$Base;", "toString", "()Ljava/lang/String;"); err != nil || ok {
			t.Errorf("Base overrides toString: %v, %v", ok, err)
		}
	})

	t.Run("ThreadRan", func(t *testing.T) {
		// The mirror runs no methods (the debugger layer does); a method
		// run in the thread makes the frames read before stale.
		gen := m.Gen(thread)
		area, err := m.InstanceMethod(ctx, sq, "area", "()D")
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Conn().InvokeMethod(ctx, sq, thread, area.Type, area.ID, nil, jdwp.InvokeSingleThreaded)
		if err != nil || res.Exception.ID != 0 || res.Value != jdwp.DoubleValue(9) {
			t.Fatalf("area() = %+v, %v; want 9.0", res, err)
		}
		m.ThreadRan(thread)
		if m.Gen(thread) != gen+1 {
			t.Errorf("after an invocation: generation %d (was %d)", m.Gen(thread), gen)
		}
		// The frame read before the invocation is read again.
		live, err := m.Live(ctx, top)
		if err != nil || live.Gen != gen+1 || live.Loc != top.Loc {
			t.Errorf("Live(top) = %+v, %v; want the same location in generation %d", live, err, gen+1)
		}
	})
}

func TestMemo(t *testing.T) {
	var c mirror.Memo[int, string]
	calls := 0
	fetch := func() (string, error) { calls++; return "v", nil }
	for range 2 {
		if v, err := c.Get(1, fetch); v != "v" || err != nil {
			t.Fatalf("Get = %q, %v", v, err)
		}
	}
	if calls != 1 {
		t.Errorf("fetched %d times, want once", calls)
	}
	boom := errors.New("boom")
	if _, err := c.Get(2, func() (string, error) { return "", boom }); err != boom {
		t.Errorf("error = %v, want boom", err)
	}
	if v, _ := c.Get(2, fetch); v != "v" || calls != 2 {
		t.Errorf("an error was cached: %q after %d fetches", v, calls)
	}
	c.Forget(1)
	c.Get(1, fetch)
	c.ForgetIf(func(k int) bool { return k == 2 })
	c.Get(2, fetch)
	c.Get(1, fetch)
	if calls != 4 {
		t.Errorf("fetched %d times, want 4 (once more after each Forget)", calls)
	}
}
