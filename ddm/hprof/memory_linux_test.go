package hprof

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestAvailableMemory: on Linux the figure is known, and no more than the
// machine's memory.
func TestAvailableMemory(t *testing.T) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	var total uint64
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			total = kb << 10
		}
	}
	got := AvailableMemory()
	if got == 0 || got > total {
		t.Errorf("AvailableMemory %d, MemTotal %d", got, total)
	}
	if MemoryNeeded(1<<30, true) <= MemoryNeeded(1<<30, false) || MemoryNeeded(1<<30, false) < 1<<30 {
		t.Error("MemoryNeeded: a dump takes at least its size, more with the dominator tree")
	}
}
