package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/lang/kotlin/kotlintest"
)

// TestBenchKotlin runs `bench kotlin` small (30 classes: three generated
// files, compiled by the real Kotlin compiler) and checks what it counted,
// never how long anything took: every class loaded and has a source map
// naming the inline function's file, every breakpoint action verified
// (benchKotlin fails otherwise) and sent JDWP commands, the parse ran; the
// coroutine program's list (100 coroutines from the debug probes) held
// every coroutine with its stack, every stop in the suspend function showed
// its async stack and none in the plain one (benchKotlinCoroutines fails
// otherwise), and both figures are printed.
func TestBenchKotlin(t *testing.T) {
	kotlintest.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	defer cancel()
	b, err := benchKotlin(ctx, 30, 2, 100)
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	printKotlinBench(&table, b, false)
	t.Logf("\n%s", table.String())
	// 3 files × (9 classes + a facade), Inline.kt's facade and MainKt.
	if b.Classes < 30 {
		t.Errorf("%d generated classes loaded, want 30 or more", b.Classes)
	}
	if b.WithSMAP != 27 || b.InlinedInto != 27 {
		t.Errorf("%d classes with a source map, %d inlining Inline.kt; want the 27 classes that call twiceK", b.WithSMAP, b.InlinedInto)
	}
	if b.ParseRounds == 0 || b.ParseNsPerClass <= 0 {
		t.Errorf("the SMAP parse did not run: %+v", b)
	}
	runs := map[string]int{}
	for _, a := range b.Actions {
		runs[a.Action] = a.Runs
		if a.Commands == 0 {
			t.Errorf("%s sent no JDWP command", a.Action)
		}
	}
	for action, want := range map[string]int{ktActFirstFile: 1, ktActOtherFile: 2, ktActSameFile: 2, ktActInline: 2, ktActSDE: 1} {
		if runs[action] != want {
			t.Errorf("%s ran %d times, want %d", action, runs[action], want)
		}
	}
	if k := b.Coroutines; k == nil {
		t.Error("no coroutine figures")
	} else {
		if k.Launched != 100 || k.Listed < 100 || k.WithFrames < 100 || k.Source != "DebugProbes" {
			t.Errorf("the coroutine list: %d listed of %d launched, %d with a stack, from %q; want every launched one with its stack, from DebugProbes", k.Listed, k.Launched, k.WithFrames, k.Source)
		}
		if k.ListRuns != 2 || k.StopRuns != 2 || k.FirstMs <= 0 || k.ListMs <= 0 || k.NoFramesMs <= 0 || k.SuspendMs <= 0 || k.PlainMs <= 0 {
			t.Errorf("a coroutine figure was not measured: %+v", k)
		}
		if l := k.WithoutProbes; l == nil || l.Listed < 100 || l.WithFrames < 100 || l.Source == "DebugProbes" || l.FirstMs <= 0 || l.ListMs <= 0 {
			t.Errorf("the coroutine list without the debug probes: %+v, want every launched one with its stack, found through the jobs", l)
		}
		if k.AsyncFrames < 2 {
			t.Errorf("the stop in chainC shows %d async frames, want chainB's and chainA's at least", k.AsyncFrames)
		}
	}
	for _, row := range []string{ktActFirstFile, ktActInline, "SMAP parse", "coroutine list (DebugProbes): ", "coroutine list without DebugProbes (", "stop→variables in a suspend function"} {
		if !strings.Contains(table.String(), row) {
			t.Errorf("the table lacks %q:\n%s", row, table.String())
		}
	}
}
