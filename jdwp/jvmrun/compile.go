package jvmrun

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Compile compiles Java sources with `javac -g` and copies the class files
// into outDir, creating it if needed. Each source is a .java file or a
// directory searched recursively for .java files; a file keeps its base name
// and a directory's files keep their paths relative to it, so package
// directories must be passed as their source root.
//
// The compiler runs at most once per distinct set of sources (see
// CompileCached); later calls only copy.
func Compile(ctx context.Context, outDir string, sources ...string) error {
	dir, err := CompileCached(ctx, sources...)
	if err != nil {
		return err
	}
	return copyTree(dir, outDir)
}

// CompileCached is Compile without the copy: it returns the cache directory
// holding the class files, for use in a class path. The directory is shared by
// every caller compiling the same sources and must not be modified.
func CompileCached(ctx context.Context, sources ...string) (string, error) {
	files, err := readSources(sources)
	if err != nil {
		return "", err
	}
	return CompileFiles(ctx, files)
}

// CompileFiles compiles in-memory sources, keyed by relative slash-separated
// path ("Hello.java", "com/example/Foo.java"), and returns the cache
// directory holding the class files (which must not be modified).
//
// Output is cached by a hash of the sources and the javac binary under
// os.TempDir(), so repeated and parallel tests, in this process or in other
// test binaries, compile each set of sources once.
func CompileFiles(ctx context.Context, files map[string][]byte) (string, error) {
	javac, err := FindTool("javac")
	if err != nil {
		return "", err
	}
	return CompileFilesWith(ctx, javac, files)
}

// CompileFilesWith is CompileFiles with the given javac (another JDK's).
func CompileFilesWith(ctx context.Context, javac string, files map[string][]byte) (string, error) {
	if len(files) == 0 {
		return "", errors.New("javac: no .java sources given")
	}
	key, err := cacheKey(javac, files)
	if err != nil {
		return "", err
	}
	root, err := cacheRoot()
	if err != nil {
		return "", err
	}
	final := filepath.Join(root, key)

	mu := keyLock(key)
	mu.Lock()
	defer mu.Unlock()
	if fi, err := os.Stat(final); err == nil && fi.IsDir() {
		return final, nil
	}

	work, err := os.MkdirTemp(root, "tmp-")
	if err != nil {
		return "", fmt.Errorf("javac: %w", err)
	}
	defer os.RemoveAll(work)
	src, out := filepath.Join(work, "src"), filepath.Join(work, "classes")
	names := make([]string, 0, len(files))
	for name, data := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("javac: %w", err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return "", fmt.Errorf("javac: %w", err)
		}
		names = append(names, filepath.FromSlash(name))
	}
	slices.Sort(names)
	if err := os.Mkdir(out, 0o755); err != nil {
		return "", fmt.Errorf("javac: %w", err)
	}
	args := append([]string{"-g", "-encoding", "UTF-8", "-implicit:class", "-sourcepath", ".", "-d", out}, names...)
	cmd := exec.CommandContext(ctx, javac, args...)
	cmd.Dir = src
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return "", fmt.Errorf("javac -g %s: %w\n%s", strings.Join(names, " "), err, strings.TrimSpace(output.String()))
	}
	// Publish atomically: a directory named by the key is always complete. If
	// another process got there first, its output is as good as ours.
	if err := os.Rename(out, final); err != nil {
		if fi, serr := os.Stat(final); serr == nil && fi.IsDir() {
			return final, nil
		}
		return "", fmt.Errorf("javac: publish %s: %w", final, err)
	}
	return final, nil
}

var (
	keyLocksMu sync.Mutex
	keyLocks   = map[string]*sync.Mutex{}
)

// keyLock serialises compilations of the same sources within this process.
func keyLock(key string) *sync.Mutex {
	keyLocksMu.Lock()
	defer keyLocksMu.Unlock()
	mu := keyLocks[key]
	if mu == nil {
		mu = new(sync.Mutex)
		keyLocks[key] = mu
	}
	return mu
}

func cacheRoot() (string, error) {
	// The directory keeps the name it had when this code was the test harness
	// (jvmtest), so existing caches stay shared.
	root := filepath.Join(os.TempDir(), fmt.Sprintf("ddmbridge-jvmtest-%d", os.Getuid()))
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("javac: class cache: %w", err)
	}
	return root, nil
}

// cacheKey hashes the sources and the identity of the javac binary, so a JDK
// upgrade invalidates the cache.
func cacheKey(javac string, files map[string][]byte) (string, error) {
	h := sha256.New()
	real, err := filepath.EvalSymlinks(javac)
	if err != nil {
		real = javac
	}
	if fi, err := os.Stat(real); err == nil {
		fmt.Fprintf(h, "javac %s %d %d\n", real, fi.Size(), fi.ModTime().UnixNano())
	}
	names := make([]string, 0, len(files))
	for name := range files {
		clean := path.Clean(name)
		if path.IsAbs(clean) || clean == "." || strings.HasPrefix(clean, "../") || !strings.HasSuffix(clean, ".java") {
			return "", fmt.Errorf("javac: source name %q must be a relative path ending in .java", name)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(h, "%s %d\n", name, len(files[name]))
		h.Write(files[name])
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

func readSources(sources []string) (map[string][]byte, error) {
	files := map[string][]byte{}
	add := func(name, p string) error {
		if _, dup := files[name]; dup {
			return fmt.Errorf("javac: two sources named %s (second: %s)", name, p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("javac: %w", err)
		}
		files[name] = data
		return nil
	}
	for _, s := range sources {
		fi, err := os.Stat(s)
		if err != nil {
			return nil, fmt.Errorf("javac: %w", err)
		}
		if !fi.IsDir() {
			if err := add(filepath.Base(s), s); err != nil {
				return nil, err
			}
			continue
		}
		err = filepath.WalkDir(s, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".java") {
				return err
			}
			rel, err := filepath.Rel(s, p)
			if err != nil {
				return err
			}
			return add(filepath.ToSlash(rel), p)
		})
		if err != nil {
			return nil, err
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("javac: no .java files in %s", strings.Join(sources, ", "))
	}
	return files, nil
}

func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}
