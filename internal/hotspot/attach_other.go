//go:build !linux

package hotspot

import (
	"context"
	"errors"
)

var errUnsupported = errors.New("hotspot: attaching to a HotSpot VM is implemented on Linux only")

// Execute runs one attach command; only on Linux.
func Execute(ctx context.Context, pid int, cmd string, args ...string) (string, error) {
	return "", errUnsupported
}

// DumpHeap asks a local HotSpot VM for a heap dump; only on Linux.
func DumpHeap(ctx context.Context, pid int, live bool) ([]byte, error) { return nil, errUnsupported }
