//go:build !linux

package hotspot

import (
	"context"
	"errors"
	"io"
)

var errUnsupported = errors.New("hotspot: attaching to a HotSpot VM is implemented on Linux only")

// Execute runs one attach command; only on Linux.
func Execute(ctx context.Context, pid int, cmd string, args ...string) (string, error) {
	return "", errUnsupported
}

// DumpHeap asks a local HotSpot VM for a heap dump; only on Linux.
func DumpHeap(ctx context.Context, pid int, live bool) ([]byte, error) { return nil, errUnsupported }

// DumpHeapTo asks a local HotSpot VM for a heap dump; only on Linux.
func DumpHeapTo(ctx context.Context, pid int, live bool, w io.Writer) (int64, error) {
	return 0, errUnsupported
}

// ThreadDump asks a local HotSpot VM for a JSON thread dump; only on Linux.
func ThreadDump(ctx context.Context, pid int) (*Dump, error) { return nil, errUnsupported }
