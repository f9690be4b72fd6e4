package dumpfile

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// forgedNote is a note naming victim (this user's file) as a dead
// writer's partial dump, right in every field a note checks.
func forgedNote(t *testing.T, victim string) []byte {
	t.Helper()
	f, err := os.Open(victim)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	n := note{Kind: "file", Path: victim, Dev: st.Dev, Ino: st.Ino, UID: int(st.Uid), Boot: bootID(), Writer: deadWriter(),
		Dirs: dirChain(victim, &st)}
	if n.Dirs == nil {
		t.Fatal("no way to the victim")
	}
	b, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sharedTemp is a directory another user can reach (0755), removed at the
// end.
func sharedTemp(t *testing.T) string {
	t.Helper()
	base, err := os.MkdirTemp("", "journal-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	return base
}

// TestJournalUnderOtherUsersDir (issue 42.3): with the cache directory
// inside a directory another user owns, the journal is not used: nothing
// is noted there, and a note found there — this user's own journal
// directory, which that user can swap at will — removes nothing.
func TestJournalUnderOtherUsersDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a directory to another user")
	}
	base := sharedTemp(t)
	evil := filepath.Join(base, "evil")
	os.Mkdir(evil, 0o755)
	os.Chown(evil, nobody, nobody)
	cache := filepath.Join(evil, "cache")
	t.Setenv("XDG_CACHE_HOME", cache)
	journal := filepath.Join(cache, "ddmbridge", "partial-dumps")
	if err := os.MkdirAll(journal, 0o700); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(base, "victim")
	os.WriteFile(victim, []byte("this user's file"), 0o600)
	if err := os.WriteFile(filepath.Join(journal, "dump-forged.json"), forgedNote(t, victim), 0o600); err != nil {
		t.Fatal(err)
	}
	removed, err := CleanStale()
	if len(removed) != 0 {
		t.Errorf("removed %v", removed)
	}
	if _, serr := os.Stat(victim); serr != nil {
		t.Fatalf("the file a note in another user's directory named was removed: %v", serr)
	}
	if err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
		t.Errorf("CleanStale said %v; want it to say the journal is under uid 65534's directory", err)
	}
	f, err := Create(filepath.Join(base, "x.hprof"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if f.note.name != "" {
		t.Errorf("a dump was noted in a journal under another user's directory")
	}
}

// TestJournalRenameRace (issue 42.3): another user who owns a directory on
// the journal's way swaps, in a loop, this user's journal for one of theirs
// holding notes that name this user's file and a directory of three files;
// monitor starts (CleanStale) during 300 swaps remove nothing.
func TestJournalRenameRace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	base := sharedTemp(t)
	evil := filepath.Join(base, "evil")
	os.Mkdir(evil, 0o755)
	os.Chown(evil, nobody, nobody)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(evil, "cache"))
	real := filepath.Join(evil, "cache", "ddmbridge", "partial-dumps")
	if err := os.MkdirAll(real, 0o700); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(base, "victim")
	os.WriteFile(victim, []byte("this user's file"), 0o600)
	victimDir := filepath.Join(base, "victim-dir")
	os.Mkdir(victimDir, 0o700)
	for i := range 3 {
		os.WriteFile(filepath.Join(victimDir, fmt.Sprint(i)), nil, 0o600)
	}
	fake := filepath.Join(evil, "fake", "ddmbridge", "partial-dumps")
	os.MkdirAll(fake, 0o700)
	os.WriteFile(filepath.Join(fake, "dump-forged.json"), forgedNote(t, victim), 0o600)
	d, _ := os.Open(victimDir)
	var st unix.Stat_t
	unix.Fstat(int(d.Fd()), &st)
	d.Close()
	dn := note{Kind: "dir", Path: victimDir, Dev: st.Dev, Ino: st.Ino, UID: int(st.Uid), Boot: bootID(), Writer: deadWriter(),
		Dirs: dirChain(victimDir, &st)}
	b, _ := json.Marshal(dn)
	os.WriteFile(filepath.Join(fake, "dump-forged-dir.json"), b, 0o600)
	filepath.Walk(filepath.Join(evil, "fake"), func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, nobody, nobody) })

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	count := filepath.Join(base, "count")
	os.WriteFile(count, nil, 0o666)
	os.Chmod(count, 0o666)
	swap := exec.CommandContext(ctx, "bash", "-c", `cd "$1" && n=0; while :; do mv -T cache real; mv -T fake cache; mv -T cache fake; mv -T real cache; n=$((n+1)); [ $((n % 20)) = 0 ] && echo $n > "$2"; done 2>/dev/null`, "swap", evil, count)
	swap.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}, Setpgid: true}
	if err := swap.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-swap.Process.Pid, syscall.SIGKILL); swap.Wait() }()
	// Monitor starts until the other user swapped the journal 300 times.
	starts, refused, rounds := 0, 0, 0
	for rounds < 300 {
		if ctx.Err() != nil {
			t.Fatalf("the other user swapped %d times in 5 minutes", rounds)
		}
		removed, err := CleanStale()
		if len(removed) != 0 {
			t.Fatalf("removed %v", removed)
		}
		starts++
		if err != nil {
			refused++
		}
		if b, err := os.ReadFile(count); err == nil {
			fmt.Sscan(string(b), &rounds)
		}
	}
	t.Logf("%d starts during %d+ swaps: %d refused the journal (the others found none mid-swap)", starts, rounds, refused)
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("this user's file was removed: %v", err)
	}
	if ents, err := os.ReadDir(victimDir); err != nil || len(ents) != 3 {
		t.Fatalf("this user's directory: %v, %v", ents, err)
	}
}
