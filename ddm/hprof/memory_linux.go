package hprof

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

func availableMemory() uint64 {
	var avail uint64
	take := func(v uint64) {
		if v > 0 && (avail == 0 || v < avail) {
			avail = v
		}
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
				if kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64); err == nil {
					take(kb << 10)
				}
			}
		}
		f.Close()
	}
	take(cgroupRoom())
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err == nil && rl.Cur != ^uint64(0) {
		take(rl.Cur)
	}
	return avail
}

// cgroupRoom is what the process's cgroup (v2) may still use: memory.max
// less memory.current; 0 without a limit.
func cgroupRoom() uint64 {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		path, ok := bytes.CutPrefix(line, []byte("0::"))
		if !ok {
			continue
		}
		dir := "/sys/fs/cgroup" + string(path)
		lim, err1 := readUint(dir + "/memory.max")
		cur, err2 := readUint(dir + "/memory.current")
		if err1 != nil || err2 != nil || lim == 0 {
			return 0
		}
		if cur >= lim {
			return 1 // full: nothing left (0 would read as "unknown")
		}
		return lim - cur
	}
	return 0
}

func readUint(name string) (uint64, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64) // "max" fails: no limit
}
