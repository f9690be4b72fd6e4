package hotspot

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ddmbridge/ddmbridge/internal/dumpfile"
)

// proc describes the target as seen from here.
type proc struct {
	pid      int    // in our pid namespace
	nspid    int    // in the VM's own namespace (equal outside containers)
	root     string // /proc/PID/root: the VM's file system
	uid, gid int    // the VM's effective ids
}

func lookup(pid int) (proc, error) {
	p := proc{pid: pid, nspid: pid, root: fmt.Sprintf("/proc/%d/root", pid), uid: -1, gid: -1}
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return p, fmt.Errorf("hotspot: process %d: %w", pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		fields := strings.Fields(v)
		switch {
		case k == "NSpid" && len(fields) > 0:
			if n, err := strconv.Atoi(fields[len(fields)-1]); err == nil {
				p.nspid = n
			}
		case k == "Uid" && len(fields) > 1:
			p.uid, _ = strconv.Atoi(fields[1])
		case k == "Gid" && len(fields) > 1:
			p.gid, _ = strconv.Atoi(fields[1])
		}
	}
	if _, err := os.Stat(p.root + "/tmp"); err != nil {
		p.root = "" // no access to its root (another user, no CAP_SYS_PTRACE): assume our own
	}
	return p, nil
}

// tmp is the VM's /tmp as a path here.
func (p proc) tmp() string { return p.root + "/tmp" }

func (p proc) socketPath() string { return filepath.Join(p.tmp(), fmt.Sprintf(".java_pid%d", p.nspid)) }

// Execute runs one attach command on the local HotSpot VM with pid and
// returns its output. It starts the VM's attach listener if needed.
func Execute(ctx context.Context, pid int, cmd string, args ...string) (string, error) {
	req, err := request(cmd, args...)
	if err != nil {
		return "", err
	}
	p, err := lookup(pid)
	if err != nil {
		return "", err
	}
	conn, err := connect(ctx, p)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := conn.Write(req); err != nil {
		return "", fmt.Errorf("hotspot: sending %s to VM %d: %w", cmd, pid, err)
	}
	out, err := response(conn)
	if err != nil && ctx.Err() != nil {
		return out, fmt.Errorf("hotspot: %s on VM %d: %w", cmd, pid, ctx.Err())
	}
	return out, err
}

// connect dials the VM's attach socket, starting the listener first if the
// socket is not there, and checks that the VM's user is at the other end.
func connect(ctx context.Context, p proc) (net.Conn, error) {
	sock := p.socketPath()
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		if err := startListener(ctx, p); err != nil {
			return nil, err
		}
		if c, err = d.DialContext(ctx, "unix", sock); err != nil {
			return nil, fmt.Errorf("hotspot: VM %d: %w — does the monitor run as the VM's user (or root)?", p.pid, err)
		}
	}
	if err := checkPeer(c, p); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// checkPeer makes sure the socket's other end runs as the VM's user, as
// the JDK's own client checks the socket file's owner: another local user
// could have put a socket of theirs at /tmp/.java_pid<PID>.
func checkPeer(c net.Conn, p proc) error {
	uc, ok := c.(*net.UnixConn)
	if !ok || p.uid < 0 {
		return nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return fmt.Errorf("hotspot: VM %d: %w", p.pid, err)
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil {
		return fmt.Errorf("hotspot: VM %d: %w", p.pid, err)
	}
	if cerr != nil {
		return fmt.Errorf("hotspot: VM %d: who listens at %s: %w", p.pid, p.socketPath(), cerr)
	}
	if int(cred.Uid) != p.uid {
		return fmt.Errorf("hotspot: VM %d runs as uid %d, but uid %d listens at %s: refusing to talk to it (another user's socket?)", p.pid, p.uid, cred.Uid, p.socketPath())
	}
	return nil
}

// attachFile is the .attach_pid<PID> file the monitor created; it is
// removed through its directory's descriptor, so only that file, and also
// after the VM (and its /proc entry) is gone.
type attachFile struct {
	dir  *os.File
	name string
	made unix.Stat_t // as created: another file put in its place stays
}

// createAttachFile creates name in dir new (O_EXCL), not through a symlink
// (O_NOFOLLOW), owned by the monitor and readable by it alone: HotSpot starts
// its listener for an attach file owned by its own user or by root, so a root
// monitor hands nothing to the VM's user — it never chowns a path in another
// user's directory, which that user could have made a symlink or a hard link
// to any file.
func createAttachFile(dir, name string) (*attachFile, error) {
	d, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	fd, err := unix.Openat(int(d.Fd()), name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		d.Close()
		if errors.Is(err, unix.EEXIST) {
			return nil, fmt.Errorf("%s exists and was not made by the monitor: left alone", filepath.Join(dir, name))
		}
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
	}
	af := &attachFile{dir: d, name: name}
	err = unix.Fstat(fd, &af.made)
	unix.Close(fd)
	if err != nil {
		af.remove()
		return nil, err
	}
	return af, nil
}

// remove removes the attach file if it is still the one created.
func (af *attachFile) remove() {
	defer af.dir.Close()
	var st unix.Stat_t
	if unix.Fstatat(int(af.dir.Fd()), af.name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Dev == af.made.Dev && st.Ino == af.made.Ino {
		unix.Unlinkat(int(af.dir.Fd()), af.name, 0)
	}
}

// startListener creates .attach_pid<PID> (in the VM's working directory, or
// its /tmp), sends SIGQUIT and waits for the socket.
func startListener(ctx context.Context, p proc) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultAttachTimeout)
		defer cancel()
	}
	name := fmt.Sprintf(".attach_pid%d", p.nspid)
	var af *attachFile
	var why []string
	for _, dir := range []string{fmt.Sprintf("/proc/%d/cwd", p.pid), p.tmp()} {
		f, err := createAttachFile(dir, name)
		if err == nil {
			af = f
			break
		}
		why = append(why, err.Error())
	}
	if af == nil {
		return fmt.Errorf("hotspot: VM %d: cannot create %s in its working directory or /tmp: %s", p.pid, name, strings.Join(why, "; "))
	}
	defer af.remove()
	// A socket already there with no listener is stale: left by an earlier
	// VM with the same pid that did not exit cleanly. The VM's listener
	// binds a new one in its place (a new inode): wait for that one.
	sock := p.socketPath()
	stale := uint64(0)
	if fi, err := os.Lstat(sock); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			stale = st.Ino
		}
	}
	if err := syscall.Kill(p.pid, syscall.SIGQUIT); err != nil {
		return fmt.Errorf("hotspot: signalling VM %d: %w", p.pid, err)
	}
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		if fi, err := os.Lstat(sock); err == nil && fi.Mode()&os.ModeSocket != 0 {
			if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Ino != stale {
				return nil
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("hotspot: VM %d opened no attach socket (%s) after SIGQUIT: %w — is it a HotSpot VM without -XX:+DisableAttachMechanism, run by the monitor's user?", p.pid, sock, ctx.Err())
		case <-t.C:
		}
	}
}

// dumpDir is the private directory a dump is written to: made by the
// monitor in the VM's /tmp, handed to the VM's user through its descriptor
// (fchown: never a path), and removed through the descriptor of the VM's
// /tmp, so it goes also when the VM dies mid-dump (its /proc/PID/root then
// resolves to nothing).
type dumpDir struct {
	tmp  *os.File // the VM's /tmp
	dir  *os.File
	name string
	path string        // as the VM sees it
	note dumpfile.Note // in the journal of partial dumps until removed
}

func makeDumpDir(p proc) (*dumpDir, error) {
	tmp, err := os.OpenFile(p.tmp(), os.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("hotspot: the VM's /tmp: %w", err)
	}
	for range 100 {
		name := fmt.Sprintf("ddmbridge-heap-%d-%d", p.nspid, rand.Uint64())
		err := unix.Mkdirat(int(tmp.Fd()), name, 0o700)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			tmp.Close()
			return nil, fmt.Errorf("hotspot: a directory for the dump in %s: %w", p.tmp(), err)
		}
		fd, err := unix.Openat(int(tmp.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			unix.Unlinkat(int(tmp.Fd()), name, unix.AT_REMOVEDIR)
			tmp.Close()
			return nil, fmt.Errorf("hotspot: a directory for the dump in %s: %w", p.tmp(), err)
		}
		d := &dumpDir{tmp: tmp, dir: os.NewFile(uintptr(fd), name), name: name, path: "/tmp/" + name}
		if os.Geteuid() == 0 && p.uid > 0 {
			if err := unix.Fchown(fd, p.uid, p.gid); err != nil {
				d.remove()
				return nil, fmt.Errorf("hotspot: handing the dump directory to uid %d: %w", p.uid, err)
			}
		}
		if sameRoot(p) { // a monitor killed mid-dump: the next one removes it
			d.note = dumpfile.NoteDir(d.dir, "/tmp/"+name, p.pid, d.path)
		}
		return d, nil
	}
	tmp.Close()
	return nil, fmt.Errorf("hotspot: no free directory name for the dump in %s", p.tmp())
}

// open opens the dump the VM wrote: a regular file, not a symlink the VM's
// user put there, owned by that user.
func (d *dumpDir) open(name string, uid int) (*os.File, error) {
	fd, err := unix.Openat(int(d.dir.Fd()), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), d.path+"/"+name)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || uid >= 0 && int(st.Uid) != uid {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file of uid %d (mode %#o, uid %d)", f.Name(), uid, st.Mode, st.Uid)
	}
	return f, nil
}

// remove empties and removes the directory; the entries are unlinked by
// name through its descriptor, nothing is followed.
func (d *dumpDir) remove() {
	if names, err := d.dir.Readdirnames(-1); err == nil {
		for _, n := range names {
			if unix.Unlinkat(int(d.dir.Fd()), n, 0) != nil {
				unix.Unlinkat(int(d.dir.Fd()), n, unix.AT_REMOVEDIR)
			}
		}
	}
	d.dir.Close()
	unix.Unlinkat(int(d.tmp.Fd()), d.name, unix.AT_REMOVEDIR)
	d.tmp.Close()
	d.note.Done()
}

// sameRoot reports whether the VM sees this process's file system (not a
// container's): its /tmp is then /tmp here too.
func sameRoot(p proc) bool {
	var a, b unix.Stat_t
	return unix.Stat(p.root, &a) == nil && unix.Stat("/", &b) == nil && a.Dev == b.Dev && a.Ino == b.Ino
}

// DumpHeapTo makes the local HotSpot VM pid write an HPROF dump of its heap
// and copies it to w (the kernel copies when w is a file), returning the
// bytes copied. With live only reachable objects are dumped (the VM runs a
// full GC first), otherwise all ("-all"). The VM writes into a private
// directory made in its /tmp, handed to its user when the monitor runs as
// root; the directory and the dump in it are removed afterwards, also when
// the dump fails or the VM dies during it. What was written to w before a
// failure is the caller's to discard.
func DumpHeapTo(ctx context.Context, pid int, live bool, w io.Writer) (int64, error) {
	p, err := lookup(pid)
	if err != nil {
		return 0, err
	}
	d, err := makeDumpDir(p)
	if err != nil {
		return 0, err
	}
	defer d.remove()
	const file = "heap.hprof"
	opt := "-all"
	if live {
		opt = "-live"
	}
	out, err := Execute(ctx, pid, "dumpheap", d.path+"/"+file, opt)
	if err != nil {
		return 0, err
	}
	if !strings.Contains(out, "Heap dump file created") {
		return 0, fmt.Errorf("hotspot: VM %d: heap dump failed: %s", pid, strings.TrimSpace(out))
	}
	uid := p.uid
	if os.Geteuid() != 0 || p.uid <= 0 {
		uid = -1 // the VM's file, whoever the VM is
	}
	f, err := d.open(file, uid)
	if err != nil {
		return 0, fmt.Errorf("hotspot: VM %d wrote no heap dump (%s): %w", pid, strings.TrimSpace(out), err)
	}
	defer f.Close()
	// A file as w gets copy_file_range (os.File.ReadFrom): no copy here.
	n, err := io.Copy(w, f)
	return n, copyErr(pid, n, err)
}

// ThreadDump asks the local HotSpot VM pid for a JSON thread dump
// (Thread.dump_to_file -format=json, JDK 21 and later: the command is
// sent only after the VM's help lists it) and decodes it as it is read.
// The VM writes into a private directory made in its /tmp, removed
// afterwards.
func ThreadDump(ctx context.Context, pid int) (*Dump, error) {
	help, err := Execute(ctx, pid, "jcmd", "help")
	if err != nil {
		return nil, err
	}
	if !strings.Contains(help, "Thread.dump_to_file") {
		return nil, fmt.Errorf("hotspot: VM %d has no JSON thread dump (Thread.dump_to_file came with JDK 21): its virtual threads cannot be listed", pid)
	}
	p, err := lookup(pid)
	if err != nil {
		return nil, err
	}
	d, err := makeDumpDir(p)
	if err != nil {
		return nil, err
	}
	defer d.remove()
	const file = "threads.json"
	out, err := Execute(ctx, pid, "jcmd", "Thread.dump_to_file -format=json "+d.path+"/"+file)
	if err != nil {
		return nil, err
	}
	uid := p.uid
	if os.Geteuid() != 0 || p.uid <= 0 {
		uid = -1
	}
	f, err := d.open(file, uid)
	if err != nil {
		return nil, fmt.Errorf("hotspot: VM %d wrote no thread dump (%s): %w", pid, strings.TrimSpace(out), err)
	}
	defer f.Close()
	dump, err := DecodeThreadDump(f)
	if err != nil {
		return nil, fmt.Errorf("hotspot: VM %d's thread dump: %w", pid, err)
	}
	return dump, nil
}

func copyErr(pid int, n int64, err error) error {
	if err != nil {
		return fmt.Errorf("hotspot: copying VM %d's heap dump (%d bytes copied): %w", pid, n, err)
	}
	if n < 32 {
		return fmt.Errorf("hotspot: VM %d's heap dump is %d bytes long, too short for HPROF", pid, n)
	}
	return nil
}

// DumpHeap is DumpHeapTo into memory: it returns the dump's bytes. Dumps
// of any size should go to a file (DumpHeapTo) instead.
func DumpHeap(ctx context.Context, pid int, live bool) ([]byte, error) {
	var b bytes.Buffer
	if _, err := DumpHeapTo(ctx, pid, live, &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
