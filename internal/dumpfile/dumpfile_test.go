package dumpfile

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nobody is the uid that plants files as another local user.
const nobody = 65534

func writeDump(t *testing.T, path string, o Options, data string) error {
	t.Helper()
	f, err := Create(path, o)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	return f.Commit()
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func TestCreateNewOwnerOnly(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "heap.hprof")
	if err := writeDump(t, p, Options{}, "JAVA PROFILE 1.0.2"); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, p); m != 0o600 {
		t.Errorf("mode %v, want -rw-------", m)
	}
	err := writeDump(t, p, Options{}, "second")
	if !errors.Is(err, ErrExists) {
		t.Errorf("an existing file: err = %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "JAVA PROFILE 1.0.2" {
		t.Errorf("the existing file now holds %q", b)
	}
	// Force replaces it, with a new 0600 file and nothing left beside it.
	os.Chmod(p, 0o644)
	if err := writeDump(t, p, Options{Force: true}, "third"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "third" {
		t.Errorf("forced: %q", b)
	}
	if m := mode(t, p); m != 0o600 {
		t.Errorf("forced: mode %v, want -rw-------", m)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the directory holds %d entries, want the dump only", len(ents))
	}
}

func TestAbortRemovesOnlyWhatItMade(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "heap.hprof")
	f, err := Create(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("partial")
	f.Abort()
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an aborted dump is still there: %v", err)
	}
	// With Force the old file stays as it was.
	os.WriteFile(p, []byte("old"), 0o600)
	f, err = Create(p, Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("partial")
	f.Abort()
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("after an aborted forced dump: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the directory holds %d entries after the abort", len(ents))
	}
	// A file someone else put in place of ours meanwhile is not removed.
	os.Remove(p)
	f, err = Create(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	os.WriteFile(p, []byte("theirs"), 0o600)
	f.Abort()
	if b, _ := os.ReadFile(p); string(b) != "theirs" {
		t.Errorf("Abort removed a file it did not create: %q", b)
	}
}

// TestSymlinkPlantedByAnotherUser: another local user plants a symlink at
// the output path in a shared sticky directory (as /tmp), pointing at a file
// of this user's that only this user may read. Creating the dump refuses it
// with and without Force, and the target keeps its content and mode (issue
// 25: a root 0600 file was overwritten with a 160 MB dump).
func TestSymlinkPlantedByAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to plant a file as another user")
	}
	shared, err := os.MkdirTemp("", "dumpfile-shared-") // where another user reaches it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	if err := os.Chmod(shared, 0o1777); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("root's secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(shared, "heap.hprof")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	ln := exec.CommandContext(ctx, "ln", "-s", secret, link)
	ln.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	if out, err := ln.CombinedOutput(); err != nil {
		t.Fatalf("ln -s as uid %d: %v\n%s", nobody, err, out)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 || fi.Sys().(*syscall.Stat_t).Uid != nobody {
		t.Fatalf("the planted link: %v %v", fi, err)
	}
	for _, o := range []Options{{}, {Force: true}} {
		err := writeDump(t, link, o, "a heap dump")
		want := ErrExists
		if o.Force {
			want = ErrNotRegular
		}
		if !errors.Is(err, want) {
			t.Errorf("force=%v: err = %v, want %v", o.Force, err, want)
		}
		if b, _ := os.ReadFile(secret); !bytes.Equal(b, []byte("root's secret")) {
			t.Errorf("force=%v: the link's target now holds %q", o.Force, b)
		}
		if m := mode(t, secret); m != 0o600 {
			t.Errorf("force=%v: the link's target's mode is %v", o.Force, m)
		}
	}
	// A symlink planted while a forced dump is written is replaced, not followed.
	os.Remove(link)
	os.WriteFile(link, []byte("old dump"), 0o600)
	f, err := Create(link, Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	os.Remove(link)
	os.Symlink(secret, link)
	f.WriteString("a heap dump")
	if err := f.Commit(); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a symlink planted during the dump: commit err = %v", err)
	}
	if b, _ := os.ReadFile(secret); !bytes.Equal(b, []byte("root's secret")) {
		t.Errorf("the link's target now holds %q", b)
	}
}

// TestCreateTemp makes two dump files in the temporary directory: new
// names, private, removed by Abort.
func TestCreateTemp(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	a, err := CreateTemp(".hprof")
	if err != nil {
		t.Fatal(err)
	}
	b, err := CreateTemp(".hprof")
	if err != nil {
		t.Fatal(err)
	}
	if a.Path() == b.Path() || filepath.Dir(a.Path()) != os.TempDir() || !strings.HasSuffix(a.Path(), ".hprof") {
		t.Errorf("temporary dump files %s and %s", a.Path(), b.Path())
	}
	if fi, err := os.Stat(a.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("a temporary dump file: %v, %v; want mode 0600", fi.Mode(), err)
	}
	a.Abort()
	b.Abort()
	if _, err := os.Stat(a.Path()); !os.IsNotExist(err) {
		t.Errorf("after Abort: %v, want the file gone", err)
	}
}
