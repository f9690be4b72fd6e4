package dumpfile

import (
	"golang.org/x/sys/unix"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// deadWriter is this process under another start time: a pid reused by
// another process, as a dead writer's pid may be.
func deadWriter() proc { return proc{PID: os.Getpid(), Start: 1} }

func notes(t *testing.T) []string {
	t.Helper()
	ents, _ := os.ReadDir(journalDir())
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// newPartial creates a partial dump at path and notes it as written by w.
func newPartial(t *testing.T, path string, w proc) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("JAVA PROFILE 1.0.3\x00 partial")
	if n := write(f, note{Kind: "file", Path: path, Writer: w}); n.name == "" {
		t.Fatal("no note written")
	}
	return f
}

// TestCleanStale: the partial dump of a dead writer is removed; one whose
// writer runs stays; an entry that is no longer the one created (another
// inode, another owner, reached through a symlink) is left alone and its
// note dropped.
func TestCleanStale(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()

	dead := filepath.Join(dir, "dead.hprof")
	newPartial(t, dead, deadWriter()).Close()

	live := filepath.Join(dir, "live.hprof")
	lf, err := Create(live, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Abort()

	replaced := filepath.Join(dir, "replaced.hprof")
	old := newPartial(t, replaced, deadWriter())
	defer old.Close() // held open: the new file gets another inode
	os.Remove(replaced)
	os.WriteFile(replaced, []byte("the user's own file"), 0o600)

	sub := filepath.Join(dir, "a", "b")
	os.MkdirAll(sub, 0o700)
	linked := filepath.Join(sub, "linked.hprof")
	newPartial(t, linked, deadWriter()).Close()
	// The directory on the way is moved and a symlink put in its place:
	// the path reaches the same file, through a symlink.
	os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "a2"))
	if err := os.Symlink(filepath.Join(dir, "a2"), filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}

	var chowned string
	if os.Geteuid() == 0 {
		chowned = filepath.Join(dir, "chowned.hprof")
		newPartial(t, chowned, deadWriter()).Close()
		os.Chown(chowned, 65534, 65534)
	}

	if n := len(notes(t)); n != 4+boolInt(chowned != "") {
		t.Fatalf("%d notes in the journal before", n)
	}
	removed, err := CleanStale()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, []string{dead}) {
		t.Errorf("removed %v; want only %s", removed, dead)
	}
	if _, err := os.Lstat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead writer's partial dump is still there: %v", err)
	}
	for _, p := range []string{live, replaced, linked, chowned} {
		if p == "" {
			continue
		}
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v; it must stay", p, err)
		}
	}
	if b, _ := os.ReadFile(replaced); string(b) != "the user's own file" {
		t.Errorf("the replacing file holds %q", b)
	}
	// The live writer's note stays until its dump ends.
	if n := notes(t); len(n) != 1 {
		t.Errorf("notes after cleaning: %v; want the live writer's only", n)
	}
	if err := lf.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := notes(t); len(n) != 0 {
		t.Errorf("notes after the live dump's commit: %v", n)
	}
	if _, err := os.Lstat(live); err != nil {
		t.Errorf("the committed dump: %v", err)
	}
}

// TestCreateNotes: Create notes its file, forced or not, until Commit or
// Abort; the journal is this user's and private.
func TestCreateNotes(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	for _, force := range []bool{false, true} {
		f, err := Create(filepath.Join(dir, "x.hprof"), Options{Force: force})
		if err != nil {
			t.Fatal(err)
		}
		if n := notes(t); len(n) != 1 {
			t.Fatalf("force=%v: notes %v; want one", force, n)
		}
		if force {
			f.Abort()
		} else if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		if n := notes(t); len(n) != 0 {
			t.Fatalf("force=%v: notes after the end: %v", force, n)
		}
	}
	if fd, err := openJournal(false); err != nil {
		t.Fatal(err)
	} else {
		unix.Close(fd)
	}
	// A journal another could write to is not used.
	os.Chmod(journalDir(), 0o777)
	f, err := Create(filepath.Join(dir, "y.hprof"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if f.note.name != "" {
		t.Errorf("noted in a journal of mode 0777")
	}
}

// TestPrivate: a private file has no name in its directory.
func TestPrivate(t *testing.T) {
	dir := t.TempDir()
	f, err := Private(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("dump"); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the directory holds %v", ents)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
