package simvm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/hostproc"
)

// In passthrough mode the VM's threads are the JVM's: JDWP gives their names,
// states and suspension, /proc/PID/task their native tids and CPU times, as
// ART's own DDM agent reads them for its threads.

// jvmThread is one live JVM thread as JDWP reports it.
type jvmThread struct {
	jdwpID    uint64
	name      string
	status    ddm.ThreadState
	suspended bool
}

// followJVMThreads refreshes the VM's threads from the JVM every Tick while
// the JVM connection lives.
func (s *session) followJVMThreads() {
	defer s.bg.Done()
	tick := time.NewTicker(s.vm.opt.Tick)
	defer tick.Stop()
	for {
		select {
		case <-s.jvmDone:
			return
		case <-tick.C:
		}
		if _, err := s.refreshThreads(false); err != nil {
			s.log.Debug().Err(err).Msg("JVM threads not refreshed")
		}
	}
}

// refreshThreads reads the JVM's threads and makes them the VM's; initial
// starts a fresh table (see syncJVMThreadsLocked). It returns how many there
// are.
func (s *session) refreshThreads(initial bool) (int, error) {
	jts, err := s.readJVMThreads()
	if err != nil {
		return 0, err
	}
	var tasks []hostproc.Task
	if s.vm.jvmPID != 0 {
		tasks = hostproc.Read(s.vm.jvmPID)
	}
	s.vm.mu.Lock()
	defer s.vm.mu.Unlock()
	if s.jvmClosed {
		// Stale: the next session's connection may have other thread ids.
		return 0, errJVMGone
	}
	s.vm.syncJVMThreadsLocked(jts, tasks, initial)
	return len(jts), nil
}

// readJVMThreads lists the JVM's live threads: AllThreads, then every
// thread's Name (names change) and Status in one batch.
func (s *session) readJVMThreads() ([]jvmThread, error) {
	all, err := s.query(jdwp.CmdVMAllThreads, nil)
	if err != nil {
		return nil, fmt.Errorf("AllThreads: %w", err)
	}
	oid := s.jvmOID
	if len(all) < 4 || uint64(len(all)-4) < uint64(binary.BigEndian.Uint32(all))*uint64(oid) {
		return nil, fmt.Errorf("AllThreads: short reply (%d bytes)", len(all))
	}
	n := int(binary.BigEndian.Uint32(all))
	raws := make([][]byte, n) // the thread ids as sent
	cmds := make([]jdwp.Packet, 0, 2*n)
	for i := range n {
		raws[i] = all[4+i*oid : 4+(i+1)*oid]
		cmds = append(cmds, jdwp.Packet{CmdSet: jdwp.CmdThreadName.Set, Cmd: jdwp.CmdThreadName.Cmd, Data: raws[i]}, jdwp.Packet{CmdSet: jdwp.CmdThreadStatus.Set, Cmd: jdwp.CmdThreadStatus.Cmd, Data: raws[i]})
	}
	rs, err := s.queries(cmds)
	if err != nil {
		return nil, err
	}
	out := make([]jvmThread, 0, n)
	for i := range n {
		name, st := rs[2*i], rs[2*i+1]
		if err := firstErr(name.Error, st.Error); err != jdwp.ErrNone {
			if err == jdwp.ErrInvalidThread || err == jdwp.ErrInvalidObject {
				continue // ended since AllThreads
			}
			return nil, err
		}
		if len(name.Data) < 4 || int(binary.BigEndian.Uint32(name.Data)) > len(name.Data)-4 || len(st.Data) < 8 {
			return nil, errors.New("malformed ThreadReference reply")
		}
		var id uint64
		for _, b := range raws[i] {
			id = id<<8 | uint64(b)
		}
		out = append(out, jvmThread{
			jdwpID:    id,
			name:      string(name.Data[4 : 4+binary.BigEndian.Uint32(name.Data)]),
			status:    ddm.ThreadStateFromJDWP(jdwp.ThreadStatus(binary.BigEndian.Uint32(st.Data))),
			suspended: int32(binary.BigEndian.Uint32(st.Data[4:]))&jdwp.SuspendStatusSuspended != 0,
		})
	}
	return out, nil
}

// firstErr is the first error code that is not ErrNone.
func firstErr(a, b jdwp.ErrorCode) jdwp.ErrorCode {
	if a != jdwp.ErrNone {
		return a
	}
	return b
}

// syncJVMThreadsLocked makes the VM's threads the JVM's: a thread keeps its
// id while its JDWP thread id lives, a new one takes the next id, and the
// sessions that enabled thread events hear of each birth, death and rename.
// initial starts a fresh table and tells no one: a new JDWP connection has
// new thread ids.
func (vm *VM) syncJVMThreadsLocked(jts []jvmThread, tasks []hostproc.Task, initial bool) {
	if initial {
		vm.threads = map[uint32]*thread{}
		vm.nextTID = 0
	}
	old := make(map[uint64]*thread, len(vm.threads))
	for _, t := range vm.threads {
		old[t.jdwpID] = t
	}
	threads := make(map[uint32]*thread, len(jts))
	var born, renamed []*thread
	for _, j := range jts {
		t := old[j.jdwpID]
		switch {
		case t == nil:
			vm.nextTID++
			t = &thread{id: vm.nextTID, name: j.name, jdwpID: j.jdwpID}
			born = append(born, t)
		case t.name != j.name:
			t.name = j.name
			renamed = append(renamed, t)
		}
		delete(old, j.jdwpID)
		t.status, t.suspended = j.status, j.suspended
		threads[t.id] = t
	}
	vm.threads = threads
	matchTasks(sortedThreads(threads), tasks, vm.jvmPID)
	died := make(map[uint32]*thread, len(old))
	for _, t := range old {
		died[t.id] = t
	}
	for s := range vm.sessions {
		for _, t := range born {
			s.threadEvents(t, nil, nil)
		}
		for _, t := range renamed {
			s.threadEvents(nil, nil, t)
		}
		for _, t := range sortedThreads(died) {
			s.threadEvents(nil, t, nil)
		}
	}
}

// matchTasks gives the threads (sorted by id) their native threads' tids and
// CPU times (see hostproc.Match).
func matchTasks(ts []*thread, tasks []hostproc.Task, pid uint32) {
	pts := make([]*hostproc.Thread, len(ts))
	for i, t := range ts {
		pts[i] = &hostproc.Thread{Name: t.name, TID: t.tid}
	}
	hostproc.Match(pts, tasks, pid)
	for i, t := range ts {
		t.tid, t.utime, t.stime = pts[i].TID, pts[i].UTime, pts[i].STime
	}
}
