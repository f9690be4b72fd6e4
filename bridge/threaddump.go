package bridge

import (
	"context"
	"fmt"
	"time"

	"github.com/ddmbridge/ddmbridge/internal/hotspot"
)

// ThreadDumpTimeout bounds a JSON thread dump (a VM with 100,000 virtual
// threads writes one in seconds).
const ThreadDumpTimeout = 2 * time.Minute

// VMThreadDump is the vm/threadDump result: a local HotSpot JDK 21+ VM's
// threads from its JSON thread dump, virtual threads grouped by stack.
type VMThreadDump struct {
	ID string `json:"id"`
	*hotspot.Dump
}

// ThreadDump asks a local HotSpot VM of JDK 21 or later for its JSON
// thread dump through the attach mechanism (no debugger needed): the
// platform threads, and the virtual threads grouped by identical stack
// with their counts, states, carriers and blockers.
func (v *VM) ThreadDump(ctx context.Context) (VMThreadDump, error) {
	v.mu.Lock()
	pid, hotSpot := v.pid, v.dc == nil && v.from.serial == ""
	v.mu.Unlock()
	if !hotSpot {
		return VMThreadDump{}, fmt.Errorf("VM %s is an Android VM: a JSON thread dump is HotSpot's (JDK 21 and later); its threads are vm/threads", v.id)
	}
	if pid <= 0 {
		return VMThreadDump{}, fmt.Errorf("VM %s: no local process found behind %s, so HotSpot's attach mechanism cannot reach it (a thread dump needs the VM on this host)", v.id, v.addr)
	}
	v.dumpMu.Lock()
	defer v.dumpMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, ThreadDumpTimeout)
	defer cancel()
	d, err := hotspot.ThreadDump(ctx, pid)
	if err != nil {
		return VMThreadDump{}, fmt.Errorf("VM %s (pid %d): %w", v.id, pid, err)
	}
	return VMThreadDump{ID: v.id, Dump: d}, nil
}
