package access

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// PeerUID finds the user owning the other end of a loopback TCP connection
// accepted here: the kernel's socket table (/proc/net/tcp and tcp6) lists
// the peer's socket, whose local address is c's remote one, with its uid.
func PeerUID(c net.Conn) (int, error) {
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return -1, fmt.Errorf("not a TCP connection")
	}
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		uid, err := findSocketUID(table, remote, local)
		if err == nil {
			return uid, nil
		}
		if !errors.Is(err, ErrNoSocket) {
			return -1, err
		}
	}
	return -1, fmt.Errorf("the peer's socket %s→%s is not in the kernel's socket table: %w", remote, local, ErrNoSocket)
}

// findSocketUID scans one socket table for a live socket from local to
// remote and returns its owner.
func findSocketUID(table string, local, remote *net.TCPAddr) (int, error) {
	f, err := os.Open(table)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return -1, ErrNoSocket
		}
		return -1, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		uid, ok := matchSocketLine(sc.Text(), local, remote)
		if ok {
			return uid, nil
		}
	}
	if err := sc.Err(); err != nil {
		return -1, fmt.Errorf("%s: %w", table, err)
	}
	return -1, ErrNoSocket
}

// matchSocketLine reads one line of /proc/net/tcp{,6}:
//
//	sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
//
// and returns its uid if it is a socket from local to remote that a process
// still holds (a socket in TIME_WAIT has no inode and shows uid 0).
func matchSocketLine(line string, local, remote *net.TCPAddr) (int, bool) {
	f := strings.Fields(line)
	if len(f) < 10 || f[9] == "0" {
		return -1, false
	}
	la, ok1 := parseProcAddr(f[1])
	ra, ok2 := parseProcAddr(f[2])
	if !ok1 || !ok2 || !sameAddr(la, local) || !sameAddr(ra, remote) {
		return -1, false
	}
	uid, err := strconv.Atoi(f[7])
	if err != nil {
		return -1, false
	}
	return uid, true
}

func sameAddr(a, b *net.TCPAddr) bool { return a.Port == b.Port && a.IP.Equal(b.IP) }

// parseProcAddr decodes "0100007F:1F90": the address as the kernel's
// 32-bit words printed in host byte order, then the port.
func parseProcAddr(s string) (*net.TCPAddr, bool) {
	h, p, ok := strings.Cut(s, ":")
	if !ok || (len(h) != 8 && len(h) != 32) {
		return nil, false
	}
	raw, err := hex.DecodeString(h)
	if err != nil {
		return nil, false
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return nil, false
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	return &net.TCPAddr{IP: ip, Port: int(port)}, true
}

// ListenerUID finds the user owning the listening socket a connection made
// from here to addr reached: the kernel's socket table lists it in state
// LISTEN (0A) at addr's port, bound to addr's IP or else to any address (on
// IPv6, "::" takes IPv4 too); a socket bound to the IP itself is the one
// the kernel picks over a wildcard one.
func ListenerUID(addr *net.TCPAddr) (int, error) {
	exact, wild := -1, -1
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		f, err := os.Open(table)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return -1, err
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the header
		for sc.Scan() {
			uid, specific, ok := matchListenLine(sc.Text(), addr)
			switch {
			case !ok:
			case specific && exact < 0:
				exact = uid
			case !specific && wild < 0:
				wild = uid
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return -1, fmt.Errorf("%s: %w", table, err)
		}
	}
	switch {
	case exact >= 0:
		return exact, nil
	case wild >= 0:
		return wild, nil
	}
	return -1, fmt.Errorf("no listening socket at %s in the kernel's socket table: %w", addr, ErrNoSocket)
}

// matchListenLine reads one line of /proc/net/tcp{,6} (see matchSocketLine)
// and returns its uid if it is a socket listening where addr leads, and
// whether it is bound to addr's IP itself rather than to any address.
func matchListenLine(line string, addr *net.TCPAddr) (uid int, specific, ok bool) {
	f := strings.Fields(line)
	if len(f) < 10 || f[3] != "0A" {
		return -1, false, false
	}
	la, ok := parseProcAddr(f[1])
	if !ok || la.Port != addr.Port {
		return -1, false, false
	}
	specific = la.IP.Equal(addr.IP)
	if !specific && !la.IP.IsUnspecified() {
		return -1, false, false
	}
	uid, err := strconv.Atoi(f[7])
	if err != nil {
		return -1, false, false
	}
	return uid, specific, true
}
