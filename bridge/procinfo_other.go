//go:build !linux

package bridge

import "net"

// localProcess is only implemented on Linux.
func localProcess(net.Conn) (pid int, name string) { return 0, "" }
