//go:build !linux

package access

import (
	"errors"
	"net"
)

// UnixPeerUID is not known here.
func UnixPeerUID(*net.UnixConn) (int, error) { return -1, errors.ErrUnsupported }
