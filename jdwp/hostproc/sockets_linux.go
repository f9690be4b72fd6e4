package hostproc

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

// Sockets calls f with each row of the kernel's TCP socket tables of this
// process's network namespace, IPv4's then IPv6's, until f returns false;
// a row it cannot read is passed over, a missing table too. The error is a
// table's that could not be read.
func Sockets(f func(Socket) bool) error {
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		if more, err := scanSockets(table, f); err != nil || !more {
			return err
		}
	}
	return nil
}

// scanSockets calls f with each row of one table; more is false when f
// asked to stop.
func scanSockets(table string, f func(Socket) bool) (more bool, err error) {
	fh, err := os.Open(table)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Scan() // the header
	for sc.Scan() {
		if s, ok := parseSocket(sc.Text()); ok && !f(s) {
			return false, nil
		}
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("%s: %w", table, err)
	}
	return true, nil
}

// parseSocket reads one row of /proc/net/tcp{,6}:
//
//	sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
func parseSocket(line string) (Socket, bool) {
	f := strings.Fields(line)
	if len(f) < 10 {
		return Socket{}, false
	}
	la, ok1 := procAddr(f[1])
	ra, ok2 := procAddr(f[2])
	uid, err := strconv.Atoi(f[7])
	if !ok1 || !ok2 || err != nil {
		return Socket{}, false
	}
	return Socket{Local: la, Remote: ra, Listening: f[3] == "0A", UID: uid, Inode: f[9]}, true
}

// SocketBetween finds the socket from local to remote that a process holds
// (one in TIME_WAIT is none) in the kernel's socket tables: its owner's uid
// and its inode; ErrNoSocket when there is none.
func SocketBetween(local, remote *net.TCPAddr) (uid int, inode string, err error) {
	found := false
	err = Sockets(func(s Socket) bool {
		if s.Inode == "0" || !sameTCPAddr(s.Local, local) || !sameTCPAddr(s.Remote, remote) {
			return true
		}
		uid, inode, found = s.UID, s.Inode, true
		return false
	})
	switch {
	case err != nil:
		return -1, "", err
	case !found:
		return -1, "", ErrNoSocket
	}
	return uid, inode, nil
}

func sameTCPAddr(a, b *net.TCPAddr) bool {
	return a.Port == b.Port && a.IP.Equal(b.IP)
}

// procAddr decodes "0100007F:1F90" of /proc/net/tcp: the address as the
// kernel's 32-bit words in host byte order, then the port.
func procAddr(s string) (*net.TCPAddr, bool) {
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
