package kotlin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/kotlin"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/kotlin/kotlintest"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// On a real JVM running the fixture, compiled in both lambda modes, every
// loaded class of package app is held by exactly the .kt file its
// SourceFile attribute names (facades, @file:JvmName, multifile parts,
// nested, inner, companion, lambda and continuation classes), and every
// line of every method locates in a fixture file within its lines, or in
// the stdlib's sources (inlined forEach, map).
func TestFixtureClassesAndLines(t *testing.T) {
	for _, mode := range []kotlintest.Lambdas{kotlintest.Indy, kotlintest.Class} {
		t.Run(string(mode), func(t *testing.T) {
			c := kotlintest.CompileFixtureT(t, mode)
			files, err := kotlintest.FixtureFiles()
			if err != nil {
				t.Fatal(err)
			}
			parsed := map[string]kotlin.File{}
			for name, src := range files {
				parsed[name] = kotlin.ParseFile(name, src)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			vm := jvmtest.StartT(t, jvmtest.Options{ClassPath: c.ClassPath, MainClass: kotlintest.FixtureMain, Args: []string{"--wait"}, ReadyLine: "WAITING"})
			conn, err := jdwp.Dial(ctx, vm.Addr, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			m := mirror.New(conn, mirror.Config{})
			all, err := m.AllClasses(ctx)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, ci := range all {
				if !strings.HasPrefix(ci.Signature, "Lapp/") {
					continue
				}
				name := javalang.TypeName(ci.Signature)
				sf, err := m.SourceFile(ctx, ci.ID)
				if mirror.Absent(err) {
					continue // a hidden lambda class (MainKt$$Lambda…) has none and no lines
				}
				if err != nil {
					t.Fatal(err)
				}
				var holders []string
				for fname, f := range parsed {
					if f.Holds(name, func() string { return sf }) {
						holders = append(holders, fname)
					}
				}
				if len(holders) != 1 || !strings.HasSuffix(holders[0], "/"+sf) {
					t.Errorf("class %s (SourceFile %s) held by %q, want exactly its file", name, sf, holders)
				}
				seen[name] = true
				ms, err := m.Methods(ctx, ci.ID)
				if err != nil {
					t.Fatal(err)
				}
				smapOf := func(ctx context.Context) (string, error) {
					s, err := conn.SourceDebugExtension(ctx, ci.ID)
					if mirror.Absent(err) {
						return "", nil
					}
					return s, err
				}
				for _, mt := range ms {
					lt, err := m.LineTable(ctx, ci.ID, mt.ID)
					if err != nil {
						t.Fatal(err)
					}
					for _, e := range lt.Lines {
						w := kotlin.Lang.Locate(lang.Located{ClassSig: ci.Signature, SourceFile: sf, Line: int(e.Line), SMAP: smapOf})
						if strings.HasPrefix(w.Rel, "kotlin/") {
							continue // the stdlib's inlined code
						}
						n, err := kotlintest.LineCount(w.Rel)
						if err != nil || w.Line < 1 || w.Line > n {
							t.Errorf("%s.%s JVM line %d located at %s:%d (%v): not a line of a fixture file", name, mt.Name, e.Line, w.Rel, w.Line, err)
						}
					}
				}
			}
			for _, want := range []string{"app.MainKt", "app.Counter", "app.Multi__MultiAKt", "app.Shop$Companion", "app.Shop$Till", "app.Rect$Corner", "app.Registry", "app.MainKt$fetchOne$1"} {
				if !seen[want] {
					t.Errorf("class %s not loaded or not checked", want)
				}
			}
		})
	}
}
