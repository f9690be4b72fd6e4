//go:build !linux

package hostproc

import "net"

// Peer is only implemented on Linux.
func Peer(net.Conn) (pid int, name string) { return 0, "" }

// CheckLaunched is only implemented on Linux: elsewhere any peer passes.
func CheckLaunched(net.Conn, int) error { return nil }
