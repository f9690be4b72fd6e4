package hprof

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// watchCreates watches dir for names made in it (inotify: IN_CREATE,
// IN_MOVED_TO); created lists those made so far.
func watchCreates(t *testing.T, dir string) (created func() []string) {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE|unix.IN_MOVED_TO); err != nil {
		t.Fatal(err)
	}
	return func() []string {
		var names []string
		buf := make([]byte, 64<<10)
		for {
			n, err := unix.Read(fd, buf)
			if errors.Is(err, unix.EAGAIN) {
				return names
			}
			if err != nil {
				t.Fatal(err)
			}
			for b := buf[:n]; len(b) >= unix.SizeofInotifyEvent; {
				l := int(binary.NativeEndian.Uint32(b[12:16])) // struct inotify_event's len: the name's, padded
				names = append(names, strings.TrimRight(string(b[unix.SizeofInotifyEvent:unix.SizeofInotifyEvent+l]), "\x00"))
				b = b[unix.SizeofInotifyEvent+l:]
			}
		}
	}
}

// listingCtx lists dir at each look of a computation at its context,
// keeping the names it saw.
type listingCtx struct {
	context.Context
	t     *testing.T
	dir   string
	looks int
	seen  []string
}

func (c *listingCtx) Err() error {
	c.looks++
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, e := range ents {
		c.seen = append(c.seen, e.Name())
	}
	return c.Context.Err()
}

// TestSpillFileHasNoName: on Linux the spill and lean strategies' temporary
// file never has a name in its directory (O_TMPFILE), so no way of ending
// the process, SIGKILL included, can leave it behind. The directory is
// watched for names made in it (inotify) while a parse with a spill file
// and the trees of both strategies run, and listed at each of the tree's
// looks at its context; the fallback for filesystems without O_TMPFILE
// (a name removed at once) is seen by the same watch, so the watch sees
// what it should. Both files are mode 0600.
func TestSpillFileHasNoName(t *testing.T) {
	dump := weakDump(t, 150_000)
	dir := t.TempDir()
	created := watchCreates(t, dir)

	f, named, err := createTemp(dir)
	if err != nil {
		t.Fatal(err)
	}
	if named {
		t.Fatalf("%s refuses O_TMPFILE: the test needs a filesystem that has it", dir)
	}
	checkTemp(t, f)
	f.Close()

	h, err := Parse(bytes.NewReader(dump), Options{Spill: true, SpillDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := h.Dominators()
	for _, opt := range []DomOptions{{Spill: true, Dir: dir}, {Lean: true, Dir: dir}} {
		ctx := &listingCtx{Context: context.Background(), t: t, dir: dir}
		d, err := h.DominatorsContext(ctx, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Idom) != len(want.Idom) || d.Retained[0] != want.Retained[0] {
			t.Errorf("%+v: the tree differs from the one in memory", opt)
		}
		if ctx.looks < 10 || len(ctx.seen) != 0 {
			t.Errorf("%+v: the directory listed at %d looks showed %v, want nothing", opt, ctx.looks, ctx.seen)
		}
	}
	if names := created(); len(names) != 0 {
		t.Errorf("names made in the spill directory while the spills ran: %v", names)
	}

	// The fallback: a name, removed at once by newSpillFile's caller.
	f, named, err = createNamed(dir)
	if err != nil || !named {
		t.Fatalf("createNamed: %v, named %v", err, named)
	}
	checkTemp(t, f)
	os.Remove(f.Name())
	f.Close()
	if names := created(); len(names) != 1 || !strings.HasPrefix(names[0], "ddmbridge-hprof-") {
		t.Errorf("the named file's creation: the watch saw %v", names)
	}
}

// checkTemp checks a temporary file is regular, mode 0600, and takes what
// is written to it.
func checkTemp(t *testing.T, f *os.File) {
	t.Helper()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, want a regular file, 0600", f.Name(), fi.Mode())
	}
	if _, err := f.WriteAt([]byte("spill"), 1<<20); err != nil {
		t.Error(err)
	}
	b := make([]byte, 5)
	if _, err := f.ReadAt(b, 1<<20); err != nil || string(b) != "spill" {
		t.Errorf("read back %q, %v", b, err)
	}
}
