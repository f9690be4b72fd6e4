package kotlintest

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
	"github.com/ddmbridge/ddmbridge/jdwp/kotlinrun"
)

// The versions of the peers (package jdwp/kotlinrun fetches, caches and
// runs them; these names keep the tests' vocabulary).
const (
	KotlinVersion     = kotlinrun.KotlinVersion
	CoroutinesVersion = kotlinrun.CoroutinesVersion
)

//go:embed fixture
var fixture embed.FS

// Peers are the jars of the Kotlin test peers in the cache.
type Peers = kotlinrun.Peers

// FetchPeers returns the peers, fetching them with mvn into the cache the
// first time.
func FetchPeers(ctx context.Context) (*Peers, error) { return kotlinrun.FetchPeers(ctx) }

// Lambdas is how kotlinc compiles lambdas (-Xlambdas).
type Lambdas = kotlinrun.Lambdas

// The lambda modes: Kotlin 2's default (invokedynamic) and a class per lambda.
const (
	Indy  = kotlinrun.Indy
	Class = kotlinrun.Class
)

// Compiled is the output of a compilation.
type Compiled = kotlinrun.Compiled

// Compile compiles Kotlin sources (relative slash paths ending in .kt →
// contents), cached by content (kotlinrun.Compile).
func Compile(ctx context.Context, files map[string][]byte, mode Lambdas) (*Compiled, error) {
	return kotlinrun.Compile(ctx, files, mode)
}

// FixtureFiles returns the fixture's sources (app/Main.kt …), keyed by their
// path under the source root.
func FixtureFiles() (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(fixture, "fixture", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".kt") {
			return err
		}
		b, err := fixture.ReadFile(p)
		if err != nil {
			return err
		}
		files[strings.TrimPrefix(p, "fixture/")] = b
		return nil
	})
	return files, err
}

// FixtureMain is the fixture's main class, the facade of app/Main.kt.
const FixtureMain = "app.MainKt"

// Require returns the peers, fetching them if needed; a test that cannot
// have them fails (it is never skipped: CI must reach Maven Central).
func Require(t testing.TB) *Peers {
	t.Helper()
	jvmtest.RequireJava(t)
	p, err := FetchPeers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// CompileFixtureT compiles the fixture with lambdas as mode says (once per
// test run and mode, then from the cache), failing the test if it cannot.
func CompileFixtureT(t testing.TB, mode Lambdas) *Compiled {
	t.Helper()
	Require(t)
	files, err := FixtureFiles()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(t.Context(), files, mode)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Line returns the 1-based line of the source file name (a path under the
// source root, "app/Main.kt") whose marker comment is "// @marker" (or ends
// with it), failing the test if there is none or more than one.
func Line(t testing.TB, name, marker string) int {
	t.Helper()
	n, err := FixtureLine(name, marker)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// FixtureLine is Line without a test.
func FixtureLine(name, marker string) (int, error) {
	b, err := fixture.ReadFile("fixture/" + name)
	if err != nil {
		return 0, fmt.Errorf("fixture %s: %w", name, err)
	}
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		if strings.HasSuffix(strings.TrimRight(sc.Text(), " "), "// @"+marker) {
			if found != 0 {
				return 0, fmt.Errorf("fixture %s: marker @%s on lines %d and %d", name, marker, found, n)
			}
			found = n
		}
	}
	if found == 0 {
		return 0, fmt.Errorf("fixture %s: no line marked @%s", name, marker)
	}
	return found, nil
}

// LineCount is the number of lines of fixture source name.
func LineCount(name string) (int, error) {
	b, err := fixture.ReadFile("fixture/" + name)
	if err != nil {
		return 0, fmt.Errorf("fixture %s: %w", name, err)
	}
	return bytes.Count(b, []byte("\n")), nil
}
