package ddm

import "github.com/ddmbridge/ddmbridge/jdwp"

// The one mapping between JDWP thread statuses (ThreadReference.Status) and
// DDM thread states. JDWP cannot tell NATIVE or VMWAIT apart from running or
// waiting, so a JDWP status always maps into 0–4, the range of both DDM
// profiles.

// ThreadStateFromJDWP returns the DDM state of a JDWP thread status.
func ThreadStateFromJDWP(st jdwp.ThreadStatus) ThreadState {
	switch st {
	case jdwp.ThreadZombie:
		return ThreadZombie
	case jdwp.ThreadSleeping:
		return ThreadTimedWait
	case jdwp.ThreadMonitor:
		return ThreadMonitor
	case jdwp.ThreadWait:
		return ThreadWait
	}
	return ThreadRunning
}

// JDWP returns the JDWP thread status closest to a DDM state.
func (s ThreadState) JDWP() jdwp.ThreadStatus {
	switch s {
	case ThreadZombie:
		return jdwp.ThreadZombie
	case ThreadTimedWait:
		return jdwp.ThreadSleeping
	case ThreadMonitor:
		return jdwp.ThreadMonitor
	case ThreadWait, ThreadVMWait:
		return jdwp.ThreadWait
	}
	return jdwp.ThreadRunning
}
