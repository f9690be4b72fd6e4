package mirror_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/kotlin/kotlintest"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
	"github.com/ddmbridge/ddmbridge/jdwp/smap"
)

// On a real JVM running the Kotlin fixture, app.MainKt's source map comes
// from the VM (ReferenceType.SourceDebugExtension): the lines past
// Main.kt's end are the inlined bodies of Util.kt's twice and the stdlib's
// forEach in the Kotlin stratum, and their call sites in KotlinDebug; the
// JVM lines of Util.kt's first body line are in main's line table.
func TestSourceMapOfKotlinFacade(t *testing.T) {
	c := kotlintest.CompileFixtureT(t, kotlintest.Class)
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	defer cancel()
	vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: c.ClassPath, MainClass: kotlintest.FixtureMain, Args: []string{"--wait"}, ReadyLine: "WAITING"})
	conn, err := jdwp.Dial(ctx, vm.Addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	m := mirror.New(conn, mirror.Config{})
	classes, err := m.Loaded(ctx, "Lapp/MainKt;")
	if err != nil || len(classes) != 1 {
		t.Fatalf("app.MainKt loaded: %v %v", classes, err)
	}
	mainKt := classes[0].ID
	s, err := m.SourceMap(ctx, mainKt)
	if err != nil || s == nil {
		t.Fatalf("SourceMap(app.MainKt) = %v, %v", s, err)
	}
	if s.OutputFile != "Main.kt" || s.DefaultStratum != "Kotlin" || s.Stratum("KotlinDebug") == nil {
		t.Fatalf("source map: %+v", s)
	}
	fileLines, err := kotlintest.LineCount("app/Main.kt")
	if err != nil {
		t.Fatal(err)
	}
	twiceFirst := kotlintest.Line(t, "app/Util.kt", "twiceFirst")
	outs := s.Stratum("Kotlin").OutputLines(func(f smap.File) bool { return f.Name == "Util.kt" }, twiceFirst)
	if len(outs) == 0 {
		t.Fatalf("Util.kt:%d (twice's first line) was inlined nowhere in app.MainKt: %+v", twiceFirst, s.Stratum("Kotlin"))
	}
	for _, out := range outs {
		if out <= fileLines {
			t.Errorf("Util.kt:%d became JVM line %d, within Main.kt's %d lines", twiceFirst, out, fileLines)
		}
		sl, ok, err := m.MapLine(ctx, mainKt, "", out)
		if err != nil || !ok || sl.File.Name != "Util.kt" || sl.File.Path != "app/Utils" || sl.Line != twiceFirst {
			t.Errorf("MapLine(%d) = %+v %v %v, want Util.kt:%d", out, sl, ok, err, twiceFirst)
		}
		call, ok, err := m.MapLine(ctx, mainKt, "KotlinDebug", out)
		if want := kotlintest.Line(t, "app/Main.kt", "callTwice"); err != nil || !ok || call.File.Name != "Main.kt" || call.Line != want {
			t.Errorf("KotlinDebug MapLine(%d) = %+v %v %v, want the call site Main.kt:%d", out, call, ok, err, want)
		}
	}
	// The JVM lines are real: main's line table has them.
	ms, err := m.MethodsNamed(ctx, mainKt, "main")
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, mt := range ms {
		lt, err := m.LineTable(ctx, mainKt, mt.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lt.Lines {
			lines = append(lines, int(l.Line))
		}
	}
	if !slices.Contains(lines, outs[0]) {
		t.Errorf("main's line table %v lacks JVM line %d of the inlined twice", lines, outs[0])
	}
	// A JVM line of Main.kt's own stands for itself.
	if sl, ok, err := m.MapLine(ctx, mainKt, "", 5); err != nil || !ok || sl.File.Name != "Main.kt" || sl.Line != 5 {
		t.Errorf("MapLine(5) = %+v %v %v", sl, ok, err)
	}
	if _, ok, _ := m.MapLine(ctx, mainKt, "NoSuchStratum", 5); ok {
		t.Error("a stratum the map lacks mapped a line")
	}
	// A class without a map (a Java class of the JDK) has none.
	str, err := m.Loaded(ctx, "Ljava/lang/String;")
	if err != nil || len(str) == 0 {
		t.Fatal(err)
	}
	if s, err := m.SourceMap(ctx, str[0].ID); s != nil || err != nil {
		t.Errorf("java.lang.String's source map: %v %v", s, err)
	}
}
