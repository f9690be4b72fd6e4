package scripts

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// machine is a fake machine for scripts/test: a PATH holding only stubs of
// the tools it has (plus the few real utilities the script itself uses) and
// a root directory holding only the files it has. Nothing on it is this
// machine's, so the script can be told a package is missing and be seen to
// install it without anything being removed or installed here.
type machine struct {
	t    *testing.T
	bin  string // the whole PATH
	root string // DDMBRIDGE_TEST_ROOT
	log  string // every stub appends "NAME ARGS" here when it runs
}

// utilities the script runs that are no package of its: real ones, linked.
var utilities = []string{"awk", "cat", "dirname", "env", "find", "head", "id", "sed", "xargs"}

func newMachine(t *testing.T) *machine {
	t.Helper()
	m := &machine{t: t, bin: t.TempDir(), root: t.TempDir()}
	m.log = filepath.Join(t.TempDir(), "calls")
	for _, u := range utilities {
		p, err := exec.LookPath(u)
		if err != nil {
			t.Fatalf("%s not found: the script needs it", u)
		}
		if err := os.Symlink(p, filepath.Join(m.bin, u)); err != nil {
			t.Fatal(err)
		}
	}
	m.tool("sudo", `exec "$@"`) // as_root when the test does not run as root
	return m
}

// tool puts a stub named name on the PATH: it logs its call, then runs body.
func (m *machine) tool(name, body string) {
	m.t.Helper()
	script := "#!/bin/sh\necho \"" + name + " $*\" >>'" + m.log + "'\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(m.bin, name), []byte(script), 0o755); err != nil {
		m.t.Fatal(err)
	}
}

// tools puts stubs that succeed for each name.
func (m *machine) tools(names ...string) {
	for _, n := range names {
		m.tool(n, "exit 0")
	}
}

// file creates path (absolute, as on a real machine) under the fake root.
func (m *machine) file(path string, mode os.FileMode) {
	m.t.Helper()
	p := filepath.Join(m.root, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, mode); err != nil {
		m.t.Fatal(err)
	}
}

// complete makes the fake machine have everything the tests need.
func (m *machine) complete() {
	m.tools("go", "gofmt", "java", "javac", "jdb", "jcmd", "adb", "mvn", "node", "npm", "make", "gcc", "g++")
	m.file("/usr/share/java/com.android.tools.ddms.ddmlib.jar", 0o644)
	m.file("/usr/lib/jvm/openjdk-17/lib/src.zip", 0o644)
	m.file("/usr/bin/chromium", 0o755)
	m.file("/usr/include/krb5.h", 0o644)
}

// run runs the real scripts/test with args on the fake machine and returns
// its exit code, its output and the stubs' calls, one per line.
func (m *machine) run(args ...string) (int, string, []string) {
	m.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		m.t.Fatal(err)
	}
	script, err := filepath.Abs("test")
	if err != nil {
		m.t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bash, append([]string{script}, args...)...)
	cmd.Env = []string{"PATH=" + m.bin, "DDMBRIDGE_TEST_ROOT=" + m.root, "HOME=" + m.t.TempDir()}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil {
		m.t.Fatalf("scripts/test %s did not end in 2 minutes:\n%s", strings.Join(args, " "), out.String())
	}
	rc := 0
	if ee, ok := err.(*exec.ExitError); ok {
		rc = ee.ExitCode()
	} else if err != nil {
		m.t.Fatal(err)
	}
	b, _ := os.ReadFile(m.log)
	var calls []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			calls = append(calls, strings.TrimSpace(l))
		}
	}
	return rc, out.String(), calls
}

// aptGet is a stub apt-get that logs and succeeds.
const aptGet = "exit 0"

// On a fresh machine (Go and Node only, as a new machine of this project's
// kind has) a dry run names every package the tests need, installs nothing
// and runs nothing.
func TestDryRunOnAFreshMachine(t *testing.T) {
	m := newMachine(t)
	m.tools("go", "gofmt", "node", "npm")
	m.tool("apt-get", aptGet)
	rc, out, calls := m.run("--dry-run")
	if rc != 0 {
		t.Fatalf("--dry-run: exit %d\n%s", rc, out)
	}
	want := "would install: openjdk-17-jdk-headless adb libandroid-ddms-java openjdk-17-source maven chromium build-essential libkrb5-dev"
	if !strings.Contains(out, want) {
		t.Errorf("--dry-run does not say %q:\n%s", want, out)
	}
	if !strings.Contains(out, "would run: gofmt go vet go test extension") {
		t.Errorf("--dry-run does not name every step:\n%s", out)
	}
	if len(calls) > 0 {
		t.Errorf("--dry-run ran %q; it must change nothing and run nothing", calls)
	}
}

// A machine lacking only the packages the Go tests need beyond the JDK
// (the fresh machine: no JDK sources, no ddmlib, no adb) gets
// exactly those, through apt-get update and install, as root or via sudo.
func TestInstallsWhatIsMissing(t *testing.T) {
	m := newMachine(t)
	m.complete()
	for _, gone := range []string{"adb"} {
		os.Remove(filepath.Join(m.bin, gone))
	}
	os.Remove(filepath.Join(m.root, "usr/share/java/com.android.tools.ddms.ddmlib.jar"))
	os.Remove(filepath.Join(m.root, "usr/lib/jvm/openjdk-17/lib/src.zip"))
	m.tool("apt-get", aptGet)
	rc, out, calls := m.run("--install-only")
	if rc != 0 {
		t.Fatalf("--install-only: exit %d\n%s", rc, out)
	}
	var apt []string
	for _, c := range calls {
		if strings.HasPrefix(c, "apt-get ") {
			apt = append(apt, c)
		}
	}
	want := []string{"apt-get update", "apt-get install -y --no-install-recommends adb libandroid-ddms-java openjdk-17-source"}
	if !slices.Equal(apt, want) {
		t.Errorf("apt-get calls %q, want %q\n%s", apt, want, out)
	}
	for _, c := range calls {
		if strings.HasPrefix(c, "go ") || strings.HasPrefix(c, "npm ") {
			t.Errorf("--install-only ran %q", c)
		}
	}

	// --go-only asks for nothing the extension needs.
	m2 := newMachine(t)
	m2.tools("go", "gofmt", "java", "javac", "jdb", "jcmd", "adb", "mvn")
	m2.file("/usr/share/java/com.android.tools.ddms.ddmlib.jar", 0o644)
	m2.file("/usr/lib/jvm/openjdk-17/lib/src.zip", 0o644)
	rc, out, _ = m2.run("--dry-run", "--go-only")
	if rc != 0 || !strings.Contains(out, "nothing to install") || !strings.Contains(out, "would run: gofmt go vet go test\n") {
		t.Errorf("--dry-run --go-only on a machine with the Go tests' needs: exit %d\n%s", rc, out)
	}
}

// A machine with everything installs nothing; a failed install stops the
// script with apt-get's failure, before any test.
func TestInstallNothingOrFail(t *testing.T) {
	m := newMachine(t)
	m.complete()
	m.tool("apt-get", aptGet)
	rc, out, calls := m.run("--install-only")
	if rc != 0 || !strings.Contains(out, "nothing to install") || len(calls) != 0 {
		t.Errorf("complete machine: exit %d, calls %q\n%s", rc, calls, out)
	}

	m = newMachine(t)
	m.complete()
	os.Remove(filepath.Join(m.bin, "jdb"))
	m.tool("apt-get", `[ "$1" = install ] && { echo "E: Unable to locate package" >&2; exit 100; }; exit 0`)
	rc, out, calls = m.run()
	if rc != 1 || !strings.Contains(out, "installing openjdk-17-jdk-headless failed") {
		t.Errorf("failed install: exit %d\n%s", rc, out)
	}
	for _, c := range calls {
		if strings.HasPrefix(c, "go ") {
			t.Errorf("tests ran after a failed install: %q", c)
		}
	}
}

// Every step runs whatever the others did (a Go failure does not skip the
// extension's tests), and the script fails if any step failed.
func TestEveryStepRunsAndAnyFailureFails(t *testing.T) {
	m := newMachine(t)
	m.complete()
	m.tool("go", `[ "$1" = test ] && exit 1; exit 0`)
	m.tool("bash", "exit 0") // the extension's ci.sh, as the script runs it
	rc, out, calls := m.run()
	if rc != 1 {
		t.Errorf("go test failed, script exit %d, want 1\n%s", rc, out)
	}
	var ran []string
	for _, c := range calls {
		f := strings.Fields(c)
		ran = append(ran, strings.Join(f[:min(2, len(f))], " "))
	}
	for _, want := range []string{"go vet", "go test", "bash vscode-extension/scripts/ci.sh"} {
		if !slices.Contains(ran, want) {
			t.Errorf("%q did not run (ran %q)\n%s", want, ran, out)
		}
	}
	if !strings.Contains(out, "go test -race") {
		t.Errorf("go test not run with -race:\n%s", out)
	}
	if !strings.Contains(out, "FAILED: go test (of: gofmt go vet go test extension)") {
		t.Errorf("the failure is not named:\n%s", out)
	}

	// The extension failing fails the script too; everything passing passes it.
	m.tool("go", "exit 0")
	m.tool("bash", "exit 3")
	if rc, out, _ := m.run(); rc != 1 || !strings.Contains(out, "FAILED: extension") {
		t.Errorf("extension failed: exit %d\n%s", rc, out)
	}
	m.tool("bash", "exit 0")
	if rc, out, _ := m.run(); rc != 0 || !strings.Contains(out, "every step passed: gofmt go vet go test extension") {
		t.Errorf("all passing: exit %d\n%s", rc, out)
	}
}

// .ci/run is the script, nothing else: CI and the README run the same.
func TestCIRunsTheScript(t *testing.T) {
	b, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "exec bash scripts/test") {
		t.Errorf(".ci/run does not exec scripts/test:\n%s", b)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "\nscripts/test ") {
		t.Error("the README's test command is not scripts/test")
	}
}

// The script says which JDK 21+ the tests of virtual threads run on: the
// newest in /usr/lib/jvm (Temurin 25's folder first), exported as
// DDMBRIDGE_JDK21 so those tests fail rather than skip; without one it
// says they are skipped.
func TestSaysWhichJDK21(t *testing.T) {
	m := newMachine(t)
	m.complete()
	rc, out, _ := m.run("--dry-run", "--go-only")
	if rc != 0 || !strings.Contains(out, "no JDK 21+ found") {
		t.Errorf("without a JDK 21+: exit %d\n%s", rc, out)
	}
	jdk := func(dir, version string, javac bool) {
		m.file(dir+"/bin/java", 0o755)
		if javac {
			m.file(dir+"/bin/javac", 0o755)
		}
		p := filepath.Join(m.root, dir, "release")
		if err := os.WriteFile(p, []byte("IMPLEMENTOR=\"x\"\nJAVA_VERSION=\""+version+"\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	jdk("/usr/lib/jvm/java-17-openjdk-amd64", "17.0.21", true)
	jdk("/usr/lib/jvm/jdk-24-jre", "24.0.1", false) // no javac: not for the tests
	jdk("/usr/lib/jvm/java-21-openjdk-amd64", "21.0.5", true)
	rc, out, _ = m.run("--dry-run", "--go-only")
	if want := m.root + "/usr/lib/jvm/java-21-openjdk-amd64 (JDK 21) for the JDK 21+ tests"; rc != 0 || !strings.Contains(out, want) {
		t.Errorf("with JDK 17, a JRE 24 and JDK 21: exit %d, want %q in\n%s", rc, want, out)
	}
	jdk("/usr/lib/jvm/temurin-25-jdk-amd64", "25.0.3", true)
	rc, out, _ = m.run("--dry-run", "--go-only")
	if want := m.root + "/usr/lib/jvm/temurin-25-jdk-amd64 (JDK 25) for the JDK 21+ tests"; rc != 0 || !strings.Contains(out, want) {
		t.Errorf("with Temurin 25: exit %d, want %q in\n%s", rc, want, out)
	}
}
