//go:build !linux

package access

import (
	"errors"
	"net"
)

// PeerUID is unknown for TCP here: loopback peers are accepted.
func PeerUID(net.Conn) (int, error) { return -1, errors.ErrUnsupported }

// ListenerUID is unknown here: VMs are adopted whoever runs them.
func ListenerUID(*net.TCPAddr) (int, error) { return -1, errors.ErrUnsupported }
