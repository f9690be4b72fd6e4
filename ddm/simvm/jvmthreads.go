package simvm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/jdwp"
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
	var tasks []task
	if s.vm.jvmPID != 0 {
		tasks = readTasks(s.vm.jvmPID)
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
	all, err := s.query(setVM, cmdAllThreads, nil)
	if err != nil {
		return nil, fmt.Errorf("AllThreads: %w", err)
	}
	oid := s.jvmOID
	if len(all) < 4 || uint64(len(all)-4) < uint64(binary.BigEndian.Uint32(all))*uint64(oid) {
		return nil, fmt.Errorf("AllThreads: short reply (%d bytes)", len(all))
	}
	n := int(binary.BigEndian.Uint32(all))
	cmds := make([]jdwp.Packet, 0, 2*n)
	for i := range n {
		raw := all[4+i*oid : 4+(i+1)*oid]
		cmds = append(cmds, jdwp.Packet{CmdSet: setThread, Cmd: cmdThreadName, Data: raw}, jdwp.Packet{CmdSet: setThread, Cmd: cmdThreadStatus, Data: raw})
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
		for _, b := range all[4+i*oid : 4+(i+1)*oid] {
			id = id<<8 | uint64(b)
		}
		out = append(out, jvmThread{
			jdwpID:    id,
			name:      string(name.Data[4 : 4+binary.BigEndian.Uint32(name.Data)]),
			status:    ddmThreadState(jdwp.ThreadStatus(binary.BigEndian.Uint32(st.Data))),
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

// ddmThreadState maps ThreadReference.Status to a DDM state. All fall in
// 0–4, the range of both profiles; JDWP cannot tell NATIVE or VMWAIT.
func ddmThreadState(st jdwp.ThreadStatus) ddm.ThreadState {
	switch st {
	case jdwp.ThreadZombie:
		return ddm.ThreadZombie
	case jdwp.ThreadSleeping:
		return ddm.ThreadTimedWait
	case jdwp.ThreadMonitor:
		return ddm.ThreadMonitor
	case jdwp.ThreadWait:
		return ddm.ThreadWait
	}
	return ddm.ThreadRunning
}

// syncJVMThreadsLocked makes the VM's threads the JVM's: a thread keeps its
// id while its JDWP thread id lives, a new one takes the next id, and the
// sessions that enabled thread events hear of each birth, death and rename.
// initial starts a fresh table and tells no one: a new JDWP connection has
// new thread ids.
func (vm *VM) syncJVMThreadsLocked(jts []jvmThread, tasks []task, initial bool) {
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

// task is one native thread of the JVM process.
type task struct {
	tid          uint32
	comm         string
	utime, stime uint32 // clock ticks, THST's unit
}

// readTasks lists a process's native threads by tid from /proc/PID/task;
// nil where that does not exist (not Linux, or no such process).
func readTasks(pid uint32) []task {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	tasks := make([]task, 0, len(ents))
	for _, e := range ents {
		tid, err := strconv.ParseUint(e.Name(), 10, 32)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(dir + "/" + e.Name() + "/stat")
		if err != nil {
			continue // ended meanwhile
		}
		if t, ok := parseStat(string(b)); ok {
			t.tid = uint32(tid)
			tasks = append(tasks, t)
		}
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].tid < tasks[j].tid })
	return tasks
}

// parseStat reads comm, utime and stime from a /proc stat line,
// "tid (comm) state ppid …": comm may hold spaces and parentheses, so it ends
// at the last ')'; utime and stime are fields 14 and 15, the 12th and 13th
// after it.
func parseStat(s string) (task, bool) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return task{}, false
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 13 {
		return task{}, false
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return task{}, false
	}
	return task{comm: s[open+1 : end], utime: uint32(ut), stime: uint32(st)}, true
}

// commLen is the length of a Linux thread name: 16 bytes with the NUL.
const commLen = 15

// matchTasks gives each thread (sorted by id) its native thread's tid and
// CPU times. HotSpot names the native thread of each thread it starts after
// the Java name, cut to 15 bytes. The Java main thread is the launcher's and
// keeps the process's name (the primordial thread's), as does the thread
// the launcher attaches as DestroyJavaVM once main returns; the primordial
// thread (tid == pid) itself only waits and is no Java thread. A thread keeps
// last tick's native thread while its name still fits; the others take the
// free ones of their name in tid order. A thread without one gets tid 0 and
// no CPU time, as do all when no thread matches by its own name (then pid is
// not this JVM's).
func matchTasks(ts []*thread, tasks []task, pid uint32) {
	var procComm string
	byTID := make(map[uint32]task, len(tasks))
	byComm := map[string][]task{}
	for _, k := range tasks {
		if k.tid == pid {
			procComm = k.comm
			continue
		}
		byTID[k.tid] = k
		byComm[k.comm] = append(byComm[k.comm], k)
	}
	names := func(t *thread) []string {
		n := t.name
		if len(n) > commLen {
			n = n[:commLen]
		}
		if (t.name == "main" || t.name == "DestroyJavaVM") && procComm != "" {
			return []string{n, procComm}
		}
		return []string{n}
	}
	taken := map[uint32]bool{}
	var pending []*thread
	for _, t := range ts {
		k, ok := byTID[t.tid]
		if ok && t.tid != 0 && slices.Contains(names(t), k.comm) {
			taken[k.tid] = true
			t.utime, t.stime = k.utime, k.stime
			continue
		}
		t.tid, t.utime, t.stime = 0, 0, 0
		pending = append(pending, t)
	}
	for _, t := range pending {
	find:
		for _, n := range names(t) {
			for _, k := range byComm[n] {
				if !taken[k.tid] {
					taken[k.tid] = true
					t.tid, t.utime, t.stime = k.tid, k.utime, k.stime
					break find
				}
			}
		}
	}
	own := false
	for _, t := range ts {
		if k, ok := byTID[t.tid]; ok && k.comm == names(t)[0] {
			own = true
			break
		}
	}
	if !own {
		for _, t := range ts {
			t.tid, t.utime, t.stime = 0, 0, 0
		}
	}
}
