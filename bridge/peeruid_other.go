//go:build !linux

package bridge

import (
	"errors"
	"net"
)

// peerUID is unknown for TCP here: loopback peers are accepted.
func peerUID(net.Conn) (int, error) { return -1, errors.ErrUnsupported }

// listenerUID is unknown here: VMs are adopted whoever runs them.
func listenerUID(*net.TCPAddr) (int, error) { return -1, errors.ErrUnsupported }
