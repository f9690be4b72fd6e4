package kotlinrun

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
)

// The versions of the peers, as pom.xml names them (Kotlin 2.2.21 and
// kotlinx-coroutines 1.10.2, both served by Maven Central).
const (
	KotlinVersion     = "2.2.21"
	CoroutinesVersion = "1.10.2"
)

// FetchTimeout bounds mvn's fetch of the peers; CompileTimeout one compile.
var (
	FetchTimeout   = 10 * time.Minute
	CompileTimeout = 5 * time.Minute
)

//go:embed pom.xml
var pom []byte

// Peers are the jars of the Kotlin test peers in the cache.
type Peers struct {
	// Dir is the cache directory holding every jar.
	Dir string
	// Compiler is the class path that runs the compiler
	// (org.jetbrains.kotlin.cli.jvm.K2JVMCompiler): every jar of Dir.
	Compiler []string
	// Stdlib, Coroutines and CoroutinesDebug are the runtime jars a compiled
	// program needs on its class path (the debug probes only where a test
	// wants them).
	Stdlib, Coroutines, CoroutinesDebug string
}

// RunClassPath is the class path a program compiled against the peers runs
// with, its classes first.
func (p *Peers) RunClassPath(classes string) []string {
	return []string{classes, p.Stdlib, p.Coroutines}
}

var (
	peersOnce sync.Once
	peers     *Peers
	peersErr  error
)

// FetchPeers returns the peers, fetching them with mvn into the cache the
// first time (once per process; other processes wait on a file lock).
func FetchPeers(ctx context.Context) (*Peers, error) {
	peersOnce.Do(func() { peers, peersErr = fetchPeers(ctx) })
	return peers, peersErr
}

func cacheHome() (string, error) {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "ddmbridge-kotlin"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("kotlin peers: no cache directory: %w", err)
	}
	return filepath.Join(home, ".cache", "ddmbridge-kotlin"), nil
}

const listName = "jars.txt" // written last: a directory holding it is complete

func fetchPeers(ctx context.Context) (*Peers, error) {
	home, err := cacheHome()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(pom)
	dir := filepath.Join(home, fmt.Sprintf("kotlin-%s-coroutines-%s-%s", KotlinVersion, CoroutinesVersion, hex.EncodeToString(sum[:4])))
	if p, err := readPeers(dir); err == nil {
		return p, nil
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, fmt.Errorf("kotlin peers: %w", err)
	}
	unlock, err := lockFile(dir + ".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if p, err := readPeers(dir); err == nil {
		return p, nil // another process fetched them meanwhile
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return nil, errors.New("kotlin peers: mvn not found: install Maven (Debian's maven; scripts/test installs it) to fetch the Kotlin compiler from Maven Central")
	}
	work, err := os.MkdirTemp(home, "fetch-")
	if err != nil {
		return nil, fmt.Errorf("kotlin peers: %w", err)
	}
	defer os.RemoveAll(work)
	if err := os.WriteFile(filepath.Join(work, "pom.xml"), pom, 0o644); err != nil {
		return nil, fmt.Errorf("kotlin peers: %w", err)
	}
	jars := filepath.Join(work, "jars")
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, mvn, "-B", "-q", "-f", filepath.Join(work, "pom.xml"),
		"dependency:copy-dependencies", "-DoutputDirectory="+jars)
	cmd.Dir = work
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w after %s", ctx.Err(), FetchTimeout)
		}
		return nil, fmt.Errorf("kotlin peers: mvn dependency:copy-dependencies (Kotlin %s, kotlinx-coroutines %s from Maven Central): %w\n%s",
			KotlinVersion, CoroutinesVersion, err, strings.TrimSpace(out.String()))
	}
	entries, err := os.ReadDir(jars)
	if err != nil {
		return nil, fmt.Errorf("kotlin peers: mvn copied nothing: %w", err)
	}
	var list []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jar") {
			list = append(list, e.Name())
		}
	}
	if err := os.WriteFile(filepath.Join(jars, listName), []byte(strings.Join(list, "\n")+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("kotlin peers: %w", err)
	}
	if err := os.Rename(jars, dir); err != nil {
		return nil, fmt.Errorf("kotlin peers: publish %s: %w", dir, err)
	}
	return readPeers(dir)
}

func readPeers(dir string) (*Peers, error) {
	b, err := os.ReadFile(filepath.Join(dir, listName))
	if err != nil {
		return nil, err
	}
	p := &Peers{Dir: dir}
	for _, name := range strings.Fields(string(b)) {
		full := filepath.Join(dir, name)
		if _, err := os.Stat(full); err != nil {
			return nil, fmt.Errorf("kotlin peers: %s is incomplete (%w): remove it to fetch again", dir, err)
		}
		switch {
		case strings.HasPrefix(name, "kotlin-stdlib-"+KotlinVersion):
			p.Stdlib = full
		case strings.HasPrefix(name, "kotlinx-coroutines-core-jvm-"):
			p.Coroutines = full
		case strings.HasPrefix(name, "kotlinx-coroutines-debug-"):
			p.CoroutinesDebug = full
		}
		p.Compiler = append(p.Compiler, full)
	}
	if p.Stdlib == "" || p.Coroutines == "" || p.CoroutinesDebug == "" {
		return nil, fmt.Errorf("kotlin peers: %s lacks kotlin-stdlib or kotlinx-coroutines: remove it to fetch again", dir)
	}
	return p, nil
}

// lockFile takes an exclusive lock on path (created if needed), held until
// the returned function runs: processes fetching or compiling the same thing
// wait for each other.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("kotlin: lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("kotlin: lock %s: %w", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Lambdas is how kotlinc compiles lambdas (-Xlambdas).
type Lambdas string

const (
	// Indy is Kotlin 2's default: invokedynamic and LambdaMetafactory, no
	// class per lambda.
	Indy Lambdas = "indy"
	// Class compiles each lambda into a class of its own (MainKt$main$1).
	Class Lambdas = "class"
)

// Compiled is the output of a compilation.
type Compiled struct {
	// Classes is the directory holding the class files; Sources the one
	// holding the sources as compiled (paths as given). Both are shared by
	// every caller and must not be modified.
	Classes, Sources string
	// ClassPath runs the program: Classes, kotlin-stdlib and
	// kotlinx-coroutines-core.
	ClassPath []string

	peers *Peers
}

var (
	compileMu    sync.Mutex
	compileLocks = map[string]*sync.Mutex{}
)

// Compile compiles Kotlin sources (relative slash paths ending in .kt →
// contents) against kotlin-stdlib and kotlinx-coroutines-core, with lambdas
// compiled as mode says, and returns where the classes are. Output is cached
// under os.TempDir() by a hash of the sources, the compiler version and the
// mode, so each distinct set compiles once across test processes.
func Compile(ctx context.Context, files map[string][]byte, mode Lambdas) (*Compiled, error) {
	if len(files) == 0 {
		return nil, errors.New("kotlinc: no .kt sources given")
	}
	if mode != Indy && mode != Class {
		return nil, fmt.Errorf("kotlinc: lambdas %q: want %q or %q", mode, Indy, Class)
	}
	p, err := FetchPeers(ctx)
	if err != nil {
		return nil, err
	}
	java, err := localjvm.FindTool("java")
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "kotlin %s coroutines %s lambdas %s\n", KotlinVersion, CoroutinesVersion, mode)
	names := make([]string, 0, len(files))
	for name := range files {
		clean := path.Clean(name)
		if path.IsAbs(clean) || strings.HasPrefix(clean, "../") || !strings.HasSuffix(clean, ".kt") {
			return nil, fmt.Errorf("kotlinc: source name %q must be a relative path ending in .kt", name)
		}
		names = append(names, clean)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(h, "%s %d\n", name, len(files[name]))
		h.Write(files[name])
	}
	key := hex.EncodeToString(h.Sum(nil)[:16])
	root := filepath.Join(os.TempDir(), fmt.Sprintf("ddmbridge-kotlin-%d", os.Getuid()))
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("kotlinc: %w", err)
	}
	final := filepath.Join(root, key)
	done := func() *Compiled {
		return &Compiled{
			Classes:   filepath.Join(final, "classes"),
			Sources:   filepath.Join(final, "src"),
			ClassPath: p.RunClassPath(filepath.Join(final, "classes")),
			peers:     p,
		}
	}

	compileMu.Lock()
	mu := compileLocks[key]
	if mu == nil {
		mu = new(sync.Mutex)
		compileLocks[key] = mu
	}
	compileMu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	if _, err := os.Stat(filepath.Join(final, "classes")); err == nil {
		return done(), nil
	}
	unlock, err := lockFile(final + ".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(final, "classes")); err == nil {
		return done(), nil
	}

	work, err := os.MkdirTemp(root, "tmp-")
	if err != nil {
		return nil, fmt.Errorf("kotlinc: %w", err)
	}
	defer os.RemoveAll(work)
	src, out := filepath.Join(work, "src"), filepath.Join(work, "classes")
	var args []string
	for _, name := range names {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, fmt.Errorf("kotlinc: %w", err)
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return nil, fmt.Errorf("kotlinc: %w", err)
		}
		args = append(args, p)
	}
	ctx, cancel := context.WithTimeout(ctx, CompileTimeout)
	defer cancel()
	argv := append([]string{"-Xmx1g", "-cp", strings.Join(p.Compiler, string(os.PathListSeparator)),
		"org.jetbrains.kotlin.cli.jvm.K2JVMCompiler", "-no-stdlib", "-no-reflect", "-Xlambdas=" + string(mode),
		"-classpath", p.Stdlib + string(os.PathListSeparator) + p.Coroutines, "-d", out}, args...)
	cmd := exec.CommandContext(ctx, java, argv...)
	cmd.Dir = work
	cmd.WaitDelay = 10 * time.Second
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w after %s", ctx.Err(), CompileTimeout)
		}
		shown := strings.Join(names, " ")
		if len(names) > 8 {
			shown = fmt.Sprintf("%s … %s (%d files)", strings.Join(names[:4], " "), names[len(names)-1], len(names))
		}
		return nil, fmt.Errorf("kotlinc %s (-Xlambdas=%s): %w\n%s", shown, mode, err, strings.TrimSpace(output.String()))
	}
	if err := os.Rename(work, final); err != nil {
		return nil, fmt.Errorf("kotlinc: publish %s: %w", final, err)
	}
	return done(), nil
}

// Jar returns a jar of the compiled classes (Classes packed into one file
// beside them, written once and then reused), and the class path that runs
// the program from it: the jar, kotlin-stdlib and kotlinx-coroutines-core.
func (c *Compiled) Jar() (jar string, classPath []string, err error) {
	jar = filepath.Join(filepath.Dir(c.Classes), "classes.jar")
	classPath = c.peers.RunClassPath(jar)
	if _, err := os.Stat(jar); err == nil {
		return jar, classPath, nil
	}
	unlock, err := lockFile(jar + ".lock")
	if err != nil {
		return "", nil, err
	}
	defer unlock()
	if _, err := os.Stat(jar); err == nil {
		return jar, classPath, nil // another process wrote it meanwhile
	}
	tmp, err := os.CreateTemp(filepath.Dir(jar), "jar-")
	if err != nil {
		return "", nil, fmt.Errorf("kotlin jar: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := writeJar(tmp, c.Classes); err != nil {
		tmp.Close()
		return "", nil, fmt.Errorf("kotlin jar of %s: %w", c.Classes, err)
	}
	if err := tmp.Close(); err != nil {
		return "", nil, fmt.Errorf("kotlin jar: %w", err)
	}
	if err := os.Rename(tmp.Name(), jar); err != nil {
		return "", nil, fmt.Errorf("kotlin jar: %w", err)
	}
	return jar, classPath, nil
}

// writeJar packs every file under dir into a jar (a zip whose entries are
// the files' slash paths under dir), in a stable order.
func writeJar(w io.Writer, dir string) error {
	z := zip.NewWriter(w)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := z.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	return z.Close()
}
