package hostproc

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// ErrPeerGone: the peer's socket left the kernel's table before it was
// checked (it closed the connection at once).
var ErrPeerGone = errors.New("the peer closed the connection before it could be checked")

// PeerSocket finds the socket at the other end of a loopback TCP
// connection accepted here, in the kernel's socket table: its owner's uid
// and its inode (what a process's fd links to, "socket:[INODE]").
func PeerSocket(nc net.Conn) (uid int, inode string, err error) {
	local, ok1 := nc.LocalAddr().(*net.TCPAddr)
	remote, ok2 := nc.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 || !remote.IP.IsLoopback() {
		return -1, "", fmt.Errorf("%s is not a loopback TCP connection", nc.RemoteAddr())
	}
	uid, inode, err = SocketBetween(remote, local)
	if errors.Is(err, ErrNoSocket) {
		return -1, "", fmt.Errorf("the socket %s→%s is not in the kernel's socket table: %w", remote, local, ErrPeerGone)
	}
	return uid, inode, err
}

// CheckLaunched says whether the peer of nc, a loopback connection
// accepted here, is the process pid started (pid itself or one of its
// descendants, as a wrapper script's java is) and runs as this process's
// user. With pid 0 (a terminal that did not say) only the user is
// checked. The error says who connected instead.
func CheckLaunched(nc net.Conn, pid int) error {
	uid, inode, err := PeerSocket(nc)
	if err != nil {
		return err
	}
	if uid != os.Getuid() {
		return fmt.Errorf("uid %d is not this user (uid %d)", uid, os.Getuid())
	}
	if pid <= 0 {
		return nil
	}
	target := "socket:[" + inode + "]"
	if holds(pid, target) {
		return nil
	}
	owner := socketOwner(target)
	if owner == 0 {
		return fmt.Errorf("no process holds the peer's socket (pid %d was expected): %w", pid, ErrPeerGone)
	}
	if descends(owner, pid) {
		return nil
	}
	return fmt.Errorf("pid %d is not the launched process (pid %d) nor one of its children", owner, pid)
}

// holds says whether process pid has an fd linking to target.
func holds(pid int, target string) bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if l, err := os.Readlink(dir + "/" + fd.Name()); err == nil && l == target {
			return true
		}
	}
	return false
}

// descends says whether process p is a descendant of ancestor.
func descends(p, ancestor int) bool {
	for range 64 { // a chain longer than that is no launcher's
		pp := ppid(p)
		if pp <= 1 {
			return false
		}
		if pp == ancestor {
			return true
		}
		p = pp
	}
	return false
}

// ppid is the parent of process pid (0 when unknown).
func ppid(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	fs := strings.Fields(s[i+1:])
	if len(fs) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(fs[1])
	return n
}
