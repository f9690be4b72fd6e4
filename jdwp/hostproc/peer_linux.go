package hostproc

import (
	"bufio"
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
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if inode = socketInode(f, ra.Port, la.Port); inode != "" {
			break
		}
	}
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

// socketInode returns the inode of the socket whose local port is lport and
// remote port rport, from a /proc/net/tcp table.
func socketInode(table string, lport, rport int) string {
	f, err := os.Open(table)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 10 {
			continue
		}
		if hexPort(fs[1]) == lport && hexPort(fs[2]) == rport {
			return fs[9]
		}
	}
	return ""
}

func hexPort(addr string) int {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return -1
	}
	p, err := strconv.ParseUint(addr[i+1:], 16, 16)
	if err != nil {
		return -1
	}
	return int(p)
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
