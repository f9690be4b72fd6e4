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
// (benchKotlin fails otherwise) and sent JDWP commands, the parse ran.
func TestBenchKotlin(t *testing.T) {
	kotlintest.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	defer cancel()
	b, err := benchKotlin(ctx, 30, 2)
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
	for _, row := range []string{ktActFirstFile, ktActInline, "SMAP parse"} {
		if !strings.Contains(table.String(), row) {
			t.Errorf("the table lacks %q:\n%s", row, table.String())
		}
	}
}
