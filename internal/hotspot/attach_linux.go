package hotspot

import (
	"bufio"
	"context"

	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
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
// socket is not there.
func connect(ctx context.Context, p proc) (net.Conn, error) {
	sock := p.socketPath()
	var d net.Dialer
	if c, err := d.DialContext(ctx, "unix", sock); err == nil {
		return c, nil
	}
	if err := startListener(ctx, p); err != nil {
		return nil, err
	}
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, fmt.Errorf("hotspot: VM %d: %w — does the monitor run as the VM's user (or root)?", p.pid, err)
	}
	return c, nil
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
	var file string
	for _, dir := range []string{fmt.Sprintf("/proc/%d/cwd", p.pid), p.tmp()} {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY, 0o660)
		if err != nil {
			continue
		}
		f.Close()
		file = filepath.Join(dir, name)
		break
	}
	if file == "" {
		return fmt.Errorf("hotspot: VM %d: cannot create %s in its working directory or /tmp", p.pid, name)
	}
	defer os.Remove(file)
	// HotSpot only trusts an attach file owned by its own user.
	if os.Geteuid() == 0 && p.uid > 0 {
		os.Chown(file, p.uid, p.gid)
	}
	if err := syscall.Kill(p.pid, syscall.SIGQUIT); err != nil {
		return fmt.Errorf("hotspot: signalling VM %d: %w", p.pid, err)
	}
	sock := p.socketPath()
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		if fi, err := os.Stat(sock); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return nil
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

// DumpHeap makes the local HotSpot VM pid write an HPROF dump of its heap
// and returns the file's bytes. With live only reachable objects are dumped
// (the VM runs a full GC first), otherwise all ("-all"). The VM writes into
// a private directory made in its /tmp, handed to its user when the monitor
// runs as root; the directory is removed afterwards.
func DumpHeap(ctx context.Context, pid int, live bool) ([]byte, error) {
	p, err := lookup(pid)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(p.tmp(), "ddmbridge-heap-")
	if err != nil {
		return nil, fmt.Errorf("hotspot: a directory for the dump: %w", err)
	}
	defer os.RemoveAll(dir)
	if os.Geteuid() == 0 && p.uid > 0 {
		os.Chown(dir, p.uid, p.gid)
	}
	local := filepath.Join(dir, "heap.hprof")
	vmPath := strings.TrimPrefix(local, p.root) // the same file as the VM sees it
	opt := "-all"
	if live {
		opt = "-live"
	}
	out, err := Execute(ctx, pid, "dumpheap", vmPath, opt)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(local)
	if err != nil {
		return nil, fmt.Errorf("hotspot: VM %d wrote no heap dump (%s): %w", pid, strings.TrimSpace(out), err)
	}
	if !strings.Contains(out, "Heap dump file created") || len(b) < 32 {
		return nil, fmt.Errorf("hotspot: VM %d: heap dump failed: %s", pid, strings.TrimSpace(out))
	}
	return b, nil
}
