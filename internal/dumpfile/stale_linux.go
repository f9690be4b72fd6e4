package dumpfile

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A dump being written is noted in a journal of the user's (a directory
// of small records under the user's cache directory, 0700): what was
// created (a file, or a directory a VM writes into), its device and inode,
// its owner, and the process writing it. Finishing the dump, well or not,
// drops the note. A process killed mid-dump (SIGKILL, a crash, a power
// cut) leaves its note, and CleanStale, run when a monitor starts, removes
// what such notes name — only when the writer is gone and the entry is
// still the very one created (same device and inode, same owner, reached
// without following a symlink anywhere on its path).

// journalDir is where the notes are; "" when there is no usable place.
func journalDir() string {
	base, err := os.UserCacheDir()
	if err != nil || !filepath.IsAbs(base) {
		return ""
	}
	return filepath.Join(base, "ddmbridge", "partial-dumps")
}

// openJournal opens the journal directory by a descriptor, walking its
// path from / one component at a time without following a symlink
// (O_NOFOLLOW) and checking each directory opened (fstat on the
// descriptor, so a rename in between changes nothing): every component
// must belong to this user or root, and none may let anyone else change
// what its names lead to (no group or other write, except a sticky
// directory such as /tmp, where only an entry's owner may rename or remove
// it); the journal itself must be this user's, mode 0700. With create,
// missing components are made (0700). A journal in a directory another
// user owns or may write to is refused: they could swap its notes for
// notes naming this user's files.
func openJournal(create bool) (int, error) {
	dir := journalDir()
	if dir == "" {
		return -1, fmt.Errorf("no cache directory: %w", os.ErrNotExist)
	}
	return openPrivateDir(dir, create)
}

// openPrivateDir is openJournal's walk for an absolute path.
func openPrivateDir(dir string, create bool) (int, error) {
	fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	walked := "/"
	if err := checkChainDir(fd, walked, false); err != nil {
		unix.Close(fd)
		return -1, err
	}
	cs := strings.Split(strings.Trim(filepath.Clean(dir), "/"), "/")
	for i, c := range cs {
		if c == "" {
			continue
		}
		next, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if err = unix.Mkdirat(fd, c, 0o700); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
		}
		unix.Close(fd)
		walked = filepath.Join(walked, c)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				return -1, fmt.Errorf("%s: %w", walked, os.ErrNotExist)
			}
			return -1, fmt.Errorf("%s: %w (a symlink is not followed)", walked, err)
		}
		fd = next
		if err := checkChainDir(fd, walked, i == len(cs)-1); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	return fd, nil
}

// checkChainDir checks one directory of the journal's path (see
// openJournal); last: the journal itself.
func checkChainDir(fd int, path string, last bool) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	uid, euid := int(st.Uid), os.Geteuid()
	switch {
	case last && (uid != euid || st.Mode&0o077 != 0):
		return fmt.Errorf("%s is not a private directory of this user (owner uid %d, mode %o)", path, uid, st.Mode&0o7777)
	case uid != euid && uid != 0:
		return fmt.Errorf("%s belongs to uid %d, not to this user (uid %d) nor root: the journal of partial dumps is not kept under it", path, uid, euid)
	case st.Mode&0o022 != 0 && st.Mode&unix.S_ISVTX == 0:
		return fmt.Errorf("%s may be written by other users (mode %o): the journal of partial dumps is not kept under it", path, st.Mode&0o7777)
	}
	return nil
}

// dirChain records the directories on the way to path's directory (from
// /, reached without following a symlink) and checks that entry, there,
// is the one created; nil when the way cannot be walked.
func dirChain(path string, entry *unix.Stat_t) []dirID {
	fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	var chain []dirID
	var st unix.Stat_t
	for _, c := range append([]string{""}, strings.Split(strings.Trim(filepath.Dir(path), "/"), "/")...) {
		if c != "" {
			next, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			unix.Close(fd)
			if err != nil {
				return nil
			}
			fd = next
		}
		if unix.Fstat(fd, &st) != nil {
			unix.Close(fd)
			return nil
		}
		chain = append(chain, dirID{Dev: st.Dev, Ino: st.Ino, UID: int(st.Uid)})
	}
	defer unix.Close(fd)
	if unix.Fstatat(fd, filepath.Base(path), &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Dev != entry.Dev || st.Ino != entry.Ino {
		return nil
	}
	return chain
}

// dirID is a directory as a note recorded it.
type dirID struct {
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
	UID int    `json:"uid"`
}

// note is one journal record.
type note struct {
	Kind   string `json:"kind"` // "file" or "dir"
	Path   string `json:"path"` // absolute, as created
	Dev    uint64 `json:"dev"`
	Ino    uint64 `json:"ino"`
	UID    int    `json:"uid"` // its owner when created (a dir handed to a VM's user: that user)
	Boot   string `json:"boot"`
	Writer proc   `json:"writer"`          // the process writing the dump
	Maker  *proc  `json:"maker,omitempty"` // the process that created it, when not the writer
	// VMPath is the path as the writer sees it (a VM in another mount
	// namespace), for its open files.
	VMPath string `json:"vmPath,omitempty"`
	// Dirs are the directories from / to the entry's, as they were when
	// the note was written: removing it walks the same ones or nothing.
	Dirs []dirID `json:"dirs"`
}

// proc names a process across pid reuse: its pid and start time.
type proc struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"` // clock ticks after boot (/proc/PID/stat field 22)
}

// NoteFile notes f, a dump file this process creates at path and writes.
func NoteFile(f *os.File, path string) Note {
	self, ok := procOf(os.Getpid())
	if !ok {
		return Note{}
	}
	return write(f, note{Kind: "file", Path: path, Writer: self})
}

// NoteDir notes dir, a directory this process made at path for the process
// writer (pid) to write a dump into; vmPath is the path as writer sees it.
func NoteDir(dir *os.File, path string, writer int, vmPath string) Note {
	self, ok := procOf(os.Getpid())
	w, wok := procOf(writer)
	if !ok || !wok {
		return Note{}
	}
	return write(dir, note{Kind: "dir", Path: path, Writer: w, Maker: &self, VMPath: vmPath})
}

func write(f *os.File, n note) Note {
	if !filepath.IsAbs(n.Path) {
		return Note{}
	}
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil {
		return Note{}
	}
	n.Dev, n.Ino, n.UID, n.Boot = st.Dev, st.Ino, int(st.Uid), bootID()
	if n.Dirs = dirChain(n.Path, &st); n.Dirs == nil {
		return Note{} // its way has a symlink, or it moved already
	}
	b, err := json.Marshal(n)
	if err != nil {
		return Note{}
	}
	jfd, err := openJournal(true)
	if err != nil {
		return Note{}
	}
	defer unix.Close(jfd)
	for range 16 {
		name := "dump-" + randomName() + ".json"
		fd, err := unix.Openat(jfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return Note{}
		}
		j := os.NewFile(uintptr(fd), name)
		_, err = j.Write(b)
		if cerr := j.Close(); err != nil || cerr != nil {
			unix.Unlinkat(jfd, name, 0)
			return Note{}
		}
		return Note{name: name}
	}
	return Note{}
}

// randomName is 16 random hex digits.
func randomName() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// maxNote bounds a journal record read back.
const maxNote = 64 << 10

// Private returns a new file in dir (the temp dir if "") that has no name:
// only the descriptor reaches it, and it is gone when closed, whatever
// ends the process (O_TMPFILE; elsewhere created and unlinked at once).
func Private(dir string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	fd, err := unix.Open(dir, unix.O_RDWR|unix.O_TMPFILE|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed dump)")), nil
	}
	return privateByName(dir)
}

// CleanStale removes the partial dumps left by processes that died while
// writing them, and their notes; it returns the paths removed. A note
// whose writer still runs (or, for a VM's directory, whose maker still
// runs, or whose VM still holds a file in it open) is kept for a later
// start; a note naming anything but the entry created — another inode,
// another owner, a symlink on the way — is dropped and the entry left
// alone.
func CleanStale() (removed []string, err error) {
	jfd, err := openJournal(false)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("partial dump journal: %w", err)
	}
	defer unix.Close(jfd)
	names, err := readDirFD(jfd)
	if err != nil {
		return nil, fmt.Errorf("partial dump journal: %w", err)
	}
	boot := bootID()
	var errs []error
	for _, name := range names {
		if !strings.HasPrefix(name, "dump-") {
			continue
		}
		b, err := readNote(jfd, name)
		if errors.Is(err, errNotANote) {
			continue // not this package's: left alone
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var n note
		if err := json.Unmarshal(b, &n); err != nil || !filepath.IsAbs(n.Path) || (n.Kind != "file" && n.Kind != "dir") || len(n.Dirs) == 0 {
			unix.Unlinkat(jfd, name, 0) // not a note this package wrote (or an older one, without its way)
			continue
		}
		if n.Boot == boot && (n.Writer.alive() && n.writing() || n.Maker != nil && n.Maker.alive()) {
			continue
		}
		ok, err := n.remove()
		if err != nil {
			errs = append(errs, err)
			continue // tried again at the next start
		}
		if ok {
			removed = append(removed, n.Path)
		}
		unix.Unlinkat(jfd, name, 0)
	}
	return removed, errors.Join(errs...)
}

// readDirFD lists a directory through its descriptor.
func readDirFD(fd int) ([]string, error) {
	dup, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	d := os.NewFile(uintptr(dup), ".")
	defer d.Close()
	return d.Readdirnames(-1)
}

// errNotANote: a journal entry that is not a regular file of this user.
var errNotANote = errors.New("not a note")

// readNote reads a note of the journal (jfd) without following a symlink;
// it must be a regular file of this user.
func readNote(jfd int, name string) ([]byte, error) {
	fd, err := unix.Openat(jfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, errNotANote
	}
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() {
		return nil, errNotANote
	}
	b := make([]byte, maxNote)
	n, _ := io.ReadFull(f, b)
	return b[:n], nil
}

// remove removes the entry the note names, if it is still the one
// created; removed is false when it is gone already or is not that entry.
func (n note) remove() (removed bool, err error) {
	dirfd, err := openRecordedDir(filepath.Dir(n.Path), n.Dirs)
	if err != nil {
		return false, nil // its directory is gone, moved, replaced or reached through a symlink
	}
	defer unix.Close(dirfd)
	base := filepath.Base(n.Path)
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return false, nil // gone
	}
	want := uint32(unix.S_IFREG)
	if n.Kind == "dir" {
		want = unix.S_IFDIR
	}
	if st.Mode&unix.S_IFMT != want || st.Dev != n.Dev || st.Ino != n.Ino || int(st.Uid) != n.UID ||
		n.Kind == "file" && int(st.Uid) != os.Geteuid() {
		return false, nil // not the entry created: left alone
	}
	if n.Kind == "file" {
		if err := unix.Unlinkat(dirfd, base, 0); err != nil {
			return false, fmt.Errorf("removing the partial dump %s: %w", n.Path, err)
		}
		return true, nil
	}
	fd, err := unix.Openat(dirfd, base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, nil
	}
	d := os.NewFile(uintptr(fd), n.Path)
	names, _ := d.Readdirnames(-1)
	for _, e := range names {
		// unlinkat removes a symlink itself, never its target.
		if unix.Unlinkat(fd, e, 0) != nil {
			unix.Unlinkat(fd, e, unix.AT_REMOVEDIR)
		}
	}
	d.Close()
	if err := unix.Unlinkat(dirfd, base, unix.AT_REMOVEDIR); err != nil {
		return false, fmt.Errorf("removing the partial dump's directory %s: %w", n.Path, err)
	}
	return true, nil
}

// openRecordedDir opens an absolute directory path component by
// component, refusing a symlink anywhere on it, and checks every directory
// opened (fstat on its descriptor: a rename in between changes nothing)
// against the one the note recorded there: same device, inode and owner.
func openRecordedDir(path string, want []dirID) (int, error) {
	cs := []string{""}
	if p := strings.Trim(filepath.Clean(path), "/"); p != "" {
		cs = append(cs, strings.Split(p, "/")...)
	}
	if len(cs) != len(want) {
		return -1, errors.New("the note's directories do not match its path")
	}
	fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	for i, c := range cs {
		if c != "" {
			next, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			unix.Close(fd)
			if err != nil {
				return -1, err
			}
			fd = next
		}
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return -1, err
		}
		if st.Dev != want[i].Dev || st.Ino != want[i].Ino || int(st.Uid) != want[i].UID {
			unix.Close(fd)
			return -1, fmt.Errorf("a directory on the way to %s is not the one recorded", path)
		}
	}
	return fd, nil
}

// procOf names process pid, if it runs.
func procOf(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	// pid (comm) state ...: comm may hold anything, so fields start after
	// the last ')'; the start time is field 22, the 20th after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return proc{}, false
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return proc{}, false
	}
	return proc{PID: pid, Start: start}, true
}

// alive reports whether the process still runs (the same one: same start).
func (p proc) alive() bool {
	q, ok := procOf(p.PID)
	return ok && q.Start == p.Start
}

// writing reports whether the live writer may still be writing the dump:
// always for a file (its writer is the process that noted it); for a VM's
// directory, while the VM holds a file in it open.
func (n note) writing() bool {
	if n.Kind != "dir" {
		return true
	}
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(n.Writer.PID) + "/fd")
	if err != nil {
		return true // cannot tell: keep it
	}
	prefix := n.VMPath + "/"
	for _, fd := range fds {
		l, err := os.Readlink("/proc/" + strconv.Itoa(n.Writer.PID) + "/fd/" + fd.Name())
		if err == nil && (strings.HasPrefix(l, prefix) || strings.HasPrefix(l, n.Path+"/")) {
			return true
		}
	}
	return false
}

// bootID tells boots apart (pids and start times repeat across them).
func bootID() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
}

// drop removes the note from the journal, reached as when it was written.
func (n Note) drop() {
	if jfd, err := openJournal(false); err == nil {
		unix.Unlinkat(jfd, n.name, 0)
		unix.Close(jfd)
	}
}
