package debugger

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/kotlin/kotlintest"
	"github.com/ddmbridge/ddmbridge/jdwp/linkproxy"
	"github.com/rs/zerolog"
)

// The watch for classes of any package inlining a file's code stands while
// a breakpoint stands in an inline function's body, and only then: set with
// the first such breakpoint, kept while one stays (in any file), cleared
// with the last. Classes that load meanwhile in other packages (lib.Late)
// bind the breakpoint, and every thread their loading suspended goes on:
// the program runs to its end.
func TestInlinerWatch(t *testing.T) {
	kc := kotlintest.CompileFixtureT(t, kotlintest.Indy)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: kc.ClassPath, MainClass: kotlintest.FixtureMain, Suspend: true})
	// Through a zero-delay proxy that counts what the run costs.
	proxy, err := linkproxy.Start(vm.Addr, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	conn, err := jdwp.Dial(ctx, proxy.Addr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	t.Cleanup(func() { conn.Close() })
	spawn := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	fe := newRecorder()
	tg := New(ctx, conn, fe, Options{RequestTimeout: 30 * time.Second}, zerolog.Nop(), spawn)
	if err := tg.Start(ctx, spawn); err != nil {
		t.Fatal(err)
	}
	if err := tg.RunToMain(ctx, kotlintest.FixtureMain, func() error { return fmt.Errorf("the VM exited") }); err != nil {
		t.Fatal(err)
	}
	watch := func() int32 {
		tg.mu.Lock()
		defer tg.mu.Unlock()
		return tg.bps.inlinerWatch
	}
	util := filepath.Join(kc.Sources, "app", "Util.kt")
	main := filepath.Join(kc.Sources, "app", "Main.kt")
	set := func(path string, lines ...int) {
		t.Helper()
		specs := make([]BreakpointSpec, len(lines))
		for i, l := range lines {
			specs[i] = BreakpointSpec{Line: l}
		}
		if _, err := tg.SetBreakpoints(ctx, path, specs); err != nil {
			t.Fatal(err)
		}
	}
	logged, label := kotlintest.Line(t, "app/Util.kt", "loggedBody"), kotlintest.Line(t, "app/Util.kt", "labelBody")
	set(main, kotlintest.Line(t, "app/Main.kt", "callTwice"))
	if watch() != 0 {
		t.Errorf("a watch for inlining classes with no breakpoint in an inline body")
	}
	set(util, label)
	if watch() != 0 {
		t.Errorf("a watch for inlining classes for a breakpoint in label (not inline)")
	}
	set(util, label, logged)
	first := watch()
	if first == 0 {
		t.Fatalf("no watch for inlining classes with a breakpoint in logged's body")
	}
	set(main)
	if watch() != first {
		t.Errorf("the watch changed (%d → %d) when another file's breakpoints did", first, watch())
	}
	set(util, label)
	if watch() != 0 {
		t.Errorf("the watch stayed once no breakpoint stands in an inline body")
	}
	set(util, logged)
	if watch() == 0 {
		t.Fatalf("no watch once a breakpoint stands in logged's body again")
	}
	proxy.Mark()
	if err := tg.ConfigurationDone(ctx, ""); err != nil {
		t.Fatal(err)
	}
	// logged is inlined into app.Shapes, then into lib.Late.
	for _, want := range []string{"app.Shapes", "lib.Late"} {
		var s Stop
		select {
		case s = <-fe.stops:
		case <-ctx.Done():
			t.Fatalf("no stop in logged's body inlined into %s", want)
		}
		fs, err := tg.Stack(ctx, s.Thread)
		if err != nil || len(fs) == 0 {
			t.Fatalf("frames: %v", err)
		}
		sig, err := tg.VM.Signature(ctx, fs[0].Loc.Class)
		if err != nil || sig != "L"+strings.ReplaceAll(want, ".", "/")+";" {
			t.Errorf("stopped in %s (%v), want %s", sig, err, want)
		}
		if want == "lib.Late" {
			set(util) // the last breakpoint in an inline body goes: so does the watch
			if watch() != 0 {
				t.Errorf("the watch stayed once Util.kt's breakpoints were cleared")
			}
		}
		if err := tg.ResumeThread(ctx, s.Thread); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-tg.EndedCh():
	case s := <-fe.stops:
		t.Fatalf("stopped again: %+v", s)
	case <-ctx.Done():
		t.Fatal("the program did not run to its end: a thread left suspended?")
	}
	// What the run cost (a figure, not a check): the classes checked by
	// the watch each cost a source map read, once a class.
	st, cmds := proxy.Stats(), map[string]int{}
	for _, c := range proxy.Trace() {
		cmds[c.Cmd.String()]++
	}
	t.Logf("the run from configurationDone to its end: %d events, %d commands (%d SourceDebugExtension, %d ThreadReference.SuspendCount, %d ThreadReference.Resume), %d sequential round trips",
		st.Events, st.Commands, cmds[jdwp.CmdRefTypeSourceDebugExtension.String()], cmds["ThreadReference.SuspendCount"], cmds["ThreadReference.Resume"], st.Sequential)
	// Each class the watch checks is released with its thread's resume
	// alone (the ledger knows its count): the session's first release
	// asks the count, none after it.
	if n := cmds[jdwp.CmdThreadSuspendCount.String()]; n > 1 {
		t.Errorf("%d ThreadReference.SuspendCount for the run's class prepares and hits: want at most the first release's", n)
	}
}
