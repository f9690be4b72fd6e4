//go:build !linux

package bridge

import (
	"errors"
	"net"
)

// unixPeerUID is not known here.
func unixPeerUID(*net.UnixConn) (int, error) { return -1, errors.ErrUnsupported }
