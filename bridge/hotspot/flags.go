package hotspot

import (
	"context"
	"fmt"
	"strings"
)

// CompressedOops asks the local HotSpot VM pid whether it runs with
// compressed references (jcmd PID VM.flags over the attach mechanism), which
// decides the shallow sizes of its heap dump (hprof.Options.Oops). A VM that
// prints neither -XX:+UseCompressedOops nor -XX:-UseCompressedOops (a 32-bit
// VM) is an error.
func CompressedOops(ctx context.Context, pid int) (bool, error) {
	out, err := Execute(ctx, pid, "jcmd", "VM.flags")
	if err != nil {
		return false, err
	}
	return compressedOops(out, pid)
}

func compressedOops(flags string, pid int) (bool, error) {
	for _, f := range strings.Fields(flags) {
		switch f {
		case "-XX:+UseCompressedOops":
			return true, nil
		case "-XX:-UseCompressedOops":
			return false, nil
		}
	}
	return false, fmt.Errorf("hotspot: VM %d's flags name no UseCompressedOops: %.200q", pid, flags)
}
