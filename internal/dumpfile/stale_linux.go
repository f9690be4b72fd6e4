package dumpfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

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

// ensureJournal makes the journal directory (0700) and checks that it is
// this user's, private, and not a symlink; "" when it cannot be used.
func ensureJournal() string {
	dir := journalDir()
	if dir == "" {
		return ""
	}
	os.MkdirAll(dir, 0o700)
	if checkPrivateDir(dir) != nil {
		return ""
	}
	return dir
}

func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Geteuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s is not a private directory of this user", dir)
	}
	return nil
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
	dir := ensureJournal()
	if dir == "" || !filepath.IsAbs(n.Path) {
		return Note{}
	}
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil {
		return Note{}
	}
	n.Dev, n.Ino, n.UID, n.Boot = st.Dev, st.Ino, int(st.Uid), bootID()
	b, err := json.Marshal(n)
	if err != nil {
		return Note{}
	}
	j, err := os.CreateTemp(dir, "dump-*.json") // O_EXCL, 0600
	if err != nil {
		return Note{}
	}
	_, err = j.Write(b)
	if cerr := j.Close(); err != nil || cerr != nil {
		os.Remove(j.Name())
		return Note{}
	}
	return Note{name: j.Name()}
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
	dir := journalDir()
	if dir == "" {
		return nil, nil
	}
	if err := checkPrivateDir(dir); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("partial dump journal: %w", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("partial dump journal: %w", err)
	}
	boot := bootID()
	var errs []error
	for _, e := range ents {
		name := filepath.Join(dir, e.Name())
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), "dump-") {
			continue
		}
		b, err := readNote(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var n note
		if err := json.Unmarshal(b, &n); err != nil || !filepath.IsAbs(n.Path) || (n.Kind != "file" && n.Kind != "dir") {
			os.Remove(name) // not a note this package wrote
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
		os.Remove(name)
	}
	return removed, errors.Join(errs...)
}

func readNote(name string) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, maxNote)
	n, _ := f.Read(b)
	return b[:n], nil
}

// remove removes the entry the note names, if it is still the one
// created; removed is false when it is gone already or is not that entry.
func (n note) remove() (removed bool, err error) {
	dirfd, err := openDirNoFollow(filepath.Dir(n.Path))
	if err != nil {
		return false, nil // its directory is gone, moved or reached through a symlink
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

// openDirNoFollow opens an absolute directory path component by component,
// refusing a symlink anywhere on it.
func openDirNoFollow(path string) (int, error) {
	fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, c := range strings.Split(strings.Trim(filepath.Clean(path), "/"), "/") {
		if c == "" {
			continue
		}
		next, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
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
