package hostproc

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Task is one native thread of a process.
type Task struct {
	TID          uint32
	Comm         string // its name, at most 15 bytes
	UTime, STime uint32 // user and system CPU time in clock ticks (1/100 s), THST's unit
}

// Read lists a process's native threads by tid from /proc/PID/task; nil
// where that does not exist (not Linux, or no such process).
func Read(pid uint32) []Task {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	tasks := make([]Task, 0, len(ents))
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
			t.TID = uint32(tid)
			tasks = append(tasks, t)
		}
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].TID < tasks[j].TID })
	return tasks
}

// parseStat reads comm, utime and stime from a /proc stat line,
// "tid (comm) state ppid …": comm may hold spaces and parentheses, so it ends
// at the last ')'; utime and stime are fields 14 and 15, the 12th and 13th
// after it.
func parseStat(s string) (Task, bool) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return Task{}, false
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 13 {
		return Task{}, false
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return Task{}, false
	}
	return Task{Comm: s[open+1 : end], UTime: uint32(ut), STime: uint32(st)}, true
}

// commLen is the length of a Linux thread name: 16 bytes with the NUL.
const commLen = 15

// Thread is one JVM thread to match: Name in; TID in (the last match, kept
// while it still fits) and out, with its CPU times.
type Thread struct {
	Name         string
	TID          uint32
	UTime, STime uint32
}

// Match gives each thread (in a stable order, e.g. by JDWP id) its native
// thread's tid and CPU times. HotSpot names the native thread of each thread
// it starts after the Java name, cut to 15 bytes. The Java main thread is the
// launcher's and keeps the process's name (the primordial thread's), as does
// the thread the launcher attaches as DestroyJavaVM once main returns; the
// primordial thread (tid == pid) itself only waits and is no Java thread. A
// thread keeps its last native thread while its name still fits; the others
// take the free ones of their name in tid order. A thread without one gets
// tid 0 and no CPU time, as do all when no thread matches by its own name
// (then pid is not this JVM's).
func Match(ts []*Thread, tasks []Task, pid uint32) {
	var procComm string
	byTID := make(map[uint32]Task, len(tasks))
	byComm := map[string][]Task{}
	for _, k := range tasks {
		if k.TID == pid {
			procComm = k.Comm
			continue
		}
		byTID[k.TID] = k
		byComm[k.Comm] = append(byComm[k.Comm], k)
	}
	names := func(t *Thread) []string {
		n := t.Name
		if len(n) > commLen {
			n = n[:commLen]
		}
		if (t.Name == "main" || t.Name == "DestroyJavaVM") && procComm != "" {
			return []string{n, procComm}
		}
		return []string{n}
	}
	taken := map[uint32]bool{}
	var pending []*Thread
	for _, t := range ts {
		k, ok := byTID[t.TID]
		if ok && t.TID != 0 && slices.Contains(names(t), k.Comm) {
			taken[k.TID] = true
			t.UTime, t.STime = k.UTime, k.STime
			continue
		}
		t.TID, t.UTime, t.STime = 0, 0, 0
		pending = append(pending, t)
	}
	for _, t := range pending {
	find:
		for _, n := range names(t) {
			for _, k := range byComm[n] {
				if !taken[k.TID] {
					taken[k.TID] = true
					t.TID, t.UTime, t.STime = k.TID, k.UTime, k.STime
					break find
				}
			}
		}
	}
	own := false
	for _, t := range ts {
		if k, ok := byTID[t.TID]; ok && k.Comm == names(t)[0] {
			own = true
			break
		}
	}
	if !own {
		for _, t := range ts {
			t.TID, t.UTime, t.STime = 0, 0, 0
		}
	}
}
