package hostproc

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Peer finds the process at the other end of a loopback TCP
// connection (through /proc/net/tcp and the processes' socket fds) and what
// its java command line runs. Zero values when it cannot tell.
func Peer(nc net.Conn) (pid int, name string) {
	la, ok1 := nc.LocalAddr().(*net.TCPAddr)
	ra, ok2 := nc.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 || !ra.IP.IsLoopback() {
		return 0, ""
	}
	inode := ""
	// The first row between the two ports (even one no process holds: then
	// none is found).
	Sockets(func(s Socket) bool {
		if s.Local.Port == ra.Port && s.Remote.Port == la.Port {
			inode = s.Inode
			return false
		}
		return true
	})
	if inode == "" {
		return 0, ""
	}
	pid = socketOwner("socket:[" + inode + "]")
	if pid == 0 {
		return 0, ""
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err == nil {
		name = javaMain(strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"))
	}
	return pid, name
}

// socketOwner returns the pid holding an fd that links to target.
func socketOwner(target string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	self := os.Getpid()
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil || pid == self {
			continue
		}
		fds, err := os.ReadDir(p + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, err := os.Readlink(p + "/fd/" + fd.Name()); err == nil && l == target {
				return pid
			}
		}
	}
	return 0
}
