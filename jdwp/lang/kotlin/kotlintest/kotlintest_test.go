package kotlintest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmtest"
)

// The fixture's own output, as the program prints it.
const fixtureOutput = `till 7 of corner
total 75
corner[1:tea,2:cake]
doubled [2, 2]
square 81
big [45]
picked [45]
later corner
shop corner
limit 3
#5
box size 2
1=3.0 2=6.0 (1,2)
A B
late [5, 5]
fetched 60
done
`

// The fixture compiles in both lambda modes with the real Kotlin 2 compiler,
// runs, and prints what its source says; -Xlambdas=class makes a class per
// lambda and the default (invokedynamic) none.
func TestFixtureCompilesAndRuns(t *testing.T) {
	for _, mode := range []Lambdas{Indy, Class} {
		t.Run(string(mode), func(t *testing.T) {
			c := CompileFixtureT(t, mode)
			java, err := jvmtest.FindTool("java")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, java, "-cp", strings.Join(c.ClassPath, string(os.PathListSeparator)), FixtureMain)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("java %s: %v\n%s", FixtureMain, err, out)
			}
			if string(out) != fixtureOutput {
				t.Errorf("the fixture printed\n%s\nwant\n%s", out, fixtureOutput)
			}
			for _, class := range []string{"app/MainKt", "app/Utils", "app/Multi", "app/Multi__MultiAKt", "app/Shop$Companion", "app/Shop$Till", "app/Rect$Corner", "app/Registry", "app/MainKt$fetchOne$1"} {
				if _, err := os.Stat(filepath.Join(c.Classes, class+".class")); err != nil {
					t.Errorf("no class %s: %v", class, err)
				}
			}
			_, err = os.Stat(filepath.Join(c.Classes, "app/MainKt$main$square$1.class"))
			if lambdaClass := err == nil; lambdaClass != (mode == Class) {
				t.Errorf("-Xlambdas=%s: class app.MainKt$main$square$1 exists: %v", mode, lambdaClass)
			}
			if _, err := os.Stat(filepath.Join(c.Sources, "app", "Main.kt")); err != nil {
				t.Errorf("sources not kept beside the classes: %v", err)
			}
		})
	}
}

// A second compile of the same sources comes from the cache: same directory.
func TestCompileCached(t *testing.T) {
	a := CompileFixtureT(t, Indy)
	b := CompileFixtureT(t, Indy)
	if a.Classes != b.Classes {
		t.Errorf("two compiles of the same sources: %s and %s", a.Classes, b.Classes)
	}
}

// A compile error is reported with the compiler's message.
func TestCompileError(t *testing.T) {
	Require(t)
	_, err := Compile(t.Context(), map[string][]byte{"bad/Bad.kt": []byte("package bad\nfun f(): Int = \"no\"\n")}, Indy)
	if err == nil || !strings.Contains(err.Error(), "Bad.kt") || !strings.Contains(err.Error(), "error") {
		t.Errorf("compiling a wrong program: %v", err)
	}
	if _, err := Compile(t.Context(), map[string][]byte{"x.java": nil}, Indy); err == nil {
		t.Error("a .java source was accepted")
	}
}

func TestLine(t *testing.T) {
	if n := Line(t, "app/Main.kt", "forEachBody"); n < 1 {
		t.Errorf("Line = %d", n)
	}
	if _, err := FixtureLine("app/Main.kt", "nosuchmarker"); err == nil {
		t.Error("a missing marker was found")
	}
}
